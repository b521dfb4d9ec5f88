"""Four-player chess notation: the 160 squares and their names, piece codes, move text and FEN4 text.

Squares are ``sq = 14 * row + col`` with ``row = 14 - rank`` (row 0 is rank 14, at Yellow's side)
and ``col = file - 'a'``: the order of FEN4 text. A square holds 0 when empty, else
``colour << 3 | type`` with colours Red 0, Blue 1, Yellow 2, Green 3 and 4 for dead (grey)
pieces, and types pawn 1, knight 2, bishop 3, rook 4, queen 5, king 6 and 7 for a queen promoted
in Free-For-All (it moves as a queen, is worth 1 point and is written ``Q``). A move is the int
``from | to << 8 | promotion << 16 | flag << 20`` (flags: 1 double step, 2 en passant, 3 castling).
The native core reads FEN4; :func:`fen4_text` writes it.
"""

from __future__ import annotations

SIZE = 14
NUM_SQUARES = SIZE * SIZE
RED, BLUE, YELLOW, GREEN, DEAD = 0, 1, 2, 3, 4
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, PROMOTED_QUEEN = 1, 2, 3, 4, 5, 6, 7
PIECE_LETTERS = " PNBRQKQ"
FFA = "ffa"
"""Free-For-All (``mode="ffa"``, the default): each for their own points"""
TEAMS = "teams"
"""Teams (``mode="teams"``): Red and Yellow against Blue and Green"""
MODES = (FFA, TEAMS)

START_FEN4 = (
    "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-"
    "x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/"
    "bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/"
    "bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/"
    "x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,rN,rB,rQ,rK,rB,rN,rR,x,x,x"
)
"""The modern set-up (chess.com's standard), Red to move."""


def is_playable(row: int, col: int) -> bool:
    """True for the 160 squares of the cross-shaped board."""
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        return False
    return not ((row < 3 or row > 10) and (col < 3 or col > 10))


PLAYABLE = tuple(is_playable(sq // SIZE, sq % SIZE) for sq in range(NUM_SQUARES))


def square_name(sq: int) -> str:
    return "abcdefghijklmn"[sq % SIZE] + str(SIZE - sq // SIZE)


def parse_square(name: str) -> int:
    """The square of a name such as ``h2`` or ``n11``; ValueError for corners and typos."""
    if len(name) < 2 or name[0] not in "abcdefghijklmn" or not name[1:].isdigit():
        raise ValueError(f"not a four-player chess square: {name!r}")
    rank = int(name[1:])
    row, col = SIZE - rank, "abcdefghijklmn".index(name[0])
    if not 1 <= rank <= SIZE or not PLAYABLE[row * SIZE + col]:
        raise ValueError(f"{name!r} is not one of the 160 playable squares")
    return row * SIZE + col


def move_text(move: int) -> str:
    """The reference notation of a move: ``h2-h3``, ``f7-f8=Q``; castling as the king's move."""
    text = f"{square_name(move & 255)}-{square_name(move >> 8 & 255)}"
    promotion = move >> 16 & 15
    return text + "=" + PIECE_LETTERS[promotion] if promotion else text


_CELL_TEXT = tuple(
    "rbygd"[code >> 3] + PIECE_LETTERS[code & 7] if code & 7 and code >> 3 <= DEAD else "" for code in range(64)
)


def fen4_text(
    squares: list[int],
    turn: int,
    live: list[bool],
    castling: list[list[int]] | list[list[bool]],
    points: list[int],
    halfmove_clock: int,
    en_passant: list[tuple[int, int] | None],
) -> str:
    """FEN4 text of a position: ``en_passant`` holds each colour's live target (skipped, landing) or None."""
    fields = [
        "RBYG"[turn],
        ",".join("0" if alive else "1" for alive in live),
        ",".join(str(int(r)) for r in castling[0]),
        ",".join(str(int(r)) for r in castling[1]),
        ",".join(str(p) for p in points),
        str(halfmove_clock),
    ]
    if any(en_passant):
        entries = ",".join(f"'{square_name(t[0])}:{square_name(t[1])}'" if t else "''" for t in en_passant)
        fields.append("{'enPassant':(" + entries + ")}")
    rows = []
    for start in range(0, NUM_SQUARES, SIZE):
        cells, empty = [], 0
        for sq in range(start, start + SIZE):
            text = _CELL_TEXT[squares[sq]] if PLAYABLE[sq] else "x"
            if text:
                if empty:
                    cells.append(str(empty))
                    empty = 0
                cells.append(text)
            else:
                empty += 1
        if empty:
            cells.append(str(empty))
        rows.append(",".join(cells))
    fields.append("/".join(rows))
    return "-".join(fields)
