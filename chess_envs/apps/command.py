"""``chess-envs``: one command for everything the project does.

    chess-envs demo --game los_alamos             a random game drawn in the terminal
    chess-envs perft --game chess --depth 4       legal-move tree sizes
    chess-envs train --preset smoke               AlphaZero self-play       (extra: train)
    chess-envs distill --game chess ...           learn from an engine      (extra: train)
    chess-envs dqn --preset smoke                 the masked DQN baseline   (extra: train)
    chess-envs tournament --game chess ...        matches, Elo, PGN         (extra: agents)
    chess-envs play --game los_alamos             play a network yourself   (extra: agents)
    chess-envs uci                                the UCI engine            (extra: agents)
    chess-envs export SRC DST                     a checkpoint's playing part (extra: agents)
    chess-envs import-sb3 OLD.zip NEW.pt ...      a trusted SB3 zip, safe format (extra: train)
    chess-envs serve                              play and watch in the browser (extra: web)

Each subcommand is the ``main`` of a module (``python -m chess_envs.train.alphazero`` and the other
``python -m`` forms work the same), named by string in :data:`chess_envs.by_name.COMMANDS` and
imported only when its command runs, so the core install (environments only) runs ``demo`` and
``perft`` and says which extra the others need.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from chess_envs import __version__
from chess_envs.by_name import COMMANDS
from chess_envs.registry import game_names, get_game, new_state


def perft(argv: list[str] | None = None) -> None:
    """``chess-envs perft``: leaf counts of the legal-move tree, per depth, of a position."""
    parser = argparse.ArgumentParser(prog="chess-envs perft", description=perft.__doc__)
    parser.add_argument("--game", choices=game_names(), default="chess")
    parser.add_argument("--fen", default=None, help="the position (FEN, or FEN4 for four-player); default: the start")
    parser.add_argument("--depth", type=int, default=3, help="count depths 1 to this")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    args = parser.parse_args(argv)
    if not 0 <= args.depth <= 12:
        parser.error("--depth must be in 0..12")
    try:
        options = dict(item.split("=", 1) for item in args.option)
        get_game(args.game).check_options(options)
        state = new_state(args.game, args.fen, **options) if args.fen else new_state(args.game, **options)
        count = getattr(state, "perft", None)
        if count is None:
            parser.error(f"{args.game} has no perft")
        for depth in range(1, args.depth + 1):
            print(f"depth {depth}: {count(depth):,}", flush=True)
    except ValueError as error:
        parser.error(str(error))


def _entry(target: str, extra: str) -> Callable[[list[str]], object]:
    module_name, function = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        if not extra:
            raise
        print(
            f"error: this command needs the [{extra}] extra ({error.name or error} is not installed): "
            f"pip install torch==2.13.0 && pip install 'chess-envs[{extra}]'",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    return getattr(module, function)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1] if __doc__ else "")
        print(f"chess-envs {__version__}; `chess-envs COMMAND --help` for a command's options.")
        return
    if argv[0] == "--version":
        print(f"chess-envs {__version__}")
        return
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"error: unknown command {name!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        raise SystemExit(2)
    target, extra, _, first = COMMANDS[name]
    _entry(target, extra)([*first, *rest])


if __name__ == "__main__":
    main()
