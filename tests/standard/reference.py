"""The pure-Python reference of standard chess (python-chess's rules, our encoding), which the native
:class:`~chess_envs.standard.ChessState` is tested against at every ply.

Its planes and actions are those documented in :mod:`chess_envs.standard.state`.
"""

from __future__ import annotations

from typing import ClassVar

import chess
import chess.svg
import numpy as np

from chess_envs.core import Outcome, Termination, as_action, check_flag, check_history, check_text
from chess_envs.standard.encoding import ActionEncoding, get_encoding
from chess_envs.standard.state import _META_PLANES, _PLANES_PER_STEP, validate_board
from tests.history_state import HistoryState

_ALL = (1 << 64) - 1
_MAX_PLY_SCALE = 512.0
_NO_PROGRESS_SCALE = 150.0
_PIECE_VALUES = ((chess.PAWN, 1), (chess.KNIGHT, 3), (chess.BISHOP, 3), (chess.ROOK, 5), (chess.QUEEN, 9))
# Column order that swaps colours in a history frame (white pieces, black pieces, repetitions).
_SWAP_COLOURS = np.array([6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 12, 13])
_PLANE_ORDER = {0: np.arange(_PLANES_PER_STEP), 1: _SWAP_COLOURS}
_gather_cache: dict[tuple[int, int], np.ndarray] = {}


def _frame_gather(player: int, steps: int) -> np.ndarray:
    """Byte indices that turn the last ``steps`` frame rows into observation planes for ``player``.

    A bitboard's byte ``r`` is rank ``r``; the output takes frames newest first, the player's
    pieces first, and for black the ranks mirrored (byte ``7 - r``): one gather does all three.
    """
    key = (player, steps)
    if key not in _gather_cache:
        step, plane, row = np.meshgrid(np.arange(steps), np.arange(_PLANES_PER_STEP), np.arange(8), indexing="ij")
        byte = 7 - row if player == 1 else row
        source = ((steps - 1 - step) * _PLANES_PER_STEP + _PLANE_ORDER[player][plane]) * 8 + byte
        _gather_cache[key] = source.ravel()
    return _gather_cache[key]


class ReferenceChessState(HistoryState):
    """A standard chess game: position, history, legal actions and outcome.

    >>> state = ReferenceChessState()
    >>> state.apply(state.move_to_action("e2e4"))
    >>> state.current_player, state.to_text()
    (1, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1')
    >>> state.action_to_move(state.legal_actions()[0]) in {m.uci() for m in state.board.legal_moves}
    True
    """

    num_players: ClassVar[int] = 2
    game_name: ClassVar[str] = "chess"
    _LEGAL_CACHE_SIZE: ClassVar[int] = 10_000  # python-chess Move objects are large

    def __init__(
        self,
        fen: str | None = None,
        *,
        history: int = 8,
        claim_draws: bool = True,
        action_encoding: str = "alphazero",
    ) -> None:
        self.history = check_history(history)
        self.claim_draws = check_flag(claim_draws, "claim_draws")
        self.encoding: ActionEncoding = get_encoding(action_encoding)
        self.num_actions = self.encoding.num_actions
        self.observation_shape = (_PLANES_PER_STEP * history + _META_PLANES, 8, 8)
        if fen is None:
            self.board = chess.Board()
        else:
            check_text(fen, "fen")
            self.board = chess.Board(fen)
            validate_board(self.board, fen)
        # One row per position of the game: 12 piece bitboards (white's, then black's) and
        # two repetition masks, so an observation is a slice of the last `history` rows.
        self._frames = np.zeros((64, _PLANES_PER_STEP), dtype=np.uint64)
        self._start_history()

    @classmethod
    def from_text(cls, text: str, **options) -> ReferenceChessState:
        """A state from a FEN (no earlier history)."""
        return cls(text, **options)

    # -- positions and history -------------------------------------------------------------

    def _position_key(self) -> tuple:
        board = self.board
        black, white = board.occupied_co  # indexed by colour: BLACK = False = 0
        return (
            board.pawns,
            board.knights,
            board.bishops,
            board.rooks,
            board.queens,
            board.kings,
            white,
            black,
            board.turn,
            board.clean_castling_rights(),
            board.ep_square if board.has_legal_en_passant() else None,
        )

    def _remember(self, key: tuple, count: int) -> None:
        pawns, knights, bishops, rooks, queens, kings, white, black = key[:8]
        row = len(self._keys)
        if row == len(self._frames):
            self._frames = np.concatenate([self._frames, np.zeros_like(self._frames)])
        self._frames[row] = (
            pawns & white,
            knights & white,
            bishops & white,
            rooks & white,
            queens & white,
            kings & white,
            pawns & black,
            knights & black,
            bishops & black,
            rooks & black,
            queens & black,
            kings & black,
            _ALL if count >= 2 else 0,
            _ALL if count >= 3 else 0,
        )

    def _copy_into(self, other: ReferenceChessState) -> None:
        other._frames = self._frames.copy()

    # -- moves -----------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return 0 if self.board.turn == chess.WHITE else 1

    def _generate_legal(self) -> dict[int, chess.Move]:
        by_from_to, by_promotion = self.encoding.absolute_tables(self.board.turn)
        return {
            (  # a queen promotion missing from by_promotion is the plain move; no action there is 0
                by_promotion.get((move.from_square, move.to_square, move.promotion))
                or by_from_to[move.from_square * 64 + move.to_square]
                if move.promotion
                else by_from_to[move.from_square * 64 + move.to_square]
            ): move
            for move in self.board.generate_legal_moves()
        }

    def apply_move(self, move: chess.Move | str) -> None:
        """Play a python-chess Move or UCI text; raises IllegalActionError if illegal."""
        self.apply(self.move_to_action(move if isinstance(move, str) else move.uci()))

    def action_to_move(self, action: int) -> str:
        """UCI text of ``action`` for the side to move (it need not be legal)."""
        action = as_action(action, self.num_actions)
        decoded = self.encoding.decode(action)
        if decoded is None:
            raise ValueError(f"action {action} leaves the board in encoding {self.encoding.name!r}")
        flip = 0 if self.board.turn == chess.WHITE else 56
        from_square, to_square, promotion = decoded[0] ^ flip, decoded[1] ^ flip, decoded[2]
        if (
            promotion is None
            and self.board.pawns & chess.BB_SQUARES[from_square]
            and chess.square_rank(to_square) in (0, 7)
            and self.encoding.encode(decoded[0], decoded[1], chess.QUEEN) == action
        ):
            promotion = chess.QUEEN
        return chess.Move(from_square, to_square, promotion).uci()

    def move_to_action(self, move: str) -> int:
        """Action index of the UCI move text ``move`` for the side to move (legal or not)."""
        try:
            parsed = chess.Move.from_uci(move)
        except (chess.InvalidMoveError, ValueError, TypeError):
            raise ValueError(f"malformed UCI move {move!r}") from None
        flip = 0 if self.board.turn == chess.WHITE else 56
        action = self.encoding.encode(parsed.from_square ^ flip, parsed.to_square ^ flip, parsed.promotion)
        if action < 0:
            raise ValueError(f"move {move} has no action in encoding {self.encoding.name!r}")
        return action

    def material(self) -> np.ndarray:
        """Material per seat (pawn 1, knight 3, bishop 3, rook 5, queen 9), float32."""
        board = self.board
        return np.array(
            [
                sum(value * chess.popcount(board.pieces_mask(piece, colour)) for piece, value in _PIECE_VALUES)
                for colour in (chess.WHITE, chess.BLACK)
            ],
            dtype=np.float32,
        )

    # -- outcome ---------------------------------------------------------------------------

    def _compute_outcome(self) -> Outcome | None:
        """python-chess's order of ``Board.outcome()``: checkmate, insufficient material, stalemate,
        the automatic draws, then (claim_draws) fifty moves before threefold repetition."""
        board = self.board
        no_moves = not self._legal_moves()
        if no_moves and board.is_check():
            return self._decisive(Termination.CHECKMATE)
        if board.is_insufficient_material():
            return Outcome(Termination.INSUFFICIENT_MATERIAL, (0.0, 0.0))
        if no_moves:
            return Outcome(Termination.STALEMATE, (0.0, 0.0))
        if board.halfmove_clock >= 150:
            return Outcome(Termination.SEVENTYFIVE_MOVES, (0.0, 0.0))
        repetitions = self.repetitions()
        if repetitions >= 5:
            return Outcome(Termination.FIVEFOLD_REPETITION, (0.0, 0.0))
        if self.claim_draws:
            if board.halfmove_clock >= 100:
                return Outcome(Termination.FIFTY_MOVES, (0.0, 0.0))
            if repetitions >= 3:
                return Outcome(Termination.THREEFOLD_REPETITION, (0.0, 0.0))
        return None

    def _decisive(self, termination: Termination) -> Outcome:
        return Outcome(termination, (-1.0, 1.0) if self.board.turn == chess.WHITE else (1.0, -1.0))

    # -- observation -----------------------------------------------------------------------

    def observation(self, player: int | None = None) -> np.ndarray:
        if player is None:
            player = self.current_player
        elif player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        positions = len(self._keys)
        steps = min(self.history, positions)
        frame_bytes = self._frames[positions - steps : positions].view(np.uint8).reshape(-1)
        obs = np.empty(self.observation_shape, dtype=np.float32)
        filled = steps * _PLANES_PER_STEP
        obs.reshape(-1)[: filled * 64] = np.unpackbits(frame_bytes[_frame_gather(player, steps)], bitorder="little")
        obs[filled : _PLANES_PER_STEP * self.history] = 0.0
        castling = self._keys[-1][9]
        rights = (castling & chess.BB_H1, castling & chess.BB_A1, castling & chess.BB_H8, castling & chess.BB_A8)
        if player == 1:
            rights = rights[2:] + rights[:2]
        board = self.board
        ply = 2 * (board.fullmove_number - 1) + (board.turn == chess.BLACK)
        meta = [
            player,
            min(ply, _MAX_PLY_SCALE) / _MAX_PLY_SCALE,
            rights[0] != 0,
            rights[1] != 0,
            rights[2] != 0,
            rights[3] != 0,
            min(board.halfmove_clock, _NO_PROGRESS_SCALE) / _NO_PROGRESS_SCALE,
        ]
        obs[_PLANES_PER_STEP * self.history :] = np.array(meta, dtype=np.float32)[:, None, None]
        return obs

    # -- text and pictures -----------------------------------------------------------------

    def to_text(self) -> str:
        return self.board.fen()

    def __repr__(self) -> str:
        return f"ReferenceChessState({self.board.fen()!r})"

    def board_cells(self) -> list[list[tuple[str, int] | None]]:
        """Rows from rank 8 down to rank 1: (piece letter, seat) or None, for the renderers."""
        rows = []
        for rank in range(7, -1, -1):
            row: list[tuple[str, int] | None] = []
            for file in range(8):
                piece = self.board.piece_at(chess.square(file, rank))
                row.append(None if piece is None else (piece.symbol().upper(), 0 if piece.color else 1))
            rows.append(row)
        return rows

    def to_svg(self, size: int = 400) -> str:
        """An SVG picture of the board with the last move and any check marked."""
        board = self.board
        lastmove = board.peek() if board.move_stack else None
        check = board.king(board.turn) if board.is_check() else None
        return chess.svg.board(board, size=size, lastmove=lastmove, check=check)


def perft(text: str, depth: int, **options) -> int:
    """Number of leaf nodes of the legal-move tree of ``depth`` plies from the FEN ``text``.

    Walks our action encoding with apply/undo and counts the last ply in bulk. Draw rules do
    not stop the count (as in every published perft table).
    """
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    state = ReferenceChessState(text, **options)

    def count(d: int) -> int:
        actions = list(state.legal_moves_by_action())
        if d == 1:
            return len(actions)
        nodes = 0
        for action in actions:
            state.apply(action)
            nodes += count(d - 1)
            state.undo()
        return nodes

    return 1 if depth == 0 else count(depth)


def legal_moves(text: str) -> list[str]:
    """The legal moves of the FEN ``text`` as sorted UCI strings."""
    return sorted(move.uci() for move in ReferenceChessState(text).legal_moves_by_action().values())
