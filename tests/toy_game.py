"""A toy game defined outside the package, to prove that adding a game is its package plus one
registry entry: tic-tac-toe in pure Python (no native core).

Position text: nine characters, rows from the top, ``x``/``o``/``.``, then the side to move,
e.g. ``"x...o.... x"``. Actions 0..8 are the squares, row-major from the top left. Observation
``(3, 3, 3)`` float32 from ``player``'s side: its marks, the opponent's marks, and a plane of ones
when ``player`` is the second player.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from chess_envs.core import GameBase, IllegalActionError, Outcome, Termination, as_action, check_text
from chess_envs.registry import GameRecord, register_game

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "xo"

RECORD = GameRecord(
    name="tic_tac_toe",
    title="Tic-tac-toe",
    state="tests.toy_game:TicTacToeState",
    env_id="TicTacToe-v0",
    pettingzoo=None,
)


def register() -> GameRecord:
    """Register the toy game (and its Gymnasium id); safe to call again."""
    return register_game(RECORD)


class TicTacToeState(GameBase):
    """Tic-tac-toe as a :class:`~chess_envs.core.GameState`."""

    game_name: ClassVar[str] = "tic_tac_toe"
    num_actions = 9
    observation_shape = (3, 3, 3)

    def __init__(self, text: str | None = None) -> None:
        self.cells = [-1] * 9
        self.mover = 0
        if text is not None:
            check_text(text, "position")
            board, _, side = text.partition(" ")
            if len(board) != 9 or set(board) - set("xo.") or side not in MARKS:
                raise ValueError(f"a tic-tac-toe position is nine of x, o or . then x or o, got {text!r}")
            self.cells = [MARKS.index(c) if c != "." else -1 for c in board]
            self.mover = MARKS.index(side)
        self.played: list[int] = []

    @property
    def current_player(self) -> int:
        return self.mover

    def _winner(self) -> int | None:
        for a, b, c in LINES:
            if self.cells[a] >= 0 and self.cells[a] == self.cells[b] == self.cells[c]:
                return self.cells[a]
        return None

    def outcome(self) -> Outcome | None:
        winner = self._winner()
        if winner is not None:
            return Outcome(Termination.CHECKMATE, (1.0, -1.0) if winner == 0 else (-1.0, 1.0))
        if -1 not in self.cells:
            return Outcome(Termination.STALEMATE, (0.0, 0.0))
        return None

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    def returns(self) -> np.ndarray:
        outcome = self.outcome()
        return np.array(outcome.returns if outcome else (0.0, 0.0), dtype=np.float32)

    def legal_actions(self) -> np.ndarray:
        if self.is_terminal():
            return np.zeros(0, dtype=np.int64)
        return np.array([i for i, c in enumerate(self.cells) if c < 0], dtype=np.int64)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(9, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply(self, action: int) -> None:
        action = as_action(action, 9)
        if self.is_terminal() or self.cells[action] >= 0:
            raise IllegalActionError(f"action {action} is not legal in {self.to_text()}")
        self.cells[action] = self.mover
        self.played.append(action)
        self.mover = 1 - self.mover

    def undo(self) -> None:
        if not self.played:
            raise IndexError("undo: no move to take back")
        self.cells[self.played.pop()] = -1
        self.mover = 1 - self.mover

    def copy(self) -> TicTacToeState:
        other = TicTacToeState()
        other.cells, other.mover, other.played = self.cells.copy(), self.mover, self.played.copy()
        return other

    def observation(self, player: int | None = None) -> np.ndarray:
        player = self.mover if player is None else player
        cells = np.array(self.cells).reshape(3, 3)
        return np.stack([cells == player, cells == 1 - player, np.full((3, 3), player == 1)]).astype(np.float32)

    def material(self) -> np.ndarray:
        return np.zeros(2, dtype=np.float32)

    def to_text(self) -> str:
        return "".join("." if c < 0 else MARKS[c] for c in self.cells) + " " + MARKS[self.mover]

    def action_to_move(self, action: int) -> str:
        return f"{'abc'[as_action(action, 9) % 3]}{3 - action // 3}"

    def move_to_action(self, move: str) -> int:
        if len(move) != 2 or move[0] not in "abc" or move[1] not in "123":
            raise ValueError(f"tic-tac-toe moves are a square such as b2, got {move!r}")
        return (3 - int(move[1])) * 3 + "abc".index(move[0])

    def board_cells(self) -> list[list[tuple[str, int] | None]]:
        return [[None if c < 0 else (MARKS[c].upper(), c) for c in self.cells[r * 3 : r * 3 + 3]] for r in range(3)]
