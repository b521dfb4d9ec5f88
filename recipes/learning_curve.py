"""A learning curve: train one game's network in parts and rate it after each part against fixed anchors.

    python recipes/learning_curve.py --game los_alamos [--run curve-los_alamos] [--points 5 10 20 ...]
    python recipes/learning_curve.py --game chess            # from the distilled teacher network
    python recipes/learning_curve.py --game four_player      # learns from material-mcts first

First the anchors (the engine ladder for chess and Los Alamos; greedy, material-mcts and random for
four-player) play a round robin among themselves, which fixes their Elo over greedy. Then the run
trains (``chess_envs.train.alphazero`` with the game's recipe below, resumed part after part) until each point
of ``--points`` minutes of training, exports the network and rates it at ``--sims`` simulations a
move in ``--games`` games against the anchor nearest its last rating (and the next anchor too when
it scored above 80% or below 20%), from the game's shipped opening book with colours swapped. Its
Elo is fitted with the ladder's games, greedy at 0. Point 0, where the recipe starts from a
network (``--init``), rates that network untrained. Rating games are not training time: the table
gives both, and the training's CPU time. The run's length is the last point (``--minutes`` of every
part), so its learning rate has annealed by then: a curve to 80 minutes is not the first part of a
curve to 240.

Everything is resumable: run the same command again after a kill and it goes on where it stopped
(finished parts and rating games are kept; a rating's time counts every run that played its games;
SIGTERM stops it as Ctrl-C does). The run trains in ``runs/<run>``; the ladder, the exported
networks, their rating games, ``curve.csv`` and ``curve.png`` go to ``runs/<run>-rating``.
Run it alone: the parts train for wall-clock minutes, so a busy machine trains less in each.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.arena.game import read_openings, shipped_book
from chess_envs.arena.ratings import Result, rate
from chess_envs.arena.report import pairwise_results
from chess_envs.arena.results import read_results
from chess_envs.arena.tournament import RESULTS_FILE, TournamentConfig, run_tournament

ROOT = Path(__file__).resolve().parents[1]
ZERO = "greedy"
"""the anchor at Elo 0"""
CSV_FIELDS = [
    "point", "training_minutes", "training_cpu_minutes", "learner_steps", "self_play_games", "rating_minutes",
    "rated_against", "score", "elo", "elo_low", "elo_high",
]  # fmt: skip


@dataclass(frozen=True)
class Recipe:
    """How a game's curve is trained and rated: training flags, its anchors (greedy is Elo 0; they
    are ordered by the ladder's own games), the ladder's games per pair and the anchor the first
    point meets (later points meet the anchor nearest the last point's Elo)."""

    train: list[str]
    anchors: list[str]
    ladder_games: int = 100
    first_anchor: str = ZERO


RECIPES = {
    "los_alamos": Recipe(
        ["--preset", "los_alamos", "--total-steps", "46000", "--replay-size", "300000", "--eval-every", "0"],
        [
            "greedy",
            "fairy-stockfish?nodes=10",
            "fairy-stockfish?skill=-3&depth=1",
            "fairy-stockfish?skill=0&depth=1",
            "fairy-stockfish?depth=1",
        ],
    ),
    # fine-tunes the distilled network gently: a peak learning rate 10x lower than from scratch, each
    # position learned from about twice (the preset's 8 times lost 200 Elo in 20 minutes), value
    # targets half the search's root value
    "chess": Recipe(
        ["--preset", "chess", "--init", "@chess", "--eval-every", "0"]
        + ["--learning-rate", "2e-4", "--steps-per-iteration", "4", "--value-target-q", "0.5"],
        [
            "greedy",
            "fairy-stockfish?nodes=10",
            "stockfish?skill=0&depth=1",
            "stockfish?elo=1350&movetime=100",
            "stockfish?elo=1600&movetime=100",
        ],
        ladder_games=40,
        first_anchor="stockfish?skill=0&depth=1",  # where the distilled network stands
    ),
    "four_player": Recipe(
        ["--preset", "four_player", "--eval-every", "0"],
        ["random", "greedy", "material-mcts?sims=800"],
        ladder_games=40,
    ),
}


def openings(game: str, count: int) -> list[str]:
    return read_openings(str(shipped_book(game)), game)[:count]


def tournament(game: str, agents: list[str], games: int, out: Path, gauntlet: bool = False) -> list[Result]:
    """Play (or finish) a tournament in ``out``; its pairwise results."""
    seats = 4 if game == "four_player" else 2
    config = TournamentConfig(game, agents, games, openings(game, games // seats), gauntlet=gauntlet)
    run_tournament(config, out, workers=2, progress=False)
    return pairwise_results(list(read_results(out / RESULTS_FILE).values()))


def cpu_minutes_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) / 60


def train_until(recipe: Recipe, game: str, run_dir: Path, minutes: float, total: float, extra: list[str]) -> None:
    """Train the run until it has ``minutes`` of training in all, adding the part's CPU minutes to
    the run's count (also when Ctrl-C stops it: the part saves its checkpoint on the same signal)."""
    state_path = run_dir.parent / f"{run_dir.name}-rating" / "cpu.json"
    before = cpu_minutes_of_children()
    command = [
        sys.executable, "-m", "chess_envs.train.alphazero", *recipe.train, "--game", game, "--run-name", run_dir.name,
        "--runs-dir", str(run_dir.parent), "--resume", "--minutes", str(total), "--pause-at", str(minutes),
        "--progress", "false", *extra,
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        process.wait()
    except KeyboardInterrupt:
        process.wait()
        raise
    finally:
        add_to_tally(state_path, "training_cpu_minutes", cpu_minutes_of_children() - before)
    if process.returncode:
        raise SystemExit(f"training stopped with exit status {process.returncode}")


def tally(path: Path, key: str) -> float:
    """A total kept across runs in ``path`` (0 before the first)."""
    return float(json.loads(path.read_text())[key]) if path.exists() else 0.0


def add_to_tally(path: Path, key: str, amount: float) -> float:
    """Add ``amount`` to the total in ``path``; the new total."""
    total = tally(path, key) + amount
    path.write_text(json.dumps({key: total}))
    return total


def rate_point(
    game: str, network: str, anchors: list[str], ladder: list[Result], start: int, games: int, out: Path
) -> tuple[list[str], float, tuple[float, float, float]]:
    """Rate ``network`` against ``anchors[start]``, then the next anchor up or down while it scores
    above 80% or below 20% against the last; (anchors played, score, (Elo, low, high))."""
    played: list[str] = []
    results: list[Result] = []
    index = start
    while 0 <= index < len(anchors) and anchors[index] not in played:
        anchor = anchors[index]
        played.append(anchor)
        slug = anchor.replace("?", "-").replace("&", "-").replace("=", "")
        mine = tournament(game, [network, anchor], games, out / slug, gauntlet=True)
        results += mine
        score = sum(r.score if r.first == network else 1 - r.score for r in mine) / len(mine)
        index += 1 if score > 0.8 else -1 if score < 0.2 else len(anchors)
    score = sum(r.score if r.first == network else 1 - r.score for r in results) / len(results)
    rating = next(r for r in rate(ladder + results, anchor=ZERO, bootstrap=300) if r.player == network)
    return played, score, (rating.elo, rating.low, rating.high)


def plot(rows: list[dict[str, str]], anchors: dict[str, float], title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.2))
    minutes = [float(r["training_cpu_minutes"]) for r in rows]
    elo = [float(r["elo"]) for r in rows]
    low = [e - float(r["elo_low"]) for e, r in zip(elo, rows)]
    high = [float(r["elo_high"]) - e for e, r in zip(elo, rows)]
    axes.errorbar(minutes, elo, yerr=[low, high], marker="o", capsize=3, label="network, 200 simulations a move")
    for name, value in anchors.items():
        axes.axhline(value, color="grey", linestyle=":", linewidth=0.8)
        axes.annotate(name, (0, value), xytext=(2, 2), textcoords="offset points", fontsize=7, color="dimgrey")
    axes.set_xlabel("CPU minutes of training (2 cores; rating games not counted)")
    axes.set_ylabel("Elo over greedy (95% interval)")
    axes.set_title(title)
    axes.set_xlim(left=0)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(RECIPES), required=True)
    parser.add_argument("--run", help="run folder name (default curve-<game>)")
    parser.add_argument("--runs-dir", type=Path, default=ROOT / "runs", help="where the run's folders go")
    parser.add_argument("--points", type=float, nargs="+", default=[5, 10, 20, 30, 45, 60, 90, 120, 150, 180, 210, 240])
    parser.add_argument("--games", type=int, default=100, help="rating games per anchor per point")
    parser.add_argument("--sims", type=int, default=200, help="the network's simulations a move when rated")
    parser.add_argument("--ladder-games", type=int, default=0, help="the anchors' games per pair (0: the recipe's)")
    parser.add_argument("train_flags", nargs="*", help="more training flags (after --), e.g. -- --filters 64")
    args = parser.parse_args()
    recipe = RECIPES[args.game]
    flags = recipe.train + args.train_flags
    inits = [value for flag, value in zip(flags, flags[1:]) if flag == "--init"]
    if 0 in args.points and not inits:
        parser.error(f"point 0 is the --init network, and this {args.game} run starts from scratch")
    run_dir = args.runs_dir.resolve() / (args.run or f"curve-{args.game}")
    curve_dir = run_dir.parent / f"{run_dir.name}-rating"
    curve_dir.mkdir(parents=True, exist_ok=True)
    ladder = tournament(args.game, recipe.anchors, args.ladder_games or recipe.ladder_games, curve_dir / "ladder")
    ladder_elo = {r.player: r.elo for r in rate(ladder, anchor=ZERO, bootstrap=0)}
    anchors = sorted(recipe.anchors, key=ladder_elo.__getitem__)  # the ladder's order, as measured
    print("anchors (Elo over greedy): " + ", ".join(f"{a} {ladder_elo[a]:+.0f}" for a in anchors), flush=True)
    table = curve_dir / "curve.csv"
    rows = list(csv.DictReader(table.open())) if table.exists() else []
    total = max(args.points)
    for point in sorted(args.points):
        if any(float(r["point"]) == point for r in rows):
            continue
        network_path = curve_dir / f"{point:g}min.pt"
        if point == 0:  # the network the run starts from
            counters = {"seconds": 0.0, "learner_steps": 0, "games": 0}
            shutil.copyfile(inits[-1], network_path)
        else:
            train_until(recipe, args.game, run_dir, point, total, args.train_flags)
            counters = load_checkpoint(run_dir / "checkpoints" / "last.pt")["counters"]
            subprocess.run(
                [sys.executable, "-m", "chess_envs.apps.export",
                 str(run_dir / "checkpoints" / "last.pt"), str(network_path)],
                cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
        network = f"alphazero:{network_path}?sims={args.sims}"
        last = float(rows[-1]["elo"]) if rows else ladder_elo[recipe.first_anchor]
        start = min(range(len(anchors)), key=lambda i: abs(ladder_elo[anchors[i]] - last))
        point_dir = curve_dir / f"{point:g}min"
        point_dir.mkdir(exist_ok=True)
        clock = point_dir / "rating_seconds.json"  # the rating's time over all the runs that played its games
        started = time.monotonic()
        try:
            played, score, (elo, low, high) = rate_point(
                args.game, network, anchors, ladder, start, args.games, point_dir
            )
        finally:
            rating_seconds = add_to_tally(clock, "rating_seconds", time.monotonic() - started)
        row = {
            "point": f"{point:g}",
            "training_minutes": f"{counters['seconds'] / 60:.2f}",
            "training_cpu_minutes": f"{tally(curve_dir / 'cpu.json', 'training_cpu_minutes'):.2f}",
            "learner_steps": str(counters["learner_steps"]),
            "self_play_games": str(counters["games"]),
            "rating_minutes": f"{rating_seconds / 60:.1f}",
            "rated_against": " + ".join(played),
            "score": f"{score:.3f}",
            "elo": f"{elo:.0f}",
            "elo_low": f"{low:.0f}",
            "elo_high": f"{high:.0f}",
        }
        rows.append(row)
        with table.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, CSV_FIELDS)
            writer.writeheader()
            writer.writerows(rows)
        print(" | ".join(f"{k} {v}" for k, v in row.items()), flush=True)
        plot(rows, {a: ladder_elo[a] for a in anchors}, f"{args.game}: Elo over greedy", curve_dir / "curve.png")


def interrupt(signum: int, frame: object) -> None:
    """SIGTERM (``kill``) stops the run as Ctrl-C does: the part and the rating time are saved."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, interrupt)
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit("\ninterrupted: the run and the points rated so far are kept; run it again to go on") from None
