"""chess_envs.train.alphazero: the smoke preset end to end, resume, and surviving SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.agents.four_player.material import MaterialEvaluator
from chess_envs.agents.simple import GreedyAgent, RandomAgent
from chess_envs.registry import new_state
from chess_envs.train import evaluation
from chess_envs.train.alphazero import main
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.material_worker import with_teacher_values
from chess_envs.train.alphazero.selfplay import FinishedGame
from chess_envs.train.evaluation import score_against

ROOT = Path(__file__).resolve().parents[2]


def run(tmp_path: Path, *flags: str) -> Path:
    return main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--progress", "false", *flags])


@pytest.mark.parametrize("game", ["los_alamos", "chess", "four_player"])
def test_smoke_preset_trains_checkpoints_logs_and_resumes(tmp_path, game):
    threads = ["--threads", "2"] if game == "four_player" else []  # the threaded search in self-play
    path = run(tmp_path, "--game", game, "--run-name", game, *threads)
    run_dir = tmp_path / game
    first = load_checkpoint(path, game)
    counters = first["counters"]
    assert counters["games"] > 0 and counters["learner_steps"] > 0 and counters["iteration"] == 3
    assert any(p.name.startswith("events.out.tfevents") for p in run_dir.iterdir())
    metrics = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert len(metrics) == 3 and "losses/policy" in metrics[-1] and "eval/score_vs_greedy" in metrics[-1]
    assert "replay" not in first and first["replay_added"] > 0 and (run_dir / "replay" / "index.json").exists()
    resumed = load_checkpoint(
        run(tmp_path, "--game", game, "--run-name", game, "--resume", "--iterations", "5", *threads)
    )
    after = resumed["counters"]
    assert after["iteration"] == 5 and after["learner_steps"] > counters["learner_steps"]
    assert after["games"] >= counters["games"] and after["positions"] >= counters["positions"]
    assert resumed["replay_added"] >= first["replay_added"]


def test_a_run_pauses_at_its_total_training_minutes_and_resumes_to_the_next_pause(tmp_path):
    flags = ["--run-name", "parts", "--iterations", "0", "--eval-every", "0", "--minutes", "0.25"]
    first = load_checkpoint(run(tmp_path, *flags, "--pause-at", "0.05"))["counters"]
    assert first["seconds"] >= 0.05 * 60
    second = load_checkpoint(run(tmp_path, *flags, "--pause-at", "0.15", "--resume"))["counters"]
    # the resumed part trains on (iterations, not learner steps: a loaded machine may not fill replay in 6 s)
    assert second["seconds"] >= 0.15 * 60 and second["iteration"] > first["iteration"]
    last = load_checkpoint(run(tmp_path, *flags, "--resume"))["counters"]
    # --minutes is the run's total over its parts: the last part only makes up the difference
    assert 0.25 * 60 <= last["seconds"] < max(second["seconds"], 0.25 * 60) + 10


@pytest.mark.parametrize("worker", ["true", "false"])  # the teacher in a worker process, or in turns here
def test_four_player_teacher_plays_the_first_games_then_the_network(tmp_path, capsys, worker):
    flags = ["--game", "four_player", "--run-name", "taught", "--teacher-simulations", "8", "--eval-every", "0"]
    flags += ["--teacher-process", worker]
    path = run(tmp_path, *flags, "--teacher-games", "4", "--teacher-value-weight", "0.5", "--iterations", "6")
    log = capsys.readouterr().out
    assert "the teacher played" in log and "the network plays from now on" in log
    counters = load_checkpoint(path, "four_player")["counters"]
    assert counters["games"] > 4 and counters["learner_steps"] > 0
    # resumed past the teacher's games, the network plays from the start
    run(tmp_path, *flags, "--teacher-games", "4", "--iterations", "7", "--resume")
    assert "the teacher played" not in capsys.readouterr().out


@pytest.mark.parametrize("score, handed_over", [(0.5, False), (0.6, True)])
def test_the_network_takes_over_once_it_outscores_its_teacher(tmp_path, capsys, monkeypatch, score, handed_over):
    monkeypatch.setattr(Learner, "score_against_teacher", lambda learner: score)
    flags = ["--game", "four_player", "--teacher-simulations", "8", "--teacher-games", "1000", "--iterations", "4"]
    path = run(tmp_path, *flags, "--eval-every", "2", "--eval-games", "1", "--teacher-handover", "0.55")
    assert ("the network plays from now on" in capsys.readouterr().out) is handed_over
    assert load_checkpoint(path, "four_player")["counters"]["handed_over"] == handed_over
    metrics = [json.loads(line) for line in (tmp_path / "alphazero" / "metrics.jsonl").read_text().splitlines()]
    # checked at every evaluation while the teacher plays, never after the handover
    assert [m.get("eval/score_vs_teacher") for m in metrics] == [None, score, None, None if handed_over else score]


def test_teams_self_play_learns_team_values_from_the_teacher_then_the_network(tmp_path, capsys, monkeypatch):
    """``--game-options mode=teams``: the teacher's and the network's games are Teams games, whose value
    targets give partners one value (the teacher's blended in is its teams' material lead), and the
    evaluations play Teams."""
    stored: list[FinishedGame] = []
    add_games = Learner.add_games

    def keep(learner: Learner, games: list[FinishedGame], *rest: int) -> np.ndarray:
        stored.extend(games)
        return add_games(learner, games, *rest)

    monkeypatch.setattr(Learner, "add_games", keep)
    flags = ["--game", "four_player", "--game-options", "mode=teams", "--teacher-simulations", "8"]
    flags += ["--teacher-games", "4", "--teacher-value-weight", "0.5", "--teacher-process", "false"]
    path = run(tmp_path, *flags, "--iterations", "6")
    assert "the network plays from now on" in capsys.readouterr().out
    checkpoint = load_checkpoint(path, "four_player")
    assert checkpoint["config"]["selfplay"]["game_options"] == "mode=teams" and checkpoint["network"]["teams"]
    assert len(stored) > 4 and any(game.values.any() for game in stored[:4])
    for game in stored:  # from the mover's seat: its partner (two seats on) shares its value, the others oppose
        values = game.values
        assert np.allclose(values[:, 0], values[:, 2]) and np.allclose(values[:, [1, 3]], -values[:, [0, 0]])
        assert game.returns.tolist() in ([0] * 4, [1, -1, 1, -1], [-1, 1, -1, 1])
    metrics = [json.loads(line) for line in (tmp_path / "alphazero" / "metrics.jsonl").read_text().splitlines()]
    assert any("eval/score_vs_greedy" in row for row in metrics)


def test_teams_baselines_give_the_learner_its_seat_s_whole_team():
    """Against random in Teams the learner (greedy here) plays both seats of a team."""
    seats_seen: list[list[str]] = []
    greedy = GreedyAgent(seed=0)
    original = evaluation.play_game

    def spy(game, seats, opening, **kwargs):
        seats_seen.append([agent.name for agent in seats])
        assert kwargs["mode"] == "teams"
        return original(game, seats, opening, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluation, "play_game", spy)
        scores = evaluation.baseline_scores("four_player", greedy, 2, 40, 0, {"mode": "teams"})
    assert seats_seen[:2] == [["greedy", "random", "greedy", "random"], ["random", "greedy", "random", "greedy"]]
    assert set(scores) == {"eval/score_vs_random", "eval/score_vs_greedy"}


def test_the_score_against_the_teacher_is_pairwise_placement_from_book_openings():
    greedy, random_agent = GreedyAgent(seed=0), RandomAgent(seed=0)
    score = score_against("four_player", greedy, random_agent, games=2, max_plies=60)
    assert 0.5 < score <= 1.0  # greedy takes pieces and points that random leaves
    assert score_against("four_player", random_agent, greedy, games=2, max_plies=60) == pytest.approx(1 - score)


def test_teacher_values_blend_the_outcome_with_the_teachers_evaluation():
    state = new_state("four_player")
    planes = np.stack([state.observation()] * 3)
    outcome = np.tile(np.array([1.0, 1 / 3, -1 / 3, -1.0], np.float32), (3, 1))
    game = FinishedGame(planes, [], [], outcome.copy(), outcome[0])
    teacher = MaterialEvaluator()
    [blended] = with_teacher_values([game], teacher, 0.25)
    np.testing.assert_allclose(blended.values, 0.75 * outcome + 0.25 * teacher.values(planes), rtol=1e-6)
    assert blended.values.dtype == np.float32


def test_a_second_run_in_the_same_folder_needs_resume(tmp_path, capsys):
    run(tmp_path, "--run-name", "x")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "--run-name", "x")
    assert refused.value.code == 2 and "already holds a run; pass --resume" in capsys.readouterr().err


def test_resume_refuses_a_checkpoint_of_another_game(tmp_path, capsys):
    run(tmp_path, "--run-name", "x")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "--run-name", "x", "--game", "chess", "--resume")
    assert refused.value.code == 2 and "trained on 'los_alamos', not 'chess'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--game", "go"], "unknown game"),
        (["--simulations", "0"], "simulations must be >= 1"),
        (["--optimizer", "lion"], "optimizer must be one of adamw, sgd; got 'lion'"),
        (["--blocks", "two"], "blocks must be an integer, got 'two'"),
        (["--teacher-games", "5"], "the material search teaches four-player chess"),
        (["--game", "four_player", "--teacher-games", "-1"], "teacher_games must be >= 0"),
        (["--teacher-value-weight", "1.5"], "teacher_value_weight must be <= 1"),
        (["--game", "four_player", "--teacher-handover", "0.6"], "it needs teacher_games and eval_every"),
        (["--game", "four_player", "--game-options", "mode=duo"], "mode must be one of ffa, teams"),
        (["--game", "four_player", "--game-options", "teams"], "--game-options: expected name=value, got 'teams'"),
        (["--game-options", "mode=teams"], "los_alamos has no game option mode"),
    ],
)
def test_bad_arguments_are_rejected(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit):
        run(tmp_path, *flags)
    assert message in capsys.readouterr().err


def test_sigkill_then_resume_loses_only_the_work_since_the_last_checkpoint(tmp_path):
    command = [
        sys.executable,
        "-m",
        "chess_envs.train.alphazero",
        "--preset",
        "smoke",
        "--runs-dir",
        str(tmp_path),
        "--run-name",
        "killed",
        "--iterations",
        "0",
        "--minutes",
        "5",
        "--checkpoint-every",
        "2",
        "--eval-every",
        "0",
        "--progress",
        "false",
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last = tmp_path / "killed" / "checkpoints" / "last.pt"
    deadline = time.monotonic() + 240
    steps = 0
    while time.monotonic() < deadline and steps < 6:
        time.sleep(0.5)
        if last.exists():  # replaced by rename, so a read sees a whole old or a whole new file
            steps = load_checkpoint(last)["counters"]["learner_steps"]
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    saved = load_checkpoint(last)  # the file the kill left is whole
    assert saved["counters"]["learner_steps"] >= 6
    path = run(
        tmp_path,
        "--run-name",
        "killed",
        "--resume",
        "--iterations",
        str(saved["counters"]["iteration"] + 1),
        "--eval-every",
        "0",
    )
    resumed = load_checkpoint(path)["counters"]
    assert resumed["iteration"] == saved["counters"]["iteration"] + 1
    assert resumed["learner_steps"] >= saved["counters"]["learner_steps"]
    assert resumed["games"] >= saved["counters"]["games"]
