"""The README's main job, measured: the ``quick`` preset trained from scratch for each seed, then its
network rated against greedy (100 games from the shipped Los Alamos book, colours swapped).

    python recipes/quick_preset.py [--seeds 0 1 2] [--games 100] [--sims 64]

Prints, per seed, the training wall time, the learner steps and games it got through, and the
network's score against greedy; then the mean. Run it alone: the preset trains for a fixed number
of minutes, so a busy machine trains less.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from chess_envs.arena.game import read_openings, shipped_book
from chess_envs.arena.tournament import TournamentConfig, run_tournament

ROOT = Path(__file__).resolve().parents[1]


def train(seed: int, runs: Path, extra: list[str]) -> tuple[float, dict]:
    """Train the preset with ``seed`` in ``runs/quick-<seed>``; (wall seconds, its last metrics line)."""
    started = time.monotonic()
    command = [sys.executable, "-m", "chess_envs.train.alphazero", "--preset", "quick", "--seed", str(seed),
               "--run-name", f"quick-{seed}", "--runs-dir", str(runs), "--progress", "false", *extra]  # fmt: skip
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    metrics = (runs / f"quick-{seed}" / "metrics.jsonl").read_text().splitlines()
    return time.monotonic() - started, json.loads(metrics[-1]) if metrics else {}


def rate(checkpoint: Path, games: int, sims: int, out: Path) -> float:
    """The network's score against greedy over ``games`` games (half with each colour)."""
    openings = read_openings(str(shipped_book("los_alamos")), "los_alamos")[: games // 2]
    network = f"alphazero:{checkpoint}?sims={sims}"
    config = TournamentConfig("los_alamos", [network, "greedy"], games, openings)
    records = run_tournament(config, out, workers=2, progress=False)
    return sum(r.scores[r.players.index(network)] for r in records) / len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sims", type=int, default=64)
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "quick-bench")
    parser.add_argument("extra", nargs="*", help="more training flags (after --), e.g. -- --filters 24")
    args = parser.parse_args()
    scores = []
    for seed in args.seeds:
        seconds, last = train(seed, args.runs, args.extra)
        checkpoint = args.runs / f"quick-{seed}" / "checkpoints" / "last.pt"
        score = rate(checkpoint, args.games, args.sims, args.runs / f"rating-{seed}")
        scores.append(score)
        print(
            f"seed {seed}: trained {seconds:.0f} s (wall, with start-up), learner step {last.get('learner_steps')}, "
            f"{last.get('charts/games', '?')} games; against greedy {score * args.games:g}/{args.games} "
            f"= {100 * score:.0f}% at {args.sims} simulations",
            flush=True,
        )
    print(f"mean {100 * sum(scores) / len(scores):.0f}%, lowest {100 * min(scores):.0f}%")


if __name__ == "__main__":
    main()
