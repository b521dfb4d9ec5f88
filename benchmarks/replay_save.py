"""Replay saves of a long run: seconds and bytes written per checkpoint, appended chunks against
the whole-file rewrite of 0.2, on the same buffer in the same run.

The buffer holds ``--positions`` positions of ``--game`` (four-player chess: 24 KB of planes
each, 3.5 GB at 144k); between two checkpoints a run adds ``--per-save`` of them (the
four_player preset: 32 games x 8 moves per iteration, 300 learner steps at 8 per iteration =
9,600). Each save is timed after that many new positions: the store of :mod:`chess_envs.train.alphazero.replay`
appends them as one chunk and rewrites its index; 0.2 wrote every position again into one
``replay.npz`` (the same ``np.savez`` of the filled rows through ``write_atomic``, with fsync).

    python benchmarks/replay_save.py [--game four_player] [--positions 144000] [--per-save 9600] [--saves 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from chess_envs.files import write_atomic
from chess_envs.registry import new_state
from chess_envs.train.alphazero.replay import ARRAYS, ReplayBuffer


def fill(buffer: ReplayBuffer, count: int, rng: np.random.Generator) -> None:
    """``count`` positions through :meth:`ReplayBuffer.add`, drawn from a pool of 64 made-up ones."""
    shape = buffer.planes.shape[1:]
    pool = [(rng.random(shape) < 0.1).astype(np.float32) for _ in range(64)]
    actions = np.arange(40)
    probs = np.full(40, 1 / 40)
    value = np.zeros(buffer.values.shape[1], np.float32)
    for i in range(count):
        buffer.add(pool[i % 64], actions, probs, value)


def rewrite_whole(buffer: ReplayBuffer, path: Path) -> int:
    """What 0.2's ``ReplayBuffer.save`` did at every checkpoint: every filled row, one file."""
    arrays = {name: getattr(buffer, name)[: buffer.size] for name in ARRAYS}
    counters = np.array([buffer.position, buffer.added], dtype=np.int64)
    write_atomic(path, lambda handle: np.savez(handle, counters=counters, **arrays))
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="four_player")
    parser.add_argument("--positions", type=int, default=144_000, help="positions in the buffer when saves are timed")
    parser.add_argument("--capacity", type=int, default=200_000, help="the buffer's size (the presets' replay_size)")
    parser.add_argument("--per-save", type=int, default=9_600, help="positions added between two checkpoints")
    parser.add_argument("--saves", type=int, default=3, help="timed saves of each kind")
    parser.add_argument("--folder", default=None, help="where to write (default: a temporary folder)")
    args = parser.parse_args()

    state = new_state(args.game)
    value_size = 1 if state.num_players == 2 else state.num_players
    buffer = ReplayBuffer(args.capacity, state.observation_shape, value_size)
    rng = np.random.default_rng(0)
    start = max(0, args.positions - args.saves * args.per_save)
    print(f"filling {start:,} positions of {args.game} ({buffer.planes[0].nbytes:,} bytes of planes each)", flush=True)
    fill(buffer, start, rng)
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        store = Path(folder) / "replay"
        buffer.save(store)  # the store as the run left it at the checkpoint before
        rows: dict[str, list[tuple[float, int]]] = {"append": [], "rewrite": []}
        for _ in range(args.saves):
            fill(buffer, args.per_save, rng)
            os.sync()  # each save starts with nothing of the previous one left to flush
            tick = time.perf_counter()
            written = buffer.save(store)
            rows["append"].append((time.perf_counter() - tick, written))
            os.sync()
            tick = time.perf_counter()
            written = rewrite_whole(buffer, Path(folder) / "whole.npz")  # not replay.npz: save() deletes that
            rows["rewrite"].append((time.perf_counter() - tick, written))
            print(f"  at {buffer.added:,} positions: append {rows['append'][-1]}, rewrite {rows['rewrite'][-1]}")
    print(f"\nsaves at {buffer.added:,} positions, {args.per_save:,} new per save (median of {args.saves})")
    print(f"{'save':<28}{'seconds':>10}{'MB written':>14}")
    for name, label in (("rewrite", "whole file (0.2)"), ("append", "appended chunk (0.3)")):
        seconds = statistics.median(t for t, _ in rows[name])
        megabytes = statistics.median(b for _, b in rows[name]) / 1e6
        print(f"{label:<28}{seconds:>10.2f}{megabytes:>14,.1f}")
    ratio = statistics.median(t for t, _ in rows["rewrite"]) / statistics.median(t for t, _ in rows["append"])
    print(f"append is {ratio:.1f}x faster")


if __name__ == "__main__":
    main()
