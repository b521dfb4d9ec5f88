"""Balanced opening books, made by the project: short random openings kept only when a judge scores
them near equal. ``python -m tools.make_book --game chess --out chess.epd``.

Each candidate is ``plies`` uniformly random legal moves from the start (no finished game, no
repeat). The judge is the strongest player we have for the game: Stockfish (chess) or
Fairy-Stockfish (Los Alamos) at a fixed depth, kept when ``|score| <= margin`` centipawns from the
side to move; four-player chess has no engine, so its shipped network is the judge, kept when the
four seats' values (each in [-1, 1]) lie within ``margin / 1000`` of each other. Chess and Los
Alamos books are EPD (the score in a ``c0`` operation), four-player books one FEN4 per line. The
books in ``chess_envs/arena/books/`` were made with the defaults below and ``--seed 0``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from chess_envs.core import GameState
from chess_envs.files import write_text_atomic
from chess_envs.registry import game_names, get_game, new_state

DEFAULTS = {"chess": (8, 12, 40), "los_alamos": (6, 12, 40), "four_player": (4, 0, 300)}
"""per game: (random plies, judge depth, margin)"""

Judge = Callable[[GameState], float]
"""the imbalance of a position: centipawns from the mover's side, or 1000 x the seats' value spread"""


def engine_judge(game: str, depth: int) -> tuple[Judge, Callable[[], None]]:
    """Stockfish (chess) or Fairy-Stockfish (Los Alamos) at ``depth``: the mover's centipawns."""
    from chess_envs.agents.engine import UciProcess, _find_binary, engine_variant

    name = "stockfish" if get_game(game).uci_variant == "chess" else "fairy-stockfish"
    engine = UciProcess(_find_binary(name, name), name)
    if name != "stockfish":
        engine.send(f"setoption name UCI_Variant value {engine_variant(name, game)}")
    engine.ready()

    def judge(state: GameState) -> float:
        engine.send(f"position fen {state.to_text()}")
        engine.send(f"go depth {depth}")
        score = 0.0
        for line in engine.lines_until("bestmove"):
            words = line.split()
            if "score" in words:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                score = float(value) if kind == "cp" else float("inf")
        return score

    return judge, engine.close


def network_judge(game: str) -> tuple[Judge, Callable[[], None]]:
    """The shipped network's value head: 1000 x (highest seat value - lowest)."""
    import torch

    from chess_envs.agents.alphazero.checkpoint import load_network
    from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
    from chess_envs.agents.shipped import shipped_checkpoint

    network, _ = load_network(shipped_checkpoint(game), game)
    evaluator = NetworkEvaluator(network, torch.device("cpu"))

    def judge(state: GameState) -> float:
        _, values = evaluator(state.observation()[None])
        return 1000.0 * float(np.ptp(values[0]))

    return judge, lambda: None


def make_book(
    game: str, count: int, plies: int, depth: int, margin: float, seed: int, log: Callable[[str], None] | None = None
) -> list[str]:
    """``count`` balanced openings of ``game`` as book lines (EPD with ``c0`` score, or FEN4)."""
    judge, close = network_judge(game) if game == "four_player" else engine_judge(game, depth)
    rng, tried = random.Random(seed), 0
    seen: set[str] = set()
    lines: list[str] = []
    try:
        while len(lines) < count:
            tried += 1
            if tried > 50 * count + 1000:
                raise ValueError(f"only {len(lines)} of {tried} random openings were within {margin}: widen --margin")
            state = new_state(game)
            for _ in range(plies):
                if state.is_terminal():
                    break
                state.apply(int(rng.choice(list(state.legal_actions()))))
            fen = state.to_text()
            position = fen if game == "four_player" else " ".join(fen.split()[:4])  # move counters aside
            if state.is_terminal() or position in seen:
                continue
            seen.add(position)
            score = judge(state)
            if abs(score) <= margin:
                lines.append(fen if game == "four_player" else f'{position} c0 "{score:+.0f}";')
                if log is not None and len(lines) % 50 == 0:
                    log(f"{len(lines)}/{count} kept of {tried} tried")
    finally:
        close()
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.make_book", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=game_names(), required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--plies", type=int, help="random plies per opening (default per game)")
    parser.add_argument("--depth", type=int, help="the engine judge's depth")
    parser.add_argument("--margin", type=float, help="kept within this many centipawns (four-player: value x 1000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.game not in DEFAULTS:
        parser.exit(2, f"error: no judge for {args.game}\n")
    plies, depth, margin = DEFAULTS[args.game]
    plies, depth, margin = args.plies or plies, args.depth or depth, args.margin or margin
    lines = make_book(args.game, args.count, plies, depth, margin, args.seed, log=lambda t: print(t, file=sys.stderr))
    how = (
        f"# {len(lines)} balanced {args.game} openings: {plies} random plies (seed {args.seed}), kept when "
        + (
            "the shipped network's seat values differ by at most " + f"{margin / 1000:g}"
            if args.game == "four_player"
            else f"the engine at depth {depth} scores them within {margin:g} centipawns"
        )
        + "\n# made by: python -m tools.make_book "
        + " ".join(argv if argv is not None else sys.argv[1:])
        + "\n"
    )
    write_text_atomic(args.out, how + "\n".join(lines) + "\n")
    print(f"wrote {len(lines)} openings to {args.out}")


if __name__ == "__main__":
    main()
