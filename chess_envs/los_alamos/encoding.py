"""Los Alamos moves: squares, UCI text and the action encoding handed to the native core.

Squares are ``rank * 6 + file`` (a1 = 0, f1 = 5, a6 = 30, f6 = 35). A move is the int
``from | to << 6 | promotion << 12``, the promotion a piece code below (0 for none). The
actions are documented in :mod:`chess_envs.los_alamos.state`.
"""

from __future__ import annotations

from chess_envs.core import queen_knight_layout

SIZE = 6
NUM_SQUARES = SIZE * SIZE
PAWN, KNIGHT, ROOK, QUEEN, KING = 1, 2, 3, 4, 5
PIECE_LETTERS = {PAWN: "p", KNIGHT: "n", ROOK: "r", QUEEN: "q", KING: "k"}
"""piece type -> its FEN letter (lowercase; no bishops in Los Alamos chess)"""
LETTER_PIECES = {letter: piece for piece, letter in PIECE_LETTERS.items()}
PROMOTIONS = (QUEEN, ROOK, KNIGHT)
MIRROR = tuple((SIZE - 1 - sq // SIZE) * SIZE + sq % SIZE for sq in range(NUM_SQUARES))
"""Square ``sq`` seen from black's side (ranks reversed): black's frame."""


def square_name(sq: int) -> str:
    return "abcdef"[sq % SIZE] + str(sq // SIZE + 1)


def parse_square(name: str) -> int:
    if len(name) != 2 or name[0] not in "abcdef" or name[1] not in "123456":
        raise ValueError(f"not a Los Alamos square: {name!r}")
    return (int(name[1]) - 1) * SIZE + "abcdef".index(name[0])


def move_uci(move: int) -> str:
    """UCI text of a move int, e.g. ``a5a6q``."""
    promotion = move >> 12
    text = square_name(move & 63) + square_name((move >> 6) & 63)
    return text + PIECE_LETTERS[promotion] if promotion else text


def parse_uci(text: str) -> int:
    """The move int of UCI text (legal or not); ValueError when it is malformed."""
    if not isinstance(text, str) or len(text) not in (4, 5):
        raise ValueError(f"malformed UCI move {text!r}")
    origin, target = parse_square(text[:2]), parse_square(text[2:4])
    promotion = 0
    if len(text) == 5:
        promotion = LETTER_PIECES.get(text[4], 0)
        if promotion not in PROMOTIONS:
            raise ValueError(f"malformed UCI move {text!r}: promotion must be q, r or n")
    return origin | target << 6 | promotion << 12


_LAYOUT = queen_knight_layout(SIZE, (KNIGHT, ROOK))
NUM_ACTIONS = len(_LAYOUT)
"""the size of the action space: a from-square times a move type (1,944)"""


def _move_tables() -> tuple[list[dict[int, int]], list[list[int]]]:
    """Per colour: move int -> action, and action -> move int (-1 off the board)."""
    encode: list[dict[int, int]] = [{}, {}]
    decode: list[list[int]] = [[-1] * NUM_ACTIONS, [-1] * NUM_ACTIONS]
    for colour in (0, 1):
        frame = range(NUM_SQUARES) if colour == 0 else MIRROR
        for action, entry in enumerate(_LAYOUT):
            if entry is None:
                continue
            origin, target, promotion = entry
            move = frame[origin] | frame[target] << 6 | (promotion or 0) << 12
            encode[colour][move] = action
            decode[colour][action] = move
            if promotion is None and target // SIZE == SIZE - 1:
                # A pawn reaching the last rank by a queen-like move promotes to a queen.
                encode[colour][move | QUEEN << 12] = action  # the move text gains "q" when a pawn makes it
    return encode, decode


ENCODE, DECODE = _move_tables()
"""``ENCODE[colour][move]``: the action of a move int for ``colour`` (0 white, 1 black);
``DECODE[colour][action]``: its move int without a queen promotion, -1 where it leaves the board."""
