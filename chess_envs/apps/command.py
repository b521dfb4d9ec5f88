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


def command_parser(name: str) -> argparse.ArgumentParser:
    """The command line ``chess-envs NAME`` parses: the ``parser()`` of its module (``tournament`` and
    ``play`` share one, a subcommand each). The docs render these, and a test parses every command
    the docs show with them."""
    module, function = COMMANDS[name][0].split(":")
    main = getattr(importlib.import_module(module), function)
    return importlib.import_module(main.__module__).parser()


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
