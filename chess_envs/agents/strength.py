"""Weaker play on demand (UCI's ``UCI_LimitStrength`` with ``UCI_Elo``): a requested Elo becomes
simulations and a move temperature, read off a measured calibration of the network.

A calibration (the ``uci_elo`` of a model card, ``chess_envs/agents/networks/<game>.card.json``,
written by ``tools/uci_elo_calibration.py``) lists levels ``(simulations, temperature)`` with the Elo
each measured against fixed anchors on one scale (Stockfish ``UCI_Elo`` 1350 at 100 ms a move is
1350). The levels form a path: neighbours differ in one knob, Elo never rises from the strongest
to the weakest (the calibration pools levels measured out of order), and an Elo between two of them
interpolates that knob (simulations geometrically, temperature linearly). Torch-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from chess_envs.agents.cards import load_card


@dataclass(frozen=True)
class Level:
    """One measured setting of the network and its Elo on the anchors' scale."""

    simulations: int
    temperature: float
    elo: float


def load_levels(game: str) -> list[Level]:
    """The calibrated levels of the shipped network of ``game``, weakest first; [] when it has none.
    The card lists the path strongest first; levels of equal Elo (pooled by the calibration) keep
    their order on the path."""
    card = load_card(game)
    if not card or not card["uci_elo"]:
        return []
    levels = [Level(int(x["simulations"]), float(x["temperature"]), float(x["elo"])) for x in card["uci_elo"]["levels"]]
    return [level for _, level in sorted(enumerate(levels), key=lambda pair: (pair[1].elo, -pair[0]))]


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
