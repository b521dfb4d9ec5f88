"""Plies per second of complete random chess games, ours against peers, in one run.

Every runner plays whole games of uniformly random legal moves and, except python-chess
alone, produces the observation planes and the legal-action mask at every ply:

* ``Chess-v0 (gymnasium.make)``: our env as users call it, the move drawn from the state's legal
  actions (as python-chess's runner draws from its move list), and again drawn from the mask;
* ``Chess-v0 vs opponent="random"``: the same against the built-in random opponent (plies of
  both sides counted), which measures what the env adds around an opponent's move;
* ``ChessState``: our game state alone (observation, mask, outcome, apply);
* ``PettingZoo chess_v6``: PettingZoo's classic chess through ``env.last()`` and ``step``;
* ``LosAlamos-v0`` and ``FourPlayerChess-v0`` through ``gymnasium.make``, the same way;
* the vector env (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``) with 64
  chess games, fresh (copied) float32 observations and masks every step, random legal actions
  drawn for all rows with numpy; also with two threads. Next to plies/s it prints the GB/s of
  observation and mask bytes the env hands out;
* ``python-chess``: ``list(board.legal_moves)`` + ``board.push`` only, ending a game on no
  legal move, insufficient material or the 50-move rule (no observation, no mask, and no
  repetition bookkeeping: the cheapest honest loop, so the ratios favour it).

Drawing from the mask costs ``np.flatnonzero`` over 4,672 bools (about 5 us, as much as a whole
env step), so that variant is shown apart. Repetitions are interleaved
(each repetition runs every runner once) and the table reports medians and the ratio to
python-chess. Run: ``python benchmarks/env_throughput.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import warnings
from collections.abc import Callable

import chess
import gymnasium as gym
import numpy as np

import chess_envs  # noqa: F401  (registers Chess-v0)
from chess_envs.standard import ChessState


def python_chess_games(games: int, seed: int) -> int:
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        board = chess.Board()
        while True:
            moves = list(board.legal_moves)
            if not moves or board.is_insufficient_material() or board.halfmove_clock >= 100:
                break
            board.push(rng.choice(moves))
            plies += 1
    return plies


def chess_state_games(games: int, seed: int) -> int:
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        state = ChessState()
        while True:
            state.observation()
            mask = state.legal_action_mask()
            if state.is_terminal():
                break
            actions = np.flatnonzero(mask)
            state.apply(actions[rng.randrange(len(actions))])
            plies += 1
    return plies


def gymnasium_games(
    games: int, seed: int, env_id: str = "Chess-v0", from_mask: bool = False, **env_options: object
) -> int:
    """Plies of ``games`` random games through ``gymnasium.make`` (both sides' plies counted).

    The move is drawn from the state's legal actions (python-chess's runner draws from its legal
    move list too), or with ``from_mask`` from ``np.flatnonzero`` over the mask (5 us of numpy).
    """
    rng = random.Random(seed)
    env = gym.make(env_id, **env_options)
    state = env.unwrapped
    plies = 0
    for game in range(games):
        observation, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            if from_mask:
                actions = np.flatnonzero(observation["action_mask"].view(bool))
            else:
                actions = state.state.legal_actions()
            observation, _, terminated, truncated, _ = env.step(actions[rng.randrange(len(actions))])
            done = terminated or truncated
        plies += env.unwrapped._plies
    env.close()
    return plies


def gymnasium_mask_games(games: int, seed: int) -> int:
    return gymnasium_games(games, seed, from_mask=True)


def los_alamos_games(games: int, seed: int) -> int:
    return gymnasium_games(games, seed, env_id="LosAlamos-v0")


def four_player_games(games: int, seed: int) -> int:
    return gymnasium_games(max(1, games // 5), seed, env_id="FourPlayerChess-v0")


VECTOR_ENVS = 64


def vector_games(games: int, seed: int, threads: int = 1) -> int:
    """Plies of 64 chess games stepped together, ``games * 30`` steps (games restart as they end)."""
    env = gym.make_vec(
        "chess_envs:Chess-v0", num_envs=VECTOR_ENVS, vectorization_mode="vector_entry_point", threads=threads
    )
    observation, _ = env.reset(seed=seed)
    plies = 0
    for _ in range(games * 30):
        plies += int(observation["action_mask"].any(axis=1).sum())  # rows without moves are resetting
        observation, *_ = env.step(env.random_actions())
    env.close()
    return plies


def vector_two_threads(games: int, seed: int) -> int:
    return vector_games(games, seed, threads=2)


def gymnasium_opponent_games(games: int, seed: int) -> int:
    return gymnasium_games(games, seed, opponent="random")


def pettingzoo_games(games: int, seed: int) -> int:
    from pettingzoo.classic import chess_v6

    rng = random.Random(seed)
    env = chess_v6.env()
    plies = 0
    for game in range(games):
        env.reset(seed=seed + game)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            actions = np.flatnonzero(observation["action_mask"].view(bool))
            env.step(int(actions[rng.randrange(len(actions))]))
            plies += 1
    env.close()
    return plies


RUNNERS: dict[str, Callable[[int, int], int]] = {
    "python-chess (legal_moves + push)": python_chess_games,
    "ChessState (obs + mask)": chess_state_games,
    "Chess-v0 via gymnasium.make (obs + mask)": gymnasium_games,
    "Chess-v0 via gymnasium.make, move drawn from the mask": gymnasium_mask_games,
    "Chess-v0 vs opponent='random' (both sides)": gymnasium_opponent_games,
    "PettingZoo chess_v6 (obs + mask)": pettingzoo_games,
    "LosAlamos-v0 via gymnasium.make (obs + mask)": los_alamos_games,
    "FourPlayerChess-v0 via gymnasium.make (obs + mask)": four_player_games,
    "Chess-v0 make_vec, 64 games, 1 thread": vector_games,
    "Chess-v0 make_vec, 64 games, 2 threads": vector_two_threads,
}
# Bytes handed out per ply by the vector env: the float32 planes and the int8 mask of one game.
PLY_BYTES = 119 * 64 * 4 + 4672


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="random games per runner per repetition")
    parser.add_argument("--repetitions", type=int, default=5, help="interleaved repetitions")
    parser.add_argument("--pettingzoo-games", type=int, default=2, help="games for PettingZoo (it is slow)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rates: dict[str, list[float]] = {name: [] for name in RUNNERS}
    for runner in RUNNERS.values():  # warm-up, not measured: imports, action tables, caches
        runner(1, seed=-1 % 2**31)
    for repetition in range(args.repetitions):
        for name, runner in RUNNERS.items():
            games = args.pettingzoo_games if runner is pettingzoo_games else args.games
            start = time.perf_counter()
            plies = runner(games, seed=1000 * repetition)
            rates[name].append(plies / (time.perf_counter() - start))
    baseline = statistics.median(rates["python-chess (legal_moves + push)"])
    print(f"{'runner':<52} {'plies/s (median)':>16} {'ratio':>7}")
    for name, values in rates.items():
        median = statistics.median(values)
        extra = f"   {median * PLY_BYTES / 1e9:.2f} GB/s of observations and masks" if "make_vec" in name else ""
        print(f"{name:<52} {median:>16,.0f} {median / baseline:>7.2f}{extra}")


if __name__ == "__main__":
    main()
