"""The games this package knows, by name: the one place a new game is added."""

from __future__ import annotations

from typing import Any, cast

from chess_envs.core import GameClass, GameState
from chess_envs.four_player import FourPlayerState
from chess_envs.los_alamos import LosAlamosState
from chess_envs.standard import ChessState

GAMES: dict[str, GameClass] = {
    "chess": ChessState,
    "los_alamos": LosAlamosState,
    "four_player": FourPlayerState,
}


def game_class(game: str | type) -> GameClass:
    """The state class of ``game`` (a name from :data:`GAMES` or a state class itself)."""
    if isinstance(game, type):
        return cast(GameClass, game)
    try:
        return GAMES[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; choose one of {sorted(GAMES)}") from None


def new_state(game: str | type, fen: str | None = None, **options: Any) -> GameState:
    """A state of ``game`` at ``fen`` (the standard start when None) with game ``options``."""
    return game_class(game)(fen, **options)
