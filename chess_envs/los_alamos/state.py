"""Los Alamos chess as a :class:`~chess_envs.core.GameState` over the native core.

Frame: squares are ``rank * 6 + file``; for black every square is mirrored to
``(5 - rank) * 6 + file``, so the mover always plays up the board.

Observation, shape ``(12 * history + 3, 6, 6)`` (51 with the default ``history=4``), float32,
from ``player``'s perspective (row ``r`` = rank ``r + 1`` from that player's side). For each
history step ``t`` (``t = 0`` now; steps before the first known position are zeros):

    12t + 0..4    the player's pawns, knights, rooks, queens, king
    12t + 5..9    the opponent's pawns, knights, rooks, queens, king
    12t + 10      1 if that position had occurred before
    12t + 11      1 if it had occurred at least twice before

then (``c = 12 * history``): ``c`` colour (1 when ``player`` is black), ``c + 1`` total move
count ``min(ply, 512) / 512``, ``c + 2`` no-progress count ``min(halfmove clock, 100) / 100``.

Actions, 1944 = 36 from-squares x 54 move types (:func:`chess_envs.core.queen_knight_layout`
on 6x6): ``action = from * 54 + type``; types 0..39 queen-like (``direction * 5 + distance - 1``,
directions N NE E SE S SW W NW), 40..47 knight, 48..53 underpromotions
(``48 + direction * 2 + piece``, direction 0 = capture to file - 1, 1 = push, 2 = capture to
file + 1; piece 0 = knight, 1 = rook). Promotion to a queen is the queen-like move.

The rules run in C++ (``src/native``); the tests compare them at every ply with a pure-Python
reference engine kept in ``tests/los_alamos``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from chess_envs.core import as_action, check_flag, check_history, check_text
from chess_envs.los_alamos.encoding import (
    DECODE,
    ENCODE,
    KNIGHT,
    NUM_ACTIONS,
    PIECE_LETTERS,
    QUEEN,
    ROOK,
    SIZE,
    move_uci,
    parse_uci,
)
from chess_envs.native import NativeState, action_table, core

START_FEN = "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1"
"""the starting position, as a FEN of the 6x6 board"""

_PLANES_PER_STEP = 12
_META_PLANES = 3
# Native piece codes (1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king) -> letters; promotion codes.
_LETTERS = {1: "P", 2: "N", 4: "R", 5: "Q", 6: "K"}
_PROMOTION_CODES = {0: 0, 1: KNIGHT, 3: ROOK, 4: QUEEN}
_table: list[Any] = []


def _native_table() -> Any:
    if not _table:

        def encode(colour: int, origin: int, target: int, promotion: int) -> int:
            if promotion not in _PROMOTION_CODES:
                return -1
            return ENCODE[colour].get(origin | target << 6 | _PROMOTION_CODES[promotion] << 12, -1)

        _table.append(action_table(SIZE * SIZE, NUM_ACTIONS, encode))
    return _table[0]


class LosAlamosState(NativeState):
    """A Los Alamos chess game: position, history, legal actions and outcome.

    >>> state = LosAlamosState()
    >>> state.legal_actions().size
    10
    >>> state.apply(state.move_to_action("b1c3")); state.apply(state.move_to_action("b6c4"))
    >>> state.to_text()
    'r1qknr/pppppp/2n3/2N3/PPPPPP/R1QKNR w - - 2 2'
    """

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
        fen = START_FEN if fen is None else check_text(fen, "fen")
        self.observation_shape = (_PLANES_PER_STEP * history + _META_PLANES, SIZE, SIZE)
        self._game = core.LosAlamosGame(fen, self.history, self.adjudicate_insufficient_material, _native_table())

    @classmethod
    def from_text(cls, text: str, **options) -> LosAlamosState:
        return cls(text, **options)

    def native_options(self) -> tuple[bool, Any]:
        """The rule flag (adjudication) and action table that build this game's native vector core."""
        return self.adjudicate_insufficient_material, _native_table()

    def apply_move(self, move: str) -> None:
        """Play the UCI move text ``move``; IllegalActionError if it is not legal."""
        self.apply(self.move_to_action(move))

    def action_to_move(self, action: int) -> str:
        """UCI text of ``action`` for the side to move (it need not be legal)."""
        action = as_action(action, NUM_ACTIONS)
        move = DECODE[self._game.side][action]
        if move < 0:
            raise ValueError(f"action {action} leaves the 6x6 board")
        origin, target = move & 63, (move >> 6) & 63
        if not move >> 12 and abs(self._game.squares()[origin]) == 1 and target // SIZE in (0, SIZE - 1):
            move |= QUEEN << 12
        return move_uci(move)

    def move_to_action(self, move: str) -> int:
        """Action index of the UCI move text ``move`` for the side to move (legal or not)."""
        action = ENCODE[self._game.side].get(parse_uci(move))
        if action is None:
            raise ValueError(f"move {move} has no action in the Los Alamos encoding")
        return action

    def legal_moves_by_action(self) -> dict[int, str]:
        """The legal moves as UCI text keyed by action, regardless of draw rules."""
        return {
            action: move_uci(origin | target << 6 | _PROMOTION_CODES[promotion] << 12)
            for action, origin, target, promotion in self._game.legal_moves()
        }

    def board_cells(self) -> list[list[tuple[str, int] | None]]:
        """Rows from rank 6 down to rank 1: (piece letter, seat) or None, for the renderers."""
        squares = self._game.squares()
        return [
            [
                None if not code else (_LETTERS[abs(code)], 0 if code > 0 else 1)
                for code in squares[rank * SIZE : rank * SIZE + SIZE]
            ]
            for rank in range(SIZE - 1, -1, -1)
        ]


def perft(fen: str, depth: int) -> int:
    """Leaf nodes of the legal-move tree (draw rules ignored): native, last ply counted in bulk."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return LosAlamosState(fen)._game.perft(depth)


def legal_moves(fen: str) -> list[str]:
    """The legal moves of ``fen`` as sorted UCI strings."""
    return sorted(LosAlamosState(fen).legal_moves_by_action().values())


def result(fen: str) -> str | None:
    """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or None, from the FEN alone (mate, stalemate, 50 moves)."""
    state = LosAlamosState(fen)
    outcome = state.outcome()
    if outcome is None:
        return None
    return "1/2-1/2" if outcome.winner is None else ("1-0" if outcome.winner == 0 else "0-1")


__all__ = ["NUM_ACTIONS", "START_FEN", "LosAlamosState", "PIECE_LETTERS", "legal_moves", "perft", "result"]
