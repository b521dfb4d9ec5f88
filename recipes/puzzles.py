"""Puzzle solve rates by category: the engine-verified puzzles of tests/data/reference
(``tests/data/reference/puzzles/<game>_public.jsonl``: mate in 1, 2, 3 and defences), one move per
puzzle, for each agent spec.

    python recipes/puzzles.py --game chess --agents "alphazero:@chess?sims=200" greedy
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from chess_envs.agents.base import make_agent
from chess_envs.registry import new_state

PUZZLES = Path(__file__).resolve().parents[1] / "tests" / "data" / "reference" / "puzzles"


def solve_rates(game: str, spec: str, puzzles: list[dict]) -> dict[str, tuple[int, int]]:
    """(solved, puzzles) per category: the agent's move is one of the puzzle's solutions."""
    agent = make_agent(spec, game)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    try:
        for puzzle in puzzles:
            agent.reset()
            state = new_state(game, puzzle["fen"])
            move = state.action_to_move(agent.select_action(state))
            counts[puzzle["category"]][0] += move in puzzle["solutions"]
            counts[puzzle["category"]][1] += 1
    finally:
        agent.close()
    return {category: (solved, total) for category, (solved, total) in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("chess", "los_alamos"), default="chess")
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs")
    parser.add_argument("--puzzles", type=Path, help="a .jsonl file (default: the public set beside the checkout)")
    args = parser.parse_args()
    path = args.puzzles or PUZZLES / f"{args.game}_public.jsonl"
    puzzles = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    categories = sorted({p["category"] for p in puzzles})
    print(f"{len(puzzles)} puzzles from {path}")
    print(f"{'agent':<44}" + "".join(f"{c:>10}" for c in categories) + f"{'all':>10}")
    for spec in args.agents:
        rates = solve_rates(args.game, spec, puzzles)
        cells = [f"{rates[c][0]}/{rates[c][1]}" for c in categories]
        solved = sum(r[0] for r in rates.values())
        print(f"{spec:<44}" + "".join(f"{cell:>10}" for cell in cells) + f"{f'{solved}/{len(puzzles)}':>10}")


if __name__ == "__main__":
    main()
