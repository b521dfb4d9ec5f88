"""The game interface every game implements, and the helpers the games share.

Environments, MCTS, agents and evaluators see a game only through :class:`GameState`.
This module imports numpy only (never torch, never Gymnasium).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, overload, runtime_checkable

import numpy as np

from chess_envs.render import board_svg

__all__ = [
    "GameBase",
    "GameClass",
    "GameState",
    "IllegalActionError",
    "Outcome",
    "Termination",
    "as_action",
    "check_count",
    "check_flag",
    "check_reset_options",
    "check_history",
    "check_text",
    "bitboards_to_planes",
    "queen_knight_layout",
]


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (names the action and the position)."""


class Termination(enum.Enum):
    """Why a game ended by its rules."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    SEVENTYFIVE_MOVES = "seventyfive_moves"
    FIVEFOLD_REPETITION = "fivefold_repetition"
    FIFTY_MOVES = "fifty_moves"
    THREEFOLD_REPETITION = "threefold_repetition"
    KING_CAPTURE = "king_capture"
    LAST_PLAYER_STANDING = "last_player_standing"
    CLAIM_WIN = "claim_win"


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the rule that ended it and the value per seat."""

    termination: Termination
    returns: tuple[float, ...]

    @property
    def winner(self) -> int | None:
        """The seat with the best return, or None when all seats drew."""
        best = max(self.returns)
        if all(r == best for r in self.returns):
            return None
        return self.returns.index(best)


@runtime_checkable
class GameState(Protocol):
    """A position plus its history, mutated in place by :meth:`apply` and :meth:`undo`.

    Actions and observations are in the frame of the side to move (docs/architecture.md).
    The members after ``move_to_action`` have defaults in :class:`~chess_envs.core.GameBase`, so a game
    defines them only where it has something to say (four-player standings, seat colours).
    """

    num_players: ClassVar[int]
    game_name: ClassVar[str]
    seat_letters: ClassVar[str | None]
    seat_colours: ClassVar[tuple[tuple[int, int, int], ...] | None]
    num_actions: int
    observation_shape: tuple[int, int, int]

    @property
    def current_player(self) -> int:
        """Seat index (0..num_players-1) of the side to move."""
        ...

    def legal_actions(self) -> np.ndarray:
        """Legal action indices, int64, in the mover's frame."""
        ...

    def legal_action_mask(self) -> np.ndarray:
        """Boolean mask of shape (num_actions,); all False once the game is over."""
        ...

    def apply(self, action: int) -> None:
        """Play ``action``; raises IllegalActionError (and changes nothing) if it is not legal."""
        ...

    def undo(self) -> None:
        """Take back the last action."""
        ...

    def copy(self) -> GameState:
        """An independent copy with the same history."""
        ...

    def is_terminal(self) -> bool:
        """True when the game has ended by its rules."""
        ...

    def outcome(self) -> Outcome | None:
        """The outcome of a finished game, None while it goes on."""
        ...

    def returns(self) -> np.ndarray:
        """Value per seat (float32): +1 win, -1 loss, 0 draw; zeros while the game goes on."""
        ...

    def observation(self, player: int | None = None) -> np.ndarray:
        """Planes (float32, channels first) from ``player``'s perspective (default: the mover)."""
        ...

    def material(self) -> np.ndarray:
        """Material per seat in pawns (float32), for baselines and adjudication."""
        ...

    def to_text(self) -> str:
        """The position in the game's FEN-like notation."""
        ...

    def action_to_move(self, action: int) -> str:
        """The move text (UCI-style) of ``action`` in the current position."""
        ...

    def move_to_action(self, move: str) -> int:
        """The action index of the move text ``move`` in the current position."""
        ...

    def board_cells(self) -> Sequence[Sequence[tuple[str, int] | None | bool]]:
        """Rows, far side first: (piece letter, seat), None for empty, False off the board."""
        ...

    @property
    def eliminated(self) -> tuple[bool, ...]:
        """Per seat, whether that player is out of a game that goes on."""
        ...

    def standings(self) -> tuple[float, ...]:
        """The value per seat if the game were stopped now (a draw unless the game keeps points)."""
        ...

    @property
    def teams(self) -> tuple[int, ...] | None:
        """The team of each seat when seats play as teams (partners share one result), else None."""
        ...

    def enable_search_caches(self) -> None:
        """Called by tree search before it revisits positions thousands of times."""
        ...

    def to_svg(self, size: int = 400) -> str:
        """An SVG picture of the position."""
        ...


class GameClass(Protocol):
    """A game's state class: called with a position text (None: the start) and game options."""

    num_players: int
    game_name: str

    def __call__(self, *args: Any, **kwargs: Any) -> GameState: ...


class GameBase:
    """Defaults of the optional members of :class:`GameState` for two-player games without points."""

    num_players: ClassVar[int] = 2
    game_name: ClassVar[str]
    seat_letters: ClassVar[str | None] = None
    seat_colours: ClassVar[tuple[tuple[int, int, int], ...] | None] = None

    @property
    def eliminated(self) -> tuple[bool, ...]:
        return (False,) * self.num_players

    def standings(self) -> tuple[float, ...]:
        return (0.0,) * self.num_players

    @property
    def teams(self) -> tuple[int, ...] | None:
        return None

    def enable_search_caches(self) -> None:
        """Nothing to cache by default."""

    def to_svg(self, size: int = 400) -> str:
        return board_svg(self, size)


def as_action(action: Any, num_actions: int) -> int:
    """Validate an action from user code and return it as a Python int.

    Accepts Python and numpy integers (and 0-d integer arrays); anything else is a TypeError,
    an integer outside ``[0, num_actions)`` a ValueError.
    """
    kind = type(action)
    if kind is not int and kind is not np.int64:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer, np.ndarray)):
            raise TypeError(f"action must be an integer in [0, {num_actions}), got {kind.__name__} {action!r}")
        if isinstance(action, np.ndarray):
            if action.shape != () or not np.issubdtype(action.dtype, np.integer):
                raise TypeError(f"action must be an integer, got an array of shape {action.shape} ({action.dtype})")
            action = action.item()
    action = int(action)
    if not 0 <= action < num_actions:
        raise ValueError(f"action {action} is outside the action space [0, {num_actions})")
    return action


MAX_HISTORY = 32
"""The most history steps an observation may hold (AlphaZero uses 8; each step is a block of planes)."""
MAX_TEXT_LENGTH = 1_000
"""The longest FEN or FEN4 accepted (real ones are under 300 characters)."""


def check_history(history: Any) -> int:
    """Validate a ``history`` option: an integer in [1, MAX_HISTORY] (numpy integers accepted)."""
    if isinstance(history, (bool, np.bool_)) or not isinstance(history, (int, np.integer)):
        raise ValueError(f"history must be an integer in [1, {MAX_HISTORY}], got {history!r}")
    if not 1 <= history <= MAX_HISTORY:
        raise ValueError(f"history must be in [1, {MAX_HISTORY}] steps, got {history}")
    return int(history)


@overload
def check_count(
    value: Any, name: str, minimum: int = 1, maximum: int | None = None, allow_none: Literal[False] = False
) -> int: ...


@overload
def check_count(
    value: Any, name: str, minimum: int = 1, maximum: int | None = None, *, allow_none: Literal[True]
) -> int | None: ...


def check_count(
    value: Any, name: str, minimum: int = 1, maximum: int | None = None, allow_none: bool = False
) -> int | None:
    """Validate an integer option (Python or numpy integers; not bools) in [minimum, maximum]."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        kind = "an integer" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {kind}, got {type(value).__name__} {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        upper = f", at most {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be at least {minimum}{upper}, got {value}")
    return int(value)


def check_reset_options(options: Any) -> dict[str, Any]:
    """The ``options`` of an env's ``reset``: None or a dict (such as ``{"fen": ...}``)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"reset options must be a dict such as {{'fen': ...}}, got {type(options).__name__}")
    return options


def check_flag(value: Any, name: str) -> bool:
    """Validate a boolean option: ``True`` or ``False`` only (``"no"`` is not false, so it is refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_text(text: Any, what: str) -> str:
    """Validate position text (FEN, FEN4): a string of at most MAX_TEXT_LENGTH characters."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(f"{what} is {len(text):,} characters long; at most {MAX_TEXT_LENGTH:,} are accepted")
    return text


_BITS_PER_BOARD = 64


def bitboards_to_planes(bitboards: np.ndarray, height: int = 8, width: int = 8) -> np.ndarray:
    """Unpack bitboards (uint64, any leading shape) into 0/1 uint8 planes of (..., height, width).

    Bit ``r * width + f`` becomes row ``r``, column ``f``; boards smaller than 8x8 use the
    low ``height * width`` bits.
    """
    as_bytes = np.ascontiguousarray(bitboards, dtype="<u8").view(np.uint8)
    bits = np.unpackbits(as_bytes, bitorder="little").reshape(*bitboards.shape, _BITS_PER_BOARD)
    if height * width != _BITS_PER_BOARD:
        bits = bits[..., : height * width]
    return bits.reshape(*bitboards.shape, height, width)


QUEEN_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""N, NE, E, SE, S, SW, W, NW as (file step, rank step); N points at the opponent."""
KNIGHT_OFFSETS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def queen_knight_layout(size: int, underpromotions: tuple[int, ...]) -> list[tuple[int, int, int | None] | None]:
    """AlphaZero's move-type layout on a ``size`` x ``size`` board, in the mover's frame.

    Entry ``from_square * types + move_type`` is ``(from, to, promotion)`` (squares
    ``rank * size + file``) or None where the move leaves the board, with
    ``types = 8 * (size - 1) + 8 + 3 * len(underpromotions)``: queen-like moves
    (``direction * (size - 1) + distance - 1``), then the 8 knight moves, then underpromotions
    (``direction * len(underpromotions) + piece``, direction 0 = capture towards file - 1,
    1 = push, 2 = capture towards file + 1) from the second-to-last rank.
    """

    def target(file: int, rank: int) -> int | None:
        return rank * size + file if 0 <= file < size and 0 <= rank < size else None

    moves: list[tuple[int, int, int | None] | None] = []
    for from_square in range(size * size):
        file, rank = from_square % size, from_square // size
        for df, dr in QUEEN_DIRECTIONS:
            for distance in range(1, size):
                to_square = target(file + df * distance, rank + dr * distance)
                moves.append(None if to_square is None else (from_square, to_square, None))
        for df, dr in KNIGHT_OFFSETS:
            to_square = target(file + df, rank + dr)
            moves.append(None if to_square is None else (from_square, to_square, None))
        for df in (-1, 0, 1):
            to_square = target(file + df, rank + 1) if rank == size - 2 else None
            for piece in underpromotions:
                moves.append(None if to_square is None else (from_square, to_square, piece))
    return moves
