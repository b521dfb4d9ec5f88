"""Four-player chess speed against python-chess, measured in the same run.

1. Perft nodes per second, counted in bulk at the last ply by both (the standard way: the
   leaf count is the length of the move list): our FFA and Teams engine on the four-player
   start position and on a middle-game position, against python-chess's perft
   (``legal_moves.count()`` at the last ply) on the standard start position. Our moves carry the
   whole FFA end-of-move processing (checkmates of every other player, the next player's moves
   for stalemate elimination), as the reference counts require.
2. The same without bulk counting (make and unmake every leaf), for the record.
3. Environment plies per second: complete random games through ``gymnasium.make`` for
   ``FourPlayerChess-v0`` and ``Chess-v0``, the move picked from the mask.

Repetitions are interleaved; the table shows medians and each figure's ratio to its
python-chess peer. Run: ``python benchmarks/four_player_speed.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

import chess
import gymnasium as gym
import numpy as np

import chess_envs  # noqa: F401  (registers the env ids)
from chess_envs.four_player import START_FEN4

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the Python board is the tests' reference engine
from tests.four_player.board import Board  # noqa: E402

MIDDLE_GAME = (
    "R-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,5,yB,1,yR,x,x,x/x,x,x,3,yP,yQ,3,x,x,x/"
    "x,x,x,1,yP,2,yK,yN,gR,gP,x,x,x/1,bP,yP,4,yP,yP,5/3,yR,5,yP,gP,2,gN/bQ,2,bP,yP,4,gQ,4/"
    "1,bB,bP,bN,5,gP,gP,gB,gB,gK/bK,3,bP,2,rP,1,gP,rQ,3/rB,2,bP,7,rN,2/4,bP,4,gP,3,gN/"
    "4,rP,1,bP,3,gR,3/x,x,x,3,rB,1,rP,rP,1,x,x,x/x,x,x,bR,2,rP,rN,3,x,x,x/x,x,x,rR,4,rR,rK,1,x,x,x"
)
"""ffa-rand-00 of the reference data: 55 moves for Red, captures and a promotion among them."""


def chess_perft(board: chess.Board, depth: int, bulk: bool) -> int:
    if bulk and depth == 1:
        return board.legal_moves.count()
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += chess_perft(board, depth - 1, bulk)
        board.pop()
    return nodes


def four_player_perft(board: Board, depth: int, bulk: bool) -> int:
    moves = board.legal_moves()
    if bulk and depth == 1:
        return len(moves)
    if depth == 0:
        return 1
    nodes = 0
    for move in moves:
        board.push(move)
        if not board.game_over:
            nodes += four_player_perft(board, depth - 1, bulk)
        elif depth == 1:
            nodes += 1
        board.pop()
    return nodes


def rate(function, *args) -> float:
    start = time.perf_counter()
    count = function(*args)
    return count / (time.perf_counter() - start)


def env_games(env_id: str, games: int, seed: int, max_plies: int) -> int:
    rng = random.Random(seed)
    env = gym.make(env_id, max_plies=max_plies)
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
    parser.add_argument("--chess-depth", type=int, default=4, help="python-chess perft depth (197,281 nodes at 4)")
    parser.add_argument("--depth", type=int, default=4, help="our perft depth (152,050 nodes at 4 from the start)")
    parser.add_argument("--games", type=int, default=4, help="random games per env per repetition")
    parser.add_argument("--max-plies", type=int, default=400, help="random games are cut here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    shallow = max(1, args.depth - 1)
    runs = {
        "perft python-chess, standard start, bulk": lambda: rate(chess_perft, chess.Board(), args.chess_depth, True),
        "perft ours, FFA start, bulk": lambda: rate(four_player_perft, Board(START_FEN4, "ffa"), args.depth, True),
        "perft ours, Teams start, bulk": lambda: rate(four_player_perft, Board(START_FEN4, "teams"), args.depth, True),
        "perft ours, FFA middle game, bulk": lambda: rate(four_player_perft, Board(MIDDLE_GAME, "ffa"), shallow, True),
        "perft python-chess, standard start, no bulk": lambda: rate(
            chess_perft, chess.Board(), args.chess_depth - 1, False
        ),
        "perft ours, FFA start, no bulk": lambda: rate(four_player_perft, Board(START_FEN4, "ffa"), shallow, False),
        "Chess-v0 random games (plies/s)": lambda: rate(env_games, "Chess-v0", args.games, 0, args.max_plies),
        "FourPlayerChess-v0 random games (plies/s)": lambda: rate(
            env_games, "FourPlayerChess-v0", args.games, 0, args.max_plies
        ),
    }
    peers = {
        "perft": "perft python-chess, standard start, bulk",
        "no bulk": "perft python-chess, standard start, no bulk",
        "env": "Chess-v0 random games (plies/s)",
    }
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repetitions):
        for name, run in runs.items():
            rates[name].append(run())
    medians = {name: statistics.median(values) for name, values in rates.items()}
    print(f"{'measure (nodes or plies per second)':<46} {'median':>12} {'ratio':>7}")
    for name, value in medians.items():
        peer = peers["env"] if "games" in name else peers["no bulk"] if "no bulk" in name else peers["perft"]
        print(f"{name:<46} {value:>12,.0f} {value / medians[peer]:>7.2f}")


if __name__ == "__main__":
    main()
