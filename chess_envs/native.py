"""The native core (``chess_envs._core``, C++ built by ``pip install``) and the game-state base over it.

:class:`NativeState` implements :class:`~chess_envs.core.GameState` over a native game object:
rules, history, outcome, planes and mask all run in C++ and write into numpy arrays, so a ply
costs one call per method and no Python objects per move.

``CHESS_ENVS_CORE=/path/to/_core.so`` loads another build of the core (the sanitizer build of
``tests/native/sanitizers.sh``) in place of the installed one.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from chess_envs.core import GameBase, IllegalActionError, Outcome, Termination, as_action


def _load_core() -> Any:
    path = os.environ.get("CHESS_ENVS_CORE")
    if not path:
        try:
            return importlib.import_module("chess_envs._core")
        except ImportError as error:
            raise ImportError(
                "chess_envs._core, the compiled core, is missing: install the package with `pip install -e .` "
                "(it needs a C++17 compiler; on Debian `apt-get install build-essential`)"
            ) from error
    spec = importlib.util.spec_from_file_location("chess_envs._core", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"CHESS_ENVS_CORE={path!r} is not a loadable extension module")
    module = importlib.util.module_from_spec(spec)
    sys.modules["chess_envs._core"] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:  # the types of the native module: its stub, chess_envs/_core.pyi
    from chess_envs import _core as core
else:
    core = _load_core()

InUseError: type[RuntimeError] = core.InUseError
"""Raised instead of using an object that another call is using (its docstring is the native one)."""

MATE_PLAYS_PER_SIMULATION: int = core.MATE_PLAYS_PER_SIMULATION
"""moves played by the search's mate probe that count as one simulation of its budget"""

TERMINATIONS: tuple[Termination | None, ...] = tuple(Termination(name) if name else None for name in core.TERMINATIONS)


def action_table(squares: int, num_actions: int, encode: Callable[[int, int, int, int], int]) -> Any:
    """The native action table of an encoding: ``encode(colour, from, to, promotion)`` for every
    pair of real squares and promotion code (0 none, 1 knight, 2 bishop, 3 rook, 4 queen), -1 where
    the encoding has no such move. Built once per encoding, so Python stays its one definition."""
    table = np.full((2, squares, squares, 5), -1, dtype=np.int32)
    for colour in (0, 1):
        for origin in range(squares):
            for target in range(squares):
                for promotion in range(5):
                    table[colour, origin, target, promotion] = encode(colour, origin, target, promotion)
    return core.ActionTable(squares, num_actions, table)


class NativeState(GameBase):
    """A :class:`~chess_envs.core.GameState` over a native game (``self._game``).

    Subclasses build ``_game`` and set ``num_actions`` and ``observation_shape``.
    """

    num_actions: int
    observation_shape: tuple[int, int, int]
    _game: Any
    _board: tuple[list, Any] | None = None
    _outcomes: ClassVar[dict[tuple[int, int], Outcome]] = {}

    @property
    def current_player(self) -> int:
        return self._game.side

    def perft(self, depth: int) -> int:
        """Leaf nodes of the legal-move tree ``depth`` plies deep from here (draw rules do not stop
        the count, as in published perft tables); native, the game itself untouched."""
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        return int(self._game.perft(depth))

    def legal_actions(self) -> np.ndarray:
        return self._game.legal_actions()

    def legal_action_mask(self) -> np.ndarray:
        mask = np.empty(self.num_actions, dtype=bool)
        self._game.legal_mask_bool(mask)
        return mask

    def apply(self, action: int) -> None:
        action = as_action(action, self.num_actions)
        if not self._game.apply(action):
            try:
                text = self.action_to_move(action)
            except ValueError:
                text = "off the board"
            raise IllegalActionError(f"action {action} ({text}) is not legal in {self.to_text()}")

    def undo(self) -> None:
        self._game.undo()

    def copy(self):  # noqa: ANN201  (returns the subclass)
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._game = self._game.copy()
        other._board = None  # a board built on demand (ChessState.board) is built again, never shared
        return other

    def is_terminal(self) -> bool:
        return self._game.termination() != 0

    def outcome(self) -> Outcome | None:
        code = self._game.termination()
        if not code:
            return None
        winner = self._game.winner()
        outcome = self._outcomes.get((code, winner))
        if outcome is None:
            returns = (0.0, 0.0) if winner < 0 else ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
            outcome = self._outcomes[(code, winner)] = Outcome(TERMINATIONS[code], returns)
        return outcome

    def returns(self) -> np.ndarray:
        outcome = self.outcome()
        return np.array(outcome.returns if outcome else (0.0, 0.0), dtype=np.float32)

    def observation(self, player: int | None = None) -> np.ndarray:
        if player is None:
            player = self._game.side
        elif player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        obs = np.empty(self.observation_shape, dtype=np.float32)
        self._game.observation(int(player), obs)
        return obs

    def material(self) -> np.ndarray:
        """Material per seat (pawn 1, knight 3, bishop 3, rook 5, queen 9), float32."""
        out = np.empty(2, dtype=np.float32)
        self._game.material(out)
        return out

    def repetitions(self) -> int:
        """How many times the current position has occurred so far (1 the first time)."""
        return self._game.repetitions()

    def enable_search_caches(self) -> None:
        """Nothing to enable: native move generation is cheaper than any cache of it."""

    def to_text(self) -> str:
        return self._game.fen()

    def action_to_move(self, action: int) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_text()!r})"
