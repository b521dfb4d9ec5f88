"""The four-player teacher's games beside the learner or in turns with it: what the same minutes hold.

Runs the ``four_player`` preset from scratch twice for ``--minutes`` each, in a temporary folder:
first with the teacher's self-play and the learner taking turns in one process
(``--teacher-process false``), then with the teacher in a worker process a chunk of moves ahead
(the default). Both runs play the same games and take the same learner steps per iteration; the
table gives what each fitted in the time (iterations, teacher games, learner steps) and the wall
seconds an iteration took before learning starts (self-play alone) and once it has.
Run it alone: it times wall clock.

    python recipes/teacher_overlap.py [--minutes 15] [-- more chess_envs.train.alphazero flags]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.loop import run
from chess_envs.train.alphazero.players import Players
from chess_envs.train.config import parse_args


def timed_run(minutes: float, worker: bool, folder: str, flags: list[str]) -> dict[str, float]:
    """One run of the preset; its counters and its median seconds an iteration, without and with learning."""
    argv = ["--preset", "four_player", "--minutes", str(minutes), "--eval-every", "0", "--progress", "false"]
    argv += ["--runs-dir", folder, "--run-name", f"worker-{worker}", "--teacher-process", str(worker).lower()]
    config = parse_args(AlphaZeroConfig, PRESETS, argv + flags)
    marks: list[tuple[float, int, int]] = []  # (time, learner steps, games) after each iteration

    def mark(_iteration: int, _players: Players, learner: Learner) -> None:
        marks.append((time.monotonic(), learner.counters["learner_steps"], learner.counters["games"]))

    started = time.monotonic()
    run(config, on_iteration=mark)
    playing, learning = [], []
    previous = (started, 0, 0)
    for current in marks:
        (learning if current[1] > previous[1] else playing).append(current[0] - previous[0])
        previous = current
    return {
        "iterations": len(marks),
        "games": marks[-1][2] if marks else 0,
        "steps": marks[-1][1] if marks else 0,
        "playing": statistics.median(playing) if playing else float("nan"),
        "learning": statistics.median(learning) if learning else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=15.0, help="training minutes of each run")
    parser.add_argument("flags", nargs="*", help="more chess_envs.train.alphazero flags, after --")
    args = parser.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory(prefix="teacher-overlap-") as folder:
        for worker in (False, True):
            rows[worker] = timed_run(args.minutes, worker, folder, args.flags)
    print(f"\nfour_player preset, {args.minutes:g} minutes each")
    print("| teacher | iterations | games | learner steps | s/iteration, self-play alone | s/iteration, learning |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for worker, name in ((False, "in turns with the learner"), (True, "in a worker process, a chunk ahead")):
        row = rows[worker]
        print(
            f"| {name} | {row['iterations']} | {row['games']} | {row['steps']} | "
            f"{row['playing']:.2f} | {row['learning']:.2f} |"
        )
    before, after = rows[False], rows[True]
    ratio = after["iterations"] / max(before["iterations"], 1)
    print(f"iterations (and so games and steps) in the same time: {ratio:.2f}x with the worker")


if __name__ == "__main__":
    main()
