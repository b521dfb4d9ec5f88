"""Self-play games per minute at a training preset, with the shipped network of its game.

Self-play as ``python -m chess_envs.train.alphazero --preset los_alamos`` runs it (the preset's games in
parallel, simulations, leaves per tree, cache and uint8 planes; root noise and temperature as in
training) with the weights of ``checkpoints/<game>.pt``, so the games look like a trained run's.
Every run plays the same seeded moves; the figure is the games finished per minute of wall time
over ``--moves`` moves, reported per run and as the median, with the network evaluations per
second (a simulation that ends on a cached or finished position needs none).

    python benchmarks/selfplay_speed.py [--preset los_alamos] [--moves 120] [--runs 5]
    python benchmarks/selfplay_speed.py --inference openvino                  # OpenVINO on the CPU
    python benchmarks/selfplay_speed.py --device cuda --games-in-parallel 1024   # a GPU's batch
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.alphazero.evaluators import RUNTIMES, NetworkEvaluator
from chess_envs.agents.alphazero.network import resolve_device
from chess_envs.agents.shipped import shipped_checkpoint
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig, self_play_search
from chess_envs.train.alphazero.selfplay import SelfPlay
from chess_envs.train.config import build


def games_per_minute(args: AlphaZeroConfig, moves: int, seed: int) -> tuple[float, int, float]:
    """(games per minute, games finished, network evaluations per second) of one self-play run of
    ``moves`` moves."""
    network, _ = load_network(shipped_checkpoint(args.game), args.game)
    self_play = SelfPlay(
        args.game,
        NetworkEvaluator(network, resolve_device(args.device), args.inference),
        self_play_search(args),
        args.games_in_parallel,
        args.temperature_plies,
        args.max_plies,
        np.random.default_rng(seed),
        args.value_target_q,
    )
    start = time.perf_counter()
    finished = sum(len(self_play.play(1)) for _ in range(moves))
    seconds = time.perf_counter() - start
    return finished / (seconds / 60), finished, self_play.network_evaluations / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="los_alamos", choices=sorted(set(PRESETS) - {"smoke"}))
    parser.add_argument("--moves", type=int, default=120, help="moves played in every game in flight, per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto")
    parser.add_argument("--inference", default="torch", choices=RUNTIMES, help="what runs the network")
    parser.add_argument("--games-in-parallel", type=int, default=0, help="games searched together (0: the preset's)")
    options = parser.parse_args()
    overrides = {"games_in_parallel": options.games_in_parallel} if options.games_in_parallel else {}
    settings = {"device": options.device, "inference": options.inference, **overrides}
    args = build(AlphaZeroConfig, **{**PRESETS[options.preset], **settings})
    rates, evaluations = [], []
    for run in range(options.runs):
        rate, finished, per_second = games_per_minute(args, options.moves, options.seed)
        rates.append(rate)
        evaluations.append(per_second)
        print(
            f"run {run + 1}: {finished} games in {options.moves} moves, {rate:.1f} games/min, "
            f"{per_second:,.0f} network evaluations/s",
            flush=True,
        )
    median = statistics.median(rates)
    print(
        f"{options.preset} on {resolve_device(args.device)} ({args.inference}), "
        f"{args.games_in_parallel} games in parallel: median "
        f"{median:.1f} self-play games/min ({60 * median:,.0f}/hour), "
        f"{statistics.median(evaluations):,.0f} network evaluations/s over {options.runs} runs"
    )


if __name__ == "__main__":
    main()
