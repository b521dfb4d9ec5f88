"""How good are an agent's chess moves, by Stockfish's judgement: a cheap, low-noise screen for
search settings before a match is spent on them.

Positions come from a tournament's ``games.jsonl`` (those where a player whose spec contains
``--player`` was to move, so the screen sees the positions the agent really meets); each is
replayed from its game's opening, so the agents see the history too. Stockfish scores every legal
move of every position at ``--depth`` (MultiPV over all moves, cached in ``--cache``); a move's
loss is the expected score (Stockfish's WDL model) the mover gives away against Stockfish's best.
Prints per agent the mean loss (points per 100 moves), the share of blunders (a loss of at least
0.2), the share of Stockfish's best moves, and each agent's mean loss less the first agent's with a
95% interval (the same positions, so paired).

    python recipes/move_quality.py --games runs/chess_continue_seed3-sf1600/games.jsonl \\
        --player alphazero --positions 600 --agents "alphazero:@chess?sims=200" \\
        "alphazero:@chess?sims=200&cpuct=2"
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import chess
import chess.engine
import numpy as np

from chess_envs.agents import make_agent
from chess_envs.arena.results import read_results
from chess_envs.core import GameState
from chess_envs.registry import new_state

BLUNDER = 0.2
"""expected score given away by a move that counts as a blunder"""


def positions_of(games_file: Path, player: str, count: int, seed: int) -> list[tuple[GameState, chess.Board]]:
    """Up to ``count`` positions (evenly sampled, seeded) where ``player`` was to move, as the
    project's state (with its history) and python-chess's board."""
    found: list[tuple[str, list[str]]] = []
    for game in read_results(games_file).values():
        if game.game != "chess":
            raise ValueError(f"{games_file} holds {game.game} games; this screen scores chess")
        for ply in range(len(game.moves) - 1):
            if player in game.players[ply % 2]:
                found.append((game.opening, game.moves[:ply]))
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(found), size=min(count, len(found)), replace=False))
    result = []
    for index in chosen:
        opening, moves = found[index]
        state = new_state("chess", opening)
        board = chess.Board(opening)
        for move in moves:
            state.apply(state.move_to_action(move))
            board.push_uci(move)
        result.append((state, board))
    return result


def move_values(boards: list[chess.Board], depth: int, cache_file: Path | None) -> list[dict[str, float]]:
    """Per board, every legal move's expected score for the mover by Stockfish at ``depth``."""
    cache: dict[str, dict[str, float]] = {}
    if cache_file is not None and cache_file.exists():
        cache = json.loads(cache_file.read_text())
    todo = [board for board in boards if f"{board.fen()} d{depth}" not in cache]
    if todo:
        started = time.monotonic()
        with chess.engine.SimpleEngine.popen_uci("stockfish") as engine:
            engine.configure({"Threads": 1, "Hash": 64})
            for done, board in enumerate(todo, 1):
                lines = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=board.legal_moves.count())
                cache[f"{board.fen()} d{depth}"] = {
                    line["pv"][0].uci(): line["score"].pov(board.turn).wdl(model="sf", ply=board.ply()).expectation()
                    for line in lines
                }
                if done % 100 == 0 or done == len(todo):
                    print(f"  stockfish: {done}/{len(todo)} positions, {time.monotonic() - started:.0f} s", flush=True)
        if cache_file is not None:
            cache_file.write_text(json.dumps(cache))
    return [cache[f"{board.fen()} d{depth}"] for board in boards]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=Path, required=True, help="a tournament's games.jsonl")
    parser.add_argument("--player", required=True, help="positions where a spec containing this was to move")
    parser.add_argument("--positions", type=int, default=600)
    parser.add_argument("--depth", type=int, default=10, help="Stockfish's depth for every move's score")
    parser.add_argument("--cache", type=Path, default=None, help="a JSON file keeping Stockfish's scores")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", required=True)
    args = parser.parse_args()
    sampled = positions_of(args.games, args.player, args.positions, args.seed)
    values = move_values([board for _, board in sampled], args.depth, args.cache)
    best = np.array([max(moves.values()) for moves in values])
    losses = {}
    print(f"{len(sampled)} positions; Stockfish depth {args.depth}")
    print(f"{'agent':<60} {'loss/100':>9} {'blunders':>9} {'best':>6} {'vs first':>18} {'s':>6}")
    for spec in args.agents:
        agent = make_agent(spec, "chess")
        started = time.monotonic()
        chosen = []
        for state, _ in sampled:
            chosen.append(state.action_to_move(agent.select_action(state.copy())))
        seconds = time.monotonic() - started
        loss = np.array([best[i] - values[i][move] for i, move in enumerate(chosen)])
        losses[spec] = loss
        first = losses[args.agents[0]]
        diff = loss - first
        half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
        versus = f"{100 * diff.mean():+.2f} ± {100 * half:.2f}"
        at_best = np.mean([values[i][move] >= best[i] - 1e-9 for i, move in enumerate(chosen)])
        blunders = np.mean(loss >= BLUNDER)
        mean = 100 * loss.mean()
        print(f"{spec:<60} {mean:9.2f} {blunders:9.1%} {at_best:6.1%} {versus:>18} {seconds:6.0f}", flush=True)


if __name__ == "__main__":
    main()
