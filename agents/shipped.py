"""The networks this repository ships, one per game: ``checkpoints/<game>.pt``.

UCI and ``evaluate play`` play them when no other agent is named. Torch-free, so finding one
costs nothing until it is loaded.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "checkpoints"


def shipped_checkpoint(game: str) -> Path:
    """The shipped network of ``game``; ValueError when there is none (yet)."""
    path = FOLDER / f"{game}.pt"
    if not path.is_file():
        raise ValueError(f"no network is shipped for {game!r} ({path} is missing); name an agent or a checkpoint")
    return path


def shipped_agent(game: str) -> str:
    """The agent spec of the shipped network of ``game``."""
    return f"alphazero:{shipped_checkpoint(game)}"
