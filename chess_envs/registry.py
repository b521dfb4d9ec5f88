"""The game registry: one record per game, the one place the rest of the code learns about games.

A record names everything by import path or by string (state class, native classes, Gymnasium id,
PettingZoo module, UCI and engine variant names), so it is cheap to build, imports nothing until
asked, and pickles: a tournament hands its game's record to spawned workers, which register it
again and see the same game. Adding a game is its package plus one :func:`~chess_envs.register_game` call
(the built-in games are registered at the bottom of this module).

    >>> game = get_game("los_alamos")
    >>> game.env_id, game.num_players, game.observation_shape, game.num_actions
    ('LosAlamos-v0', 2, (51, 6, 6), 1944)
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from chess_envs.core import GameClass, GameState
from chess_envs.native import core

__all__ = [
    "GameOption",
    "GameRecord",
    "game_class",
    "game_names",
    "get_game",
    "new_state",
    "register_game",
    "registered_games",
]


@dataclass(frozen=True)
class GameOption:
    """A rule option a game's state takes (four-player ``mode``), with its type, default and choices."""

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    help: str = ""

    def check(self, value: Any) -> Any:
        """``value`` (or its text, as typed on a command line) as the option's type; ValueError if not allowed."""
        kind = type(self.default)
        if isinstance(value, str) and kind is not str:
            try:
                value = {"true": True, "false": False}[value.lower()] if kind is bool else kind(value)
            except (KeyError, ValueError):
                raise ValueError(f"game option {self.name} must be a {kind.__name__}, got {value!r}") from None
        if type(value) is not kind:
            raise ValueError(f"game option {self.name} must be a {kind.__name__}, got {value!r}")
        if self.choices and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise ValueError(f"game option {self.name} must be one of {allowed}, got {value!r}")
        return value


@dataclass(frozen=True)
class GameRecord:
    """Everything the code outside a game's package needs to know about the game.

    Shapes (``num_players``, ``observation_shape``, ``num_actions``) are read from a
    state built with the default options, so they are defined once, by the game itself.
    """

    name: str
    """the name used everywhere (``--game chess``, ``make_agent(spec, "chess")``)"""
    title: str
    """how people call it (tables, plots, help texts)"""
    state: str
    """import path of the state class, ``"package.module:Class"``"""
    env_id: str
    """the Gymnasium id (``gymnasium.make(env_id)``)"""
    pettingzoo: str | None = None
    """module with the PettingZoo ``env``/``raw_env`` functions"""
    native: str | None = None
    """prefix of the native classes in ``chess_envs._core``: ``<native>SearchTree``, ``<native>Search``
    and ``<native>Vector``; None for a game in pure Python (the Python search and Gymnasium's
    sync vector env serve it)"""
    uci_variant: str | None = None
    """the ``UCI_Variant`` value that selects the game (Fairy-Stockfish's names); None: not over UCI"""
    engines: tuple[str, ...] = ()
    """engine agents (``chess_envs.agents.engine``) that play the game"""
    options: tuple[GameOption, ...] = ()
    """rule options agents, tournaments and command lines may set"""
    gym_kwargs: Mapping[str, Any] = field(default_factory=dict)
    """extra keyword arguments of the Gymnasium registration"""

    def state_class(self) -> GameClass:
        """The state class (imported on first use)."""
        module, _, name = self.state.partition(":")
        return getattr(importlib.import_module(module), name)

    def new_state(self, text: str | None = None, **options: Any) -> GameState:
        """A state at ``text`` (FEN, FEN4...; None: the start) with game ``options``."""
        return self.state_class()(text, **self.check_options(options))

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` validated against :attr:`options` (unknown names are a ValueError)."""
        known = {option.name: option for option in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            allowed = ", ".join(known) or "none"
            raise ValueError(f"{self.name} has no game option {', '.join(unknown)} (its options: {allowed})")
        return {name: known[name].check(value) for name, value in options.items()}

    def native_class(self, kind: str) -> Any:
        """The native class ``<native><kind>`` (``SearchTree``, ``Search``, ``Vector``), None without one."""
        if self.native is None:
            return None
        return getattr(core, self.native + kind, None)

    @cached_property
    def _prototype(self) -> GameState:
        return self.new_state()

    @property
    def num_players(self) -> int:
        return int(self.state_class().num_players)

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """Planes ``(C, H, W)`` with the default options."""
        return tuple(self._prototype.observation_shape)  # type: ignore[return-value]

    @property
    def num_actions(self) -> int:
        return int(self._prototype.num_actions)


_GAMES: dict[str, GameRecord] = {}


def register_game(record: GameRecord) -> GameRecord:
    """Add ``record`` (again: a no-op for an equal record) and its Gymnasium id; returns it."""
    known = _GAMES.get(record.name)
    if known is not None and known != record:
        raise ValueError(f"another game is already registered as {record.name!r}")
    _GAMES[record.name] = record
    from gymnasium.envs.registration import register, registry

    if record.env_id not in registry:
        vector = {"vector_entry_point": "chess_envs.vector_env:GameVectorEnv"} if record.native else {}
        register(
            id=record.env_id,
            entry_point="chess_envs.gym_env:GameEnv",
            kwargs={"game": record.name, **record.gym_kwargs},
            **vector,  # type: ignore[arg-type]
        )
    return record


def get_game(game: str | GameRecord) -> GameRecord:
    """The record of the game called ``game``; ValueError naming the known games otherwise."""
    if isinstance(game, GameRecord):
        return register_game(game)
    record = _GAMES.get(game)
    if record is None:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(game_names())}")
    return record


def game_names() -> list[str]:
    """The registered games' names, in registration order."""
    return list(_GAMES)


def registered_games() -> list[GameRecord]:
    """Every registered game's record, in the order they were registered."""
    return list(_GAMES.values())


def game_class(game: str | type) -> GameClass:
    """The state class of ``game`` (a registered name, or a state class itself)."""
    if isinstance(game, type):
        return game  # type: ignore[return-value]
    return get_game(game).state_class()


def new_state(game: str | type, text: str | None = None, **options: Any) -> GameState:
    """A state of ``game`` at ``text`` (the start when None) with game ``options``."""
    if isinstance(game, type):
        return game(text, **options)
    return get_game(game).new_state(text, **options)


register_game(
    GameRecord(
        name="chess",
        title="Chess",
        state="chess_envs.standard.state:ChessState",
        env_id="Chess-v0",
        pettingzoo="chess_envs.pettingzoo.chess_v0",
        native="Chess",
        uci_variant="chess",
        engines=("stockfish", "fairy-stockfish"),
    )
)
register_game(
    GameRecord(
        name="los_alamos",
        title="Los Alamos chess",
        state="chess_envs.los_alamos.state:LosAlamosState",
        env_id="LosAlamos-v0",
        pettingzoo="chess_envs.pettingzoo.los_alamos_v0",
        native="LosAlamos",
        uci_variant="losalamos",
        engines=("fairy-stockfish",),
    )
)
register_game(
    GameRecord(
        name="four_player",
        title="Four-player chess",
        state="chess_envs.four_player.state:FourPlayerState",
        env_id="FourPlayerChess-v0",
        pettingzoo="chess_envs.pettingzoo.four_player_chess_v0",
        native="FourPlayer",
        options=(GameOption("mode", "ffa", ("ffa", "teams"), "Free-For-All or Teams (partners sit opposite)"),),
    )
)
