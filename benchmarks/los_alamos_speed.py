"""Los Alamos speed against peers measured in the same run.

1. Perft nodes per second: our engine on the Los Alamos start position against python-chess's
   perft on the standard start position. Neither counts in bulk: both make and unmake every
   leaf move (python-chess: ``push``/``pop`` over ``legal_moves``).
2. Environment plies per second: complete random games through ``gymnasium.make`` for
   ``LosAlamos-v0`` and ``Chess-v0``, the move picked from the mask (viewed as bool).

Repetitions are interleaved; the table shows medians. Run: ``python benchmarks/los_alamos_speed.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import warnings

import chess
import gymnasium as gym
import numpy as np

import chess_envs  # noqa: F401  (registers the env ids)
from chess_envs.los_alamos import Board


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def los_alamos_perft(board: Board, depth: int) -> int:
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves():
        board.push(move)
        nodes += los_alamos_perft(board, depth - 1)
        board.pop()
    return nodes


def rate(function, *args) -> float:
    start = time.perf_counter()
    count = function(*args)
    return count / (time.perf_counter() - start)


def env_games(env_id: str, games: int, seed: int) -> int:
    rng = random.Random(seed)
    env = gym.make(env_id)
    plies = 0
    for game in range(games):
        observation, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            actions = np.flatnonzero(observation["action_mask"].view(bool))
            observation, _, terminated, truncated, _ = env.step(actions[rng.randrange(len(actions))])
            done = terminated or truncated
            plies += 1
    env.close()
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--chess-depth", type=int, default=3, help="python-chess perft depth (8,902 nodes at 3)")
    parser.add_argument("--los-alamos-depth", type=int, default=4, help="our perft depth (14,332 nodes at 4)")
    parser.add_argument("--games", type=int, default=10, help="random games per env per repetition")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rates: dict[str, list[float]] = {
        "perft python-chess, standard chess (nodes/s)": [],
        "perft ours, Los Alamos (nodes/s)": [],
        "Chess-v0 (plies/s)": [],
        "LosAlamos-v0 (plies/s)": [],
    }
    for repetition in range(args.repetitions):
        names = list(rates)
        rates[names[0]].append(rate(python_chess_perft, chess.Board(), args.chess_depth))
        rates[names[1]].append(rate(los_alamos_perft, Board(), args.los_alamos_depth))
        rates[names[2]].append(rate(env_games, "Chess-v0", args.games, 100 * repetition))
        rates[names[3]].append(rate(env_games, "LosAlamos-v0", args.games, 100 * repetition))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    names = list(medians)
    print(f"{'measure':<46} {'median':>12} {'ratio':>7}")
    for name, peer in ((names[0], names[0]), (names[1], names[0]), (names[2], names[2]), (names[3], names[2])):
        print(f"{name:<46} {medians[name]:>12,.0f} {medians[name] / medians[peer]:>7.2f}")


if __name__ == "__main__":
    main()
