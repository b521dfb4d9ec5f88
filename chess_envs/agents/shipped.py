"""The networks this package ships, one per game: ``chess_envs/agents/networks/<game>.pt``, package data.

Named without a path as ``@<game>`` wherever a checkpoint is taken (``alphazero:@chess``,
``--init @chess``, ``--checkpoint @four_player``), found the same way in a wheel and in a
checkout. UCI and ``chess-envs play`` play them when no other agent is named. Torch-free, so
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


PLAY_OPTIONS: dict[str, dict[str, str]] = {
    "chess": {"leaves": "4", "fpu": "0", "root_fpu": "none"},
    "four_player": {"material": "0.75"},
}
"""Agent options a shipped network plays with unless told otherwise: the chess network searches
with first-play urgency 0 everywhere and 4 leaves a wave (docs/results.md, "Chess: search settings
at 200 simulations": +136 Elo at equal simulations); the four-player network's leaves blend in the
material evaluator's values (docs/four_player.md: 76% against greedy alone, 87% with them, in
Free-For-All)."""


def shipped_agent(game: str, **options: object) -> str:
    """The agent spec of the shipped network of ``game``, with its :data:`PLAY_OPTIONS` and
    ``options`` (``shipped_agent("los_alamos", sims=200)`` is ``"alphazero:@los_alamos?sims=200"``)."""
    shipped_checkpoint(game)  # ValueError when there is none
    settings = {**PLAY_OPTIONS.get(game, {}), **{name: str(value) for name, value in options.items()}}
    query = "&".join(f"{name}={value}" for name, value in settings.items())
    return f"alphazero:{PREFIX}{game}" + (f"?{query}" if query else "")


def checkpoint_path(name: str | Path) -> Path:
    """A checkpoint's path: ``@<game>`` is the shipped network of that game, anything else a path."""
    text = str(name)
    return shipped_checkpoint(text[len(PREFIX) :]) if text.startswith(PREFIX) else Path(text)
