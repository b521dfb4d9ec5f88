"""The asynchronous pipeline against the lock-step loop: actor and learner busy shares, replay ratio,
staleness, positions/s and learner steps/s of a timed run of each, on a local Ray (or the local backend).

    python benchmarks/pipeline_busy.py --minutes 5 --preset los_alamos --workers 2
    python benchmarks/pipeline_busy.py --minutes 5 --preset los_alamos --backend local

Each run trains from scratch in a temporary folder with ``--backend ray`` (``--backend local``: one
self-play worker process beside the learner, as ``recipes/pipeline_learning.sh`` trains); the figures are read from
its ``metrics.jsonl`` (the charts TensorBoard shows), over the iterations after learning started.
Busy is an actor's wall time spent playing, not waiting for weights, the learner or a queue.
The asynchronous run learns at the lock-step loop's replay ratio at the same settings.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def train(folder: Path, pipeline: str, args: argparse.Namespace) -> list[dict]:
    """One run of ``pipeline``; its metrics lines."""
    command = [
        sys.executable, "-m", "chess_envs.train.alphazero", "--preset", args.preset, "--minutes", str(args.minutes),
        "--backend", args.backend, "--pipeline", pipeline, "--eval-every", "0",
        "--runs-dir", str(folder), "--run-name", pipeline, "--progress", "false", *args.extra,
    ]  # fmt: skip
    if args.backend == "ray":
        command += ["--ray-workers", str(args.workers), "--actor-slowdown", str(args.slowdown)]
    subprocess.run(command, check=True)
    return [json.loads(line) for line in (folder / pipeline / "metrics.jsonl").read_text().splitlines()]


def summary(rows: list[dict], minutes: float) -> dict[str, float]:
    """Means over the iterations that learned (the pipeline's charts), totals over the run."""
    learning = [row for row in rows if row.get("losses/policy") is not None] or rows

    def mean(key: str) -> float:
        values = [row[key] for row in learning if key in row]
        return sum(values) / len(values) if values else float("nan")

    last = rows[-1]
    return {
        "actor busy share": mean("pipeline/actor_busy_share"),
        "learner busy share": mean("pipeline/learner_busy_share"),
        "replay ratio (samples / new position)": last.get("pipeline/replay_ratio", float("nan")),
        "replay ratio target": last.get("pipeline/replay_ratio_target", float("nan")),
        "staleness mean (steps)": mean("pipeline/staleness_mean"),
        "staleness max (steps)": max(row.get("pipeline/staleness_max", 0) for row in rows),
        "positions/s (wall, learning included)": mean("pipeline/positions_in_per_s"),
        "learner steps/s": last["learner_steps"] / (minutes * 60),
        "games": last["charts/games"],
        "fastest actor positions/s": mean("pipeline/fastest_actor_positions_per_s"),
        "slowest actor positions/s": mean("pipeline/slowest_actor_positions_per_s"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--preset", default="los_alamos")
    parser.add_argument("--backend", default="ray", choices=("ray", "local"))
    parser.add_argument("--workers", type=int, default=2, help="with --backend ray: actors")
    parser.add_argument("--pipelines", nargs="+", default=["async", "lockstep"], choices=("async", "lockstep"))
    parser.add_argument("--slowdown", type=float, default=1.0, help="with ray: the first actor N times slower")
    parser.add_argument("extra", nargs="*", help="more training flags after --, for both runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = {pipeline: summary(train(Path(folder), pipeline, args), args.minutes) for pipeline in args.pipelines}
    actors = f"{args.workers} actors on a local Ray, slowdown {args.slowdown:g}"
    if args.backend == "local":
        actors = "one worker process beside the learner (local backend)"
    print(f"{args.preset}, {args.minutes:g} minutes a run, {actors}")
    print(f"{'figure':<40}" + "".join(f"{p:>12}" for p in results))
    for key in next(iter(results.values())):
        print(f"{key:<40}" + "".join(f"{r[key]:>12,.3f}" for r in results.values()))


if __name__ == "__main__":
    main()
