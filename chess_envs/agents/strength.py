"""Weaker play on demand (UCI's ``UCI_LimitStrength`` with ``UCI_Elo``): a requested Elo becomes
simulations and a move temperature, read off a measured calibration of the network.

A calibration (``chess_envs/agents/networks/<game>.elo.json``, written by
``tools/uci_elo_calibration.py``) lists levels ``(simulations, temperature)`` with the Elo
each measured against fixed anchors on one scale (Stockfish ``UCI_Elo`` 1350 at 100 ms a move is
1350). The levels form a path: neighbours differ in one knob, and an Elo between two of them
interpolates that knob (simulations geometrically, temperature linearly). Torch-free.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from chess_envs.agents.shipped import FOLDER


@dataclass(frozen=True)
class Level:
    """One measured setting of the network and its Elo on the anchors' scale."""

    simulations: int
    temperature: float
    elo: float


def calibration_path(game: str) -> Path:
    return FOLDER / f"{game}.elo.json"


def load_levels(game: str) -> list[Level]:
    """The calibrated levels of the shipped network of ``game``, weakest first; [] when it has none."""
    path = calibration_path(game)
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    levels = [Level(int(x["simulations"]), float(x["temperature"]), float(x["elo"])) for x in data["levels"]]
    return sorted(levels, key=lambda level: level.elo)


def level_for(elo: float, levels: list[Level]) -> tuple[int, float]:
    """(simulations, temperature) expected to play at ``elo``, clamped to the calibrated range."""
    if not levels:
        raise ValueError("no calibration: this network has no UCI_Elo levels")
    if elo <= levels[0].elo:
        return levels[0].simulations, levels[0].temperature
    for low, high in zip(levels, levels[1:]):
        if elo <= high.elo:
            t = (elo - low.elo) / max(high.elo - low.elo, 1e-9)
            if low.temperature == high.temperature:
                low_log, high_log = math.log(low.simulations), math.log(high.simulations)
                sims = math.exp(low_log + t * (high_log - low_log))
                return max(1, round(sims)), low.temperature
            if low.simulations == high.simulations:
                return low.simulations, low.temperature + t * (high.temperature - low.temperature)
            nearest = low if t < 0.5 else high  # a path step that moves both knobs: no interpolation
            return nearest.simulations, nearest.temperature
    return levels[-1].simulations, levels[-1].temperature
