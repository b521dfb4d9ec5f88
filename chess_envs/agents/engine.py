"""External UCI engines as agents: Stockfish for chess, Fairy-Stockfish for Los Alamos (and chess).

Strength comes from the spec's options, any of which may be combined:
``skill`` (Skill Level: Stockfish 0..20, Fairy-Stockfish -20..20), ``elo`` (UCI_LimitStrength with
UCI_Elo, 1350..2850 in both), ``depth``, ``nodes``, ``movetime`` (milliseconds); ``binary`` names
the executable. One engine process per agent, started on creation and ended by ``close()``.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, cast

import chess
import chess.engine

from chess_envs.agents.base import AgentError, Report, SearchLimits, Stop, Thought, expected_outcome, register_agent
from chess_envs.core import GameState
from chess_envs.fields import arg, check_fields
from chess_envs.registry import get_game, registered_games


def chess_board(state: GameState) -> chess.Board:
    """The python-chess board of a standard chess state, history included (what Stockfish plays)."""
    board = getattr(state, "board", None)
    if not isinstance(board, chess.Board):
        raise AgentError(f"stockfish plays standard chess; {type(state).__name__} has no python-chess board")
    return board


def engine_variant(engine: str, game: str) -> str:
    """The ``UCI_Variant`` under which ``engine`` plays ``game`` (the registry's ``engines`` and
    ``uci_variant``); ValueError naming the games it plays otherwise."""
    record = get_game(game)
    if engine not in record.engines or record.uci_variant is None:
        playable = [r.name for r in registered_games() if engine in r.engines]
        raise ValueError(f"{engine} does not play {game!r}; it plays {', '.join(playable) or 'nothing registered'}")
    return record.uci_variant


def _find_binary(binary: str, package: str) -> str:
    path = shutil.which(binary) or shutil.which(binary, path="/usr/games")
    if path is None:
        raise AgentError(
            f"engine binary {binary!r} not found on PATH; install it (apt-get install {package}) "
            f"or name it with ?binary=/path/to/engine"
        )
    return path


def engine_line(state: GameState, action: int, moves: list[str]) -> tuple[int, ...]:
    """An engine's principal variation as actions, cut at the first move that is not legal where it
    is played; ``action`` (the move played) first."""
    scratch, line = state.copy(), []
    for move in moves:
        try:
            step = scratch.move_to_action(move)
        except ValueError:
            break
        if scratch.is_terminal() or not scratch.legal_action_mask()[step]:
            break
        line.append(step)
        scratch.apply(step)
    return tuple(line) if line and line[0] == action else (action,)


@dataclass
class EngineOptions:
    """An engine spec's options: strength and limits (without depth, nodes or movetime: 100 ms a
    move, or a share of the clock)."""

    skill: int | None = arg(None, "Skill Level", low=0, high=20)
    depth: int | None = arg(None, "plies a move", low=1)
    nodes: int | None = arg(None, "nodes a move", low=1)
    movetime: int | None = arg(None, "milliseconds a move", low=1)
    binary: str = arg("stockfish", "the engine's program: a name on PATH, or a path")
    elo: int | None = arg(None, "UCI_Elo, with UCI_LimitStrength", low=1350, high=2850)


@dataclass
class FairyStockfishOptions(EngineOptions):
    """Fairy-Stockfish's: its skill goes below 0."""

    skill: int | None = arg(None, "Skill Level", low=-20, high=20)
    binary: str = arg("fairy-stockfish", "the engine's program: a name on PATH, or a path")


class _Limits:
    """The search limits and skill of a spec, validated by its options class."""

    def __init__(self, options: EngineOptions) -> None:
        check_fields(options)
        self.skill, self.elo, self.depth = options.skill, options.elo, options.depth
        self.nodes, self.movetime = options.nodes, options.movetime
        self.pinned = not (self.depth is None and self.nodes is None and self.movetime is None)
        """the spec names its own limits: they hold under a clock too"""
        if not self.pinned:
            self.movetime = 100

    def options(self) -> dict[str, int | bool]:
        """The UCI options the spec sets: Skill Level, and UCI_LimitStrength with UCI_Elo."""
        options: dict[str, int | bool] = {}
        if self.skill is not None:
            options["Skill Level"] = self.skill
        if self.elo is not None:
            options["UCI_LimitStrength"], options["UCI_Elo"] = True, self.elo
        return options

    def for_search(self, limits: SearchLimits | None) -> tuple[int | None, int | None, int | None]:
        """(depth, nodes, movetime ms) of one move: the spec's own when it names any (or no
        ``limits`` are given), else those of ``limits`` (a share of the clock), else 100 ms."""
        if self.pinned or limits is None:
            return self.depth, self.nodes, self.movetime
        movetime = None if limits.seconds is None else max(1, int(limits.seconds * 1000))
        if limits.depth is None and limits.nodes is None and movetime is None:
            movetime = 100
        return limits.depth, limits.nodes, movetime

    def go_command(self, limits: SearchLimits | None = None) -> str:
        parts = ["go"]
        for key, value in zip(("depth", "nodes", "movetime"), self.for_search(limits)):
            if value is not None:
                parts += [key, str(value)]
        return " ".join(parts)


class UciProcess:
    """An engine process spoken to in plain UCI lines (for what python-chess cannot describe:
    Fairy-Stockfish's variants, and multi-PV analysis of any variant)."""

    def __init__(self, executable: str, name: str) -> None:
        self.name = name
        try:
            self.process = subprocess.Popen(
                [executable],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as error:
            raise AgentError(f"could not start {executable}: {error}") from error
        self.send("uci")
        self.read_until("uciok")

    def send(self, line: str) -> None:
        try:
            stdin = cast(IO[str], self.process.stdin)  # opened with stdin=PIPE
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise AgentError(f"{self.name} is not running (exit code {self.process.poll()})") from error

    def lines_until(self, prefix: str) -> Iterator[str]:
        """The engine's lines up to and including the first that starts with ``prefix``."""
        while True:
            line = cast(IO[str], self.process.stdout).readline()
            if not line:
                raise AgentError(f"{self.name} ended while we waited for {prefix!r} (exit code {self.process.wait()})")
            yield line.strip()
            if line.startswith(prefix):
                return

    def read_until(self, prefix: str) -> str:
        """The first line that starts with ``prefix`` (the lines before it are skipped)."""
        *_, last = self.lines_until(prefix)
        return last

    def ready(self) -> None:
        self.send("isready")
        self.read_until("readyok")

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(timeout=5)
            except (AgentError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        cast(IO[str], self.process.stdin).close()
        cast(IO[str], self.process.stdout).close()


@register_agent("stockfish", EngineOptions)
class StockfishAgent:
    """Stockfish through python-chess's ``chess.engine`` (standard chess only)."""

    def __init__(
        self,
        game: str,
        path: str | None = None,
        skill: int | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        movetime: int | None = None,
        binary: str = "stockfish",
        elo: int | None = None,
    ) -> None:
        engine_variant("stockfish", game)  # standard chess only (python-chess's board speaks to it)
        self.name = "stockfish"
        self.limits = _Limits(EngineOptions(skill, depth, nodes, movetime, binary, elo))
        self._game = object()
        executable = _find_binary(path or binary, "stockfish")
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(executable)
            self.engine.configure(self.limits.options())
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError) as error:
            raise AgentError(f"could not start {executable}: {error}") from error

    def reset(self, seed: int | None = None) -> None:
        """A new game for Stockfish (``ucinewgame``: its hash is cleared, so a game does not depend
        on the games before it). Stockfish has no seed; with ``skill`` below 20 it is not
        reproducible."""
        self._game = object()

    def select_action(self, state: GameState) -> int:
        return self.think(state, None).action

    def think(self, state: GameState, limits: SearchLimits | None, stop: Stop = None, report: Report = None) -> Thought:
        """One search within the spec's limits, or, when it names none, within ``limits`` (under a
        clock, a share of it); its score and principal variation as Stockfish reports them."""
        depth, nodes, movetime = self.limits.for_search(limits)
        limit = chess.engine.Limit(depth=depth, nodes=nodes, time=None if movetime is None else movetime / 1000)
        started = time.monotonic()
        try:
            result = self.engine.play(chess_board(state), limit, game=self._game, info=chess.engine.INFO_ALL)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            raise AgentError(f"stockfish failed in {state.to_text()}: {error!r}") from error
        if result.move is None:
            raise AgentError(f"stockfish returned no move in {state.to_text()}")
        action = state.move_to_action(result.move.uci())
        score = result.info.get("score")
        cp = score.relative.score(mate_score=100_000) if score is not None else 0
        thought = Thought(
            action,
            expected_outcome(cp or 0),
            engine_line(state, action, [move.uci() for move in result.info.get("pv", [])]),
            int(result.info.get("nodes", 0)),
            time.monotonic() - started,
        )
        if report is not None:
            report(thought)
        return thought

    def close(self) -> None:
        try:
            self.engine.quit()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError):
            self.engine.close()


@register_agent("fairy-stockfish", FairyStockfishOptions)
class FairyStockfishAgent:
    """Fairy-Stockfish over UCI (``UCI_Variant losalamos`` for Los Alamos, ``chess`` for chess).

    python-chess cannot describe a 6x6 board, so this speaks the few UCI commands it needs itself.
    """

    def __init__(
        self,
        game: str,
        path: str | None = None,
        skill: int | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        movetime: int | None = None,
        binary: str = "fairy-stockfish",
        elo: int | None = None,
    ) -> None:
        variant = engine_variant("fairy-stockfish", game)
        self.name = "fairy-stockfish"
        self.limits = _Limits(FairyStockfishOptions(skill, depth, nodes, movetime, binary, elo))
        self.engine = UciProcess(_find_binary(path or binary, "fairy-stockfish"), "fairy-stockfish")
        self.engine.send(f"setoption name UCI_Variant value {variant}")
        for name, value in self.limits.options().items():
            self.engine.send(f"setoption name {name} value {str(value).lower()}")
        self.engine.ready()

    def reset(self, seed: int | None = None) -> None:
        """``ucinewgame``: the engine's hash is cleared between games (it has no seed)."""
        self.engine.send("ucinewgame")

    def select_action(self, state: GameState) -> int:
        return self.think(state, None).action

    def think(self, state: GameState, limits: SearchLimits | None, stop: Stop = None, report: Report = None) -> Thought:
        """One search within the spec's limits, or, when it names none, within ``limits`` (under a
        clock, a share of it); score, nodes and line from its last ``info``."""
        started = time.monotonic()
        self.engine.send(f"position fen {state.to_text()}")
        self.engine.send(self.limits.go_command(limits))
        cp, nodes = 0.0, 0
        pv: list[str] = []
        words: list[str] = []
        for line in self.engine.lines_until("bestmove"):
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                cp = float(value) if kind == "cp" else math.copysign(100_000, float(value))
                nodes = int(words[words.index("nodes") + 1]) if "nodes" in words else nodes
                pv = words[words.index("pv") + 1 :] if "pv" in words else pv
        if len(words) < 2 or words[1] in ("(none)", "0000"):
            raise AgentError(f"fairy-stockfish found no move in {state.to_text()}")
        action = state.move_to_action(words[1])
        variation = engine_line(state, action, pv)
        thought = Thought(action, expected_outcome(cp), variation, nodes, time.monotonic() - started)
        if report is not None:
            report(thought)
        return thought

    def close(self) -> None:
        self.engine.close()
