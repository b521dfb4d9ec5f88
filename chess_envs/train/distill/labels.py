"""An engine as a teacher: its multi-PV scores of a position, as a soft policy and a value.

    teacher = Teacher("stockfish?depth=8", "chess", multipv=4)
    label = teacher.analyse(state.to_text())   # moves best first, centipawns for the mover
    label.policy(temperature=100.0)            # softmax of the scores
    label.value()                              # the best score as an expected result in [-1, 1]

Stockfish teaches chess; Fairy-Stockfish teaches Los Alamos (or chess). The spec is an agent
spec of those two kinds (``depth``, ``nodes`` or ``movetime``; ``binary`` or a ``:path``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from chess_envs.agents.base import AgentError, AgentSpec
from chess_envs.agents.engine import EngineOptions, UciProcess, _find_binary, _Limits, engine_variant
from chess_envs.fields import from_text

MATE_CENTIPAWNS = 10_000.0
"""What a mate scores (less 10 per ply to it), so that a quicker mate is worth more."""

TEACHERS = ("stockfish", "fairy-stockfish")
"""the engines that teach; the games each plays are in the registry"""


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
    """A teacher spec checked for the game; ValueError says what is wrong with it."""
    parsed = AgentSpec.parse(spec)
    if parsed.kind not in TEACHERS:
        raise ValueError(f"the teacher must be stockfish or fairy-stockfish (an agent spec), got {spec!r}")
    engine_variant(parsed.kind, game)  # ValueError naming the games it plays
    unknown = set(parsed.options) - {"depth", "nodes", "movetime", "binary"}
    if unknown:
        raise ValueError(f"teacher spec {spec!r}: unknown options {sorted(unknown)} (depth, nodes, movetime, binary)")
    return parsed, _Limits(from_text(EngineOptions, parsed.options))


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

    def analyse(self, fen: str) -> Label:
        """The teacher's lines for a position that is not over (its last report of each line)."""
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
