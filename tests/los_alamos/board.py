"""The Python Los Alamos rules engine, the tests' reference for the native one: a 6x6 mailbox
with precomputed move tables.

Rules and notation are Fairy-Stockfish's ``losalamos`` (see docs/rules/los_alamos.md):
no bishops, no castling, no pawn double step, no en passant, promotion to Q, R or N.

Squares, piece codes and move ints are those of :mod:`chess_envs.los_alamos.encoding`. A square
holds 0 when empty, else the piece type, positive for white and negative for black.

Legal moves come from pins and checks found once per position by walking the eight rays from
the mover's king, so only king moves need an attack test; make and unmake touch two squares.
"""

from __future__ import annotations

from chess_envs.los_alamos.encoding import (
    KING,
    KNIGHT,
    LETTER_PIECES,
    NUM_SQUARES,
    PAWN,
    PIECE_LETTERS,
    QUEEN,
    ROOK,
    SIZE,
    square_name,
)
from chess_envs.los_alamos.state import START_FEN

WHITE, BLACK = 0, 1
MAX_CLOCK = 1_000_000  # move clocks above this are refused (the native core stores them in an int)

# Directions N, NE, E, SE, S, SW, W, NW as (file step, rank step); even indices are orthogonal.
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def square(file: int, rank: int) -> int:
    return rank * SIZE + file


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < SIZE and 0 <= rank < SIZE


def _targets(sq: int, steps) -> tuple[int, ...]:
    file, rank = sq % SIZE, sq // SIZE
    return tuple(square(file + df, rank + dr) for df, dr in steps if _on_board(file + df, rank + dr))


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    file, rank, ray = sq % SIZE, sq // SIZE, []
    while _on_board(file + df, rank + dr):
        file, rank = file + df, rank + dr
        ray.append(square(file, rank))
    return tuple(ray)


RAYS = tuple(tuple(_ray(sq, df, dr) for df, dr in DIRECTIONS) for sq in range(NUM_SQUARES))
ORTHOGONAL_RAYS = tuple(tuple(RAYS[sq][d] for d in (0, 2, 4, 6)) for sq in range(NUM_SQUARES))
DIAGONAL_RAYS = tuple(tuple(RAYS[sq][d] for d in (1, 3, 5, 7)) for sq in range(NUM_SQUARES))
KNIGHT_TARGETS = tuple(_targets(sq, KNIGHT_STEPS) for sq in range(NUM_SQUARES))
KING_TARGETS = tuple(_targets(sq, DIRECTIONS) for sq in range(NUM_SQUARES))
# PAWN_FORWARD[colour]: rank step; PAWN_CAPTURES[colour][sq]: squares a pawn on sq attacks.
PAWN_FORWARD = (1, -1)
PAWN_CAPTURES = tuple(
    tuple(_targets(sq, ((-1, step), (1, step))) for sq in range(NUM_SQUARES)) for step in PAWN_FORWARD
)
PAWN_PUSH = tuple(
    tuple(sq + SIZE * step if 0 <= sq // SIZE + step < SIZE else -1 for sq in range(NUM_SQUARES))
    for step in PAWN_FORWARD
)
LAST_RANK = (SIZE - 1, 0)


class Board:
    """A Los Alamos position with make/unmake; ``turn`` is WHITE (0) or BLACK (1)."""

    __slots__ = ("squares", "turn", "halfmove_clock", "fullmove_number", "kings", "_stack")

    def __init__(self, fen: str = START_FEN) -> None:
        self._stack: list[tuple[int, int, int]] = []
        self._set_fen(fen)

    # -- FEN -------------------------------------------------------------------------------

    def _set_fen(self, fen: str) -> None:
        if not isinstance(fen, str):
            raise TypeError(f"fen must be a string, got {type(fen).__name__}")
        fields = fen.split()
        if len(fields) != 6:
            raise ValueError(f"Los Alamos FEN needs 6 fields (placement side - - halfmove fullmove), got {fen!r}")
        placement, side, castling, en_passant, halfmove, fullmove = fields
        ranks = placement.split("/")
        if len(ranks) != SIZE:
            raise ValueError(f"Los Alamos FEN needs 6 ranks, got {len(ranks)} in {fen!r}")
        squares = [0] * NUM_SQUARES
        for row, text in enumerate(ranks):
            rank, file = SIZE - 1 - row, 0
            for char in text:
                if char in "123456789":
                    file += int(char)
                    continue
                piece = LETTER_PIECES.get(char.lower())
                if piece is None:
                    hint = " (Los Alamos chess has no bishops)" if char in "bB" else ""
                    raise ValueError(f"invalid piece {char!r} in rank {rank + 1} of {fen!r}{hint}")
                if file >= SIZE:
                    raise ValueError(f"rank {rank + 1} of {fen!r} has more than 6 files")
                squares[square(file, rank)] = piece if char.isupper() else -piece
                file += 1
            if file != SIZE:
                raise ValueError(f"rank {rank + 1} of {fen!r} has {file} files, not 6")
        if side not in ("w", "b"):
            raise ValueError(f"side to move must be 'w' or 'b', got {side!r} in {fen!r}")
        if castling != "-" or en_passant != "-":
            raise ValueError(f"Los Alamos has no castling or en passant: fields 3 and 4 must be '-' in {fen!r}")
        if not (
            halfmove.isascii()
            and halfmove.isdigit()
            and fullmove.isascii()
            and fullmove.isdigit()
            and int(halfmove) <= MAX_CLOCK
            and 1 <= int(fullmove) <= MAX_CLOCK
        ):
            raise ValueError(f"bad move clocks {halfmove!r} {fullmove!r} in {fen!r} (at most {MAX_CLOCK})")
        kings = []
        for sign, name in ((1, "white"), (-1, "black")):
            found = [sq for sq in range(NUM_SQUARES) if squares[sq] == sign * KING]
            if len(found) != 1:
                raise ValueError(f"{fen!r} has {len(found)} {name} kings, not 1")
            kings.append(found[0])
        for sq in range(NUM_SQUARES):
            if abs(squares[sq]) == PAWN and sq // SIZE in (0, SIZE - 1):
                raise ValueError(f"pawn on {square_name(sq)}, a first or last rank, in {fen!r}")
        self.squares = squares
        self.kings = kings
        self.turn = WHITE if side == "w" else BLACK
        self.halfmove_clock = int(halfmove)
        self.fullmove_number = int(fullmove)
        self._stack = []
        if self.is_attacked(kings[1 - self.turn], 1 if self.turn == WHITE else -1):
            raise ValueError(f"the side not to move is in check in {fen!r}")

    def fen(self) -> str:
        rows = []
        for rank in range(SIZE - 1, -1, -1):
            text, empty = "", 0
            for file in range(SIZE):
                piece = self.squares[square(file, rank)]
                if piece == 0:
                    empty += 1
                    continue
                if empty:
                    text, empty = text + str(empty), 0
                letter = PIECE_LETTERS[abs(piece)]
                text += letter.upper() if piece > 0 else letter
            rows.append(text + (str(empty) if empty else ""))
        side = "w" if self.turn == WHITE else "b"
        return f"{'/'.join(rows)} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.squares = self.squares.copy()
        other.kings = self.kings.copy()
        other.turn = self.turn
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other._stack = self._stack.copy()
        return other

    # -- attacks ---------------------------------------------------------------------------

    def is_attacked(self, sq: int, by: int) -> bool:
        """Whether side ``by`` (+1 white, -1 black) attacks ``sq``."""
        b = self.squares
        knight, king, pawn, rook, queen = by * KNIGHT, by * KING, by * PAWN, by * ROOK, by * QUEEN
        for t in KNIGHT_TARGETS[sq]:
            if b[t] == knight:
                return True
        for t in KING_TARGETS[sq]:
            if b[t] == king:
                return True
        # A pawn of `by` attacks sq from the squares that a pawn of the other colour on sq would attack.
        for t in PAWN_CAPTURES[0 if by < 0 else 1][sq]:
            if b[t] == pawn:
                return True
        for ray in ORTHOGONAL_RAYS[sq]:
            for t in ray:
                p = b[t]
                if p:
                    if p in (rook, queen):
                        return True
                    break
        for ray in DIAGONAL_RAYS[sq]:
            for t in ray:
                p = b[t]
                if p:
                    if p == queen:
                        return True
                    break
        return False

    def is_check(self) -> bool:
        return self.is_attacked(self.kings[self.turn], -1 if self.turn == WHITE else 1)

    # -- move generation -------------------------------------------------------------------

    def legal_moves(self) -> list[int]:
        """All legal moves of the side to move."""
        b = self.squares
        turn = self.turn
        us = 1 if turn == WHITE else -1
        king = self.kings[turn]
        enemy_queen, enemy_rook = -us * QUEEN, -us * ROOK
        checks = 0
        block: tuple[int, ...] | frozenset | None = None
        pins: dict[int, tuple[int, ...]] = {}
        for d, ray in enumerate(RAYS[king]):
            own = -1
            for i, t in enumerate(ray):
                p = b[t]
                if not p:
                    continue
                if p * us > 0:
                    if own >= 0:
                        break
                    own = t
                    continue
                if p == enemy_queen or (p == enemy_rook and not d & 1):
                    if own < 0:
                        checks += 1
                        block = ray[: i + 1]
                    else:
                        pins[own] = ray[: i + 1]
                break
        enemy_knight = -us * KNIGHT
        for t in KNIGHT_TARGETS[king]:
            if b[t] == enemy_knight:
                checks += 1
                block = (t,)
        enemy_pawn = -us * PAWN
        for t in PAWN_CAPTURES[turn][king]:
            if b[t] == enemy_pawn:
                checks += 1
                block = (t,)

        moves: list[int] = []
        b[king] = 0  # so that the king cannot hide behind itself on a checking ray
        for t in KING_TARGETS[king]:
            if b[t] * us <= 0 and not self.is_attacked(t, -us):
                moves.append(king | t << 6)
        b[king] = us * KING
        if checks > 1:
            return moves

        forward = PAWN_PUSH[turn]
        captures = PAWN_CAPTURES[turn]
        last_rank = LAST_RANK[turn]
        for sq in range(NUM_SQUARES):
            piece = b[sq] * us
            if piece <= 0 or piece == KING:
                continue
            allowed: tuple[int, ...] | frozenset | None = pins.get(sq)
            if block is not None:
                allowed = block if allowed is None else tuple(t for t in allowed if t in block)
            if piece == PAWN:
                targets = []
                t = forward[sq]
                if not b[t]:
                    targets.append(t)
                for t in captures[sq]:
                    if b[t] * us < 0:
                        targets.append(t)
                for t in targets:
                    if allowed is not None and t not in allowed:
                        continue
                    if t // SIZE == last_rank:
                        moves += (sq | t << 6 | QUEEN << 12, sq | t << 6 | ROOK << 12, sq | t << 6 | KNIGHT << 12)
                    else:
                        moves.append(sq | t << 6)
            elif piece == KNIGHT:
                if sq in pins:
                    continue  # a pinned knight never stays on its line
                for t in KNIGHT_TARGETS[sq]:
                    if b[t] * us <= 0 and (allowed is None or t in allowed):
                        moves.append(sq | t << 6)
            else:
                rays = ORTHOGONAL_RAYS[sq] if piece == ROOK else RAYS[sq]
                for ray in rays:
                    for t in ray:
                        p = b[t] * us
                        if p > 0:
                            break
                        if allowed is None or t in allowed:
                            moves.append(sq | t << 6)
                        if p < 0:
                            break
        return moves

    # -- make and unmake -------------------------------------------------------------------

    def push(self, move: int) -> None:
        """Make ``move`` (which must be legal: the engine does not check)."""
        b = self.squares
        origin, target, promotion = move & 63, (move >> 6) & 63, move >> 12
        piece, captured = b[origin], b[target]
        self._stack.append((move, captured, self.halfmove_clock))
        b[origin] = 0
        if promotion:
            b[target] = promotion if piece > 0 else -promotion
        else:
            b[target] = piece
        if piece == KING or piece == -KING:
            self.kings[self.turn] = target
        if captured or piece == PAWN or piece == -PAWN:
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        if self.turn == BLACK:
            self.fullmove_number += 1
        self.turn ^= 1

    def pop(self) -> int:
        """Unmake the last move and return it."""
        move, captured, halfmove = self._stack.pop()
        b = self.squares
        origin, target = move & 63, (move >> 6) & 63
        self.turn ^= 1
        piece = b[target]
        if move >> 12:
            piece = PAWN if piece > 0 else -PAWN
        b[origin] = piece
        b[target] = captured
        if piece == KING or piece == -KING:
            self.kings[self.turn] = origin
        self.halfmove_clock = halfmove
        if self.turn == BLACK:
            self.fullmove_number -= 1
        return move

    @property
    def move_stack(self) -> list[int]:
        return [entry[0] for entry in self._stack]
