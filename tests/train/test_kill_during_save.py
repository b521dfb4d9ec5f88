"""A kill -9 while a replay chunk, the replay index or a checkpoint is being written loses nothing
beyond the last save."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.train.alphazero import main

ROOT = Path(__file__).resolve().parents[2]

# Two saves; the second is killed (SIGKILL, no clean-up) halfway through writing `target`.
SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    import chess_envs.agents.alphazero.checkpoint as checkpoint
    import chess_envs.train.alphazero.learner as learner_module
    import chess_envs.train.alphazero.replay as replay_module
    from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
    from chess_envs.train.config import build
    from chess_envs.train.alphazero.players import new_self_play
    from chess_envs.train.alphazero.learner import Learner

    runs_dir, target = sys.argv[1], sys.argv[2]
    args = build(AlphaZeroConfig, **{**PRESETS["smoke"], "runs_dir": runs_dir, "run_name": "r"})
    learner = Learner(args)
    self_play = new_self_play(args, learner, 0)
    while not learner.replay.added:
        learner.add_games(self_play.play(8))
    learner.learn(2)
    learner.save()
    print(learner.replay.added, learner.counters["learner_steps"], flush=True)
    first = learner.replay.added
    while learner.replay.added == first:
        learner.add_games(self_play.play(8))
    learner.learn(2)

    def half_then_die(handle, data):
        handle.write(data[: len(data) // 2])
        handle.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    real_atomic = checkpoint.write_atomic if target == "checkpoint" else replay_module.write_atomic
    def dying_atomic(path, write):
        import io
        buffer = io.BytesIO()
        write(buffer)
        return real_atomic(path, lambda handle: half_then_die(handle, buffer.getvalue()))
    if target == "replay chunk":
        replay_module.write_atomic = dying_atomic
    elif target == "replay index":
        replay_module.write_text_atomic = lambda path, text: dying_atomic(path, lambda h: h.write(text.encode()))
    else:
        checkpoint.write_atomic = dying_atomic
    learner.save()
    """
)


@pytest.mark.parametrize("target", ["replay chunk", "replay index", "checkpoint"])
def test_a_kill_during_either_write_loses_nothing_beyond_the_last_save(tmp_path, target, capsys):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), target], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == -9, result.stderr  # killed, as planned
    added, steps = (int(x) for x in result.stdout.split())
    run_dir = tmp_path / "r"
    folders = (run_dir, run_dir / "checkpoints", run_dir / "replay")
    assert any(list(folder.glob(".*.tmp")) for folder in folders), "the kill left a half file"
    saved = load_checkpoint(run_dir / "checkpoints" / "last.pt")
    assert saved["counters"]["learner_steps"] == steps and saved["replay_added"] == added
    path = main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "r", "--resume",
                 "--iterations", "1", "--eval-every", "0", "--progress", "false"])  # fmt: skip
    out = capsys.readouterr().out
    assert "removed ." in out and f"learner step {steps}," in out
    resumed = load_checkpoint(path)
    assert resumed["replay_added"] >= added and resumed["counters"]["learner_steps"] >= steps
    assert not any(list(folder.glob(".*.tmp")) for folder in folders)


def test_a_los_alamos_preset_checkpoint_is_a_few_megabytes(tmp_path):
    import numpy as np

    from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
    from chess_envs.train.alphazero.learner import Learner
    from chess_envs.train.alphazero.selfplay import FinishedGame
    from chess_envs.train.config import build

    settings = {**PRESETS["los_alamos"], "runs_dir": str(tmp_path), "min_replay": 1, "batch_size": 8}
    learner = Learner(build(AlphaZeroConfig, **settings))
    shape = learner.replay.planes.shape[1:]
    game = FinishedGame(
        np.zeros((4, *shape), np.float32), [np.arange(3)] * 4, [np.full(3, 1 / 3, np.float32)] * 4,
        np.zeros((4, 1), np.float32), np.zeros(2, np.float32),
    )  # fmt: skip
    learner.add_games([game])
    learner.learn(1)  # the optimizer holds its moments now
    path = learner.save()
    assert path.stat().st_size < 10_000_000 and "replay" not in load_checkpoint(path)
