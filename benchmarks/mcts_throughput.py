"""MCTS throughput: the native search against the Python one, with a free and a real network.

Each search is one call of the search API, ``policy(trees, rng)`` (:class:`~chess_envs.search.mcts.MCTS`
or :class:`~chess_envs.search.python_mcts.PythonMCTS`): the simulations, then the move chosen in
every tree and its root statistics read (the ``PolicyOutput``), which is what a search costs.

* free network (``--free-games`` games per game type): an evaluator that costs nothing (constant
  outputs), so the numbers are the search and game code alone, planes as self-play hands them
  (``--planes uint8``, the default; ``float32`` for the config's default). Native search against the
  Python search (``chess_envs/search/python_mcts.py``), same positions, same settings, for Los
  Alamos, chess and four-player chess; the ratio is native / Python. The native search runs with one
  thread and with ``--threads`` (default: the CPU count) descending trees in parallel; the Python
  search has one.
* real network (Los Alamos, the seed's 48x7 network with random weights): native batched,
  Python batched, and the Python search one game and one leaf at a time (batch size 1, as a
  plain AlphaZero implementation runs it); ``--share`` is the part of the wall time spent
  inside the network call.

Positions are a few random plies into the game; each figure is the median over interleaved
repetitions. Run: ``python benchmarks/mcts_throughput.py [--device cuda]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import time

import numpy as np
import torch

from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from chess_envs.registry import new_state
from chess_envs.search.mcts import MCTS
from chess_envs.search.python_mcts import PythonMCTS
from chess_envs.search.settings import MCTSConfig

GAMES = ("los_alamos", "chess", "four_player")


def openings(game: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    while len(texts) < count:
        state = new_state(game)
        for _ in range(rng.randrange(2, 10)):
            state.apply(int(rng.choice(list(state.legal_actions()))))
        if not state.is_terminal():
            texts.append(state.to_text())
    return texts


class FreeNetwork:
    """Constant outputs (fixed random logits, value 0) handed out as views: no work per position."""

    def __init__(self, num_actions: int, value_size: int, rows: int) -> None:
        logits = np.random.default_rng(0).normal(size=num_actions).astype(np.float32)
        self.logits = np.ascontiguousarray(np.broadcast_to(logits, (rows, num_actions)))
        self.values = np.zeros((rows, value_size), np.float32)

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.logits[: len(planes)], self.values[: len(planes)]


class TimedEvaluator:
    """An evaluator that adds up the seconds spent inside it."""

    def __init__(self, evaluate) -> None:
        self.evaluate, self.seconds = evaluate, 0.0

    def __call__(self, planes: np.ndarray):
        start = time.perf_counter()
        out = self.evaluate(planes)
        self.seconds += time.perf_counter() - start
        return out


def measure(
    game: str,
    evaluator,
    texts: list[str],
    simulations: int,
    leaves: int,
    native: bool,
    together: bool = True,
    planes: str = "uint8",
    threads: int = 1,
) -> tuple[float, float, float]:
    """(simulations/s, network positions/s, share of wall time in the network) of one move's search per
    text: one ``policy`` call for all the trees (``together``), or one per tree.

    Each search object first searches the same positions once, untimed, as self-play's search has
    by its second move: buffers allocated and touched, caches warm, for the native and Python
    searches alike.
    """
    players = new_state(game).num_players
    config = MCTSConfig(simulations=simulations, leaves_per_tree=leaves, cache_mb=0, planes=planes, threads=threads)
    timed = TimedEvaluator(evaluator)
    mcts = (MCTS if native else PythonMCTS)(timed, players, config)
    rng = np.random.default_rng(0)

    def run() -> float:
        trees = [mcts.new_tree(new_state(game, text)) for text in texts]
        start = time.perf_counter()
        if together:
            mcts.policy(trees, rng)
        else:
            for tree in trees:
                mcts.policy([tree], rng)
        return time.perf_counter() - start

    run()
    gc.collect()  # the warm-up's trees (the Python ones hold cycles) are not left for the timed run to collect
    simulations_before, evaluations_before = mcts.simulations_done, mcts.network_evaluations
    timed.seconds = 0.0
    seconds = run()
    return (
        (mcts.simulations_done - simulations_before) / seconds,
        (mcts.network_evaluations - evaluations_before) / seconds,
        timed.seconds / seconds,
    )


def free_network(args: argparse.Namespace) -> None:
    threads = args.threads
    print(
        f"free network: {args.free_games} games searched together, {args.simulations} simulations, "
        f"{args.leaves} leaves per tree, {args.planes} planes, one process; native with 1 and {threads} threads"
    )
    print(
        f"{'game':<12} {'native 1 thr':>13} {f'native {threads} thr':>13} {'python':>9} "
        f"{'ratio 1 thr':>12} {f'ratio {threads} thr':>12}"
    )
    for game in GAMES:
        state = new_state(game)
        evaluator = FreeNetwork(
            state.num_actions, 1 if state.num_players == 2 else state.num_players, args.free_games * args.leaves
        )
        single, multi, python = [], [], []
        for repetition in range(args.repetitions):
            texts = openings(game, args.free_games, repetition)
            settings = (texts, args.simulations, args.leaves)
            single.append(measure(game, evaluator, *settings, True, planes=args.planes)[0])
            multi.append(measure(game, evaluator, *settings, True, planes=args.planes, threads=threads)[0])
            python.append(measure(game, evaluator, *settings, False, planes=args.planes)[0])
        one, many, slow = statistics.median(single), statistics.median(multi), statistics.median(python)
        print(f"{game:<12} {one:>13,.0f} {many:>13,.0f} {slow:>9,.0f} {one / slow:>12.1f} {many / slow:>12.1f}")


def real_network(args: argparse.Namespace) -> None:
    device = resolve_device(args.device)
    torch.manual_seed(0)
    state = new_state("los_alamos")
    network = AlphaZeroNet(
        NetworkConfig(*state.observation_shape, num_actions=state.num_actions, filters=args.filters, blocks=args.blocks)
    ).to(device)
    evaluator = NetworkEvaluator(network.eval(), device)
    rows: dict[str, list[tuple[float, float, float]]] = {
        "native batched": [],
        "python batched": [],
        "python one leaf": [],
    }
    for repetition in range(args.repetitions):
        texts = openings("los_alamos", args.games, repetition)
        rows["native batched"].append(measure("los_alamos", evaluator, texts, args.simulations, args.leaves, True))
        rows["python batched"].append(measure("los_alamos", evaluator, texts, args.simulations, args.leaves, False))
        few = openings("los_alamos", args.one_leaf_games, repetition)
        rows["python one leaf"].append(measure("los_alamos", evaluator, few, args.simulations, 1, False, False))
    print(
        f"\nreal network: Los Alamos, device {device}, network {args.filters}x{args.blocks}, "
        f"{args.games} games, {args.simulations} simulations per move"
    )
    print(f"{'search':<18} {'sims/s':>10} {'nn positions/s':>16} {'in network':>11} {'ratio':>7}")
    base = statistics.median(r[0] for r in rows["python one leaf"])
    for name, values in rows.items():
        sims = statistics.median(v[0] for v in values)
        positions = statistics.median(v[1] for v in values)
        share = statistics.median(v[2] for v in values)
        print(f"{name:<18} {sims:>10,.0f} {positions:>16,.0f} {share:>10.0%} {sims / base:>7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="games searched together with the real network")
    parser.add_argument("--free-games", type=int, default=64, help="games searched together with the free network")
    parser.add_argument("--one-leaf-games", type=int, default=8, help="games searched one by one (it is slow)")
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--leaves", type=int, default=8, help="in-flight simulations per tree when batched")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--blocks", type=int, default=7)
    parser.add_argument("--filters", type=int, default=48)
    parser.add_argument("--only", choices=("free", "real"), help="run one of the two parts")
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="native search threads beside one (free network)"
    )
    parser.add_argument(
        "--planes",
        choices=("uint8", "float32"),
        default="uint8",
        help="what the search hands the network (self-play: uint8)",
    )
    args = parser.parse_args()
    if args.only != "real":
        free_network(args)
    if args.only != "free":
        real_network(args)


if __name__ == "__main__":
    main()
