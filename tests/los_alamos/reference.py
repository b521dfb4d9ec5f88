"""The pure-Python reference of Los Alamos chess over the Python engine (tests/los_alamos/board.py),
which the native :class:`~chess_envs.los_alamos.LosAlamosState` is tested against.

Its planes and actions are those documented in :mod:`chess_envs.los_alamos.state`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from chess_envs.core import Outcome, Termination, as_action, check_flag, check_history, check_text
from chess_envs.los_alamos.encoding import (
    DECODE,
    ENCODE,
    KING,
    KNIGHT,
    MIRROR,
    NUM_ACTIONS,
    NUM_SQUARES,
    PAWN,
    PIECE_LETTERS,
    QUEEN,
    ROOK,
    SIZE,
    move_uci,
    parse_uci,
)
from chess_envs.los_alamos.state import _META_PLANES, _PLANES_PER_STEP, START_FEN
from tests.history_state import HistoryState
from tests.los_alamos.board import WHITE, Board

_MAX_PLY_SCALE = 512.0
_FIFTY_MOVES = 100
_PIECE_VALUES = {PAWN: 1, KNIGHT: 3, ROOK: 5, QUEEN: 9, KING: 0}
_PIECE_CODES = np.array([PAWN, KNIGHT, ROOK, QUEEN, KING, -PAWN, -KNIGHT, -ROOK, -QUEEN, -KING], dtype=np.int8)
_FLIP_INDEX = np.array(MIRROR)


class ReferenceLosAlamosState(HistoryState):
    """A Los Alamos chess game: position, history, legal actions and outcome.

    >>> state = ReferenceLosAlamosState()
    >>> state.legal_actions().size
    10
    >>> state.apply(state.move_to_action("b1c3")); state.apply(state.move_to_action("b6c4"))
    >>> state.to_text()
    'r1qknr/pppppp/2n3/2N3/PPPPPP/R1QKNR w - - 2 2'
    """

    num_players: ClassVar[int] = 2
    game_name: ClassVar[str] = "los_alamos"
    num_actions = NUM_ACTIONS

    def __init__(
        self,
        fen: str | None = None,
        *,
        history: int = 4,
        adjudicate_insufficient_material: bool = False,
    ) -> None:
        self.history = check_history(history)
        self.adjudicate_insufficient_material = check_flag(
            adjudicate_insufficient_material, "adjudicate_insufficient_material"
        )
        self.board = Board(START_FEN if fen is None else check_text(fen, "fen"))
        self.observation_shape = (_PLANES_PER_STEP * history + _META_PLANES, SIZE, SIZE)
        self._occurrences: list[int] = []  # how often each position had occurred when it was reached
        self._start_history()

    @classmethod
    def from_text(cls, text: str, **options) -> ReferenceLosAlamosState:
        return cls(text, **options)

    def _position_key(self) -> tuple:
        return (*self.board.squares, self.board.turn)

    def _remember(self, key: tuple, count: int) -> None:
        self._occurrences.append(count)

    def _forget(self) -> None:
        self._occurrences.pop()

    def _copy_into(self, other: ReferenceLosAlamosState) -> None:
        other._occurrences = self._occurrences.copy()

    @property
    def current_player(self) -> int:
        return self.board.turn

    def _generate_legal(self) -> dict[int, int]:
        encode = ENCODE[self.board.turn]
        return {encode[move]: move for move in self.board.legal_moves()}

    def apply_move(self, move: str) -> None:
        """Play the UCI move text ``move``; IllegalActionError if it is not legal."""
        self.apply(self.move_to_action(move))

    def action_to_move(self, action: int) -> str:
        """UCI text of ``action`` for the side to move (it need not be legal)."""
        action = as_action(action, NUM_ACTIONS)
        move = DECODE[self.board.turn][action]
        if move < 0:
            raise ValueError(f"action {action} leaves the 6x6 board")
        origin, target = move & 63, (move >> 6) & 63
        if not move >> 12 and abs(self.board.squares[origin]) == PAWN and target // SIZE in (0, SIZE - 1):
            move |= QUEEN << 12
        return move_uci(move)

    def move_to_action(self, move: str) -> int:
        """Action index of the UCI move text ``move`` for the side to move (legal or not)."""
        action = ENCODE[self.board.turn].get(parse_uci(move))
        if action is None:
            raise ValueError(f"move {move} has no action in the Los Alamos encoding")
        return action

    def material(self) -> np.ndarray:
        """Material per seat (pawn 1, knight 3, rook 5, queen 9), float32."""
        totals = [0.0, 0.0]
        for piece in self.board.squares:
            if piece:
                totals[0 if piece > 0 else 1] += _PIECE_VALUES[abs(piece)]
        return np.array(totals, dtype=np.float32)

    # -- outcome ---------------------------------------------------------------------------

    def _compute_outcome(self) -> Outcome | None:
        board = self.board
        no_moves = not self._legal_moves()
        if no_moves and board.is_check():
            return Outcome(Termination.CHECKMATE, (-1.0, 1.0) if board.turn == WHITE else (1.0, -1.0))
        if self.adjudicate_insufficient_material and _bare_material(board.squares):
            return Outcome(Termination.INSUFFICIENT_MATERIAL, (0.0, 0.0))
        if no_moves:
            return Outcome(Termination.STALEMATE, (0.0, 0.0))
        if board.halfmove_clock >= _FIFTY_MOVES:
            return Outcome(Termination.FIFTY_MOVES, (0.0, 0.0))
        if self.repetitions() >= 3:
            return Outcome(Termination.THREEFOLD_REPETITION, (0.0, 0.0))
        return None

    # -- observation -----------------------------------------------------------------------

    def observation(self, player: int | None = None) -> np.ndarray:
        if player is None:
            player = self.board.turn
        elif player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        positions = self._keys
        steps = min(self.history, len(positions))
        recent = positions[: -steps - 1 : -1]
        boards = np.array(recent, dtype=np.int8)[:, :NUM_SQUARES]
        if player == 1:
            boards = -boards[:, _FLIP_INDEX]
        counts = np.array(self._occurrences[: -steps - 1 : -1])
        obs = np.zeros(self.observation_shape, dtype=np.float32)
        planes = obs[: steps * _PLANES_PER_STEP].reshape(steps, _PLANES_PER_STEP, NUM_SQUARES)
        planes[:, :10] = boards[:, None, :] == _PIECE_CODES[None, :, None]
        planes[:, 10] = (counts >= 2)[:, None]
        planes[:, 11] = (counts >= 3)[:, None]
        board = self.board
        ply = 2 * (board.fullmove_number - 1) + board.turn
        meta = _PLANES_PER_STEP * self.history
        obs[meta] = player
        obs[meta + 1] = min(ply, _MAX_PLY_SCALE) / _MAX_PLY_SCALE
        obs[meta + 2] = min(board.halfmove_clock, _FIFTY_MOVES) / _FIFTY_MOVES
        return obs

    # -- text and pictures -----------------------------------------------------------------

    def to_text(self) -> str:
        return self.board.fen()

    def __repr__(self) -> str:
        return f"ReferenceLosAlamosState({self.board.fen()!r})"

    def board_cells(self) -> list[list[tuple[str, int] | None]]:
        """Rows from rank 6 down to rank 1: (piece letter, seat) or None, for the renderers."""
        squares = self.board.squares
        return [
            [
                None
                if not squares[rank * SIZE + f]
                else (PIECE_LETTERS[abs(squares[rank * SIZE + f])].upper(), 0 if squares[rank * SIZE + f] > 0 else 1)
                for f in range(SIZE)
            ]
            for rank in range(SIZE - 1, -1, -1)
        ]


def _bare_material(squares: list[int]) -> bool:
    """Bare kings, or king and one knight against a bare king."""
    others = [abs(p) for p in squares if p and abs(p) != KING]
    return not others or others == [KNIGHT]


def perft(fen: str, depth: int) -> int:
    """Leaf nodes of the legal-move tree (draw rules ignored), with make/unmake at every leaf.

    No bulk counting at the last ply, so the count exercises make and unmake everywhere.
    """
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    board = Board(fen)

    def count(d: int) -> int:
        if d == 0:
            return 1
        nodes = 0
        for move in board.legal_moves():
            board.push(move)
            nodes += count(d - 1)
            board.pop()
        return nodes

    return count(depth)


def legal_moves(fen: str) -> list[str]:
    """The legal moves of ``fen`` as sorted UCI strings."""
    return sorted(move_uci(move) for move in Board(fen).legal_moves())


def result(fen: str) -> str | None:
    """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or None, from the FEN alone (mate, stalemate, 50 moves)."""
    board = Board(fen)
    if not board.legal_moves():
        if board.is_check():
            return "0-1" if board.turn == WHITE else "1-0"
        return "1/2-1/2"
    return "1/2-1/2" if board.halfmove_clock >= _FIFTY_MOVES else None
