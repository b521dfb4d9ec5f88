"""An engine as a teacher: its multi-PV scores of a position, as a soft policy and a value.

    teacher = open_teacher("stockfish?depth=8", "chess", multipv=4)
    label = teacher.analyse(state)   # moves best first, centipawns for the mover
    label.policy(temperature=100.0)  # softmax of the scores
    label.value()                    # the best score as an expected result in [-1, 1]

Stockfish teaches chess; Fairy-Stockfish teaches Los Alamos (or chess); 4pchess teaches
four-player Teams (one line: its best move, and its score for the mover's team). The spec is an
agent spec of those kinds (``depth``, ``nodes`` or ``movetime``; ``binary`` or a ``:path``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from chess_envs.agents.base import AgentError, AgentSpec
from chess_envs.agents.engine import EngineOptions, UciProcess, _find_binary, _Limits, engine_variant
from chess_envs.agents.four_player.engine import FourPChessAgent, FourPChessOptions
from chess_envs.core import GameState
from chess_envs.fields import check_fields, from_text
from chess_envs.four_player.state import FourPlayerState
from chess_envs.registry import get_game

MATE_CENTIPAWNS = 10_000.0
"""What a mate scores (less 10 per ply to it), so that a quicker mate is worth more."""

TEACHERS = ("stockfish", "fairy-stockfish", "4pchess")
"""the engines that teach: the UCI ones play the games the registry lists; 4pchess four-player Teams"""


@dataclass(frozen=True)
class Label:
    """What the teacher thinks of a position: its best moves (UCI, best first) and their scores,
    in centipawns for the side to move."""

    moves: tuple[str, ...]
    scores: tuple[float, ...]

    def policy(self, temperature: float) -> np.ndarray:
        """Probabilities over ``moves``: the softmax of the scores over ``temperature`` centipawns
        (0: all on the best move)."""
        scores = np.asarray(self.scores, dtype=np.float64)
        if temperature <= 0:
            out = np.zeros(len(scores))
            out[0] = 1.0
            return out
        weights = np.exp((scores - scores.max()) / temperature)
        return weights / weights.sum()

    def value(self, scale: float = 400.0) -> float:
        """The best score as an expected result for the mover, in [-1, 1]: Elo's logistic curve,
        ``2 / (1 + 10 ** (-cp / scale)) - 1``."""
        return math.tanh(self.scores[0] * math.log(10) / (2 * scale))


def parse_teacher(spec: str, game: str) -> tuple[AgentSpec, _Limits]:
    """A UCI teacher's spec checked for the game; ValueError says what is wrong with it."""
    parsed = AgentSpec.parse(spec)
    if parsed.kind not in TEACHERS:
        raise ValueError(f"the teacher must be stockfish, fairy-stockfish or 4pchess (an agent spec), got {spec!r}")
    if parsed.kind == "4pchess":
        raise ValueError(f"{spec!r}: 4pchess teaches four-player chess, not {game!r}")
    engine_variant(parsed.kind, game)  # ValueError naming the games it plays
    unknown = set(parsed.options) - {"depth", "nodes", "movetime", "binary"}
    if unknown:
        raise ValueError(f"teacher spec {spec!r}: unknown options {sorted(unknown)} (depth, nodes, movetime, binary)")
    return parsed, _Limits(from_text(EngineOptions, parsed.options))


def check_teacher(spec: str, game: str) -> None:
    """ValueError saying what is wrong with the teacher ``spec`` for ``game`` (no engine is started)."""
    if AgentSpec.parse(spec).kind == "4pchess":
        four_pchess_options(spec, game)
    else:
        parse_teacher(spec, game)


def four_pchess_options(spec: str, game: str) -> FourPChessOptions:
    """A 4pchess teacher's options (``depth`` or ``movetime``, ``hash``, ``binary``), checked."""
    parsed = AgentSpec.parse(spec)
    if get_game(game).state_class() is not FourPlayerState:
        raise ValueError(f"{spec!r}: 4pchess teaches four-player chess (Teams), not {game!r}")
    options = from_text(FourPChessOptions, parsed.options, f"teacher {spec!r} option")
    check_fields(options)
    if options.binary == "" and parsed.path:
        options.binary = parsed.path
    return options


class Labeller(Protocol):
    """What labels a distillation's positions: a teacher engine."""

    def new_game(self) -> None: ...

    def analyse(self, state: GameState) -> Label: ...

    def close(self) -> None: ...


def open_teacher(spec: str, game: str, multipv: int) -> Labeller:
    """The teacher of ``spec`` started for ``game``: :class:`Teacher` (UCI, ``multipv`` lines) or
    :class:`FourPChessTeacher` (one line)."""
    if AgentSpec.parse(spec).kind == "4pchess":
        return FourPChessTeacher(spec, game)
    return Teacher(spec, game, multipv)


class Teacher:
    """One engine process that scores positions with ``multipv`` lines."""

    def __init__(self, spec: str, game: str, multipv: int = 4) -> None:
        parsed, self.limits = parse_teacher(spec, game)
        if multipv < 1:
            raise ValueError(f"multipv must be >= 1, got {multipv}")
        self.spec, self.multipv = spec, multipv
        binary = parsed.path or parsed.options.get("binary", parsed.kind)
        self.engine = UciProcess(_find_binary(binary, parsed.kind), parsed.kind)
        if parsed.kind == "fairy-stockfish":
            self.engine.send(f"setoption name UCI_Variant value {engine_variant(parsed.kind, game)}")
        self.engine.send(f"setoption name MultiPV value {multipv}")
        self.engine.ready()

    def new_game(self) -> None:
        """``ucinewgame``: the engine's hash is cleared, so a game's labels do not depend on the games before it."""
        self.engine.send("ucinewgame")
        self.engine.ready()

    def analyse(self, state: GameState) -> Label:
        """The teacher's lines for a position that is not over (its last report of each line)."""
        fen = state.to_text()
        self.engine.send(f"position fen {fen}")
        self.engine.send(self.limits.go_command())
        lines: dict[int, tuple[str, float]] = {}
        for line in self.engine.lines_until("bestmove"):
            parsed = _info_line(line)
            if parsed is not None:
                lines[parsed[0]] = parsed[1:]
        if not lines:
            raise AgentError(f"{self.spec} scored no move in {fen}")
        ranked = sorted(lines.values(), key=lambda item: -item[1])
        return Label(tuple(move for move, _ in ranked), tuple(score for _, score in ranked))

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> Teacher:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class FourPChessTeacher:
    """obryanlouis/4pchess as a teacher of four-player Teams: its best move and its score for the
    mover's team (no MultiPV: the policy target is its move alone). A fresh engine each game, as
    its agent plays (it carries state between searches)."""

    def __init__(self, spec: str, game: str) -> None:
        options = four_pchess_options(spec, game)
        if options.depth is None and options.movetime is None:
            raise ValueError(f"teacher {spec!r}: give 4pchess a depth or a movetime")
        self.spec = spec
        self.agent = FourPChessAgent(game, None, options.depth, options.movetime, options.hash, options.binary)

    def new_game(self) -> None:
        """A fresh engine for the next game."""
        self.agent.reset()

    def analyse(self, state: GameState) -> Label:
        """Its move and score (clipped to :data:`MATE_CENTIPAWNS`) for a Teams position that is not over."""
        answer = self.agent.analyse(state)
        score = max(-MATE_CENTIPAWNS, min(MATE_CENTIPAWNS, answer.centipawns))
        return Label((state.action_to_move(answer.action),), (score,))

    def close(self) -> None:
        self.agent.close()

    def __enter__(self) -> FourPChessTeacher:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _info_line(line: str) -> tuple[int, str, float] | None:
    """(multipv index, first move, centipawns for the mover) of a UCI ``info`` line with a
    score and a pv; None for other lines and for bound-only scores."""
    words = line.split()
    if not words or words[0] != "info" or "pv" not in words or "score" not in words:
        return None
    if "lowerbound" in words or "upperbound" in words:
        return None
    index = int(words[words.index("multipv") + 1]) if "multipv" in words else 1
    at = words.index("score")
    kind, amount = words[at + 1], int(words[at + 2])
    mate = MATE_CENTIPAWNS if amount > 0 else -MATE_CENTIPAWNS
    score = float(amount) if kind == "cp" else mate - 10 * amount
    return index, words[words.index("pv") + 1], score
