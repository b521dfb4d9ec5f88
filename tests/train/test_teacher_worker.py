"""chess_envs.train.alphazero.material_worker: the worker plays the teacher's games the run's own process would, says
why when it fails, and a run stopped by Ctrl-C saves and leaves no worker behind."""

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
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.material_worker import (
    TeacherWorker,
    TeacherWorkerError,
    new_teacher_self_play,
    play_chunk,
)
from chess_envs.train.config import parse_args

ROOT = Path(__file__).resolve().parents[2]
TAUGHT = ["--game", "four_player", "--teacher-games", "1000", "--teacher-simulations", "8"]


def config(*flags: str) -> AlphaZeroConfig:
    return parse_args(AlphaZeroConfig, PRESETS, ["--preset", "smoke", *TAUGHT, *flags])


def test_the_worker_plays_the_games_this_process_would_with_the_same_seed():
    settings = config("--teacher-value-weight", "0.5")
    worker = TeacherWorker(settings, [7, 0, 0])
    try:
        chunks = []
        for moves in (3, 40):  # the second chunk finishes the smoke preset's games (30 plies)
            worker.submit(moves)
            chunks.append(worker.result())
    finally:
        worker.close()
    here = new_teacher_self_play(settings, [7, 0, 0])
    expected = [play_chunk(here, moves, 0.5) for moves in (3, 40)]
    assert [len(chunk.games) for chunk in chunks] == [len(chunk.games) for chunk in expected] == [0, 4]
    for game, same in zip(chunks[1].games, expected[1].games):
        np.testing.assert_array_equal(game.planes, same.planes)
        np.testing.assert_array_equal(game.values, same.values)  # blended with the teacher's values
        assert all(np.array_equal(a, b) for a, b in zip(game.policies, same.policies))
    assert chunks[1].seconds > 0


def test_a_failed_chunk_a_dead_worker_and_misuse_say_what_went_wrong():
    worker = TeacherWorker(config(), [0, 0, 0])
    try:
        with pytest.raises(TeacherWorkerError, match="no chunk was submitted"):
            worker.result()
        worker.submit("three")  # type: ignore[arg-type]
        with pytest.raises(TeacherWorkerError, match="self-play failed: TypeError"):
            worker.result()
        worker.submit(2)
        with pytest.raises(TeacherWorkerError, match="already playing a chunk"):
            worker.submit(2)
        assert len(worker.result().games) == 0
        worker.submit(10**6)  # hours of moves: the worker dies while it plays them
        os.kill(worker._process.pid, signal.SIGKILL)
        died = r"worker process died \(exit code -9\)"
        with pytest.raises(TeacherWorkerError, match=died):
            worker.result()
        with pytest.raises(TeacherWorkerError, match=died):
            worker.submit(2)
    finally:
        worker.close()


def spawned_children(pid: int) -> set[int]:
    """The processes ``pid`` started through multiprocessing's spawn (not its resource tracker), from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat, command = (entry / "stat").read_text(), (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in command:
                found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc (Linux)")
@pytest.mark.usefixtures("ctrl_c")  # the run started here takes Ctrl-C even where the tests run in the background
def test_ctrl_c_saves_the_run_and_takes_the_worker_down(tmp_path):
    flags = ["--preset", "smoke", *TAUGHT, "--runs-dir", str(tmp_path), "--run-name", "taught"]
    command = [sys.executable, "-m", "chess_envs.train.alphazero", *flags, "--iterations", "0", "--minutes", "5"]
    command += ["--eval-every", "0", "--progress", "false"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        metrics = tmp_path / "taught" / "metrics.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (metrics.exists() and metrics.read_text().count("\n") >= 2):
            time.sleep(0.2)
        workers = spawned_children(process.pid)
        assert workers, "the teacher's worker process was not started"
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole foreground group
        output, _ = process.communicate(timeout=60)
    finally:  # a failed check leaves no run training on beside the tests that follow
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0 and "interrupted: saving a checkpoint" in output
    counters = load_checkpoint(tmp_path / "taught" / "checkpoints" / "last.pt")["counters"]
    lines = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert counters["iteration"] >= len(lines) >= 2 and counters["games"] > 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
