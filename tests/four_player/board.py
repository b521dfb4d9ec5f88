"""The Python four-player chess rules engine (chess.com style, docs/rules/four_player.md),
the tests' reference for the native one.

A 14x14 mailbox with precomputed rays over the 160 playable squares. Squares, square codes and
move ints are those of :mod:`chess_envs.four_player.notation`. :meth:`Board.push` plays a move
with the whole end-of-move processing of the mode (points, king captures, immediate checkmates
in turn order, stalemate eliminations, dead pieces); :meth:`Board.pop` takes it back exactly.
Draw rules and the claim-win ending are the game state's business (they need the history); the
board ends the game only when one player (FFA) or one team (Teams, by king capture) is left, as
the reference perft counts.
"""

from __future__ import annotations

import re
from typing import Any

from chess_envs.four_player.notation import (
    BISHOP,
    DEAD,
    FFA,
    KING,
    KNIGHT,
    MODES,
    NUM_SQUARES,
    PAWN,
    PLAYABLE,
    PROMOTED_QUEEN,
    QUEEN,
    RED,
    ROOK,
    SIZE,
    START_FEN4,
    TEAMS,
    YELLOW,
    fen4_text,
    is_playable,
    move_text,
    parse_square,
    square_name,
)
from chess_envs.native import core

COLOUR_NAMES = ("Red", "Blue", "Yellow", "Green")
LETTER_TYPES = {"P": PAWN, "N": KNIGHT, "B": BISHOP, "R": ROOK, "Q": QUEEN, "K": KING}
FLAG_DOUBLE, FLAG_EP, FLAG_CASTLE = 1, 2, 3

# Points for capturing a live piece, by type (FFA).
CAPTURE_POINTS = (0, 1, 3, 5, 5, 9, 20, 1)
CHECKMATE_POINTS = 20
STALEMATE_POINTS = 20
DOUBLE_CHECK_POINTS = (1, 5)  # (moved piece is a queen, otherwise)
TRIPLE_CHECK_POINTS = (5, 20)


# Directions as (row step, col step): N E S W (orthogonal), then NE SE SW NW; N is towards rank 14.
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1))
KNIGHT_STEPS = ((-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1))


def _ray(sq: int, dr: int, dc: int) -> tuple[int, ...]:
    row, col, ray = sq // SIZE, sq % SIZE, []
    while is_playable(row + dr, col + dc):
        row, col = row + dr, col + dc
        ray.append(row * SIZE + col)
    return tuple(ray)


def _steps(sq: int, steps) -> tuple[int, ...]:
    row, col = sq // SIZE, sq % SIZE
    return tuple((row + dr) * SIZE + col + dc for dr, dc in steps if is_playable(row + dr, col + dc))


RAYS = tuple(tuple(_ray(sq, dr, dc) for dr, dc in DIRECTIONS) for sq in range(NUM_SQUARES))
ORTHOGONAL_RAYS = tuple(tuple(r for r in RAYS[sq][:4] if r) for sq in range(NUM_SQUARES))
DIAGONAL_RAYS = tuple(tuple(r for r in RAYS[sq][4:] if r) for sq in range(NUM_SQUARES))
QUEEN_RAYS = tuple(ORTHOGONAL_RAYS[sq] + DIAGONAL_RAYS[sq] for sq in range(NUM_SQUARES))
KNIGHT_TARGETS = tuple(_steps(sq, KNIGHT_STEPS) for sq in range(NUM_SQUARES))
KING_TARGETS = tuple(_steps(sq, DIRECTIONS) for sq in range(NUM_SQUARES))
SLIDER_RAYS = {BISHOP: DIAGONAL_RAYS, ROOK: ORTHOGONAL_RAYS, QUEEN: QUEEN_RAYS, PROMOTED_QUEEN: QUEEN_RAYS}

# Pawns, per colour: forward step and the two capture steps as (row step, col step).
PAWN_FORWARD = ((-1, 0), (0, 1), (1, 0), (0, -1))
PAWN_CAPTURE_STEPS = (((-1, -1), (-1, 1)), ((-1, 1), (1, 1)), ((1, -1), (1, 1)), ((-1, -1), (1, -1)))
# The line a pawn starts on, and the promotion lines (FFA: the 8th rank, Teams: the 11th), as
# (axis, index): axis 0 = a row, 1 = a column.
PAWN_START_LINE = ((0, 12), (1, 1), (0, 1), (1, 12))
PROMOTION_LINE = {FFA: ((0, 6), (1, 7), (0, 7), (1, 6)), TEAMS: ((0, 3), (1, 10), (0, 10), (1, 3))}


def _on_line(sq: int, line: tuple[int, int]) -> bool:
    axis, index = line
    return (sq // SIZE if axis == 0 else sq % SIZE) == index


def _pawn_tables():
    push, double, captures, attackers = [], [], [], []
    for colour in range(4):
        dr, dc = PAWN_FORWARD[colour]
        push.append(tuple(_steps(sq, ((dr, dc),)) or (-1,) for sq in range(NUM_SQUARES)))
        double.append(
            tuple(
                (_steps(sq, ((2 * dr, 2 * dc),)) or (-1,))[0] if _on_line(sq, PAWN_START_LINE[colour]) else -1
                for sq in range(NUM_SQUARES)
            )
        )
        captures.append(tuple(_steps(sq, PAWN_CAPTURE_STEPS[colour]) for sq in range(NUM_SQUARES)))
        back = tuple((-r, -c) for r, c in PAWN_CAPTURE_STEPS[colour])
        attackers.append(tuple(_steps(sq, back) for sq in range(NUM_SQUARES)))
    push = tuple(tuple(p[0] for p in per_colour) for per_colour in push)
    # PAWN_SOURCES[sq]: (square, pawn code) of every pawn that would attack sq.
    sources = tuple(
        tuple((t, colour << 3 | PAWN) for colour in range(4) for t in attackers[colour][sq])
        for sq in range(NUM_SQUARES)
    )
    return push, tuple(double), tuple(captures), sources


PAWN_PUSH, PAWN_DOUBLE, PAWN_CAPTURES, PAWN_SOURCES = _pawn_tables()
PROMOTION_SQUARES = {
    mode: tuple(frozenset(sq for sq in range(NUM_SQUARES) if PLAYABLE[sq] and _on_line(sq, lines[c])) for c in range(4))
    for mode, lines in PROMOTION_LINE.items()
}

# Each colour's back rank, in its own left-to-right order (8 squares), for castling.
BACK_RANKS = (
    tuple(13 * SIZE + col for col in range(3, 11)),  # Red: d1..k1
    tuple(row * SIZE for row in range(10, 2, -1)),  # Blue: a4..a11
    tuple(col for col in range(10, 2, -1)),  # Yellow: k14..d14
    tuple(row * SIZE + 13 for row in range(3, 11)),  # Green: n11..n4
)


def _code_tables():
    """Per mode and colour, tables indexed by square code (0..63)."""
    hostile, capturable = {}, {}
    for mode in MODES:
        hostile[mode], capturable[mode] = [], []
        for colour in range(4):
            enemies = {c for c in range(4) if c != colour} if mode == FFA else {(colour + 1) % 4, (colour + 3) % 4}
            hostile[mode].append(tuple(code >> 3 in enemies and code & 7 != 0 for code in range(64)))
            capturable[mode].append(
                tuple(code & 7 != 0 and (code >> 3 in enemies or code >> 3 == DEAD) for code in range(64))
            )
    # own[colour][code]: a live piece of that colour (for "checks given by the mover").
    own = [tuple(code >> 3 == colour and code & 7 != 0 for code in range(64)) for colour in range(4)]
    return hostile, capturable, own


HOSTILE, CAPTURABLE, OWN = _code_tables()
ORTHOGONAL_SLIDER = tuple(code & 7 in (ROOK, QUEEN, PROMOTED_QUEEN) for code in range(64))
DIAGONAL_SLIDER = tuple(code & 7 in (BISHOP, QUEEN, PROMOTED_QUEEN) for code in range(64))
IS_KNIGHT = tuple(code & 7 == KNIGHT for code in range(64))
IS_KING = tuple(code & 7 == KING for code in range(64))
IS_LIVE_KING = tuple(code & 7 == KING and code >> 3 < DEAD for code in range(64))
SLIDER_FOR_DIRECTION = (ORTHOGONAL_SLIDER,) * 4 + (DIAGONAL_SLIDER,) * 4


class Board:
    """A four-player position with make/unmake and legal-move generation.

    >>> board = Board()
    >>> len(board.legal_moves()), board.turn
    (20, 0)
    >>> board.push(board.parse_move("h2-h4")); board.turn
    1
    >>> board.fen4().split("-")[:6]
    ['B', '0,0,0,0', '1,1,1,1', '1,1,1,1', '0,0,0,0', '0']
    """

    def __init__(self, fen4: str = START_FEN4, mode: str = FFA) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self._hostile = HOSTILE[mode]
        self._capturable = CAPTURABLE[mode]
        self._promotion = PROMOTION_SQUARES[mode]
        self._parse(fen4)
        self._castling_squares()
        self._stack: list[tuple] = []
        self._moves: list[int] | None = None
        self.game_over = self._count_live() <= 1 if mode == FFA else False
        self.winner_team: int | None = None  # Teams: 0 for Red+Yellow, 1 for Blue+Green

    # -- FEN4 ------------------------------------------------------------------------------

    def _parse(self, fen4: str) -> None:
        if not isinstance(fen4, str):
            raise TypeError(f"FEN4 must be a string, got {type(fen4).__name__}")
        text = fen4.strip()
        # The optional extras field is a brace-delimited dict that may itself hold dashes.
        if len(text) > MAX_FEN4_LENGTH:
            raise ValueError(f"FEN4 is {len(text):,} characters long; at most {MAX_FEN4_LENGTH:,} are accepted")
        extras: dict = {}
        if "{" in text:
            start, end = text.index("{"), text.rfind("}")
            if end < start:
                raise ValueError(f"FEN4 extras open with '{{' but never close: {text[start:]!r}")
            extras = parse_extras(text[start : end + 1])
            text = text[:start] + text[end + 1 :]
            fields = [f for f in text.split("-") if f != ""]
        else:
            fields = text.split("-")
        if len(fields) != 7:
            raise ValueError(
                f"FEN4 needs 7 fields separated by '-' (turn, eliminated, kingside, queenside, points, "
                f"halfmove clock, placement) plus optional {{extras}}; got {len(fields)} in {fen4!r}"
            )
        turn, dead, kingside, queenside, points, clock, placement = fields
        if turn not in ("R", "B", "Y", "G"):
            raise ValueError(f"FEN4 player to move must be R, B, Y or G, got {turn!r}")
        self.turn = "RBYG".index(turn)
        eliminated = _four_ints(dead, "eliminated flags")
        self.live = [not e for e in eliminated]
        self.castling = [_four_ints(kingside, "kingside castling"), _four_ints(queenside, "queenside castling")]
        self.points = _four_ints(points, "points", flags=False)
        if not (clock.isascii() and clock.isdigit()) or int(clock) > MAX_COUNT:
            raise ValueError(f"FEN4 halfmove clock must be an integer in [0, {MAX_COUNT:,}], got {clock!r}")
        self.halfmove_clock = int(clock)
        self.squares = _parse_placement(placement)
        self.pieces: list[set[int]] = [set() for _ in range(4)]
        self.kings = [-1, -1, -1, -1]
        for sq, code in enumerate(self.squares):
            colour = code >> 3
            if code and colour < 4:
                if not self.live[colour]:
                    raise ValueError(
                        f"FEN4 has a live {COLOUR_NAMES[colour]} piece on {square_name(sq)}, "
                        f"but {COLOUR_NAMES[colour]} is eliminated"
                    )
                self.pieces[colour].add(sq)
                if code & 7 == KING:
                    if self.kings[colour] >= 0:
                        raise ValueError(f"FEN4 has two {COLOUR_NAMES[colour]} kings")
                    self.kings[colour] = sq
        for colour in range(4):
            if self.live[colour] and self.kings[colour] < 0:
                raise ValueError(
                    f"FEN4 has no {COLOUR_NAMES[colour]} king but {COLOUR_NAMES[colour]} is not eliminated"
                )
        if not self.live[self.turn]:
            raise ValueError(f"FEN4 gives the move to {COLOUR_NAMES[self.turn]}, who is eliminated")
        self.en_passant: list[tuple[int, int] | None] = [None] * 4
        targets = extras.get("enPassant", ("", "", "", ""))
        if not isinstance(targets, (tuple, list)) or len(targets) != 4:
            raise ValueError(f"FEN4 enPassant must hold 4 entries, got {targets!r}")
        for colour, entry in enumerate(targets):
            if entry:
                try:
                    skipped, landing = (parse_square(s) for s in str(entry).split(":"))
                except ValueError as err:
                    raise ValueError(f"FEN4 enPassant entry {entry!r}: {err}") from None
                self.en_passant[colour] = (skipped, landing)

    def fen4(self) -> str:
        """The position as FEN4 with ``x`` corners, ``d`` dead pieces and the enPassant extra."""
        return fen4_text(
            self.squares,
            self.turn,
            self.live,
            self.castling,
            self.points,
            self.halfmove_clock,
            [self._ep_target(c) for c in range(4)],
        )

    def _castling_squares(self) -> None:
        """Castling geometry per colour from where its king starts (modern or classic set-up)."""
        # self.castle[colour][side] = (king from, king to, rook from, rook to, empty squares, king path)
        self.castle: list[tuple] = []
        self.rook_homes: dict[int, tuple[int, int]] = {}
        for colour, rank in enumerate(BACK_RANKS):
            king = self.kings[colour]
            index = rank.index(king) if king in rank[3:5] else (4 if colour in (RED, YELLOW) else 3)
            near, far = (7, 0) if index == 4 else (0, 7)
            step_near, step_far = (1, -1) if index == 4 else (-1, 1)
            sides = []
            for rook_index, step in ((near, step_near), (far, step_far)):
                king_to = rank[index + 2 * step]
                crossed = rank[index + step]
                between = tuple(rank[i] for i in range(min(index, rook_index) + 1, max(index, rook_index)))
                sides.append((rank[index], king_to, rank[rook_index], crossed, between, (crossed, king_to)))
                self.rook_homes[rank[rook_index]] = (colour, len(sides) - 1)
            self.castle.append(tuple(sides))

    # -- queries ---------------------------------------------------------------------------

    def _count_live(self) -> int:
        return sum(self.live)

    def _ep_target(self, colour: int) -> tuple[int, int] | None:
        """The live en-passant target of ``colour``: its pawn still stands on the landing square."""
        target = self.en_passant[colour]
        if target is None or self.squares[target[1]] != (colour << 3 | PAWN):
            return None
        return target

    def attacked(self, sq: int, attackers: tuple) -> bool:
        """Whether a piece whose code is True in ``attackers`` attacks ``sq``."""
        squares = self.squares
        for t in KNIGHT_TARGETS[sq]:
            code = squares[t]
            if code and attackers[code] and IS_KNIGHT[code]:
                return True
        for t, pawn in PAWN_SOURCES[sq]:
            if squares[t] == pawn and attackers[pawn]:
                return True
        for t in KING_TARGETS[sq]:
            code = squares[t]
            if code and attackers[code] and IS_KING[code]:
                return True
        for ray in ORTHOGONAL_RAYS[sq]:
            for t in ray:
                code = squares[t]
                if code:
                    if attackers[code] and ORTHOGONAL_SLIDER[code]:
                        return True
                    break
        for ray in DIAGONAL_RAYS[sq]:
            for t in ray:
                code = squares[t]
                if code:
                    if attackers[code] and DIAGONAL_SLIDER[code]:
                        return True
                    break
        return False

    def in_check(self, colour: int | None = None) -> bool:
        """Whether ``colour``'s king (default: the side to move) is attacked by a live enemy."""
        colour = self.turn if colour is None else colour
        king = self.kings[colour]
        return king >= 0 and self.live[colour] and self.attacked(king, self._hostile[colour])

    def legal_moves(self) -> list[int]:
        """Legal moves of the side to move (empty once the game is over). Do not mutate."""
        if self._moves is None:
            self._moves = [] if self.game_over else self.generate(self.turn)
        return self._moves

    def generate(self, colour: int) -> list[int]:
        """Legal moves of ``colour`` as if it were to move."""
        squares = self.squares
        hostile = self._hostile[colour]
        capturable = self._capturable[colour]
        teams = self.mode == TEAMS
        king = self.kings[colour]
        moves: list[int] = []
        checkers: list[int] = []
        block: set[int] | None = None
        pins: dict[int, frozenset[int] | set[int]] = {}
        if king >= 0:
            for direction, ray in enumerate(RAYS[king]):
                slider = SLIDER_FOR_DIRECTION[direction]
                first = -1
                for i, t in enumerate(ray):
                    code = squares[t]
                    if not code:
                        continue
                    if first < 0:
                        if hostile[code] and slider[code]:
                            checkers.append(t)
                            block = set(ray[: i + 1])
                        elif code >> 3 == colour:
                            first = t
                            continue
                        break
                    if hostile[code] and slider[code]:
                        pins[first] = set(ray[: i + 1])
                    break
            for t in KNIGHT_TARGETS[king]:
                code = squares[t]
                if code and hostile[code] and IS_KNIGHT[code]:
                    checkers.append(t)
                    block = {t}
            for t, pawn in PAWN_SOURCES[king]:
                if squares[t] == pawn and hostile[pawn]:
                    checkers.append(t)
                    block = {t}
            for t in KING_TARGETS[king]:
                code = squares[t]
                if code and hostile[code] and IS_KING[code]:
                    checkers.append(t)
                    block = {t}
        if len(checkers) > 1:
            block = set()
        elif not checkers:
            block = None
        promotion_squares = self._promotion[colour]
        promotions = (QUEEN, ROOK, BISHOP, KNIGHT) if teams else (PROMOTED_QUEEN,)
        ep_squares = {}
        for c in range(4):
            if hostile[c << 3 | PAWN]:
                ep_target = self._ep_target(c)
                if ep_target is not None:
                    ep_squares[ep_target[0]] = ep_target[1]
        for sq in self.pieces[colour]:
            code = squares[sq]
            kind = code & 7
            if kind == KING:
                continue
            allowed = pins.get(sq)
            if block is not None:
                allowed = block if allowed is None else allowed & block
            if kind == PAWN:
                to = PAWN_PUSH[colour][sq]
                if to >= 0 and not squares[to]:
                    if allowed is None or to in allowed:
                        if to in promotion_squares:
                            moves.extend(sq | to << 8 | p << 16 for p in promotions)
                        else:
                            moves.append(sq | to << 8)
                    to2 = PAWN_DOUBLE[colour][sq]
                    if to2 >= 0 and not squares[to2] and (allowed is None or to2 in allowed):
                        moves.append(sq | to2 << 8 | FLAG_DOUBLE << 20)
                for to in PAWN_CAPTURES[colour][sq]:
                    target = squares[to]
                    landing = ep_squares.get(to)
                    if landing is not None and (not target or capturable[target]):
                        if self._ep_is_legal(colour, sq, to, landing):
                            flag = FLAG_EP << 20
                            if to in promotion_squares:
                                moves.extend(sq | to << 8 | p << 16 | flag for p in promotions)
                            else:
                                moves.append(sq | to << 8 | flag)
                    elif (
                        target
                        and capturable[target]
                        and (allowed is None or to in allowed or (teams and hostile[target] and IS_KING[target]))
                    ):
                        if to in promotion_squares:
                            moves.extend(sq | to << 8 | p << 16 for p in promotions)
                        else:
                            moves.append(sq | to << 8)
            elif kind == KNIGHT:
                for to in KNIGHT_TARGETS[sq]:
                    target = squares[to]
                    if not target:
                        if allowed is None or to in allowed:
                            moves.append(sq | to << 8)
                    elif capturable[target] and (
                        allowed is None or to in allowed or (teams and hostile[target] and IS_KING[target])
                    ):
                        moves.append(sq | to << 8)
            else:
                for ray in SLIDER_RAYS[kind][sq]:
                    for to in ray:
                        target = squares[to]
                        if not target:
                            if allowed is None or to in allowed:
                                moves.append(sq | to << 8)
                            continue
                        if capturable[target] and (
                            allowed is None or to in allowed or (teams and hostile[target] and IS_KING[target])
                        ):
                            moves.append(sq | to << 8)
                        break
        if king >= 0:
            self._king_moves(colour, king, moves, hostile, capturable, teams, not checkers)
        return moves

    def _king_moves(self, colour, king, moves, hostile, capturable, teams, safe) -> None:
        squares = self.squares
        code = squares[king]
        squares[king] = 0
        try:
            for to in KING_TARGETS[king]:
                target = squares[to]
                if target and not capturable[target]:
                    continue
                if not self.attacked(to, hostile) or (teams and target and hostile[target] and IS_KING[target]):
                    moves.append(king | to << 8)
        finally:
            squares[king] = code
        if not safe:
            return
        for side in (0, 1):
            if not self.castling[side][colour]:
                continue
            king_from, king_to, rook_from, _, between, path = self.castle[colour][side]
            if king != king_from or squares[rook_from] != (colour << 3 | ROOK):
                continue
            if any(squares[s] for s in between):
                continue
            if any(self.attacked(s, hostile) for s in path):
                continue
            moves.append(king | king_to << 8 | FLAG_CASTLE << 20)

    def _ep_is_legal(self, colour: int, origin: int, to: int, landing: int) -> bool:
        """En passant removes a pawn off the move's line, so it is tried on the board."""
        if self.mode == TEAMS and self.squares[to] & 7 == KING:
            return True
        squares = self.squares
        pawn, target, victim = squares[origin], squares[to], squares[landing]
        squares[origin], squares[to], squares[landing] = 0, pawn, 0
        try:
            return not self.attacked(self.kings[colour], self._hostile[colour]) if self.kings[colour] >= 0 else True
        finally:
            squares[origin], squares[to], squares[landing] = pawn, target, victim

    # -- make and unmake -------------------------------------------------------------------

    def push(self, move: int) -> None:
        """Play a legal ``move`` (not validated: see :meth:`parse_move`) and run the end of move."""
        squares = self.squares
        mover = self.turn
        origin, to, promotion, flag = move & 255, move >> 8 & 255, move >> 16 & 15, move >> 20
        piece = squares[origin]
        captured = squares[to]
        ep_square, ep_victim = -1, 0
        if flag == FLAG_EP:
            for c in range(4):
                target = self._ep_target(c)
                if target is not None and target[0] == to:
                    ep_square = target[1]
                    ep_victim = squares[ep_square]
                    break
        self._stack.append(
            (
                move,
                piece,
                captured,
                ep_square,
                ep_victim,
                self.castling[0][:],
                self.castling[1][:],
                self.en_passant[:],
                self.halfmove_clock,
                self.points[:],
                self.live[:],
                self.kings[:],
                self._moves,
                self.game_over,
                self.winner_team,
                [],
            )
        )
        recoloured = self._stack[-1][-1]
        pieces = self.pieces
        own = pieces[mover]
        # Move the piece (and the rook when castling); remove what it captures.
        own.discard(origin)
        squares[origin] = 0
        if captured:
            self._remove(to, captured)
        if ep_square >= 0:
            squares[ep_square] = 0
            self._remove(ep_square, ep_victim)
        placed = mover << 3 | promotion if promotion else piece
        squares[to] = placed
        own.add(to)
        kind = piece & 7
        if kind == KING:
            self.kings[mover] = to
            self.castling[0][mover] = self.castling[1][mover] = 0
            if flag == FLAG_CASTLE:
                side = 0 if to == self.castle[mover][0][1] else 1
                _, _, rook_from, rook_to, _, _ = self.castle[mover][side]
                squares[rook_from] = 0
                own.discard(rook_from)
                squares[rook_to] = mover << 3 | ROOK
                own.add(rook_to)
        for sq in (origin, to):
            home = self.rook_homes.get(sq)
            if home is not None:
                self.castling[home[1]][home[0]] = 0
        self.en_passant[mover] = ((origin + to) // 2, to) if flag == FLAG_DOUBLE else None
        if captured or ep_victim or kind == PAWN:
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        self._moves = None
        if self.mode == TEAMS:
            if IS_LIVE_KING[captured] or IS_LIVE_KING[ep_victim]:
                self.game_over = True
                self.winner_team = mover % 2
        else:
            self._end_of_move_ffa(mover, piece, captured, ep_victim, recoloured)
        self._advance_turn(mover, recoloured)

    def _remove(self, sq: int, code: int) -> None:
        colour = code >> 3
        if colour < 4:
            self.pieces[colour].discard(sq)
            if code & 7 == KING:
                self.kings[colour] = -1

    def _end_of_move_ffa(self, mover: int, piece: int, captured: int, ep_victim: int, recoloured: list) -> None:
        points = self.points
        for victim in (captured, ep_victim):
            if victim and victim >> 3 < 4:
                points[mover] += CAPTURE_POINTS[victim & 7]
                if victim & 7 == KING:
                    self._eliminate(victim >> 3, recoloured)
        if self._count_live() <= 1:
            return
        own = OWN[mover]
        checked = sum(
            1
            for c in range(4)
            if c != mover and self.live[c] and self.kings[c] >= 0 and self.attacked(self.kings[c], own)
        )
        if checked >= 2:
            queen = piece & 7 in (QUEEN, PROMOTED_QUEEN)
            points[mover] += (DOUBLE_CHECK_POINTS if checked == 2 else TRIPLE_CHECK_POINTS)[0 if queen else 1]
        for step in (1, 2, 3):
            c = (mover + step) % 4
            if self.live[c] and self.in_check(c) and not self.generate(c):
                self._eliminate(c, recoloured)
                points[mover] += CHECKMATE_POINTS
                if self._count_live() <= 1:
                    return

    def _eliminate(self, colour: int, recoloured: list) -> None:
        """The player is out: its pieces, king included, turn grey where they stand."""
        squares = self.squares
        for sq in self.pieces[colour]:
            recoloured.append((sq, squares[sq]))
            squares[sq] = DEAD << 3 | squares[sq] & 7
        self.pieces[colour] = set()
        self.kings[colour] = -1
        self.live[colour] = False
        self.en_passant[colour] = None
        self.castling[0][colour] = self.castling[1][colour] = 0

    def _advance_turn(self, mover: int, recoloured: list) -> None:
        """Pass the turn to the next live player; in FFA, stalemated players are eliminated."""
        if self.game_over or self._count_live() <= 1:
            self.game_over = True
            self._moves = []
            return
        nxt = mover
        while True:
            nxt = (nxt + 1) % 4
            if not self.live[nxt]:
                continue
            self.turn = nxt
            if self.mode == TEAMS:
                return
            moves = self.generate(nxt)
            if moves:
                self._moves = moves
                return
            self._eliminate(nxt, recoloured)
            self.points[nxt] += STALEMATE_POINTS
            if self._count_live() <= 1:
                self.game_over = True
                self._moves = []
                return

    def settle(self) -> None:
        """FFA: in a position loaded from FEN4, take out every player who is to move with no legal
        move, as play would have done before the position was reached (rules section 8): a
        stalemated player scores 20 and is out; a checkmated one is out with no points awarded,
        since the mating move is not known. The turn passes to the next player who can move, and
        the game ends when one player is left. Play never reaches such a position, so this is for
        loading only (it cannot be undone)."""
        if self.mode != FFA or self._stack:
            return
        while not self.game_over and not self.generate(self.turn):
            stuck = self.turn
            stalemated = not self.in_check(stuck)
            self._eliminate(stuck, [])
            if stalemated:
                self.points[stuck] += STALEMATE_POINTS
            if self._count_live() <= 1:
                self.game_over = True
            else:
                self.turn = next(c % 4 for c in range(stuck + 1, stuck + 4) if self.live[c % 4])
        self._moves = None

    def pop(self) -> int:
        """Take back the last move and return it."""
        (
            move,
            piece,
            captured,
            ep_square,
            ep_victim,
            kingside,
            queenside,
            en_passant,
            clock,
            points,
            live,
            kings,
            moves,
            game_over,
            winner_team,
            recoloured,
        ) = self._stack.pop()
        squares = self.squares
        for sq, code in reversed(recoloured):
            squares[sq] = code
            self.pieces[code >> 3].add(sq)
        origin, to, flag = move & 255, move >> 8 & 255, move >> 20
        mover = piece >> 3
        own = self.pieces[mover]
        if flag == FLAG_CASTLE:
            side = 0 if to == self.castle[mover][0][1] else 1
            _, _, rook_from, rook_to, _, _ = self.castle[mover][side]
            squares[rook_to] = 0
            own.discard(rook_to)
            squares[rook_from] = mover << 3 | ROOK
            own.add(rook_from)
        squares[to] = captured
        own.discard(to)
        if captured and captured >> 3 < 4:
            self.pieces[captured >> 3].add(to)
        if ep_square >= 0:
            squares[ep_square] = ep_victim
            if ep_victim >> 3 < 4:
                self.pieces[ep_victim >> 3].add(ep_square)
        squares[origin] = piece
        own.add(origin)
        # Copies, so that boards sharing this stack entry (see copy()) never share live lists.
        self.turn = mover
        self.castling = [kingside[:], queenside[:]]
        self.en_passant = en_passant[:]
        self.halfmove_clock = clock
        self.points = points[:]
        self.live = live[:]
        self.kings = kings[:]
        self._moves = moves
        self.game_over = game_over
        self.winner_team = winner_team
        return move

    @property
    def ply(self) -> int:
        return len(self._stack)

    def copy(self) -> Board:
        """An independent board with the same position and move stack (it can pop past the copy)."""
        other = object.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.squares = self.squares[:]
        other.pieces = [s.copy() for s in self.pieces]
        other.kings = self.kings[:]
        other.live = self.live[:]
        other.points = self.points[:]
        other.castling = [self.castling[0][:], self.castling[1][:]]
        other.en_passant = self.en_passant[:]
        other._stack = self._stack[:]
        return other

    # -- move text -------------------------------------------------------------------------

    def parse_move(self, text: str) -> int:
        """The legal move written ``text`` (``h2-h3``, ``f7-f8=Q``); ValueError if there is none."""
        for move in self.legal_moves():
            if move_text(move) == text:
                return move
        raise ValueError(f"{text!r} is not a legal move for {COLOUR_NAMES[self.turn]} in {self.fen4()}")


MAX_FEN4_LENGTH = 1_000
MAX_COUNT = 1_000_000
"""The largest points or halfmove clock a FEN4 may give (the native board stores them in an int)."""
_EXTRAS_TOKEN = re.compile(r"""\s*(?:'([^'\\]*)'|"([^"\\]*)"|(-?\d{1,9})\b|([{}()\[\]:,]))""")


def parse_extras(text: str) -> dict[str, str | int | tuple]:
    """The FEN4 extras field, a Python-style dict of strings, integers and tuples of them.

    A small parser of its own (not ``ast``), so hostile text costs time linear in its length
    and fails with a ValueError.

    >>> parse_extras("{'enPassant':('','c6:d6','','')}")
    {'enPassant': ('', 'c6:d6', '', '')}
    """
    shown = text if len(text) <= 80 else text[:77] + "..."
    tokens: list[tuple[str, str | int]] = []
    position = 0
    while position < len(text):
        match = _EXTRAS_TOKEN.match(text, position)
        if match is None:
            if text[position:].strip() == "":
                break
            raise ValueError(f"malformed FEN4 extras {shown!r}: unexpected {text[position : position + 10]!r}")
        single, double, number, mark = match.groups()
        if mark is not None:
            tokens.append(("mark", mark))
        elif number is not None:
            tokens.append(("value", int(number)))
        else:
            tokens.append(("value", single if single is not None else double))
        position = match.end()
    tokens.append(("end", ""))
    index = 0

    def take(kind: str, value: str | None = None) -> str | int:
        nonlocal index
        token_kind, token = tokens[index]
        if token_kind != kind or (value is not None and token != value):
            wanted = value or kind
            raise ValueError(f"malformed FEN4 extras {shown!r}: expected {wanted!r}, found {token!r}")
        index += 1
        return token

    def scalar_or_tuple() -> str | int | tuple:
        nonlocal index
        kind, token = tokens[index]
        if kind == "value":
            index += 1
            return token
        if token not in ("(", "["):
            raise ValueError(f"malformed FEN4 extras {shown!r}: expected a value, found {token!r}")
        close = ")" if token == "(" else "]"
        index += 1
        items = []
        while tokens[index] != ("mark", close):
            items.append(take("value"))
            if tokens[index] != ("mark", close):
                take("mark", ",")
        index += 1
        return tuple(items)

    extras: dict[str, str | int | tuple] = {}
    take("mark", "{")
    while tokens[index] != ("mark", "}"):
        key = take("value")
        if not isinstance(key, str):
            raise ValueError(f"malformed FEN4 extras {shown!r}: keys must be quoted names, got {key!r}")
        take("mark", ":")
        extras[key] = scalar_or_tuple()
        if tokens[index] != ("mark", "}"):
            take("mark", ",")
    take("mark", "}")
    take("end")
    return extras


def _four_ints(field: str, what: str, flags: bool = True) -> list[int]:
    parts = field.split(",")
    if len(parts) != 4 or not all(
        p.strip().lstrip("+").isdigit() or (not flags and p.strip().lstrip("-").isdigit()) for p in parts
    ):
        raise ValueError(f"FEN4 {what} must be four comma-separated integers, got {field!r}")
    values = [int(p) for p in parts]
    if any(abs(v) > MAX_COUNT for v in values):
        raise ValueError(f"FEN4 {what} must be at most {MAX_COUNT:,} in size, got {field!r}")
    if flags and any(v not in (0, 1) for v in values):
        raise ValueError(f"FEN4 {what} must be 0 or 1 each, got {field!r}")
    return values


def _parse_placement(placement: str) -> list[int]:
    ranks = placement.split("/")
    if len(ranks) != SIZE:
        raise ValueError(f"FEN4 placement needs 14 ranks separated by '/', got {len(ranks)}")
    squares = [0] * NUM_SQUARES
    for row, rank in enumerate(ranks):
        col = 0
        for cell in rank.split(","):
            if cell.isdigit():
                run = int(cell)
                if run == 0:
                    raise ValueError(f"FEN4 rank {SIZE - row} has an empty run of 0")
                col += run
                continue
            if col >= SIZE:
                raise ValueError(f"FEN4 rank {SIZE - row} ({rank!r}) has more than 14 files")
            sq = row * SIZE + col
            if cell == "x":
                if PLAYABLE[sq]:
                    raise ValueError(
                        f"FEN4 rank {SIZE - row} marks the playable square {square_name(sq)} as a corner 'x'"
                    )
            elif len(cell) == 2 and cell[0] in "rbygd" and cell[1] in LETTER_TYPES:
                if not PLAYABLE[sq]:
                    raise ValueError(
                        f"FEN4 rank {SIZE - row} puts {cell!r} on a removed corner square "
                        f"({'abcdefghijklmn'[col]}{SIZE - row})"
                    )
                squares[sq] = "rbygd".index(cell[0]) << 3 | LETTER_TYPES[cell[1]]
            else:
                raise ValueError(
                    f"FEN4 rank {SIZE - row} has an unknown piece {cell!r} (colour r/b/y/g/d + K/Q/R/B/N/P)"
                )
            col += 1
        if col != SIZE:
            raise ValueError(f"FEN4 rank {SIZE - row} ({rank!r}) accounts for {col} files, not 14")
    return squares


def reference_perft(fen4: str, depth: int, mode: str = FFA) -> int:
    """Leaf nodes of the legal-move tree at ``depth`` on the Python board, as the reference data
    counts them (:func:`chess_envs.four_player.perft` counts the same on the native board).

    A move that ends the game (FFA: the last opponent eliminated; Teams: a king captured) is a
    leaf at its own depth. Eliminations happen inside each move; draw rules and the claim win are
    ignored. The last ply is counted from the move list (bulk counting).
    """
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    board = Board(fen4, mode)
    if depth == 0:
        return 1

    def count(d: int) -> int:
        moves = board.legal_moves()
        if d == 1:
            return len(moves)
        nodes = 0
        for move in moves:
            board.push(move)
            if not board.game_over:
                nodes += count(d - 1)
            board.pop()
        return nodes

    return count(depth)


def native_board(board: Board) -> Any:
    """A native board holding a Python board's position (not its move stack)."""
    en_passant: list[int] = []
    for target in board.en_passant:
        en_passant += list(target) if target else [-1, -1]
    return core.FourPlayerBoard(
        list(board.squares),
        board.turn,
        [bool(live) for live in board.live],
        [bool(right) for right in board.castling[0]],
        [bool(right) for right in board.castling[1]],
        list(board.points),
        board.halfmove_clock,
        en_passant,
        board.mode == TEAMS,
    )
