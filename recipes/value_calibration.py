"""How well a network's value head predicts results: fresh self-play games (seeded apart from
training), the network's value for every seat at every position against the game's final
returns, binned into a reliability table and plot.

    python recipes/value_calibration.py --checkpoint @four_player --games 64 --out calibration.png

A calibrated head's mean outcome in each bin equals its mean prediction (the diagonal). Four-player
returns are the placements (1st +1, 2nd +1/3, 3rd -1/3, 4th -1; a game stopped at ``--max-plies``
counts its standings); each position gives one prediction per seat.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
from chess_envs.agents.alphazero.network import resolve_device
from chess_envs.files import write_atomic
from chess_envs.search.settings import MCTSConfig
from chess_envs.train.alphazero.selfplay import FinishedGame, SelfPlay


def play_games(game: str, evaluator: NetworkEvaluator, args: argparse.Namespace) -> list[FinishedGame]:
    """``args.games`` self-play games at ``args.sims`` simulations per move."""
    self_play = SelfPlay(
        game,
        evaluator,
        MCTSConfig(simulations=args.sims, planes="uint8", dirichlet_fraction=0.25),
        min(args.games, args.parallel),
        args.temperature_plies,
        args.max_plies,
        np.random.default_rng([args.seed, 7]),
    )
    games: list[FinishedGame] = []
    with tqdm(total=args.games, desc="self-play games", unit="game", disable=args.quiet) as bar:
        while len(games) < args.games:
            finished = self_play.play(16)[: args.games - len(games)]
            games.extend(finished)
            bar.update(len(finished))
    return games


def predictions(evaluator: NetworkEvaluator, games: list[FinishedGame]) -> tuple[np.ndarray, np.ndarray]:
    """(the network's values, the final returns), one row per position, a column per value."""
    predicted, outcome = [], []
    for game in games:
        for start in range(0, game.plies, 256):
            predicted.append(evaluator(game.planes[start : start + 256])[1])
        outcome.append(game.values)
    return np.concatenate(predicted).reshape(-1), np.concatenate(outcome).reshape(-1)


def reliability(predicted: np.ndarray, outcome: np.ndarray, bins: int = 10) -> list[tuple[float, float, float, int]]:
    """Per bin of [-1, 1] that holds predictions: (bin centre, mean prediction, mean outcome, count)."""
    edges = np.linspace(-1.0, 1.0, bins + 1)
    which = np.clip(np.digitize(predicted, edges) - 1, 0, bins - 1)
    rows = []
    for b in range(bins):
        mask = which == b
        if mask.any():
            centre = (edges[b] + edges[b + 1]) / 2
            rows.append((float(centre), float(predicted[mask].mean()), float(outcome[mask].mean()), int(mask.sum())))
    return rows


def plot(rows: list[tuple[float, float, float, int]], path: Path, title: str) -> None:
    """The reliability diagram: mean outcome against mean prediction per bin, marker area ~ count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5.5, 5))
    axes.plot([-1, 1], [-1, 1], color="grey", linestyle="--", label="calibrated")
    counts = np.array([r[3] for r in rows], dtype=float)
    axes.scatter([r[1] for r in rows], [r[2] for r in rows], s=20 + 300 * counts / counts.max(), label="bins")
    axes.plot([r[1] for r in rows], [r[2] for r in rows])
    axes.set_xlabel("value head's prediction (mean in bin)")
    axes.set_ylabel("final return (mean in bin)")
    axes.set_xlim(-1.05, 1.05)
    axes.set_ylim(-1.05, 1.05)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left")
    figure.tight_layout()
    try:
        write_atomic(path, lambda handle: figure.savefig(handle, dpi=100, format="png"))
    finally:
        plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="an AlphaZero checkpoint")
    parser.add_argument("--game", help="its game (default: the checkpoint's)")
    parser.add_argument("--games", type=int, default=64, help="self-play games to score")
    parser.add_argument("--sims", type=int, default=64, help="simulations per self-play move")
    parser.add_argument("--parallel", type=int, default=32, help="games played together")
    parser.add_argument("--max-plies", type=int, default=400, help="a game this long stops (scored by standings)")
    parser.add_argument("--temperature-plies", type=int, default=16, help="opening plies sampled from the visits")
    parser.add_argument("--seed", type=int, default=12345, help="seed of the games (apart from training's)")
    parser.add_argument("--out", type=Path, help="write the reliability plot here (PNG)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.games < 1 or args.sims < 1 or args.parallel < 1 or args.max_plies < 1:
        parser.error("--games, --sims, --parallel and --max-plies must be >= 1")
    device = resolve_device("auto")
    network, payload = load_network(args.checkpoint, args.game, device)
    game = args.game or payload["game"]
    evaluator = NetworkEvaluator(network, device)
    with torch.inference_mode():
        games = play_games(game, evaluator, args)
        predicted, outcome = predictions(evaluator, games)
    rows = reliability(predicted, outcome)
    plies = sum(g.plies for g in games)
    print(f"{game}: {len(games)} games, {plies:,} positions, {len(predicted):,} predictions")
    error, correlation = np.mean((predicted - outcome) ** 2), np.corrcoef(predicted, outcome)[0, 1]
    print(f"mean squared error {error:.4f}, correlation {correlation:.3f}")
    print(f"{'bin':>6} {'predicted':>10} {'outcome':>9} {'count':>8}")
    for centre, mean_predicted, mean_outcome, count in rows:
        print(f"{centre:+6.1f} {mean_predicted:+10.3f} {mean_outcome:+9.3f} {count:8,}")
    if args.out is not None:
        plot(rows, args.out, f"{game}: value head against results ({len(games)} games)")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
