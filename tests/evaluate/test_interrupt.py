"""Ctrl-C stops a tournament without losing work: an interrupt of the main process alone (``kill
-INT``, a supervisor) keeps the games its workers are playing once they end; a second interrupt
stops the workers at once and drops those games."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chess_envs.arena.results import read_live
from tests.agents.test_uci import ROOT, tiny_checkpoint
from tests.evaluate.test_reproducible import _descendants, assert_gone, games, kill_all

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and uses pgrep"),
    pytest.mark.usefixtures("ctrl_c"),  # the tournaments started here take Ctrl-C
]


def start(out: Path, checkpoint: Path, seconds_a_move: float) -> subprocess.Popen[str]:
    """Two workers playing Los Alamos games of up to 60 plies at ``seconds_a_move`` a move."""
    cmd = [
        sys.executable, "-m", "chess_envs.apps.arena_cli", "tournament", "--game", "los_alamos",
        "--agents", f"alphazero:{checkpoint}?sims=100000", f"alphazero:{checkpoint}?sims=100000&seed=1",
        "--games-per-pair", "8", "--time-control", f"{seconds_a_move}/move", "--time-margin", "1",
        "--max-plies", "60", "--workers", "2",
        "--bootstrap", "10", "--quiet", "--out", str(out),
    ]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def games_in_flight(process: subprocess.Popen[str], out: Path, count: int) -> set[str]:
    """The ids of ``count`` games being played at once (from the live folder)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None:
        live = set(read_live(out))
        if len(live) >= count:
            return live
        time.sleep(0.05)
    raise AssertionError(f"{count} games never played at once (exit status {process.poll()})")


def stderr_line(process: subprocess.Popen[str], starting: str) -> str:
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith(starting):
            return line
    raise AssertionError(f"no line starting {starting!r} on stderr")


def test_an_interrupt_of_the_main_process_keeps_the_games_in_flight(tmp_path: Path) -> None:
    out = tmp_path / "t"
    process = start(out, tiny_checkpoint(tmp_path / "la.pt", "los_alamos"), 0.05)
    try:
        in_flight = games_in_flight(process, out, 2)
        process.send_signal(signal.SIGINT)  # the main process alone: its workers play on
        _, err = process.communicate(timeout=120)
        assert process.returncode == 130, err
        assert "games the workers hold are kept when they end" in err
        assert in_flight <= set(games(out)), "a game a worker was playing at the interrupt was lost"
        assert len(games(out)) < 16 and not read_live(out)
    finally:
        process.kill()
        process.wait()


def test_a_second_interrupt_drops_the_games_in_flight_at_once(tmp_path: Path) -> None:
    out = tmp_path / "t"
    process = start(out, tiny_checkpoint(tmp_path / "la.pt", "los_alamos"), 1.0)  # games of 20 s and more
    workers: set[int] = set()
    try:
        in_flight = games_in_flight(process, out, 2)
        workers = _descendants(process.pid)
        process.send_signal(signal.SIGINT)
        stderr_line(process, "stopping:")
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
        assert time.monotonic() - interrupted < 10, "the second interrupt waited for the games in flight"
        assert process.returncode == 130
        assert not in_flight & set(games(out))
        assert_gone(workers)
    finally:
        process.kill()
        process.wait()
        kill_all(workers)
