"""``chess-envs export SRC DST``: the playing part of an AlphaZero checkpoint, or its network as ONNX."""

from __future__ import annotations

import argparse
from pathlib import Path

from chess_envs.agents.alphazero.checkpoint import CheckpointError, export_model
from chess_envs.agents.alphazero.onnx import export_onnx


def parser() -> argparse.ArgumentParser:
    """``chess-envs export``'s command line."""
    line = argparse.ArgumentParser(
        prog="chess-envs export", description="Export the playing part of an AlphaZero checkpoint."
    )
    line.add_argument("source", help="a training checkpoint, e.g. runs/NAME/checkpoints/last.pt")
    line.add_argument("target", help="where to write the small checkpoint (or the ONNX file)")
    line.add_argument("--onnx", action="store_true", help="write the network as ONNX (pip install 'chess-envs[onnx]')")
    return line


def main(argv: list[str] | None = None) -> None:
    command = parser()
    arguments = command.parse_args(argv)
    try:
        (export_onnx if arguments.onnx else export_model)(arguments.source, arguments.target)
    except ImportError as error:
        command.exit(2, f"error: {error} (pip install 'chess-envs[onnx]')\n")
    except CheckpointError as error:
        command.exit(2, f"error: {error}\n")
    except OSError as error:
        command.exit(2, f"error: cannot write {arguments.target}: {error.strerror or error}\n")
    print(f"wrote {arguments.target} ({Path(arguments.target).stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
