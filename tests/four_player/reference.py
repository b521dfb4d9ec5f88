"""The pure-Python reference of four-player chess (the Python board, numpy planes), which the native
:class:`~chess_envs.four_player.FourPlayerState` is tested against at every ply.
Planes, actions and outcomes are those documented in :mod:`chess_envs.four_player.state`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from chess_envs.core import Outcome, Termination, as_action, check_flag, check_history, check_text
from chess_envs.four_player.notation import (
    BISHOP,
    DEAD,
    FFA,
    KING,
    KNIGHT,
    NUM_SQUARES,
    PAWN,
    PIECE_LETTERS,
    PLAYABLE,
    PROMOTED_QUEEN,
    QUEEN,
    ROOK,
    SIZE,
    START_FEN4,
    TEAMS,
    move_text,
    parse_square,
)
from chess_envs.four_player.state import (
    _DECODE,
    _ENCODE,
    _META_PLANES,
    _PIECE_VALUES,
    _PLANES_PER_STEP,
    FROM_FRAME,
    NUM_ACTIONS,
    _team_returns,
    standings_returns,
)
from tests.four_player.board import PROMOTION_SQUARES, Board
from tests.history_state import HistoryState

_MAX_PLY_SCALE = 1024.0
_FIFTY_MOVES = 100
_POINTS_SCALE = 200.0
_CLAIM_WIN_LEAD = 21
_CLAIM_WIN_POINTS = 20
_DRAW_POINTS = 10
_KEY_PROMOTION = {0: 0, QUEEN: 0, PROMOTED_QUEEN: 0, ROOK: ROOK, KNIGHT: KNIGHT, BISHOP: BISHOP}
_TYPE_PLANE = (-1, 0, 1, 2, 3, 4, 5, 4)


def _plane_tables() -> np.ndarray:
    """``table[player, code]``: the history plane (0..24) of a square code, 25 for empty."""
    table = np.full((4, 64), _PLANES_PER_STEP, dtype=np.int64)
    for player in range(4):
        for code in range(64):
            colour, kind = code >> 3, code & 7
            if not kind or colour > DEAD:
                continue
            table[player, code] = 24 if colour == DEAD else ((colour - player) % 4) * 6 + _TYPE_PLANE[kind]
    return table


_PLANE_OF = _plane_tables()
_FRAME_INDEX = np.array(FROM_FRAME)
_PLANE_IDS = np.arange(_PLANES_PER_STEP)[None, :, None]


class ReferenceFourPlayerState(HistoryState):
    """A four-player chess game (Free-For-All or Teams): position, history, actions, outcome.

    >>> state = ReferenceFourPlayerState()
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
        self.board = Board(START_FEN4 if fen4 is None else check_text(fen4, "FEN4"), mode)
        self.board.settle()
        self.mode = mode
        self.observation_shape = (_PLANES_PER_STEP * history + _META_PLANES, SIZE, SIZE)
        self._occurrences: list[int] = []
        self._start_history()

    @classmethod
    def from_text(cls, text: str, **options) -> ReferenceFourPlayerState:
        return cls(text, **options)

    # -- HistoryState hooks ----------------------------------------------------------------

    def _position_key(self) -> tuple:
        board = self.board
        return (
            tuple(board.squares),
            board.turn,
            tuple(board.castling[0]),
            tuple(board.castling[1]),
            tuple(board._ep_target(c) for c in range(4)),
            tuple(board.live),
        )

    def _remember(self, key: tuple, count: int) -> None:
        self._occurrences.append(count)

    def _forget(self) -> None:
        self._occurrences.pop()

    def _copy_into(self, other: ReferenceFourPlayerState) -> None:
        other._occurrences = self._occurrences.copy()

    def _generate_legal(self) -> dict[int, int]:
        encode = _ENCODE[self.board.turn]
        return {
            encode[move & 0xFFFF | _KEY_PROMOTION[move >> 16 & 15] << 16]: move for move in self.board.legal_moves()
        }

    # -- the game --------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.board.turn

    @property
    def points(self) -> tuple[int, ...]:
        """Points per colour so far (FFA), before any end-of-game award."""
        return tuple(self.board.points)

    @property
    def eliminated(self) -> tuple[bool, ...]:
        """Per colour, whether that player is out (FFA: checkmated, stalemated, king captured)."""
        return tuple(not live for live in self.board.live)

    def standings(self) -> tuple[float, ...]:
        """The returns the current points would give if the game ended now (Teams: zeros)."""
        if self.mode == TEAMS:
            return (0.0,) * 4
        return standings_returns(self.board.points)

    def apply_move(self, move: str) -> None:
        """Play the move text ``move`` (``h2-h4``, ``f7-f8=Q``); IllegalActionError if not legal."""
        self.apply(self.move_to_action(move))

    def action_to_move(self, action: int) -> str:
        """The move text of ``action`` for the side to move (it need not be legal)."""
        action = as_action(action, NUM_ACTIONS)
        key = _DECODE[self.board.turn][action]
        if key < 0:
            raise ValueError(f"action {action} leaves the four-player board")
        origin, target, under = key & 255, key >> 8 & 255, key >> 16
        text = move_text(origin | target << 8 | under << 16)
        turn = self.board.turn
        if (
            not under
            and self.board.squares[origin] == (turn << 3 | PAWN)
            and target in PROMOTION_SQUARES[self.mode][turn]
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
        action = _ENCODE[self.board.turn].get(origin | target << 8 | under << 16)
        if action is None:
            raise ValueError(f"move {move} has no action in the four-player encoding")
        return action

    def material(self) -> np.ndarray:
        """Live material per colour (pawn 1, knight 3, bishop 5, rook 5, queen 9, as captures score)."""
        totals = np.zeros(4, dtype=np.float32)
        squares = self.board.squares
        for colour, pieces in enumerate(self.board.pieces):
            totals[colour] = sum(_PIECE_VALUES[squares[sq] & 7] for sq in pieces)
        return totals

    # -- outcome ---------------------------------------------------------------------------

    def final_points(self) -> tuple[int, ...] | None:
        """Points with the end-of-game awards (claim win, draws), None while the game goes on."""
        outcome = self.outcome()
        return None if outcome is None else self._final_points

    def _compute_outcome(self) -> Outcome | None:
        board = self.board
        if board.mode == TEAMS:
            return self._teams_outcome()
        points = list(board.points)
        live = [c for c in range(4) if board.live[c]]
        if board.game_over:
            return self._ffa_outcome(Termination.LAST_PLAYER_STANDING, points)
        if self.claim_win and len(live) == 2:
            leader, trailer = sorted(live, key=lambda c: -points[c])
            if points[leader] - points[trailer] >= _CLAIM_WIN_LEAD:
                points[trailer] += _CLAIM_WIN_POINTS
                return self._ffa_outcome(Termination.CLAIM_WIN, points)
        for termination, reached in (
            (Termination.INSUFFICIENT_MATERIAL, self._bare_kings),
            (Termination.FIFTY_MOVES, lambda: board.halfmove_clock >= _FIFTY_MOVES),
            (Termination.THREEFOLD_REPETITION, lambda: self.repetitions() >= 3),
        ):
            if reached():
                for c in live:
                    points[c] += _DRAW_POINTS
                return self._ffa_outcome(termination, points)
        return None

    def _bare_kings(self) -> bool:
        squares = self.board.squares
        return all(squares[sq] & 7 == KING for pieces in self.board.pieces for sq in pieces)

    def _ffa_outcome(self, termination: Termination, points: list[int]) -> Outcome:
        self._final_points = tuple(points)
        return Outcome(termination, standings_returns(points))

    def _teams_outcome(self) -> Outcome | None:
        board = self.board
        self._final_points = tuple(board.points)
        if board.winner_team is not None:
            return Outcome(Termination.KING_CAPTURE, _team_returns(board.winner_team))
        if not self._legal_moves():
            if board.in_check():
                return Outcome(Termination.CHECKMATE, _team_returns(1 - board.turn % 2))
            return Outcome(Termination.STALEMATE, (0.0,) * 4)
        if board.halfmove_clock >= _FIFTY_MOVES:
            return Outcome(Termination.FIFTY_MOVES, (0.0,) * 4)
        if self.repetitions() >= 3:
            return Outcome(Termination.THREEFOLD_REPETITION, (0.0,) * 4)
        return None

    # -- observation -----------------------------------------------------------------------

    def observation(self, player: int | None = None) -> np.ndarray:
        if player is None:
            player = self.board.turn
        elif player not in (0, 1, 2, 3):
            raise ValueError(f"player must be 0, 1, 2 or 3, got {player!r}")
        steps = min(self.history, len(self._keys))
        boards = np.array([key[0] for key in self._keys[: -steps - 1 : -1]], dtype=np.int64)
        planes = _PLANE_OF[player][boards[:, _FRAME_INDEX[player]]]  # (steps, 196)
        obs = np.zeros(self.observation_shape, dtype=np.float32)
        history = obs[: steps * _PLANES_PER_STEP].reshape(steps, _PLANES_PER_STEP, NUM_SQUARES)
        history[:] = planes[:, None, :] == _PLANE_IDS
        board = self.board
        seats = [(player + s) % 4 for s in range(4)]
        c = _PLANES_PER_STEP * self.history
        meta = np.zeros(_META_PLANES, dtype=np.float32)
        meta[player] = 1.0
        meta[4] = min(len(self._keys) - 1, _MAX_PLY_SCALE) / _MAX_PLY_SCALE
        for s, colour in enumerate(seats):
            meta[5 + 2 * s] = board.castling[0][colour]
            meta[6 + 2 * s] = board.castling[1][colour]
            meta[15 + s] = min(max(board.points[colour], 0), _POINTS_SCALE) / _POINTS_SCALE
            meta[19 + s] = not board.live[colour]
        meta[13] = min(board.halfmove_clock, _FIFTY_MOVES) / _FIFTY_MOVES
        meta[14] = min(self._occurrences[-1] - 1, 2) / 2
        obs[c:] = meta[:, None, None]
        return obs

    # -- text and pictures -----------------------------------------------------------------

    def to_text(self) -> str:
        return self.board.fen4()

    def __repr__(self) -> str:
        return f"ReferenceFourPlayerState({self.board.fen4()!r}, mode={self.mode!r})"

    def board_cells(self) -> list[list[tuple[str, int] | None | bool]]:
        """Rows from rank 14 down to rank 1: (piece letter, colour; 4 = dead), None for an empty
        square, False for a removed corner; for the renderers."""
        squares = self.board.squares
        rows = []
        for row in range(SIZE):
            cells: list[tuple[str, int] | None | bool] = []
            for col in range(SIZE):
                sq = row * SIZE + col
                code = squares[sq]
                cells.append(False if not PLAYABLE[sq] else None if not code else (PIECE_LETTERS[code & 7], code >> 3))
            rows.append(cells)
        return rows
