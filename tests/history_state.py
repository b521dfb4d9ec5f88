"""The game-state machinery of the Python reference states (tests/*/reference.py): history,
repetitions, cached legal moves, apply, undo and copy over a ``board`` with ``push``/``pop``.

The native states (:class:`~chess_envs.native.NativeState`) keep all of this in C++.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from chess_envs.core import GameBase, IllegalActionError, Outcome, as_action


class BoundedCache(dict):
    """A dict that empties itself when full: a cheap memo of per-position work (legal moves)
    that search revisits through transpositions and after undo."""

    def __init__(self, max_size: int) -> None:
        super().__init__()
        self.max_size = max_size

    def put(self, key: Any, value: Any) -> None:
        if len(self) >= self.max_size:
            self.clear()
        self[key] = value


class HistoryState(GameBase):
    """The machinery every reference state shares, over a ``board`` with ``push``/``pop``.

    It keeps the game's position keys and their counts (for repetitions), caches the legal
    moves (a dict action -> engine move) and the outcome of the current position, validates
    and applies actions, undoes them, and copies. A game supplies the hooks below.

    Search caches (:meth:`enable_search_caches`) also keep the legal moves of recent positions
    across ``undo`` and by position key, for tree search that revisits positions thousands of
    times; they are off by default, where they would only cost time and memory.
    """

    num_actions: int
    board: Any
    _SAVED_PLIES: ClassVar[int] = 64
    _LEGAL_CACHE_SIZE: ClassVar[int] = 20_000

    # -- hooks for each game ---------------------------------------------------------------

    def _position_key(self) -> Hashable:
        """The repetition key of the current board position."""
        raise NotImplementedError

    def _remember(self, key: Any, count: int) -> None:
        """Called when a position is reached (``count``: its occurrences so far, this one included)."""

    def _forget(self) -> None:
        """Called when the last position is taken back."""

    def _generate_legal(self) -> dict[int, Any]:
        """The legal moves of the board, keyed by action."""
        raise NotImplementedError

    def _compute_outcome(self) -> Outcome | None:
        raise NotImplementedError

    def _copy_into(self, other: Any) -> None:
        """Copy the game's own mutable containers into ``other`` (a shallow copy of self)."""

    # -- the shared part -------------------------------------------------------------------

    def _start_history(self) -> None:
        self._keys: list[Any] = []
        self._counts: dict[Any, int] = {}
        self._saved: deque | None = None
        self._legal_cache: BoundedCache | None = None
        self._record_position()

    def _record_position(self) -> None:
        key = self._position_key()
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        self._remember(key, count)
        self._keys.append(key)
        self._legal: dict[int, Any] | None = None
        self._outcome: Outcome | None | bool = False

    def repetitions(self) -> int:
        """How many times the current position has occurred so far (1 the first time)."""
        return self._counts[self._keys[-1]]

    def _legal_moves(self) -> dict[int, Any]:
        legal = self._legal
        if legal is None:
            cache = self._legal_cache
            if cache is None:
                legal = self._generate_legal()
            else:
                key = self._keys[-1]
                legal = cache.get(key)
                if legal is None:
                    legal = self._generate_legal()
                    cache.put(key, legal)
            self._legal = legal
        return legal

    def legal_moves_by_action(self) -> dict[int, Any]:
        """The board's legal moves keyed by action, regardless of draw rules. Do not mutate."""
        return self._legal_moves()

    def legal_actions(self) -> np.ndarray:
        if self.is_terminal():
            return np.zeros(0, dtype=np.int64)
        legal = self._legal_moves()
        return np.fromiter(legal, dtype=np.int64, count=len(legal))

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        if not self.is_terminal():
            mask[self.legal_actions()] = True
        return mask

    def apply(self, action: int) -> None:
        action = as_action(action, self.num_actions)
        move = self._legal_moves().get(action)
        if move is None:
            try:
                text = self.action_to_move(action)  # type: ignore[attr-defined]
            except ValueError:
                text = "off the board"
            raise IllegalActionError(f"action {action} ({text}) is not legal in {self.to_text()}")  # type: ignore[attr-defined]
        if self._saved is not None:
            self._saved.append((self._legal, self._outcome))
        self.board.push(move)
        self._record_position()

    def undo(self) -> None:
        if len(self._keys) < 2:
            raise IndexError("undo: no move to take back")
        self.board.pop()
        key = self._keys.pop()
        self._counts[key] -= 1
        self._forget()
        # With search caches the position before the move has its legal moves and outcome saved.
        self._legal, self._outcome = self._saved.pop() if self._saved else (None, False)

    def enable_search_caches(self) -> None:
        """Remember legal moves by position and across undo (see the class docstring)."""
        if self._saved is None:
            self._saved = deque(maxlen=self._SAVED_PLIES)
            self._legal_cache = BoundedCache(self._LEGAL_CACHE_SIZE)

    def copy(self):  # noqa: ANN201  (returns the subclass)
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.board = self.board.copy()
        other._keys = self._keys.copy()
        other._counts = self._counts.copy()
        other._saved = None if self._saved is None else self._saved.copy()
        self._copy_into(other)
        return other

    def outcome(self) -> Outcome | None:
        if self._outcome is False:
            self._outcome = self._compute_outcome()
        return self._outcome  # type: ignore[return-value]

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    def returns(self) -> np.ndarray:
        outcome = self.outcome()
        return np.array(outcome.returns if outcome else (0.0,) * self.num_players, dtype=np.float32)
