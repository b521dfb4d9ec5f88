"""Every shipped network's learning curve in one picture, drawn from the model cards: Elo against
the curve's opponent (Elo's curve of each point's score) over the CPU-hours of labelling and
learning up to it. ``python -m tools.card_curves --out docs/images/learning_curves.png``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from matplotlib.figure import Figure

from chess_envs.agents.cards import load_card, shipped_networks
from chess_envs.arena.ratings import elo_of_score
from chess_envs.files import write_atomic


def draw(out: Path) -> list[str]:
    """Draw one panel a network with a curve, each opponent its own line, to ``out`` (PNG); the
    names of the networks drawn."""
    cards = {name: card for name in shipped_networks() if (card := load_card(name)) is not None}
    drawn = [name for name, card in cards.items() if card["learning_curve"]]
    if not drawn:
        raise ValueError("no shipped network's card has a learning curve")
    columns = min(2, len(drawn))
    rows = math.ceil(len(drawn) / columns)
    figure = Figure(figsize=(6 * columns, 3.6 * rows))
    axes = figure.subplots(rows, columns, squeeze=False)
    for axis, name in zip(axes.flat, drawn, strict=False):
        points = cards[name]["learning_curve"]
        for opponent in dict.fromkeys(point["opponent"] for point in points):
            mine = [point for point in points if point["opponent"] == opponent]
            hours = [point["cpu_minutes"] / 60 for point in mine]
            axis.plot(hours, [elo_of_score(point["score"]) for point in mine], marker="o", label=opponent)
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_title(f"@{name}")
        axis.set_xlabel("CPU-hours (labelling and learning)")
        axis.set_ylabel("Elo against the opponent")
        axis.legend(fontsize=7)
    for axis in list(axes.flat)[len(drawn) :]:
        axis.set_visible(False)
    figure.tight_layout()
    write_atomic(out, lambda handle: figure.savefig(handle, format="png", dpi=110))
    return drawn


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images/learning_curves.png"), help="the PNG to write")
    args = parser.parse_args(argv)
    print(f"drew {', '.join(draw(args.out))} to {args.out}")


if __name__ == "__main__":
    main()
