"""The networks this package ships: one per game, and one per game mode that has its own
(``four_player_teams``): ``chess_envs/agents/networks/<name>.pt``, package data.

Named without a path as ``@<name>`` wherever a checkpoint is taken (``alphazero:@chess``,
``--init @chess``, ``--checkpoint @four_player_teams``), found the same way in a wheel and in a
checkout. UCI and ``chess-envs play`` play them when no other agent is named (a mode's own network
in that mode). Torch-free, so finding one costs nothing until it is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from chess_envs.agents.cards import FOLDER, load_card

PREFIX = "@"


def shipped_checkpoint(name: str) -> Path:
    """The shipped network ``name`` (a game's, or ``<game>_<mode>``); ValueError when there is none (yet)."""
    path = FOLDER / f"{name}.pt"
    if not path.is_file():
        raise ValueError(f"no network is shipped as {name!r} ({path} is missing); name an agent or a checkpoint")
    return path


def shipped_name(game: str, options: Mapping[str, object] | None = None) -> str:
    """The shipped network that plays ``game`` with the game ``options``: the mode's own
    (``four_player_teams`` for ``mode=teams``) where one is shipped, else the game's."""
    mode = (options or {}).get("mode")
    if mode is not None and (FOLDER / f"{game}_{mode}.pt").is_file():
        return f"{game}_{mode}"
    return game


def play_options(name: str) -> dict[str, str]:
    """The agent options the shipped network ``name`` plays with unless told otherwise: its model
    card's (``chess_envs/agents/networks/<name>.card.json``), where each has its reasons."""
    card = load_card(name)
    return dict(card["play_options"]) if card else {}


def shipped_agent(name: str, **options: object) -> str:
    """The agent spec of the shipped network ``name``, with its :func:`play_options` and
    ``options`` (``shipped_agent("los_alamos", sims=200)`` is ``"alphazero:@los_alamos?sims=200"``)."""
    shipped_checkpoint(name)  # ValueError when there is none
    settings = {**play_options(name), **{key: str(value) for key, value in options.items()}}
    query = "&".join(f"{key}={value}" for key, value in settings.items())
    return f"alphazero:{PREFIX}{name}" + (f"?{query}" if query else "")


def checkpoint_path(name: str | Path) -> Path:
    """A checkpoint's path: ``@<name>`` is the shipped network of that name, anything else a path."""
    text = str(name)
    return shipped_checkpoint(text[len(PREFIX) :]) if text.startswith(PREFIX) else Path(text)
