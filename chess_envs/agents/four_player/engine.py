"""An external four-player engine as an agent: obryanlouis/4pchess (``4pchess``), Teams only.

4pchess is an alpha-beta engine with a hand-made evaluation (MIT licence) whose ``cli`` speaks a
UCI dialect: ``position fen <FEN4>`` (the project's :meth:`~chess_envs.core.GameState.to_text`),
``go depth N`` or ``go movetime MS``, ``info ... pv <moves> score <cp>`` (Red-Yellow's view) and
``bestmove h2-h4`` in the project's move text. How to build it: docs/four_player.md.

Its command line has quirks this agent works around: it prints nothing when its first iteration
misses a short ``movetime`` (the agent then stops it and asks for ``go depth 1``), it spins at
full CPU when its input closes without ``quit`` (the agent always says ``quit``, then kills it),
and it carries state between games (the agent starts a fresh engine each game). Its FEN reader
drops Green's en passant square, and it knows no repetition or fifty-move rule
(docs/rules/four_player.md lists the deviations): a move it answers that is not legal here is an
:class:`~chess_envs.agents.base.AgentError` naming the move and the position.

    agent = make_agent("4pchess:/path/to/4pchess/cli?depth=2", "four_player")
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from types import MappingProxyType
from typing import IO, cast

from chess_envs.agents.base import AgentError, Report, SearchLimits, Stop, Thought, expected_outcome, register_agent
from chess_envs.agents.engine import engine_line
from chess_envs.core import GameState
from chess_envs.fields import arg, check_fields
from chess_envs.four_player.state import FourPlayerState
from chess_envs.registry import get_game

BINARY_VARIABLE = "CHESS_ENVS_4PCHESS"
"""the environment variable that names the engine's program when the spec does not"""
DEFAULT_DEPTH = 2
"""the search depth of a move when the spec names no limit and no clock runs"""
GRACE_SECONDS = 0.2
"""how long past its ``movetime`` the engine may take to answer before it is stopped (an answer
that comes later still counts: it arrives before the ``readyok`` that follows the stop)"""


MATE_CENTIPAWNS = 100_000_000
"""4pchess's score of a mate (kMateValue): its scores are clipped to it"""


class IllegalAnswer(AgentError):
    """4pchess answered a move that is not legal here (its rules differ: docs/rules/four_player.md)."""


@dataclass(frozen=True)
class Answer:
    """The engine's answer to one position."""

    action: int
    centipawns: float
    """its last score, for the mover's team (a mate: +-:data:`MATE_CENTIPAWNS`)"""
    pv: tuple[int, ...]
    """its line from the position, as actions (``action`` first)"""
    nodes: int


@dataclass
class FourPChessOptions:
    """``4pchess``'s spec options (without depth or movetime: depth 2, or under a clock a share of it)."""

    depth: int | None = arg(None, "plies a move (go depth N)", low=1, high=64)
    movetime: int | None = arg(None, "milliseconds a move (go movetime MS)", low=1)
    hash: int | None = arg(None, "transposition table in MB (the engine's default: 100)", low=1, high=65_536)
    binary: str = arg("", f"the engine's program (its cli): a path or a name on PATH; empty: ${BINARY_VARIABLE}")


def find_binary(binary: str) -> str:
    """The engine's program: ``binary``, else ``$CHESS_ENVS_4PCHESS``; AgentError saying how to get it."""
    name = binary or os.environ.get(BINARY_VARIABLE, "")
    path = shutil.which(name) if name else None
    if path is None:
        where = f"{name!r} is not an executable program" if name else f"no program given and ${BINARY_VARIABLE} unset"
        raise AgentError(
            f"4pchess: {where}; build it (git clone https://github.com/obryanlouis/4pchess && make -C 4pchess cli, "
            f"docs/four_player.md) and name it as 4pchess:/path/to/cli or with ${BINARY_VARIABLE}"
        )
    return path


def _die_with_parent() -> None:
    """In the engine's process before it runs: the kernel kills it when its parent dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


_PR_SET_PDEATHSIG = 1


def _stop(process: subprocess.Popen) -> None:
    """``quit``, then the process killed if it has not ended within 5 seconds."""
    if process.poll() is None:
        try:
            cast(IO[str], process.stdin).write("quit\n")
            cast(IO[str], process.stdin).flush()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
    with contextlib.suppress(OSError):
        cast(IO[str], process.stdin).close()


def _read(output: IO[str], lines: queue.SimpleQueue[str | None]) -> None:
    """The engine's lines into ``lines``, then None once it ended."""
    for line in output:
        lines.put(line.strip())
    lines.put(None)


class EngineProcess:
    """The engine's process: lines in, and its output read by a thread so a wait can end. 4pchess
    spins at full CPU once its input closes without ``quit``, so it is stopped however this object
    goes (closed, collected, at exit) and, started from the main thread on Linux, dies with this
    process even when this one is killed."""

    def __init__(self, executable: str) -> None:
        guard = sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread()
        try:
            self.process = subprocess.Popen(
                [executable],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                preexec_fn=_die_with_parent if guard else None,
            )
        except OSError as error:
            raise AgentError(f"could not start 4pchess ({executable}): {error}") from error
        self._stop = weakref.finalize(self, _stop, self.process)
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        reader = (cast(IO[str], self.process.stdout), self.lines)  # not self: an unclosed engine is collected
        threading.Thread(target=_read, args=reader, daemon=True).start()

    def send(self, line: str) -> None:
        try:
            stdin = cast(IO[str], self.process.stdin)
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise AgentError(f"4pchess is not running (exit code {self.process.poll()})") from error

    def line(self, deadline: float | None) -> str | None:
        """The engine's next line; None once ``deadline`` (``time.monotonic()``) passed without one."""
        try:
            line = self.lines.get(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            self.lines.put(None)
            raise AgentError(f"4pchess ended (exit code {self.process.wait()})")
        return line

    def lines_until(self, prefix: str, deadline: float | None = None) -> list[str] | None:
        """Its lines up to and including the first that starts with ``prefix``; None at ``deadline``."""
        lines: list[str] = []
        while (line := self.line(deadline)) is not None:
            lines.append(line)
            if line.startswith(prefix):
                return lines
        return None

    def close(self) -> None:
        """``quit``, then the process killed if it has not ended within 5 seconds."""
        self._stop()


@register_agent("4pchess", FourPChessOptions)
class FourPChessAgent:
    """obryanlouis/4pchess over its UCI dialect, for four-player Teams; a fresh engine each game."""

    plays_only = MappingProxyType({"mode": "teams"})

    def __init__(
        self,
        game: str,
        path: str | None = None,
        depth: int | None = None,
        movetime: int | None = None,
        hash: int | None = None,
        binary: str = "",
    ) -> None:
        if get_game(game).state_class() is not FourPlayerState:
            raise ValueError(f"4pchess plays four-player chess (Teams), not {game!r}")
        self.options = FourPChessOptions(depth, movetime, hash, binary)
        check_fields(self.options)
        self.name = "4pchess"
        self.executable = find_binary(path or binary)
        self.engine: EngineProcess | None = None
        self.start()

    def start(self) -> None:
        """A fresh engine: ``uci``, the hash set, ``isready``."""
        self.close()
        engine = EngineProcess(self.executable)
        self.engine = engine
        engine.send("uci")
        engine.lines_until("uciok")
        if self.options.hash is not None:
            engine.send(f"setoption name Hash value {self.options.hash}")
        engine.send("isready")
        engine.lines_until("readyok")

    def reset(self, seed: int | None = None) -> None:
        """A fresh engine for the next game (4pchess has no seed: it plays the same moves)."""
        self.close()

    def go_command(self, limits: SearchLimits | None) -> tuple[str, float | None]:
        """``go`` with the spec's limit, else a share of the clock as movetime, else depth 2; and
        the seconds the engine has to answer (None: no bound, a depth search)."""
        options = self.options
        if options.depth is not None:
            return f"go depth {options.depth}", None
        movetime = options.movetime
        if movetime is None and limits is not None and limits.seconds is not None:
            movetime = max(1, int(limits.seconds * 1000))
        if movetime is None:
            return f"go depth {DEFAULT_DEPTH}", None
        return f"go movetime {movetime}", movetime / 1000 + GRACE_SECONDS

    def select_action(self, state: GameState) -> int:
        return self.think(state, None).action

    def think(self, state: GameState, limits: SearchLimits | None, stop: Stop = None, report: Report = None) -> Thought:
        """One search of ``state`` sent as FEN4; its score (the mover's team's) and line from its last ``info``."""
        started = time.monotonic()
        answer = self.analyse(state, limits)
        thought = Thought(
            answer.action, expected_outcome(answer.centipawns), answer.pv, answer.nodes, time.monotonic() - started
        )
        if report is not None:
            report(thought)
        return thought

    def analyse(self, state: GameState, limits: SearchLimits | None = None) -> Answer:
        """The engine's move for ``state`` (sent as FEN4), with the score and line of its last ``info``."""
        if not isinstance(state, FourPlayerState) or state.teams is None:
            raise AgentError("4pchess plays four-player Teams only; this game is Free-For-All (set mode=teams)")
        if self.engine is None or self.engine.process.poll() is not None:
            self.start()
        engine = cast(EngineProcess, self.engine)
        fen = state.to_text()
        engine.send(f"position fen {fen}")
        engine.send("isready")
        answered = cast(list[str], engine.lines_until("readyok"))
        if any("Invalid FEN" in line for line in answered):
            raise AgentError(f"4pchess could not read the position {fen}")
        command, seconds = self.go_command(limits)
        engine.send(command)
        lines = engine.lines_until("bestmove", None if seconds is None else time.monotonic() + seconds)
        if lines is None:  # no iteration finished in time: 4pchess then prints nothing at all
            engine.send("stop")
            engine.send("isready")
            lines = [line for line in cast(list[str], engine.lines_until("readyok")) if not line.startswith("readyok")]
            if not any(line.startswith("bestmove") for line in lines):
                engine.send("go depth 1")
                lines = cast(list[str], engine.lines_until("bestmove"))
        return self._answer(state, lines)

    def _answer(self, state: GameState, lines: list[str]) -> Answer:
        """The move of ``bestmove`` and the score, nodes and line of the last ``info`` before it."""
        words = next(line.split() for line in reversed(lines) if line.startswith("bestmove"))
        if len(words) < 2:
            raise AgentError(f"4pchess found no move in {state.to_text()}")
        try:
            action = state.move_to_action(words[1])
        except ValueError as error:
            raise IllegalAnswer(f"4pchess answered {words[1]!r}, not a legal move in {state.to_text()}") from error
        if not state.legal_action_mask()[action]:
            raise IllegalAnswer(f"4pchess answered {words[1]!r}, not a legal move in {state.to_text()}")
        cp, nodes = 0.0, 0
        pv: tuple[int, ...] = (action,)
        for info in (line.split() for line in lines if line.startswith("info ")):
            if "score" in info and "pv" in info[: info.index("score")]:
                cp = float(info[info.index("score") + 1])
                nodes = int(info[info.index("nodes") + 1]) if "nodes" in info else nodes
                pv = engine_line(state, action, info[info.index("pv") + 1 : info.index("score")])
        if state.current_player % 2:  # Blue and Green: 4pchess scores for Red-Yellow
            cp = -cp
        return Answer(action, max(-MATE_CENTIPAWNS, min(MATE_CENTIPAWNS, cp)), pv, nodes)

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
