"""What the root's mate probe costs and what it buys, per game, on this machine.

    python recipes/mate_probe.py [--positions 40] [--sims 200] [--puzzles N]

1. The exchange rate behind ``MATE_PLAYS_PER_SIMULATION``: the probe's moves played per second
   (``forced_wins`` at 3 moves, on positions of the shipped book) against the shipped network's
   simulations per second at ``--sims`` (mate probe off), and so how many probe moves take as long
   as one simulation.
2. The agent's time per move on the same positions with the probe at 0, 2 and 3 moves.
3. The solve rates of the agent at ``--sims`` on the short-mate sets of ``tests/data/mates``
   (``tools/make_mates.py``), probe off and on.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from chess_envs.agents.base import make_agent
from chess_envs.agents.shipped import shipped_agent
from chess_envs.arena.game import read_openings, shipped_book
from chess_envs.native import MATE_PLAYS_PER_SIMULATION, core
from chess_envs.registry import new_state

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("los_alamos", "chess")


def probe_speed(game: str, texts: list[str]) -> float:
    """Probe moves played per second, mate in 3 over every root move, 200,000 moves at most each."""
    plays, started = 0, time.perf_counter()
    for text in texts:
        plays += core.forced_wins(new_state(game, text)._game, 3, 200_000)[1]
    return plays / (time.perf_counter() - started)


def seconds_per_move(spec: str, game: str, texts: list[str]) -> float:
    agent = make_agent(spec, game)
    agent.select_action(new_state(game, texts[0]))  # warm up
    started = time.perf_counter()
    for text in texts:
        agent.reset()
        agent.select_action(new_state(game, text))
    return (time.perf_counter() - started) / len(texts)


def solve_rates(spec: str, game: str, puzzles: list[dict]) -> dict[str, tuple[int, int]]:
    agent, counts = make_agent(spec, game), {}
    for puzzle in puzzles:
        agent.reset()
        state = new_state(game, puzzle["fen"])
        solved, total = counts.get(puzzle["category"], (0, 0))
        right = state.action_to_move(agent.select_action(state)) in puzzle["solutions"]
        counts[puzzle["category"]] = (solved + right, total + 1)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--puzzles", type=int, help="only the first this many positions of each set")
    args = parser.parse_args()
    print(f"MATE_PLAYS_PER_SIMULATION = {MATE_PLAYS_PER_SIMULATION}")
    for game in GAMES:
        texts = read_openings(str(shipped_book(game)), game)[: args.positions]
        network = shipped_agent(game, sims=args.sims, cache_mb=0)
        speed = probe_speed(game, texts)
        per_move = {depth: seconds_per_move(f"{network}&mate={depth}", game, texts) for depth in (0, 2, 3)}
        simulations = args.sims / per_move[0]
        print(f"{game}: probe {speed / 1e6:.2f} M moves/s; network search {simulations:.0f} simulations/s; "
              f"one simulation takes as long as {speed / simulations:,.0f} probe moves")  # fmt: skip
        print(
            f"  time per move at {args.sims} simulations, book positions: "
            + ", ".join(f"probe {d}: {s * 1000:.0f} ms" for d, s in per_move.items())
        )
        path = ROOT / "tests" / "data" / "mates" / f"{game}.jsonl"
        if path.exists():
            puzzles = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            puzzles = [p for n in (2, 3) for p in puzzles if p["mate_in"] == n][: args.puzzles]
            for depth in (0, 3):
                rates = solve_rates(f"{network}&mate={depth}", game, puzzles)
                cells = [f"{c} {s}/{t} = {100 * s / t:.0f}%" for c, (s, t) in sorted(rates.items())]
                print(f"  {path.name}, probe {depth}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
