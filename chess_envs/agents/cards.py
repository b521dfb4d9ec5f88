"""Model cards: the facts of a shipped network, kept beside it as data
(``chess_envs/agents/networks/<name>.card.json``), one schema for all. A network's name is its
game's (``chess``), or its game's and the mode it plays (``four_player_teams``).

A card says what the network is (architecture, inputs), how it was made (data, compute, the exact
commands), how it plays (the agent options it plays with unless told otherwise), how strong it is
(ratings with intervals, each with the command that measures it; the learning curve's points), its
``UCI_Elo`` levels where it has a calibration, and its known weaknesses. The code reads the play
options (:func:`chess_envs.agents.shipped.shipped_agent`) and the levels
(:func:`chess_envs.agents.strength.load_levels`) from it, so shipping a network is one card and one
network file. The docs render every card. Torch-free.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent / "networks"
FORMAT = "chess_envs.model-card/1"

SCHEMA: dict[str, Any] = {
    "format": str,
    "game": str,
    "network": str,
    "summary": str,
    "architecture": {"filters": int, "blocks": int, "activation": str, "value_hidden": int, "parameters": int},
    "inputs": str,
    "training": {
        "method": str,
        "data": str,
        "cpu_hours_training": float,
        "cpu_hours_labelling": float,
        "hardware": str,
        "commands": [str],
    },
    "play_options": {str: str},
    "ratings": [
        {
            "opponent": str,
            "network": str,
            "games": int,
            "score": float,
            "interval": [float],
            "wall_minutes": (float, None),
            "command": str,
        }
    ],
    "learning_curve": [{"cpu_minutes": float, "opponent": str, "score": float}],
    "uci_elo": None,
    "weaknesses": [str],
    "experiments": [str],
}
"""The card's shape: a dict's keys are required with values of that shape, ``[shape]`` a list of
them, ``{str: str}`` a mapping of option names to values, ``(shape, None)`` that shape or null;
``uci_elo`` is free-form (null, or the calibration of :mod:`chess_envs.agents.strength`: ``scale``,
``made_by``, ``anchors``, ``levels``). A rating's ``wall_minutes`` is its command's wall time on the
card's hardware, kept apart from the training CPU-hours (shared where one command rated several
opponents; null where it was not recorded)."""


class ModelCardError(ValueError):
    """A model card that is missing, unreadable, or not of :data:`SCHEMA`'s shape."""


def card_path(name: str) -> Path:
    return FOLDER / f"{name}.card.json"


def shipped_networks() -> list[str]:
    """The names of the shipped networks (those with a card), sorted."""
    return sorted(path.name.removesuffix(".card.json") for path in FOLDER.glob("*.card.json"))


def check_shape(value: Any, shape: Any, where: str) -> None:
    """ModelCardError naming ``where`` (a path into the card) when ``value`` is not of ``shape``."""
    if shape is None:
        return
    if isinstance(shape, tuple):  # (shape, None): that shape, or null
        if value is not None:
            check_shape(value, shape[0], where)
    elif isinstance(shape, type):
        numeric = shape is float and isinstance(value, int) and not isinstance(value, bool)
        if not (isinstance(value, shape) and not isinstance(value, bool)) and not numeric:
            raise ModelCardError(f"{where} must be {shape.__name__}, got {value!r}")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise ModelCardError(f"{where} must be a list, got {value!r}")
        for index, item in enumerate(value):
            check_shape(item, shape[0], f"{where}[{index}]")
    elif str in shape:
        if not isinstance(value, dict):
            raise ModelCardError(f"{where} must be an object, got {value!r}")
        for key, item in value.items():
            check_shape(key, str, f"{where} key")
            check_shape(item, shape[str], f"{where}.{key}")
    else:
        if not isinstance(value, dict):
            raise ModelCardError(f"{where} must be an object, got {value!r}")
        missing, unknown = sorted(set(shape) - set(value)), sorted(set(value) - set(shape))
        if missing or unknown:
            raise ModelCardError(f"{where}: missing {missing}, unknown {unknown}")
        for key, item_shape in shape.items():
            check_shape(value[key], item_shape, f"{where}.{key}")


def load_card(name: str) -> dict[str, Any] | None:
    """The checked model card of the shipped network ``name``; None when it has none."""
    path = card_path(name)
    if not path.is_file():
        return None
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelCardError(f"{path} is not readable JSON: {error}") from None
    check_shape(card, SCHEMA, path.name)
    named = name == card["game"] or name.startswith(card["game"] + "_")
    if card["format"] != FORMAT or not named or card["network"] != f"{name}.pt":
        raise ModelCardError(
            f"{path} is a {card['format']!r} card of {card['game']!r} for {card['network']!r}, "
            f"not a {FORMAT!r} of the network {name}.pt"
        )
    return card
