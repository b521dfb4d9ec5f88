"""The networks this package ships, one per game: ``chess_envs/agents/networks/<game>.pt``, package data.

Named without a path as ``@<game>`` wherever a checkpoint is taken (``alphazero:@chess``,
``--init @chess``, ``--checkpoint @four_player``), found the same way in a wheel and in a
checkout. UCI and ``chess-envs play`` play them when no other agent is named. Torch-free, so
finding one costs nothing until it is loaded.
"""

from __future__ import annotations

from pathlib import Path

from chess_envs.agents.cards import FOLDER, load_card

PREFIX = "@"


def shipped_checkpoint(game: str) -> Path:
    """The shipped network of ``game``; ValueError when there is none (yet)."""
    path = FOLDER / f"{game}.pt"
    if not path.is_file():
        raise ValueError(f"no network is shipped for {game!r} ({path} is missing); name an agent or a checkpoint")
    return path


def play_options(game: str) -> dict[str, str]:
    """The agent options the shipped network of ``game`` plays with unless told otherwise: its model
    card's (``chess_envs/agents/networks/<game>.card.json``), where each has its reasons."""
    card = load_card(game)
    return dict(card["play_options"]) if card else {}


def shipped_agent(game: str, **options: object) -> str:
    """The agent spec of the shipped network of ``game``, with its :func:`play_options` and
    ``options`` (``shipped_agent("los_alamos", sims=200)`` is ``"alphazero:@los_alamos?sims=200"``)."""
    shipped_checkpoint(game)  # ValueError when there is none
    settings = {**play_options(game), **{name: str(value) for name, value in options.items()}}
    query = "&".join(f"{name}={value}" for name, value in settings.items())
    return f"alphazero:{PREFIX}{game}" + (f"?{query}" if query else "")


def checkpoint_path(name: str | Path) -> Path:
    """A checkpoint's path: ``@<game>`` is the shipped network of that game, anything else a path."""
    text = str(name)
    return shipped_checkpoint(text[len(PREFIX) :]) if text.startswith(PREFIX) else Path(text)
