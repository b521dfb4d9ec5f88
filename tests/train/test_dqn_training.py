"""chess_envs.train.dqn: the smoke preset end to end, resume, and bad arguments."""

from __future__ import annotations

import csv
import json
import signal
from pathlib import Path

import pytest

import chess_envs.train.dqn.checkpoint as dqn_checkpoint
from chess_envs.agents.dqn import read_checkpoint
from chess_envs.train.dqn import main


def run(tmp_path: Path, *flags: str) -> Path:
    return main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "s", "--progress", "false", *flags])


def test_smoke_trains_checkpoints_logs_and_resumes(tmp_path, capsys):
    path = run(tmp_path, "--total-steps", "2000", "--eval-every", "1000")
    first, _ = read_checkpoint(path, "los_alamos")
    assert first["step"] == 2000
    run_dir = tmp_path / "s"
    manifest = json.loads((run_dir / "checkpoints" / "manifest.json").read_text())
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == sorted(
        ["last.pt", "manifest.json", manifest["model"], manifest["replay"]]
    )
    assert any(p.name.startswith("events.out.tfevents") for p in run_dir.iterdir())
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    assert any(row.get("eval/score_vs_random") for row in rows)
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "--total-steps", "2000")
    assert refused.value.code == 2 and "already holds a run" in capsys.readouterr().err
    resumed_path = run(tmp_path, "--total-steps", "3000", "--resume")
    resumed, payload = read_checkpoint(resumed_path, "los_alamos")
    assert resumed["step"] == 3000
    assert payload["counters"]["n_updates"] > 0


def test_resume_refuses_a_checkpoint_of_another_game(tmp_path, capsys):
    run(tmp_path, "--total-steps", "600", "--eval-every", "0")
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "--game", "chess", "--total-steps", "700", "--resume")
    assert refused.value.code == 2 and "trained on 'los_alamos', not 'chess'" in capsys.readouterr().err


def test_a_kill_between_model_and_replay_resumes_the_previous_pair(tmp_path, capsys):
    """A save killed after the new model but before its replay and manifest: the manifest still
    names the previous pair, which resumes; stale temporary files are removed on start."""
    run(tmp_path, "--total-steps", "1000", "--eval-every", "0")
    folder = tmp_path / "s" / "checkpoints"
    previous = json.loads((folder / "manifest.json").read_text())
    (folder / "model_0000001500.pt").write_bytes((folder / previous["model"]).read_bytes())
    (folder / ".replay_0000001500.npz.999999999.0123abcd.tmp").write_bytes(b"half a replay")
    run(tmp_path, "--total-steps", "1200", "--eval-every", "0", "--resume")
    out = capsys.readouterr().out
    assert "resumed" in out and "at step 1000" in out and "removed .replay_0000001500" in out
    assert not list(folder.glob(".*.tmp"))


def test_a_mismatched_model_and_replay_are_refused(tmp_path, capsys):
    run(tmp_path, "--total-steps", "600", "--eval-every", "0")
    folder = tmp_path / "s" / "checkpoints"
    first = json.loads((folder / "manifest.json").read_text())
    kept = (folder / first["replay"]).read_bytes()
    run(tmp_path, "--total-steps", "1100", "--eval-every", "0", "--resume")
    second = json.loads((folder / "manifest.json").read_text())
    (folder / second["replay"]).write_bytes(kept)  # the step-600 replay under the step-1100 name
    with pytest.raises(SystemExit) as refused:
        run(tmp_path, "--total-steps", "1500", "--eval-every", "0", "--resume")
    assert refused.value.code == 2 and "must be one save" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--opponent", "nobody"], "opponent must be one of random, greedy, self; got 'nobody'"),
        (["--game", "four_player"], "plays two-player games"),
        (["--total-steps", "0"], "total_steps must be >= 1"),
        (["--exploration-final-eps", "2"], "exploration_final_eps"),
    ],
)
def test_bad_arguments_say_why(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit):
        run(tmp_path, *flags)
    assert message in capsys.readouterr().err


def test_material_reward_and_draw_price():
    # The shaped return is the outcome, plus the weight times the change in material lead over
    # the game, plus the draw price when the game is drawn.
    import numpy as np

    from chess_envs.train.config import build
    from chess_envs.train.dqn.config import DQNConfig
    from chess_envs.train.dqn.env import make_env

    for seed in range(4):
        env = make_env(build(DQNConfig, shaping=0.5, draw_reward=-0.5, max_plies=400), seed % 2, "random")()
        observation, _ = env.reset(seed=seed)
        seat = env.unwrapped.agent_seat
        rng = np.random.default_rng(seed)
        total, done = 0.0, False
        while not done:
            action = rng.choice(np.flatnonzero(observation["action_mask"]))
            observation, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        material = env.unwrapped.state.material()
        lead = float(2 * material[seat] - material.sum()) / 10.0
        outcome = float(info["returns"][seat]) if terminated else 0.0
        expected = outcome + 0.5 * lead + (-0.5 if outcome == 0 else 0.0)
        assert total == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("number, said", [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")])
@pytest.mark.usefixtures("ctrl_c")
def test_a_stop_signal_during_a_save_lets_it_finish_then_stops_and_saves(tmp_path, capsys, monkeypatch, number, said):
    real, sent = dqn_checkpoint.save_replay, []

    def signalled(*args, **kwargs):  # the signal comes between the model file and the replay file
        if not sent:
            sent.append(signal.raise_signal(number))
        return real(*args, **kwargs)

    monkeypatch.setattr(dqn_checkpoint, "save_replay", signalled)
    path = run(tmp_path, "--total-steps", "3000", "--eval-every", "0")
    assert f"{said}: saving a checkpoint" in capsys.readouterr().out
    saved, _ = read_checkpoint(path, "los_alamos")
    assert saved["step"] == 1000  # the first checkpoint's step: the run stopped there
    resumed, _ = read_checkpoint(run(tmp_path, "--total-steps", "2000", "--resume", "--eval-every", "0"), "los_alamos")
    assert resumed["step"] == 2000
