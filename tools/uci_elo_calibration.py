"""Calibrate the UCI engine's ``UCI_Elo`` for the shipped chess network, and check it.

The scale is pinned at Stockfish ``UCI_Elo`` 1350 (UCI_LimitStrength) at 100 ms a move = 1350,
the floor of Debian's Stockfish. Weaker fixed anchors extend it downwards as a chain: each is
rated from a match against the anchor before it. Each level of the network (simulations,
temperature) is rated from a match against a named anchor; every match is GAMES games from the
shipped balanced book (colours swapped per opening), Elo from the score by the logistic formula
with a 95% interval from the per-game variance. Along the path (``--levels``, strongest first) the
Elos are fitted to never rise (pooling neighbours measured out of order, which noise does when two
levels play alike); each level keeps its measured Elo beside the fitted one. ``--write`` stores the levels in the
shipped network's model card, ``chess_envs/agents/networks/chess.card.json`` (what UCI_Elo
reads); ``--verify ELO ...`` then plays the
setting each requested Elo maps to against the nearest anchor and prints requested against measured.
Matches are resumable (one folder each under --out).

    python tools/uci_elo_calibration.py --games 100 --write --verify 1100 900 700
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from chess_envs.agents.cards import card_path, load_card  # noqa: E402
from chess_envs.agents.shipped import shipped_agent  # noqa: E402
from chess_envs.agents.strength import Level, level_for  # noqa: E402
from chess_envs.arena.game import read_openings  # noqa: E402
from chess_envs.arena.ratings import elo_of_score  # noqa: E402
from chess_envs.arena.tournament import TournamentConfig, run_tournament  # noqa: E402
from chess_envs.files import write_text_atomic  # noqa: E402

ANCHOR = "stockfish?elo=1350&movetime=100"
ANCHOR_ELO = 1350.0
CHAIN = ["fairy-stockfish?nodes=10"]
"""weaker anchors, each rated against the one before it (the first against ANCHOR)"""
LEVELS = ["200:0:0", "16:0:0", "1:0:1", "8:1:1"]
"""network levels SIMULATIONS:TEMPERATURE:ANCHOR (0 = ANCHOR, 1.. = CHAIN[i-1]), the path from strongest
to weakest"""


def network(simulations: int, temperature: float) -> str:
    """The shipped network's spec at a level, with the options it plays with (as UCI builds it)."""
    return shipped_agent("chess", sims=simulations, temperature=f"{temperature:g}")


def match(player: str, opponent: str, games: int, out: Path, workers: int) -> tuple[float, int]:
    """(player's score in [0, 1], games) over ``games`` games from the shipped book."""
    openings = read_openings("@chess", "chess")[: games // 2]
    name = "".join(c if c.isalnum() else "_" for c in f"{player}__vs__{opponent}")
    config = TournamentConfig("chess", [player, opponent], games, openings, max_plies=400, seed=0)
    started = time.monotonic()
    records = run_tournament(config, out / name, workers=workers, progress=False)
    scores = [r.scores[r.players.index(player)] for r in records]
    losses = sum(r.termination in ("time", "forfeit") for r in records)
    print(
        f"  {player} vs {opponent}: {sum(scores):g}/{len(scores)} ({time.monotonic() - started:.0f} s"
        + (f", {losses} forfeits" if losses else "")
        + ")",
        flush=True,
    )
    return sum(scores) / len(scores), len(scores)


def elo_of(score: float, games: int, opponent_elo: float) -> tuple[float, float]:
    """(Elo, 95% half-width) from a score against an opponent of known Elo; the score is kept
    half a game inside (0, 1) so a whitewash stays finite."""
    s = min(max(score, 0.5 / games), 1 - 0.5 / games)
    elo = opponent_elo + elo_of_score(s)
    spread = math.sqrt(max(s * (1 - s), 1e-6) / games)  # at most the per-game deviation (draws lower it)
    return elo, 1.96 * spread * 400 / (math.log(10) * s * (1 - s))


def non_increasing(elos: list[float], weights: list[float]) -> list[float]:
    """The closest non-increasing sequence to ``elos`` (least squares, each weighted by its games):
    pool adjacent violators. Levels of a path whose measured Elos come out of order (noise: two levels
    within each other's intervals) get their pooled mean, so Elo never rises along the path."""
    blocks: list[tuple[float, float, int]] = []  # (mean, weight, levels pooled)
    for elo, weight in zip(elos, weights):
        blocks.append((elo, weight, 1))
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            (a, wa, na), (b, wb, nb) = blocks[-2], blocks[-1]
            blocks[-2:] = [((a * wa + b * wb) / (wa + wb), wa + wb, na + nb)]
    return [mean for mean, _, count in blocks for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("runs/uci_elo_calibration"))
    parser.add_argument("--chain", nargs="*", default=CHAIN)
    parser.add_argument(
        "--levels", nargs="*", default=LEVELS, help="the path UCI_Elo interpolates along, strongest first"
    )
    parser.add_argument("--also", nargs="*", default=[], help="levels measured and reported, kept off the path")
    parser.add_argument("--write", action="store_true", help="store the levels in the chess network's model card")
    parser.add_argument("--verify", nargs="*", type=float, default=[], help="requested Elos to check")
    args = parser.parse_args()
    os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
    anchors = [(ANCHOR, ANCHOR_ELO, 0.0, None)]
    print(f"anchor chain (GAMES={args.games}, book @chess):", flush=True)
    for spec in args.chain:
        previous, previous_elo = anchors[-1][0], anchors[-1][1]
        score, games = match(spec, previous, args.games, args.out, args.workers)
        elo, half = elo_of(score, games, previous_elo)
        anchors.append((spec, elo, half, {"against": previous, "score": score, "games": games}))
    print("levels:", flush=True)
    rows, off_path = [], []
    for text in [*args.levels, *args.also]:
        sims, temperature, index = text.split(":")
        spec, anchor_elo = anchors[int(index)][0], anchors[int(index)][1]
        score, games = match(network(int(sims), float(temperature)), spec, args.games, args.out, args.workers)
        elo, half = elo_of(score, games, anchor_elo)
        (rows if text in args.levels else off_path).append(
            {
                "simulations": int(sims),
                "temperature": float(temperature),
                "elo": round(elo),
                "half": round(half),
                "against": spec,
                "score": round(score, 3),
                "games": games,
            }
        )
    fitted = non_increasing([row["elo"] for row in rows], [row["games"] for row in rows])
    for row, elo in zip(rows, fitted):
        row["measured_elo"], row["elo"] = row["elo"], round(elo)
    print("\n| anchor | Elo | +/- | measured against | score |\n|---|---|---|---|---|")
    for spec, elo, half, against in anchors:
        where = "(fixed) | -"
        if against:
            where = f"{against['against']} | {against['score']:.3f} ({against['games']} games)"
        print(f"| {spec} | {elo:.0f} | {half:.0f} | {where} |")
    print(
        "\n| simulations | temperature | Elo on the path | measured | +/- | measured against | score |"
        "\n|---|---|---|---|---|---|---|"
    )
    for row in rows + off_path:
        print(
            f"| {row['simulations']} | {row['temperature']:g} | {row['elo'] if 'measured_elo' in row else '-'} "
            f"| {row.get('measured_elo', row['elo'])} | {row['half']} | {row['against']} "
            f"| {row['score']:.3f} ({row['games']} games) |"
        )
    if args.write:
        data = {
            "scale": f"{ANCHOR} = {ANCHOR_ELO:g}",
            "made_by": "python tools/uci_elo_calibration.py " + " ".join(sys.argv[1:]),
            "anchors": [{"spec": s, "elo": round(e), "half": round(h), **(a or {})} for s, e, h, a in anchors],
            "levels": rows,
            "off_path": off_path,
        }
        card = load_card("chess")
        if card is None:
            raise SystemExit(f"no model card at {card_path('chess')}: write one first (docs/networks.md)")
        text = json.dumps({**card, "uci_elo": data}, indent=2, ensure_ascii=False) + "\n"
        write_text_atomic(card_path("chess"), text)
        print(f"\nwrote the levels into {card_path('chess')}")
    if args.verify:
        levels = sorted((Level(r["simulations"], r["temperature"], r["elo"]) for r in rows), key=lambda x: x.elo)
        print("\n| requested | simulations | temperature | measured | +/- | against | score |")
        print("|---|---|---|---|---|---|---|")
        for requested in args.verify:
            sims, temperature = level_for(requested, levels)
            spec, anchor_elo = min(((s, e) for s, e, _, _ in anchors), key=lambda a: abs(a[1] - requested))
            score, games = match(network(sims, temperature), spec, args.games, args.out, args.workers)
            elo, half = elo_of(score, games, anchor_elo)
            print(
                f"| {requested:.0f} | {sims} | {temperature:.2f} | {elo:.0f} | {half:.0f} | {spec} | "
                f"{score:.3f} ({games} games) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
