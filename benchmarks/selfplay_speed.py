"""Self-play games per minute at a training preset, with the shipped network of its game.

Self-play as ``python -m train.alphazero --preset los_alamos`` runs it (the preset's games in
parallel, simulations, leaves per tree, cache and uint8 planes; root noise and temperature as in
training) with the weights of ``checkpoints/<game>.pt``, so the games look like a trained run's.
Every run plays the same seeded moves; the figure is the games finished per minute of wall time
over ``--moves`` moves, reported per run and as the median.

    python benchmarks/selfplay_speed.py [--preset los_alamos] [--moves 120] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

from agents.alphazero.agent import NetworkEvaluator
from agents.alphazero.checkpoint import load_network
from agents.shipped import shipped_checkpoint
from train.alphazero_config import PRESETS, AlphaZeroConfig, self_play_search
from train.config import build
from train.selfplay import SelfPlay


def games_per_minute(args: AlphaZeroConfig, moves: int, seed: int) -> tuple[float, int]:
    """(games per minute, games finished) of one self-play run of ``moves`` moves."""
    network, _ = load_network(shipped_checkpoint(args.game), args.game)
    self_play = SelfPlay(
        args.game,
        NetworkEvaluator(network, torch.device("cpu")),
        self_play_search(args),
        args.games_in_parallel,
        args.temperature_plies,
        args.max_plies,
        np.random.default_rng(seed),
        args.value_target_q,
    )
    start = time.perf_counter()
    finished = sum(len(self_play.play(1)) for _ in range(moves))
    return finished / ((time.perf_counter() - start) / 60), finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="los_alamos", choices=sorted(set(PRESETS) - {"smoke"}))
    parser.add_argument("--moves", type=int, default=120, help="moves played in every game in flight, per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    args = build(AlphaZeroConfig, **PRESETS[options.preset])
    rates = []
    for run in range(options.runs):
        rate, finished = games_per_minute(args, options.moves, options.seed)
        rates.append(rate)
        print(f"run {run + 1}: {finished} games in {options.moves} moves, {rate:.1f} games/min", flush=True)
    print(f"{options.preset}: median {statistics.median(rates):.1f} self-play games/min over {options.runs} runs")


if __name__ == "__main__":
    main()
