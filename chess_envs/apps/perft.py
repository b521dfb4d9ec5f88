"""``chess-envs perft``: leaf counts of the legal-move tree, per depth, of a position."""

from __future__ import annotations

import argparse

from chess_envs.registry import game_names, new_state


def parser() -> argparse.ArgumentParser:
    """``chess-envs perft``'s command line."""
    line = argparse.ArgumentParser(prog="chess-envs perft", description=__doc__)
    line.add_argument("--game", choices=game_names(), default="chess")
    line.add_argument("--fen", default=None, help="the position (FEN, or FEN4 for four-player); default: the start")
    line.add_argument("--depth", type=int, default=3, help="count depths 1 to this")
    line.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    return line


def main(argv: list[str] | None = None) -> None:
    line = parser()
    args = line.parse_args(argv)
    if not 0 <= args.depth <= 12:
        line.error("--depth must be in 0..12")
    try:
        options = dict(item.split("=", 1) for item in args.option)  # checked by new_state
        state = new_state(args.game, args.fen, **options) if args.fen else new_state(args.game, **options)
        count = getattr(state, "perft", None)
        if count is None:
            line.error(f"{args.game} has no perft")
        for depth in range(1, args.depth + 1):
            print(f"depth {depth}: {count(depth):,}", flush=True)
    except ValueError as error:
        line.error(str(error))
