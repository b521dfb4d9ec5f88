"""Action encodings of standard chess, both in the mover's frame.

Squares are python-chess's numbers (a1 = 0, b1 = 1, ..., h8 = 63). When black moves, every
square ``s`` is first mirrored to ``s ^ 56`` (rank r -> rank 7 - r, same file), so the mover
always plays "up the board" and one table serves both colours.

``alphazero`` (4672 actions, AlphaZero's 8x8x73 layout)::

    action = from_square * 73 + move_type
    move_type  0..55  queen-like: direction * 7 + (distance - 1),
                      directions N, NE, E, SE, S, SW, W, NW (N = towards the opponent)
    move_type 56..63  knight: (df, dr) = (+1,+2) (+2,+1) (+2,-1) (+1,-2) (-1,-2) (-2,-1) (-2,+1) (-1,+2)
    move_type 64..72  underpromotion: 64 + direction * 3 + piece,
                      direction 0 = capture towards file-1, 1 = push, 2 = capture towards file+1,
                      piece 0 = knight, 1 = bishop, 2 = rook

    Promotion to a queen is the plain queen-like move.

``from_to`` (4272 actions, the seed's layout)::

    action = from_square * 64 + to_square           for every non-promotion move
    action = 4096 + k * 4 + piece                   for promotions, piece 0..3 = N, B, R, Q
    k  0..7   push from file k on rank 7 to rank 8
    k  8..14  capture from file k-7 (b..h) to file k-8
    k 15..21  capture from file k-15 (a..g) to file k-14
    k 22..43  the same 22 moves from rank 2 to rank 1: kept so that the layout has the seed's
              4272 entries, never legal in the mover's frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from chess_envs.core import queen_knight_layout

UNDERPROMOTION_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK)
PROMOTION_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)

Move = tuple[int, int, "int | None"]
"""(from_square, to_square, promotion piece type or None), in the mover's frame."""


@dataclass
class ActionEncoding:
    """A bijection between action indices and (from, to, promotion) triples in the mover's frame.

    ``by_from_to[from * 64 + to]`` holds the action of a non-promotion move (or -1), and
    ``by_promotion[(from, to, piece)]`` that of a promotion which the encoding spells out;
    a queen promotion absent from ``by_promotion`` is the plain from-to move.
    """

    name: str
    moves: list[Move | None]
    by_from_to: list[int] = field(init=False)
    by_promotion: dict[tuple[int, int, int], int] = field(init=False)
    _absolute: dict[str, tuple[list[int], dict[tuple[int, int, int], int]]] = field(
        init=False, default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        self.by_from_to = [-1] * 4096
        self.by_promotion = {}
        for action, move in enumerate(self.moves):
            if move is None:
                continue
            from_square, to_square, promotion = move
            if promotion is None:
                self.by_from_to[from_square * 64 + to_square] = action
            else:
                self.by_promotion[(from_square, to_square, promotion)] = action

    @property
    def num_actions(self) -> int:
        return len(self.moves)

    def encode(self, from_square: int, to_square: int, promotion: int | None) -> int:
        """Action of a move in the mover's frame; -1 when the encoding has no such move."""
        if promotion is not None:
            action = self.by_promotion.get((from_square, to_square, promotion))
            if action is not None:
                return action
            if promotion != chess.QUEEN:
                return -1
        return self.by_from_to[from_square * 64 + to_square]

    def decode(self, action: int) -> Move | None:
        """The (from, to, promotion) triple of ``action``, None where it leaves the board."""
        return self.moves[action]

    def absolute_tables(self, white: bool) -> tuple[list[int], dict[tuple[int, int, int], int]]:
        """``by_from_to`` and ``by_promotion`` keyed by real squares for the side ``white``.

        Encoding a legal move list is then one lookup per move, with no mirroring.
        """
        key = "white" if white else "black"
        if key not in self._absolute:
            flip = 0 if white else 56
            by_from_to = [self.by_from_to[(f ^ flip) * 64 + (t ^ flip)] for f in range(64) for t in range(64)]
            by_promotion = {(f ^ flip, t ^ flip, p): a for (f, t, p), a in self.by_promotion.items()}
            self._absolute[key] = (by_from_to, by_promotion)
        return self._absolute[key]


def _promotion_from_to() -> list[tuple[int, int]]:
    """The 44 promotion (from, to) pairs of the seed, in the order of the module docstring."""
    pairs = []
    for from_rank, to_rank in ((6, 7), (1, 0)):
        pairs += [(from_rank * 8 + f, to_rank * 8 + f) for f in range(8)]
        pairs += [(from_rank * 8 + f, to_rank * 8 + f - 1) for f in range(1, 8)]
        pairs += [(from_rank * 8 + f, to_rank * 8 + f + 1) for f in range(7)]
    return pairs


def _from_to_moves() -> list[Move | None]:
    moves: list[Move | None] = [
        (from_square, to_square, None) if from_square != to_square else None
        for from_square in range(64)
        for to_square in range(64)
    ]
    for from_square, to_square in _promotion_from_to():
        moves += [(from_square, to_square, piece) for piece in PROMOTION_PIECES]
    return moves


ENCODINGS: dict[str, ActionEncoding] = {
    "alphazero": ActionEncoding("alphazero", queen_knight_layout(8, UNDERPROMOTION_PIECES)),
    "from_to": ActionEncoding("from_to", _from_to_moves()),
}
"""the action encodings by name: ``alphazero`` (4,672 actions) and ``from_to`` (4,272)"""


def get_encoding(name: str) -> ActionEncoding:
    """The encoding called ``name`` ("alphazero" or "from_to")."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"unknown action_encoding {name!r}; choose one of {sorted(ENCODINGS)}") from None
