"""Standard chess as a :class:`~chess_envs.core.GameState` over the native core.

Observation, shape ``(14 * history + 7, 8, 8)``, float32, from the perspective of ``player``
(the mover by default). Row ``r`` is rank ``r + 1`` counted from that player's side and column
``f`` is file ``f`` (a..h), so for black the board is mirrored vertically (square ``s`` becomes
``s ^ 56``). For each history step ``t`` (``t = 0`` the current position, up to ``history - 1``
plies back; steps before the game's first known position are all zeros):

    14t + 0..5    the player's pawns, knights, bishops, rooks, queens, king
    14t + 6..11   the opponent's pawns, knights, bishops, rooks, queens, king
    14t + 12      1 if that position had occurred before (a repetition)
    14t + 13      1 if it had occurred at least twice before

followed by seven constant planes (``c = 14 * history``):

    c + 0   colour: 1 when ``player`` is black
    c + 1   total move count: min(ply, 512) / 512, ply = half-moves since the game's start
    c + 2   the player may castle kingside      c + 3   the player may castle queenside
    c + 4   the opponent may castle kingside    c + 5   the opponent may castle queenside
    c + 6   no-progress count: min(halfmove clock, 150) / 150 (the 75-move rule at 1.0)

Actions: see :mod:`chess_envs.standard.encoding`. The rules run in C++ (``src/native``);
python-chess checks a FEN given by the user, builds ``ChessState.board`` on demand for
SAN, PGN and engines, and is the oracle of the tests, with a pure-Python reference state
(``tests/standard/reference.py``) as the reference of the planes.
"""

from __future__ import annotations

from typing import Any, ClassVar

import chess
import chess.svg

from chess_envs.core import as_action, check_flag, check_history, check_text
from chess_envs.native import NativeState, action_table, core
from chess_envs.standard.encoding import ActionEncoding, get_encoding

_PLANES_PER_STEP = 14
_META_PLANES = 7
_PIECE_LETTERS = "PNBRQK"
_tables: dict[str, Any] = {}


def validate_board(board: chess.Board, fen: str) -> None:
    """A ValueError naming python-chess's reasons when ``board`` (read from ``fen``) is not a valid position."""
    status = board.status()
    if status != chess.STATUS_VALID:
        reasons = [str(flag.name).lower().replace("_", " ") for flag in chess.Status if flag and flag in status]
        raise ValueError(f"invalid chess position {fen!r}: {', '.join(reasons)}")


def _native_table(encoding: ActionEncoding) -> Any:
    """The native action table of ``encoding`` (built on first use)."""
    if encoding.name not in _tables:

        def encode(colour: int, origin: int, target: int, promotion: int) -> int:
            flip = 56 * colour
            return encoding.encode(origin ^ flip, target ^ flip, promotion + 1 if promotion else None)

        _tables[encoding.name] = action_table(64, encoding.num_actions, encode)
    return _tables[encoding.name]


class ChessState(NativeState):
    """A standard chess game: position, history, legal actions and outcome.

    >>> state = ChessState()
    >>> state.apply(state.move_to_action("e2e4"))
    >>> state.current_player, state.to_text()
    (1, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1')
    >>> state.action_to_move(state.legal_actions()[0]) in {m.uci() for m in state.board.legal_moves}
    True
    """

    game_name: ClassVar[str] = "chess"

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
            self._start_fen = chess.STARTING_FEN
        else:
            check_text(fen, "fen")
            board = chess.Board(fen)
            validate_board(board, fen)
            self._start_fen = board.fen(en_passant="fen")
        self._game = core.ChessGame(self._start_fen, self.history, self.claim_draws, _native_table(self.encoding))
        self._board: tuple[list, chess.Board] | None = None

    @classmethod
    def from_text(cls, text: str, **options) -> ChessState:
        """A state from a FEN (no earlier history)."""
        return cls(text, **options)

    def native_options(self) -> tuple[bool, Any]:
        """The rule flag (claim_draws) and action table that build this game's native vector core."""
        return self.claim_draws, _native_table(self.encoding)

    @property
    def board(self) -> chess.Board:
        """The game as a python-chess Board, with its move stack (for SAN, PGN and UCI engines).

        Built from the native game on first use after a move; read it, do not push to it.
        """
        played = self._game.moves_played()
        cached, board = self._board or ([], chess.Board(self._start_fen))
        common = 0  # take back the moves that were undone since, then push the new ones
        while common < min(len(cached), len(played)) and cached[common] == played[common]:
            common += 1
        for _ in range(len(cached) - common):
            board.pop()
        for origin, target, promotion in played[common:]:
            board.push(chess.Move(origin, target, promotion + 1 if promotion else None))
        self._board = (played, board)
        return board

    def apply_move(self, move: chess.Move | str) -> None:
        """Play a python-chess Move or UCI text; raises IllegalActionError if illegal."""
        self.apply(self.move_to_action(move if isinstance(move, str) else move.uci()))

    def legal_moves_by_action(self) -> dict[int, chess.Move]:
        """The legal moves as python-chess Moves keyed by action, regardless of draw rules."""
        return {
            action: chess.Move(origin, target, promotion + 1 if promotion else None)
            for action, origin, target, promotion in self._game.legal_moves()
        }

    def action_to_move(self, action: int) -> str:
        """UCI text of ``action`` for the side to move (it need not be legal)."""
        action = as_action(action, self.num_actions)
        decoded = self.encoding.decode(action)
        if decoded is None:
            raise ValueError(f"action {action} leaves the board in encoding {self.encoding.name!r}")
        flip = 56 * self._game.side
        from_square, to_square, promotion = decoded[0] ^ flip, decoded[1] ^ flip, decoded[2]
        if (
            promotion is None
            and abs(self._game.squares()[from_square]) == 1
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
        flip = 56 * self._game.side
        action = self.encoding.encode(parsed.from_square ^ flip, parsed.to_square ^ flip, parsed.promotion)
        if action < 0:
            raise ValueError(f"move {move} has no action in encoding {self.encoding.name!r}")
        return action

    def board_cells(self) -> list[list[tuple[str, int] | None]]:
        """Rows from rank 8 down to rank 1: (piece letter, seat) or None, for the renderers."""
        squares = self._game.squares()
        return [
            [
                None if not code else (_PIECE_LETTERS[abs(code) - 1], 0 if code > 0 else 1)
                for code in squares[rank * 8 : rank * 8 + 8]
            ]
            for rank in range(7, -1, -1)
        ]

    def to_svg(self, size: int = 400) -> str:
        """An SVG picture of the board with the last move and any check marked."""
        board = self.board
        lastmove = board.peek() if board.move_stack else None
        check = board.king(board.turn) if board.is_check() else None
        return chess.svg.board(board, size=size, lastmove=lastmove, check=check)


def perft(text: str, depth: int, **options) -> int:
    """Number of leaf nodes of the legal-move tree of ``depth`` plies from the FEN ``text``.

    Native make/unmake with the last ply counted in bulk. Draw rules do not stop the count (as
    in every published perft table).
    """
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return ChessState(text, **options)._game.perft(depth)


def legal_moves(text: str) -> list[str]:
    """The legal moves of the FEN ``text`` as sorted UCI strings."""
    return sorted(move.uci() for move in ChessState(text).legal_moves_by_action().values())
