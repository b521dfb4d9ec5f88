"""The benchmark scripts still run (their numbers are read by people, never asserted here)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_env_throughput_runs_and_prints_every_runner():
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "env_throughput.py"),
            "--games",
            "1",
            "--repetitions",
            "1",
            "--pettingzoo-games",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    for runner in ("python-chess", "ChessState", "Chess-v0", "PettingZoo chess_v6", "LosAlamos-v0", "make_vec"):
        assert runner in result.stdout


def test_demo_plays_a_game(tmp_path):
    svg = tmp_path / "final.svg"
    result = subprocess.run(
        [sys.executable, "-m", "chess_envs", "--every", "0", "--svg", str(svg)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert "game over:" in result.stdout and svg.read_text().startswith("<svg")


def test_perft_speed_runs_against_fairy_stockfish():
    if shutil.which("fairy-stockfish") is None and not Path("/usr/games/fairy-stockfish").exists():
        if os.environ.get("CI"):
            pytest.fail("CI must install fairy-stockfish (.ci/run does)")
        pytest.skip("fairy-stockfish is not installed (apt-get install fairy-stockfish)")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "perft_speed.py"),
            "--repetitions",
            "1",
            "--chess-depth",
            "2",
            "--native-depth",
            "3",
            "--los-alamos-depth",
            "3",
            "--four-player-depth",
            "1",
            "--four-player-native-depth",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "Fairy-Stockfish go perft" in result.stdout and "ours (native)" in result.stdout


def test_four_player_speed_runs():
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "four_player_speed.py"),
            "--repetitions",
            "1",
            "--chess-depth",
            "2",
            "--depth",
            "2",
            "--games",
            "1",
            "--max-plies",
            "40",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "FourPlayerChess-v0" in result.stdout and "perft ours, Teams start, bulk" in result.stdout


def test_agent_memory_runs_and_prints_peak_rss():
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "agent_memory.py"),
            "--los-alamos-games",
            "2",
            "--four-player-games",
            "4",
            "--sims",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "peak RSS: main process" in result.stdout and "largest worker" in result.stdout


def test_mcts_throughput_compares_native_and_python_search_for_every_game():
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "mcts_throughput.py"),
            "--games",
            "2",
            "--free-games",
            "2",
            "--one-leaf-games",
            "1",
            "--simulations",
            "8",
            "--repetitions",
            "1",
            "--blocks",
            "1",
            "--filters",
            "8",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    for row in ("los_alamos", "chess", "four_player", "native batched", "python one leaf", "in network"):
        assert row in result.stdout


def test_inference_speed_times_every_variant():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "inference_speed.py"), "--batches", "4", "--repetitions", "1",
         "--threads", "1", "--openvino"],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for game in ("los_alamos", "chess", "four_player"):
        assert f"{game} network" in result.stdout
    for variant in ("eager", "fused", "fused NHWC", "onnx", "onnx int8", "accuracy of onnx int8", "openvino f32"):
        assert variant in result.stdout


def test_mate_probe_measures_its_exchange_rate_and_the_solve_rates():
    command = [sys.executable, str(ROOT / "recipes" / "mate_probe.py"), "--positions", "2", "--sims", "8",
               "--puzzles", "3"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "one simulation takes as long as" in result.stdout and "chess.jsonl, probe 3: mate2" in result.stdout


def test_timed_search_counts_simulations_on_book_and_on_played_positions(tmp_path):
    out = tmp_path / "t"
    games = [sys.executable, "-m", "chess_envs.apps.arena_cli", "tournament", "--game", "four_player",
             "--agents", "random", "greedy", "--games-per-pair", "4", "--max-plies", "12", "--workers", "1",
             "--quiet", "--out", str(out)]  # fmt: skip
    assert subprocess.run(games, capture_output=True, timeout=300).returncode == 0
    script = [sys.executable, str(ROOT / "benchmarks" / "timed_search.py"), "--game", "four_player",
              "--seconds", "0.01", "--agents", "material-mcts", "alphazero:@four_player?material=0.5"]  # fmt: skip
    # 4 games of 12 plies, every 4th ply: 3 positions a game
    for extra, expected in ((["--positions", "3"], 3), (["--games", str(out / "games.jsonl"), "--every", "4"], 12)):
        result = subprocess.run([*script, *extra], capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"{expected} positions")
        assert result.stdout.count("simulations a move mean") == 2
    refused = subprocess.run([*script[:-2], "greedy"], capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0 and "greedy does not search" in refused.stderr


def test_quick_preset_trains_and_rates_against_greedy(tmp_path):
    command = [sys.executable, str(ROOT / "recipes" / "quick_preset.py"), "--seeds", "0", "--games", "2",
               "--sims", "2", "--runs", str(tmp_path), "--", "--minutes", "0.05"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "seed 0: trained" in result.stdout and "against greedy" in result.stdout


def test_learning_curve_trains_in_parts_rates_each_and_resumes(tmp_path):
    command = [sys.executable, str(ROOT / "recipes" / "learning_curve.py"), "--game", "los_alamos",
               "--runs-dir", str(tmp_path), "--points", "0.05", "0.2", "--games", "2", "--sims", "4",
               "--ladder-games", "2", "--", "--preset", "smoke", "--iterations", "0"]  # fmt: skip
    rating = tmp_path / "curve-los_alamos-rating"
    (rating / "0.05min").mkdir(parents=True)  # as a run stopped during this point's rating leaves it
    (rating / "0.05min" / "rating_seconds.json").write_text('{"rating_seconds": 600.0}')
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    anchors = next(line for line in result.stdout.splitlines() if line.startswith("anchors (Elo over greedy): "))
    assert "greedy +0" in anchors and "fairy-stockfish?depth=1 " in anchors  # sorted by Elo: 2 games may tie greedy
    rows = (rating / "curve.csv").read_text().splitlines()
    assert rows[0].startswith("point,training_minutes,training_cpu_minutes") and len(rows) == 3
    minutes = [float(row.split(",")[1]) for row in rows[1:]]
    # each point trains at least to its minutes; a loaded CPU's long first iteration may pass both
    assert 0.04 <= minutes[0] <= minutes[1] and minutes[1] >= 0.2 and (rating / "curve.png").stat().st_size > 0
    rating_minutes = [row.split(",")[5] for row in rows[1:]]  # the earlier run's 10 minutes count
    assert float(rating_minutes[0]) >= 10.0 and float(rating_minutes[1]) < 10.0
    saved = json.loads((rating / "0.2min" / "rating_seconds.json").read_text())["rating_seconds"]
    assert f"{saved / 60:.1f}" == rating_minutes[1]
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)  # both points done: nothing to do
    assert again.returncode == 0 and "point 0.2" not in again.stdout
    assert (rating / "curve.csv").read_text().splitlines() == rows
    scratch = subprocess.run([*command[:7], "0", *command[9:]], capture_output=True, text=True, timeout=300)
    assert scratch.returncode != 0 and "point 0 is the --init network" in scratch.stderr
    # point 0 of a run from a network rates that network as it is, with no training
    start = [*command[:4], "--run", "from-net", *command[4:7], "0", *command[9:], "--init", str(rating / "0.2min.pt")]
    from_network = subprocess.run(start, capture_output=True, text=True, timeout=300)
    assert from_network.returncode == 0, from_network.stderr
    row = (tmp_path / "from-net-rating" / "curve.csv").read_text().splitlines()[1].split(",")
    assert row[:5] == ["0", "0.00", "0.00", "0", "0"] and not (tmp_path / "from-net").exists()


def test_selfplay_speed_prints_games_per_hour_and_evaluations_per_second():
    command = [sys.executable, str(ROOT / "benchmarks" / "selfplay_speed.py"), "--preset", "quick", "--moves", "2",
               "--runs", "1", "--games-in-parallel", "4", "--inference", "openvino"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "quick on cpu (openvino), 4 games in parallel: median" in result.stdout
    assert "network evaluations/s" in result.stdout


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU machine runs the real benchmark")
def test_gpu_selfplay_says_why_it_cannot_run_without_a_gpu():
    result = subprocess.run(["bash", str(ROOT / "recipes" / "gpu_selfplay.sh")], capture_output=True, text=True)
    assert result.returncode != 0 and "nvidia-smi not found" in result.stderr


def test_puzzles_prints_a_solve_rate_per_category():
    result = subprocess.run(
        [sys.executable, str(ROOT / "recipes" / "puzzles.py"), "--game", "chess", "--agents", "greedy?seed=0"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    header, row = result.stdout.splitlines()[1:3]
    assert header.split()[1:] == ["defend", "mate1", "mate2", "mate3", "all"]
    assert row.startswith("greedy?seed=0") and row.split()[-1].endswith("/48")


def test_value_calibration_scores_a_four_player_network_per_seat(tmp_path):
    from chess_envs.agents.alphazero.checkpoint import save_checkpoint
    from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
    from chess_envs.registry import new_state

    state = new_state("four_player")
    config = NetworkConfig(*state.observation_shape, state.num_actions, value_size=4, filters=8, blocks=1)
    payload = {"game": "four_player", "network": config.to_dict(), "model": AlphaZeroNet(config).state_dict()}
    save_checkpoint(tmp_path / "net.pt", payload)
    plot = tmp_path / "calibration.png"
    command = [
        sys.executable,
        str(ROOT / "recipes" / "value_calibration.py"),
        "--checkpoint",
        str(tmp_path / "net.pt"),
    ]
    command += ["--games", "2", "--sims", "4", "--max-plies", "12", "--out", str(plot), "--quiet"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "four_player: 2 games, 24 positions, 96 predictions" in result.stdout and plot.stat().st_size > 0


def test_teacher_overlap_times_the_teacher_in_turns_and_in_a_worker():
    small = ["--games-in-parallel", "4", "--teacher-simulations", "8", "--max-plies", "8", "--min-replay", "16",
             "--batch-size", "16", "--steps-per-iteration", "2"]  # fmt: skip
    command = [sys.executable, str(ROOT / "recipes" / "teacher_overlap.py"), "--minutes", "0.1", "--", *small]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| in ")]
    names = [row.split(" | ")[0] for row in rows]
    assert names == ["| in turns with the learner", "| in a worker process, a chunk ahead"]
    assert all(int(row.split(" | ")[3]) > 0 for row in rows)  # learner steps in both runs
    assert "x with the worker" in result.stdout


def run_script(*arguments: str, timeout: int = 600) -> str:
    """A benchmark's standard output, after it ran to the end."""
    result = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_pipeline_busy_compares_the_two_loops_on_ray():
    out = run_script("benchmarks/pipeline_busy.py", "--preset", "smoke", "--minutes", "0.15", "--slowdown", "2")
    assert "actor busy share" in out and "slowest actor positions/s" in out and "lockstep" in out


def test_pipeline_scale_finds_the_ingestion_limit_and_projects():
    out = run_script("benchmarks/pipeline_scale.py", "--presets", "smoke", "--seconds", "0.3")
    assert "ratio" in out and "weight version (MB)" in out and "actors one learner core feeds" in out


def test_learner_speed_times_one_rank_and_two():
    out = run_script("benchmarks/learner_speed.py", "--presets", "smoke", "--steps", "2")
    assert "2 rank(s) steps/s" in out and "smoke" in out
