"""Four-player chess as a :class:`~chess_envs.core.GameState` over the native core.

Frame: the board is rotated so the player it is seen by sits at the bottom and pushes pawns up.
With absolute ``(row, col)`` (row 0 = rank 14, col 0 = file a) the player's frame square is
``rel_row * 14 + rel_col`` with

    Red     (rel_row, rel_col) = (row, col)
    Blue    (rel_row, rel_col) = (13 - col, row)
    Yellow  (rel_row, rel_col) = (13 - row, 13 - col)
    Green   (rel_row, rel_col) = (col, 13 - row)

so every player's king starts on frame square (13, 7), where Red's stands on h1. Seats in the
planes are relative too: 0 the player, 1 the next player clockwise, 2 the one opposite, 3 the
previous one.

Observation, shape ``(25 * history + 23, 14, 14)`` (123 with the default ``history=4``),
float32. For each history step ``t`` (0 = now; steps before the first known position are zeros)::

    25t + 6s + 0..5   relative seat s's live pawns, knights, bishops, rooks, queens (promoted
                      ones included), king (s = 0..3)
    25t + 24          dead (grey) pieces of any kind

then (``c = 25 * history``): ``c + 0..3`` one-hot of the player's colour (Red, Blue, Yellow,
Green); ``c + 4`` plies played ``min(ply, 1024) / 1024``; ``c + 5 + 2s`` and ``c + 6 + 2s``
relative seat s may castle kingside / queenside; ``c + 13`` no-progress count
``min(halfmove clock, 100) / 100``; ``c + 14`` repetitions ``min(occurrences - 1, 2) / 2``;
``c + 15 + s`` relative seat s's points ``min(points, 200) / 200``; ``c + 19 + s`` 1 when relative
seat s is eliminated.

Actions, 21364 = 196 frame from-squares x 109 move types, ``action = from * 109 + type``:
types 0..51 orthogonal (``direction * 13 + distance - 1``, directions N E S W), 52..91 diagonal
(``52 + direction * 10 + distance - 1``, directions NE SE SW NW), 92..99 knight steps (frame
``(row, col)`` steps (-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1)),
100..108 underpromotions (``100 + direction * 3 + piece``, direction 0 capture towards NW,
1 push, 2 capture towards NE; piece 0 rook, 1 knight, 2 bishop; Teams only). A pawn's move onto
its promotion line by a queen-like type promotes to a queen; castling is the king's two-square
move.

Outcomes (docs/rules/four_player.md section 9): Free-For-All ends when one player is left, by the automatic claim
win (two players left and one leads by 21 or more: the trailing player gets 20), or by a draw
(threefold repetition, 100 plies without capture or pawn move, or no live player holding more
than a king: every live player gets 10). ``returns()`` ranks the final points: 1st +1, 2nd +1/3,
3rd -1/3, 4th -1, tied players sharing the mean of their places' values, so the returns sum to 0.
Teams: +1 for the winning team (checkmate on the mated player's turn, or king capture) and -1
for the other; stalemate, repetition and the 100-ply rule draw.

The rules run in C++ (``src/native``); the tests compare them at every ply with a pure-Python
reference engine kept in ``tests/four_player``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from chess_envs.core import Outcome, Termination, as_action, check_flag, check_history
from chess_envs.four_player.native import parse_board
from chess_envs.four_player.notation import (
    BISHOP,
    FFA,
    KNIGHT,
    NUM_SQUARES,
    PAWN,
    PIECE_LETTERS,
    PLAYABLE,
    ROOK,
    SIZE,
    START_FEN4,
    TEAMS,
    fen4_text,
    move_text,
    parse_square,
)
from chess_envs.native import TERMINATIONS, NativeState, core

MOVE_TYPES = 109
NUM_ACTIONS = NUM_SQUARES * MOVE_TYPES
"""the size of the action space: a from-square times a move type (21,364)"""
_ORTHOGONAL = ((-1, 0), (0, 1), (1, 0), (0, -1))
_DIAGONAL = ((-1, 1), (1, 1), (1, -1), (-1, -1))
_KNIGHT_STEPS = ((-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1))
_PROMOTION_ROW = {FFA: 6, TEAMS: 3}  # the promotion line in every player's frame (Red's ranks 8 and 11)
_UNDERPROMOTION_STEPS = ((-1, -1), (-1, 0), (-1, 1))
UNDERPROMOTIONS = (ROOK, KNIGHT, BISHOP)
_PLANES_PER_STEP = 25
_META_PLANES = 23
_PLACE_VALUES = (1.0, 1.0 / 3.0, -1.0 / 3.0, -1.0)
_PIECE_VALUES = (0, 1, 3, 5, 5, 9, 0, 1)  # by type; a promoted queen counts as a pawn


def to_frame(colour: int, sq: int) -> int:
    """The square ``sq`` (absolute) in ``colour``'s frame."""
    row, col = divmod(sq, SIZE)
    last = SIZE - 1
    rel = ((row, col), (last - col, row), (last - row, last - col), (col, last - row))[colour]
    return rel[0] * SIZE + rel[1]


TO_FRAME = tuple(tuple(to_frame(c, sq) for sq in range(NUM_SQUARES)) for c in range(4))
FROM_FRAME = tuple(tuple(TO_FRAME[c].index(rel) for rel in range(NUM_SQUARES)) for c in range(4))


def _layout() -> list[tuple[int, int, int] | None]:
    """Per action in a player's frame: (from, to, underpromotion or 0), or None off the board."""
    entries: list[tuple[int, int, int] | None] = []

    def entry(sq: int, dr: int, dc: int, under: int = 0) -> tuple[int, int, int] | None:
        row, col = divmod(sq, SIZE)
        r, c = row + dr, col + dc
        if not (PLAYABLE[sq] and 0 <= r < SIZE and 0 <= c < SIZE and PLAYABLE[r * SIZE + c]):
            return None
        return (sq, r * SIZE + c, under)

    for sq in range(NUM_SQUARES):
        for dr, dc in _ORTHOGONAL:
            entries.extend(entry(sq, dr * d, dc * d) for d in range(1, 14))
        for dr, dc in _DIAGONAL:
            entries.extend(entry(sq, dr * d, dc * d) for d in range(1, 11))
        entries.extend(entry(sq, dr, dc) for dr, dc in _KNIGHT_STEPS)
        for dr, dc in _UNDERPROMOTION_STEPS:
            for piece in UNDERPROMOTIONS:
                e = entry(sq, dr, dc, piece)
                entries.append(e if e is not None and e[1] // SIZE == _PROMOTION_ROW[TEAMS] else None)
    return entries


def _move_tables() -> tuple[list[dict[int, int]], list[list[int]]]:
    """Per colour: move key (from | to << 8 | underpromotion << 16, absolute) <-> action."""
    layout = _layout()
    encode: list[dict[int, int]] = [{} for _ in range(4)]
    decode: list[list[int]] = [[-1] * NUM_ACTIONS for _ in range(4)]
    for colour in range(4):
        back = FROM_FRAME[colour]
        for action, e in enumerate(layout):
            if e is not None:
                key = back[e[0]] | back[e[1]] << 8 | e[2] << 16
                encode[colour][key] = action
                decode[colour][action] = key
    return encode, decode


_ENCODE, _DECODE = _move_tables()


class FourPlayerState(NativeState):
    """A four-player chess game (Free-For-All or Teams): position, history, actions, outcome.

    >>> state = FourPlayerState()
    >>> state.current_player, state.legal_actions().size
    (0, 20)
    >>> state.apply(state.move_to_action("h2-h4")); state.apply(state.move_to_action("b8-d8"))
    >>> state.to_text().split("-")[0], state.current_player
    ('Y', 2)
    """

    num_players: ClassVar[int] = 4
    game_name: ClassVar[str] = "four_player"
    num_actions = NUM_ACTIONS
    seat_letters: ClassVar[str | None] = "rbygd"
    seat_colours: ClassVar[tuple[tuple[int, int, int], ...] | None] = (
        (204, 51, 51),
        (51, 102, 204),
        (230, 190, 40),
        (60, 160, 80),
        (150, 150, 150),
    )

    def __init__(
        self,
        fen4: str | None = None,
        *,
        mode: str = FFA,
        history: int = 4,
        claim_win: bool = True,
    ) -> None:
        self.history = check_history(history)
        self.claim_win = check_flag(claim_win, "claim_win")
        board = parse_board(START_FEN4 if fen4 is None else fen4, mode)
        board.settle()
        self.mode = mode
        self.observation_shape = (_PLANES_PER_STEP * history + _META_PLANES, SIZE, SIZE)
        self._game = core.FourPlayerGame(board, self.history, self.claim_win, _native_table())

    def perft(self, depth: int) -> int:
        """Leaf nodes at ``depth`` as the reference data counts them (a move that ends the game is a
        leaf at its own depth; draw rules ignored), on a copy of the board."""
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        return int(parse_board(self.to_text(), self.mode).perft(depth))

    @classmethod
    def from_text(cls, text: str, **options) -> FourPlayerState:
        return cls(text, **options)

    def _snapshot(self) -> tuple:
        return self._game.snapshot()

    @property
    def points(self) -> tuple[int, ...]:
        """Points per colour so far (FFA), before any end-of-game award."""
        return tuple(self._snapshot()[3])

    @property
    def eliminated(self) -> tuple[bool, ...]:
        """Per colour, whether that player is out (FFA: checkmated, stalemated, king captured)."""
        return tuple(not live for live in self._snapshot()[2])

    @property
    def teams(self) -> tuple[int, ...] | None:
        """Teams: Red and Yellow (team 0) against Blue and Green (team 1); None in Free-For-All."""
        return (0, 1, 0, 1) if self.mode == TEAMS else None

    def standings(self) -> tuple[float, ...]:
        """The returns the current points would give if the game ended now (Teams: zeros)."""
        if self.mode == TEAMS:
            return (0.0,) * 4
        return standings_returns(self._snapshot()[3])

    def apply_move(self, move: str) -> None:
        """Play the move text ``move`` (``h2-h4``, ``f7-f8=Q``); IllegalActionError if not legal."""
        self.apply(self.move_to_action(move))

    def legal_moves_by_action(self) -> dict[int, int]:
        """The legal moves (the board's move ints) keyed by action, regardless of draw rules."""
        return dict(self._game.legal_moves())

    def action_to_move(self, action: int) -> str:
        """The move text of ``action`` for the side to move (it need not be legal)."""
        action = as_action(action, NUM_ACTIONS)
        turn = self._game.side
        key = _DECODE[turn][action]
        if key < 0:
            raise ValueError(f"action {action} leaves the four-player board")
        origin, target, under = key & 255, key >> 8 & 255, key >> 16
        text = move_text(origin | target << 8 | under << 16)
        if (
            not under
            and self._game.code_at(origin) == (turn << 3 | PAWN)
            and TO_FRAME[turn][target] // SIZE == _PROMOTION_ROW[self.mode]
        ):
            text += "=Q"
        return text

    def move_to_action(self, move: str) -> int:
        """The action of the move text ``move`` for the side to move (legal or not)."""
        if not isinstance(move, str):
            raise TypeError(f"move must be text such as 'h2-h4', got {type(move).__name__}")
        squares, _, promotion = move.partition("=")
        names = squares.split("-")
        if len(names) != 2 or promotion not in ("", "Q", "R", "N", "B"):
            raise ValueError(f"four-player moves are written 'h2-h4' or 'f7-f8=Q', got {move!r}")
        origin, target = (parse_square(name) for name in names)
        under = {"": 0, "Q": 0, "R": ROOK, "N": KNIGHT, "B": BISHOP}[promotion]
        action = _ENCODE[self._game.side].get(origin | target << 8 | under << 16)
        if action is None:
            raise ValueError(f"move {move} has no action in the four-player encoding")
        return action

    def material(self) -> np.ndarray:
        """Live material per colour (pawn 1, knight 3, bishop 5, rook 5, queen 9, as captures score)."""
        totals = np.zeros(4, dtype=np.float32)
        for code in self._snapshot()[0]:
            if code and code >> 3 < 4:
                totals[code >> 3] += _PIECE_VALUES[code & 7]
        return totals

    # -- outcome ---------------------------------------------------------------------------

    def final_points(self) -> tuple[int, ...] | None:
        """Points with the end-of-game awards (claim win, draws), None while the game goes on."""
        return tuple(self._game.final_points()) if self._game.termination() else None

    def outcome(self) -> Outcome | None:
        code = self._game.termination()
        if not code:
            return None
        termination = TERMINATIONS[code]
        assert termination is not None
        if self.mode == TEAMS:
            if termination in (Termination.KING_CAPTURE, Termination.CHECKMATE):
                winner = (
                    self._game.winner_team() if termination is Termination.KING_CAPTURE else 1 - self._game.side % 2
                )
                return Outcome(termination, _team_returns(winner))
            return Outcome(termination, (0.0,) * 4)
        return Outcome(termination, standings_returns(self._game.final_points()))

    def returns(self) -> np.ndarray:
        outcome = self.outcome()
        return np.array(outcome.returns if outcome else (0.0,) * 4, dtype=np.float32)

    def observation(self, player: int | None = None) -> np.ndarray:
        if player is None:
            player = self._game.side
        elif player not in (0, 1, 2, 3):
            raise ValueError(f"player must be 0, 1, 2 or 3, got {player!r}")
        obs = np.empty(self.observation_shape, dtype=np.float32)
        self._game.observation(int(player), obs)
        return obs

    # -- text and pictures -----------------------------------------------------------------

    def to_text(self) -> str:
        return game_text(self._game)

    def __repr__(self) -> str:
        return f"FourPlayerState({self.to_text()!r}, mode={self.mode!r})"

    def board_cells(self) -> list[list[tuple[str, int] | None | bool]]:
        """Rows from rank 14 down to rank 1: (piece letter, colour; 4 = dead), None for an empty
        square, False for a removed corner; for the renderers."""
        squares = self._snapshot()[0]
        rows = []
        for row in range(SIZE):
            cells: list[tuple[str, int] | None | bool] = []
            for col in range(SIZE):
                sq = row * SIZE + col
                code = squares[sq]
                cells.append(False if not PLAYABLE[sq] else None if not code else (PIECE_LETTERS[code & 7], code >> 3))
            rows.append(cells)
        return rows


def game_text(game: Any) -> str:
    """The FEN4 of a native four-player game's current position."""
    squares, turn, live, points, kingside, queenside, clock, _, _, en_passant = game.snapshot()
    targets = [
        (en_passant[2 * c], en_passant[2 * c + 1])
        if en_passant[2 * c + 1] >= 0 and squares[en_passant[2 * c + 1]] == (c << 3 | PAWN)
        else None
        for c in range(4)
    ]
    return fen4_text(squares, turn, live, [kingside, queenside], points, clock, targets)


_table: list[Any] = []


def _native_table() -> Any:
    """The native action table: action of (colour, from, to, underpromotion index), -1 where none."""
    if not _table:
        table = np.full((4, NUM_SQUARES, NUM_SQUARES, 4), -1, dtype=np.int32)
        index = {0: 0, ROOK: 1, KNIGHT: 2, BISHOP: 3}
        for colour in range(4):
            for key, action in _ENCODE[colour].items():
                table[colour, key & 255, key >> 8 & 255, index[key >> 16]] = action
        _table.append(core.FourPlayerActionTable(table))
    return _table[0]


def standings_returns(points: list[int] | tuple[int, ...]) -> tuple[float, ...]:
    """Returns from final points: places 1..4 are worth 1, 1/3, -1/3, -1; ties share the mean.

    >>> standings_returns([30, 10, 10, 0])
    (1.0, 0.0, 0.0, -1.0)
    """
    order = sorted(range(len(points)), key=lambda c: -points[c])
    returns = [0.0] * len(points)
    place = 0
    while place < len(order):
        tied = [c for c in order if points[c] == points[order[place]]]
        value = sum(_PLACE_VALUES[place : place + len(tied)]) / len(tied)
        for c in tied:
            returns[c] = value
        place += len(tied)
    return tuple(returns)


def _team_returns(winning_team: int) -> tuple[float, ...]:
    return tuple(1.0 if colour % 2 == winning_team else -1.0 for colour in range(4))


def legal_moves(fen4: str, mode: str = FFA) -> list[str]:
    """The legal moves of ``fen4`` as sorted move text (``h2-h3``, ``f7-f8=Q``, castling ``h1-j1``)."""
    return sorted(move_text(move) for move in parse_board(fen4, mode).legal_moves())
