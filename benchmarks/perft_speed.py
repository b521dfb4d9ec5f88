"""Perft nodes per second of the native core against peers, measured side by side in one run.

* chess: our native perft (``chess_envs.standard.perft``) against python-chess's perft, both
  counting the last ply in bulk (python-chess: ``legal_moves.count()``), on the start position
  and on "Kiwipete";
* Los Alamos: our native perft against Fairy-Stockfish's own ``go perft`` on the Los Alamos start
  (the Debian ``fairy-stockfish`` binary, timed from ``go perft`` to its node count, so engine
  start-up is not counted);
* four-player chess: our native board's perft (FFA start, every move with its end-of-move
  processing: points, checkmates of the other players, stalemate eliminations) against
  python-chess's, and the Python reference board's for comparison.

Repetitions are interleaved; the table shows medians and each ratio to its peer.
Run: ``python benchmarks/perft_speed.py`` (needs fairy-stockfish on PATH or in /usr/games).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

import chess

from chess_envs.four_player import START_FEN4
from chess_envs.four_player import perft as four_player_native_perft
from chess_envs.los_alamos import START_FEN as LOS_ALAMOS_START
from chess_envs.los_alamos import perft as los_alamos_perft
from chess_envs.standard import perft as chess_perft

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the Python board is the tests' reference engine
from tests.engines import FairyStockfish  # noqa: E402
from tests.four_player.board import reference_perft  # noqa: E402

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def timed(function, *args) -> float:
    start = time.perf_counter()
    nodes = function(*args)
    return nodes / (time.perf_counter() - start)


def fairy_stockfish() -> FairyStockfish:
    """A running fairy-stockfish set to Los Alamos chess."""
    path = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
    if path is None:
        raise SystemExit("fairy-stockfish not found: apt-get install fairy-stockfish")
    return FairyStockfish(path, "losalamos")


def perft_rate(fairy: FairyStockfish, depth: int) -> float:
    """Fairy-Stockfish's ``go perft`` nodes a second from the Los Alamos start."""
    fairy.send("position startpos")
    start = time.perf_counter()
    fairy.send(f"go perft {depth}")
    nodes = int(fairy.read_until("Nodes searched")[-1].split(":")[1])
    return nodes / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--chess-depth", type=int, default=4, help="python-chess depth (197,281 nodes at 4)")
    parser.add_argument("--native-depth", type=int, default=6, help="our chess depth (119,060,324 nodes at 6)")
    parser.add_argument("--los-alamos-depth", type=int, default=7, help="Los Alamos depth for both engines")
    parser.add_argument("--four-player-depth", type=int, default=3, help="four-player depth, Python board")
    parser.add_argument("--four-player-native-depth", type=int, default=5, help="four-player depth, native board")
    args = parser.parse_args()
    fairy = fairy_stockfish()
    runs = {
        "chess start: python-chess": lambda: timed(python_chess_perft, chess.Board(), args.chess_depth),
        "chess start: ours (native)": lambda: timed(chess_perft, chess.STARTING_FEN, args.native_depth),
        "chess Kiwipete: python-chess": lambda: timed(python_chess_perft, chess.Board(KIWIPETE), args.chess_depth - 1),
        "chess Kiwipete: ours (native)": lambda: timed(chess_perft, KIWIPETE, args.native_depth - 1),
        "Los Alamos start: Fairy-Stockfish go perft": lambda: perft_rate(fairy, args.los_alamos_depth),
        "Los Alamos start: ours (native)": lambda: timed(los_alamos_perft, LOS_ALAMOS_START, args.los_alamos_depth),
        "four-player FFA start: ours (native)": lambda: timed(
            four_player_native_perft, START_FEN4, args.four_player_native_depth
        ),
        "four-player FFA start: ours (Python reference)": lambda: timed(
            reference_perft, START_FEN4, args.four_player_depth
        ),
    }
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repetitions):
        for name, run in runs.items():
            rates[name].append(run())
    fairy.close()
    medians = {name: statistics.median(values) for name, values in rates.items()}
    peers = {
        "chess start: ours (native)": "chess start: python-chess",
        "chess Kiwipete: ours (native)": "chess Kiwipete: python-chess",
        "Los Alamos start: ours (native)": "Los Alamos start: Fairy-Stockfish go perft",
        "four-player FFA start: ours (native)": "chess start: python-chess",
        "four-player FFA start: ours (Python reference)": "chess start: python-chess",
    }
    print(f"{'perft':<46} {'nodes/s (median)':>16} {'ratio to peer':>14}")
    for name, median in medians.items():
        ratio = f"{median / medians[peers[name]]:.2f}" if name in peers else "1.00"
        print(f"{name:<46} {median:>16,.0f} {ratio:>14}")


if __name__ == "__main__":
    main()
