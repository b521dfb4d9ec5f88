"""chess_envs.train.distill at CI size: real engines label, a tiny network learns, runs resume after kill -9,
and chess_envs.train.alphazero --init continues the result by self-play."""

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

from chess_envs.agents.alphazero.checkpoint import load_checkpoint, load_network
from chess_envs.agents.base import make_agent
from chess_envs.registry import new_state
from chess_envs.train import alphazero
from chess_envs.train.config import from_dict
from chess_envs.train.distill import data as distill_data
from chess_envs.train.distill import loop as distill
from chess_envs.train.distill.labels import Label, Teacher, _info_line
from tests.engines import require_engine

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--filters", "8", "--blocks", "1", "--value-hidden", "16", "--batch-size", "32", "--progress", "false"]


def run(tmp_path: Path, name: str, *flags: str) -> Path | None:
    return distill.main(["--runs-dir", str(tmp_path), "--run-name", name, *TINY, *flags])


def command(tmp_path: Path, name: str, *flags: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "chess_envs.train.distill",
        "--runs-dir",
        str(tmp_path),
        "--run-name",
        name,
        *TINY,
        *flags,
    ]


def engine_env() -> dict[str, str]:
    return {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/games"}


@pytest.fixture(autouse=True)
def _engines_on_path(monkeypatch):
    monkeypatch.setenv("PATH", engine_env()["PATH"])


def test_los_alamos_labels_learns_and_plays_and_stops_on_sigterm(tmp_path, monkeypatch, capsys):
    require_engine("fairy-stockfish")
    flags = ["--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--positions", "400"]
    path = run(
        tmp_path,
        "la",
        *flags,
        "--shard-size",
        "150",
        "--total-steps",
        "30",
        "--eval-every",
        "10",
        "--validation-share",
        "0.3",
    )
    shards = sorted((tmp_path / "la" / "data").glob("shard_*.npz"))
    assert len(shards) >= 2
    with np.load(shards[0]) as data:
        planes, actions, probs = data["planes"], data["policy_actions"], data["policy_probs"]
        scores, results = data["scores"], data["results"]
    state = new_state("los_alamos")
    assert planes.dtype == np.uint8 and planes.shape[1:] == state.observation_shape
    assert actions.shape == probs.shape == (len(planes), 4)
    np.testing.assert_allclose(probs.astype(np.float32).sum(axis=1), 1.0, atol=2e-3)
    assert np.all(np.abs(scores) <= 1.0) and np.all(np.abs(results) <= 1.0) and np.all(actions[:, 0] >= 0)
    games = np.load(shards[0])["game"]
    for game in np.unique(games):
        mine = results[games == game]
        np.testing.assert_array_equal(mine[1:], -mine[:-1])  # one game's result, from each mover's side
    assert np.all((actions[:, 0] >= 0) & (actions[:, 0] < state.num_actions))
    network, payload = load_network(path, "los_alamos")
    assert payload["counters"]["learner_steps"] == 30 and payload["distilled_from"] == "fairy-stockfish?depth=1"
    metrics = [json.loads(line) for line in (tmp_path / "la" / "metrics.jsonl").read_text().splitlines()]
    assert len(metrics) == 3 and "validation/teacher_move_agreement" in metrics[-1]
    scored = subprocess.run(
        [sys.executable, str(ROOT / "recipes" / "distill_held_out.py"), "--run", "la", "--runs-dir", str(tmp_path),
         "--networks", str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    config = from_dict(distill.DistillConfig, json.loads((tmp_path / "la" / "config.json").read_text()))
    held_out = int(np.sum(distill.held_out(distill.Shards(tmp_path / "la" / "data").load()["game"], config)))
    assert f"{held_out:,} held out" in scored.stdout  # all of them: fewer than 4,096, the log scores the same
    agreement, policy, value = scored.stdout.splitlines()[-1].split()[-3:]
    last = metrics[-1]
    assert agreement == f"{last['validation/teacher_move_agreement']:.1%}"
    assert policy == f"{last['validation/policy_loss']:.3f}" and value == f"{last['validation/value_loss']:.4f}"
    agent = make_agent(f"alphazero:{path}?sims=8", "los_alamos")
    assert agent.select_action(state) in set(state.legal_actions())
    validate = distill.Trainer.validate

    def terminated(self: distill.Trainer) -> dict[str, float]:  # at step 40 of 60: the run stops there and saves
        signal.raise_signal(signal.SIGTERM)
        return validate(self)

    monkeypatch.setattr(distill.Trainer, "validate", terminated)
    capsys.readouterr()
    path = run(tmp_path, "la", *flags, "--stage", "learn", "--resume", "--total-steps", "60", "--eval-every", "10")
    assert "terminated: saving a checkpoint" in capsys.readouterr().out
    assert load_checkpoint(path)["counters"]["learner_steps"] == 40


def test_chess_with_stockfish_in_one_process_then_self_play_from_it(tmp_path):
    require_engine("stockfish")
    path = run(
        tmp_path,
        "c",
        "--teacher",
        "stockfish?depth=1",
        "--workers",
        "1",
        "--positions",
        "60",
        "--max-plies",
        "30",
        "--total-steps",
        "8",
    )
    assert path is not None
    later = alphazero.main(
        [
            "--preset",
            "smoke",
            "--game",
            "chess",
            "--init",
            str(path),
            "--runs-dir",
            str(tmp_path),
            "--run-name",
            "az",
            "--progress",
            "false",
        ]
    )
    args = json.loads((tmp_path / "az" / "config.json").read_text())
    assert (args["network"]["filters"], args["network"]["blocks"], args["network"]["value_hidden"]) == (8, 1, 16), (
        "the network shape comes from --init"
    )
    _, payload = load_network(later, "chess")
    assert payload["counters"]["learner_steps"] > 0


def wait_for(condition, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.1)


def start(tmp_path: Path, name: str, *flags: str, output: int = subprocess.DEVNULL) -> subprocess.Popen:
    """``chess_envs.train.distill`` in a process of its own, in a session of its own (to kill the group)."""
    command_line = command(tmp_path, name, *flags)
    return subprocess.Popen(
        command_line, cwd=ROOT, env=engine_env(), start_new_session=True, stdout=output, stderr=output, text=True
    )


def kill_group(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def test_both_stages_resume_after_kill_9(tmp_path):
    require_engine("fairy-stockfish")
    data = tmp_path / "r" / "data"
    flags = ["--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--shard-size", "60"]
    process = start(tmp_path, "r", *flags, "--positions", "100000")
    wait_for(lambda: len(list(data.glob("shard_*.npz"))) >= 2)
    kill_group(process)
    before = distill.Shards(data).counts()[0]
    run(tmp_path, "r", *flags, "--resume", "--stage", "data", "--positions", str(before + 200))
    stored = distill.Shards(data).load()
    assert len(stored["scores"]) >= before + 200
    games = stored["game"]
    assert len(np.unique(games)) == len(np.split(games, np.flatnonzero(np.diff(games)) + 1)), "no game stored twice"

    last = tmp_path / "r" / "checkpoints" / "last.pt"
    learn = [*flags, "--resume", "--stage", "learn", "--total-steps", "100000", "--checkpoint-every", "5"]
    process = start(tmp_path, "r", *learn)
    wait_for(last.exists)
    time.sleep(1.0)
    kill_group(process)
    steps = load_network(last, "los_alamos")[1]["counters"]["learner_steps"]
    assert steps >= 5
    path = run(tmp_path, "r", *flags, "--resume", "--stage", "learn", "--total-steps", str(steps + 7))
    assert load_network(path, "los_alamos")[1]["counters"]["learner_steps"] == steps + 7


def test_sigterm_stops_labelling_between_games_quietly_and_keeps_them(tmp_path):
    require_engine("fairy-stockfish")
    data = tmp_path / "t" / "data"
    flags = ["--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--shard-size", "60", "--stage", "data"]
    process = start(tmp_path, "t", *flags, "--positions", "100000", output=subprocess.PIPE)
    wait_for(lambda: len(list(data.glob("shard_*.npz"))) >= 2)
    process.send_signal(signal.SIGTERM)  # the main process only, as `kill PID` sends it: its pool ends cleanly
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "terminated: the labelled files are kept; --resume continues" in out
    assert "Traceback" not in err and "Error" not in err
    games = distill.Shards(data).load()["game"]
    assert np.array_equal(np.unique(games), np.arange(games.max() + 1)), "the games stored are 0, 1, 2, ... once each"


def test_a_stopped_data_stage_does_not_go_on_to_learn(tmp_path, monkeypatch, capsys):
    require_engine("fairy-stockfish")
    play = distill_data.play_and_label
    played: list[int] = []

    def then_terminated(*args: object) -> distill_data.LabelledGame:  # SIGTERM while game 2 is played
        played.append(1)
        if len(played) == 3:
            signal.raise_signal(signal.SIGTERM)
        return play(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(distill_data, "play_and_label", then_terminated)
    flags = ["--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--workers", "1"]
    assert run(tmp_path, "s", *flags, "--positions", "100000", "--shard-size", "100000") is None
    assert "terminated: the labelled files are kept" in capsys.readouterr().out
    assert not (tmp_path / "s" / "checkpoints").exists() or not any((tmp_path / "s" / "checkpoints").iterdir())
    assert np.array_equal(np.unique(distill.Shards(tmp_path / "s" / "data").load()["game"]), [0, 1, 2])


@pytest.mark.parametrize(
    "teacher, game, message",
    [
        ("stockfish?depth=x", "chess", "option depth must be an integer"),
        ("greedy", "chess", "teacher must be stockfish, fairy-stockfish or 4pchess"),
        ("stockfish?depth=3", "los_alamos", "stockfish does not play 'los_alamos'"),
        ("stockfish?skill=3", "chess", "unknown options ['skill']"),
        ("fairy-stockfish?binary=/no/such/engine", "chess", "not found on PATH"),
        ("stockfish?depth=2", "four_player", "not 'four_player' (four_player: 4pchess)"),
    ],
)
def test_bad_teachers_and_missing_engines_say_what_is_wrong(tmp_path, capsys, teacher, game, message):
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "bad", "--game", game, "--teacher", teacher, "--positions", "10")
    assert refused.value.code == 2 and message in capsys.readouterr().err


def test_a_student_network_plays_a_side_in_each_labelling_process(tmp_path):
    require_engine("fairy-stockfish")
    flags = ["--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--positions", "40", "--stage", "data",
             "--workers", "2", "--student", "alphazero:@los_alamos?sims=4", "--student-share", "1"]  # fmt: skip
    run(tmp_path, "dagger", *flags)
    data = distill.Shards(tmp_path / "dagger" / "data").load()
    assert len(data["scores"]) >= 40 and np.all(np.abs(data["scores"]) <= 1)


@pytest.mark.parametrize(
    "student, message",
    [("nosuch", "unknown agent 'nosuch'"), ("alphazero:@los_alamos?sims=x", "bad options in agent spec")],
)
def test_a_student_that_cannot_play_is_refused_before_labelling(tmp_path, capsys, student, message):
    require_engine("fairy-stockfish")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "bad", "--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--positions", "10",
            "--student", student)  # fmt: skip
    assert refused.value.code == 2 and message in capsys.readouterr().err
    assert not list((tmp_path / "bad" / "data").glob("shard_*.npz"))


def test_a_second_run_in_the_same_folder_needs_resume(tmp_path, capsys):
    require_engine("fairy-stockfish")
    flags = ["--game", "los_alamos", "--teacher", "fairy-stockfish?depth=1", "--positions", "20", "--stage", "data"]
    run(tmp_path, "x", *flags)
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "x", *flags)
    assert refused.value.code == 2 and "pass --resume" in capsys.readouterr().err


def test_labels_turn_scores_into_a_policy_and_a_value():
    label = Label(("e2e4", "d2d4", "a2a3"), (100.0, 0.0, -300.0))
    policy = label.policy(100.0)
    np.testing.assert_allclose(policy, np.exp([0, -1, -4]) / np.exp([0, -1, -4]).sum())
    np.testing.assert_array_equal(label.policy(0.0), [1, 0, 0])
    assert label.value(400.0) == pytest.approx(2 / (1 + 10 ** (-100 / 400)) - 1)
    assert Label(("a",), (-100.0,)).value() == pytest.approx(-label.value())


def test_uci_info_lines_are_read_for_the_mover():
    assert _info_line("info depth 9 multipv 2 score cp -35 nodes 10 pv e7e5 g1f3") == (2, "e7e5", -35.0)
    assert _info_line("info depth 3 score mate 2 pv d1h5") == (1, "d1h5", 9980.0)
    assert _info_line("info depth 3 multipv 1 score mate -1 pv g8f6") == (1, "g8f6", -9990.0)
    assert _info_line("info depth 9 multipv 1 score cp 20 lowerbound pv e2e4") is None
    assert _info_line("info string NNUE enabled") is None


def test_the_teacher_scores_a_position_best_first():
    require_engine("stockfish")
    with Teacher("stockfish?depth=6", "chess", multipv=3) as teacher:
        label = teacher.analyse(new_state("chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"))  # Ra8 mates
    assert label.moves[0] == "a1a8" and label.scores[0] > 9000 and len(label.moves) == 3
    assert list(label.scores) == sorted(label.scores, reverse=True)
