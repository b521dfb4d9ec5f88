"""The networks this package ships, one per game: ``agents/networks/<game>.pt``, package data.

Named without a path as ``@<game>`` wherever a checkpoint is taken (``alphazero:@chess``,
``--init @chess``, ``--checkpoint @four_player``), found the same way in a wheel and in a
checkout. UCI and ``evaluate play`` play them when no other agent is named. Torch-free, so
finding one costs nothing until it is loaded.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "networks"
PREFIX = "@"


def shipped_checkpoint(game: str) -> Path:
    """The shipped network of ``game``; ValueError when there is none (yet)."""
    path = FOLDER / f"{game}.pt"
    if not path.is_file():
        raise ValueError(f"no network is shipped for {game!r} ({path} is missing); name an agent or a checkpoint")
    return path


def shipped_agent(game: str) -> str:
    """The agent spec of the shipped network of ``game``."""
    shipped_checkpoint(game)  # ValueError when there is none
    return f"alphazero:{PREFIX}{game}"


def checkpoint_path(name: str | Path) -> Path:
    """A checkpoint's path: ``@<game>`` is the shipped network of that game, anything else a path."""
    text = str(name)
    return shipped_checkpoint(text[len(PREFIX) :]) if text.startswith(PREFIX) else Path(text)
