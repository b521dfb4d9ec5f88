"""MCTS throughput: batched search over many games against one-leaf-at-a-time search, same network.

* batched: ``--games`` Los Alamos games searched together, ``--leaves`` in-flight simulations
  per tree (virtual loss), one network call per wave for all their leaves;
* one leaf: the same search one game at a time with one leaf per network call (batch size 1),
  as a plain AlphaZero implementation runs it.

Both use the seed's Los Alamos network (48 filters, 7 residual blocks) with random weights and
``--simulations`` simulations per move, from positions a few random plies into the game, and
report simulations per second and network positions (evaluated leaves) per second, median over
interleaved repetitions. Run: ``python benchmarks/mcts_throughput.py [--device cuda]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
import torch

from agents.alphazero.agent import NetworkEvaluator
from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from chess_envs.games import new_state


def openings(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        state = new_state("los_alamos")
        for _ in range(rng.randrange(2, 10)):
            state.apply(int(rng.choice(list(state.legal_actions()))))
        if not state.is_terminal():
            fens.append(state.to_text())
    return fens


def measure(
    evaluator: NetworkEvaluator, fens: list[str], simulations: int, leaves: int, together: bool
) -> tuple[float, float]:
    """(simulations per second, network positions per second) of one move's search per opening."""
    config = MCTSConfig(simulations=simulations, leaves_per_tree=leaves, cache_mb=0)
    mcts = MCTS(evaluator, 2, config, np.random.default_rng(0))
    trees = [SearchTree(new_state("los_alamos", fen)) for fen in fens]
    start = time.perf_counter()
    if together:
        mcts.search(trees)
    else:
        for tree in trees:
            mcts.search([tree])
    seconds = time.perf_counter() - start
    return mcts.simulations_done / seconds, mcts.network_evaluations / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="games searched together in the batched run")
    parser.add_argument("--one-leaf-games", type=int, default=8, help="games searched one by one (it is slow)")
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--leaves", type=int, default=8, help="in-flight simulations per tree when batched")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--blocks", type=int, default=7)
    parser.add_argument("--filters", type=int, default=48)
    args = parser.parse_args()
    device = resolve_device(args.device)
    torch.manual_seed(0)
    state = new_state("los_alamos")
    network = (
        AlphaZeroNet(
            NetworkConfig(
                *state.observation_shape, num_actions=state.num_actions, filters=args.filters, blocks=args.blocks
            )
        )
        .to(device)
        .eval()
    )
    evaluator = NetworkEvaluator(network, device)
    rows: dict[str, list[tuple[float, float]]] = {"batched": [], "one leaf at a time": []}
    for repetition in range(args.repetitions):
        rows["batched"].append(
            measure(evaluator, openings(args.games, repetition), args.simulations, args.leaves, True)
        )
        rows["one leaf at a time"].append(
            measure(evaluator, openings(args.one_leaf_games, repetition), args.simulations, 1, False)
        )
    print(f"device {device}, network {args.filters}x{args.blocks}, {args.simulations} simulations per move")
    print(f"{'search':<22} {'sims/s':>10} {'nn positions/s':>16} {'ratio':>7}")
    base = statistics.median(r[0] for r in rows["one leaf at a time"])
    for name, values in rows.items():
        sims = statistics.median(v[0] for v in values)
        positions = statistics.median(v[1] for v in values)
        print(f"{name:<22} {sims:>10,.0f} {positions:>16,.0f} {sims / base:>7.2f}")


if __name__ == "__main__":
    main()
