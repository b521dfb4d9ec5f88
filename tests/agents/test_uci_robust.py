"""The UCI engine always answers ``go`` with a legal ``bestmove``, survives bad input and agents,
and exits cleanly on ``quit`` or end of input at any moment."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import pytest

from tests.agents.test_agents import needs_stockfish
from tests.agents.test_uci import ROOT, tiny_checkpoint


class Engine:
    """``python -m chess_envs.apps.uci`` in a subprocess, read line by line with timeouts."""

    def __init__(self, *flags: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chess_envs.apps.uci", *flags],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in iter(self.process.stdout.readline, b""):
            self.lines.put(raw.decode("utf-8", errors="replace").strip())

    def send(self, data: str | bytes) -> None:
        self.process.stdin.write(data.encode() if isinstance(data, str) else data)
        self.process.stdin.flush()

    def read_until(self, prefix: str, timeout: float = 60.0) -> list[str]:
        seen, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            seen.append(line)
            if line.startswith(prefix):
                return seen
        raise AssertionError(f"no {prefix!r} within {timeout} s; saw {seen}")

    def nothing_starting(self, prefix: str, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if self.lines.get(timeout=0.05).startswith(prefix):
                    return False
            except queue.Empty:
                pass
        return True

    def finish(self) -> tuple[int, str]:
        code = self.process.wait(timeout=30)
        return code, self.process.stderr.read().decode("utf-8", errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def assert_legal_bestmove(lines: list[str], board: chess.Board | None = None) -> None:
    move = chess.Move.from_uci(lines[-1].split()[1])
    assert move in (board or chess.Board()).legal_moves, lines


@pytest.mark.parametrize("kind", ["missing", "other game"])
def test_go_answers_after_a_load_failure_and_the_engine_stays_up(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "missing.pt" if kind == "missing" else tiny_checkpoint(tmp_path / "la.pt", "los_alamos")
    engine = Engine("--checkpoint", str(path))
    try:
        engine.send("uci\nisready\n")
        assert any("cannot load the agent" in line for line in engine.read_until("readyok"))
        for moves in ("", " moves e2e4"):
            engine.send(f"position startpos{moves}\ngo nodes 8\n")
            lines = engine.read_until("bestmove")
            assert any(line.startswith("info string") for line in lines)
            board = chess.Board()
            if moves:
                board.push_uci("e2e4")
            assert_legal_bestmove(lines, board)
        engine.send("quit\n")
        assert engine.finish()[0] == 0
    finally:
        engine.kill()


@needs_stockfish
def test_a_dead_stockfish_child_is_reported_answered_and_restarted() -> None:
    engine = Engine("--agent", "stockfish?depth=1")
    try:
        engine.send("uci\nisready\nposition startpos\ngo\n")
        assert_legal_bestmove(engine.read_until("bestmove"))
        children = subprocess.run(
            ["pgrep", "-P", str(engine.process.pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        assert children, "stockfish should run as a child of the engine"
        for pid in children:
            os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.3)
        engine.send("go\n")
        lines = engine.read_until("bestmove")
        assert any(line.startswith("info string") and "failed" in line for line in lines), lines
        assert_legal_bestmove(lines)
        engine.send("go\n")  # the agent is built again: a real answer, no complaint
        lines = engine.read_until("bestmove")
        assert not any(line.startswith("info string") for line in lines), lines
        assert_legal_bestmove(lines)
        engine.send("quit\n")
        assert engine.finish()[0] == 0
    finally:
        engine.kill()


@pytest.mark.parametrize("moment", ["searching", "idle"])
def test_end_of_input_exits_cleanly_at_any_moment(tmp_path: Path, moment: str) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "chess.pt", "chess")
    for _ in range(3):
        engine = Engine("--checkpoint", str(checkpoint))
        try:
            engine.send("uci\nisready\n")
            engine.read_until("readyok")
            if moment == "searching":
                engine.send("position startpos\ngo infinite\n")
                engine.read_until("info depth")
            engine.process.stdin.close()
            code, errors = engine.finish()
            assert code == 0 and "terminate called" not in errors, errors
        finally:
            engine.kill()


def test_quit_during_a_search_exits_0(tmp_path: Path) -> None:
    engine = Engine("--checkpoint", str(tiny_checkpoint(tmp_path / "chess.pt", "chess")))
    try:
        engine.send("uci\nisready\nposition startpos\ngo infinite\n")
        engine.read_until("info depth")
        engine.send("quit\n")
        code, errors = engine.finish()
        assert code == 0 and "terminate called" not in errors
    finally:
        engine.kill()


def test_undecodable_bytes_under_strict_utf8_do_not_kill_the_engine() -> None:
    engine = Engine("--agent", "greedy?seed=1", env={"PYTHONIOENCODING": "utf-8"})
    try:
        engine.send(b"uci\n\xff\xfe garbage\nisready\n")
        lines = engine.read_until("readyok")
        assert any(line.startswith("info string") for line in lines)
        engine.send("position startpos\ngo\n")
        assert_legal_bestmove(engine.read_until("bestmove"))
        engine.send("quit\n")
        assert engine.finish()[0] == 0
    finally:
        engine.kill()


@pytest.mark.parametrize("agent", ["greedy?seed=1", "alphazero"])
@pytest.mark.parametrize("ending", ["ponderhit", "stop"])
def test_go_ponder_waits_for_ponderhit_or_stop(tmp_path: Path, agent: str, ending: str) -> None:
    flags = (
        ["--agent", agent]
        if agent != "alphazero"
        else ["--checkpoint", str(tiny_checkpoint(tmp_path / "c.pt", "chess"))]
    )
    engine = Engine(*flags)
    try:
        engine.send("uci\nisready\n")
        engine.read_until("readyok")
        engine.send("position startpos moves e2e4 e7e5\ngo ponder wtime 1000 btime 1000\n")
        assert engine.nothing_starting("bestmove", 1.0), "bestmove came before ponderhit or stop"
        engine.send(f"{ending}\n")
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        assert_legal_bestmove(engine.read_until("bestmove", timeout=10), board)
        engine.send("quit\n")
        assert engine.finish()[0] == 0
    finally:
        engine.kill()
