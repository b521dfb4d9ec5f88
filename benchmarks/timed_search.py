"""How many simulations searching agents make in a fixed time a move: what "equal time" means
between a network's search and a cheaper one (the four-player network against ``material-mcts``).

    python benchmarks/timed_search.py --game four_player --seconds 0.05 \
        --agents "alphazero:@four_player?material=0.5" material-mcts [--games runs/T/games.jsonl]

Each agent thinks for ``--seconds`` on the same positions, on one thread as a tournament worker
does: every ``--every``-th position of the games in ``--games`` (a tournament's results, so the
positions are the ones played; its ``tournament.json`` gives the game's options), else the game's
shipped opening book. Prints simulations a move (mean, median, 10th and 90th percentile) and the
seconds the search took. Run it alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np

from chess_envs.agents.base import SearchingAgent, SearchLimits, make_agent
from chess_envs.arena.game import read_openings, shipped_book
from chess_envs.registry import new_state


def played_positions(path: Path, game: str, every: int, limit: int) -> list[str]:
    """Every ``every``-th position (before a move) of the games in ``path``, up to ``limit``."""
    options = json.loads((path.parent / "tournament.json").read_text(encoding="utf-8")).get("options", {})
    texts: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        state = new_state(game, record["opening"], **options)
        for ply, move in enumerate(record["moves"]):
            if ply % every == 0 and not state.is_terminal():
                texts.append(state.to_text())
            state.apply(state.move_to_action(move))
        if len(texts) >= limit:
            break
    return texts[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--agents", nargs="+", required=True, help="searching agent specs")
    parser.add_argument("--seconds", type=float, default=0.05, help="the search's time a move")
    parser.add_argument("--games", type=Path, help="a tournament's games.jsonl to take positions from")
    parser.add_argument("--every", type=int, default=10, help="every N-th ply of those games")
    parser.add_argument("--positions", type=int, default=200)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    if args.games is not None:
        texts = played_positions(args.games, args.game, args.every, args.positions)
    else:
        texts = read_openings(str(shipped_book(args.game)), args.game)[: args.positions]
    print(f"{len(texts)} positions, {args.seconds:g} s a move, one thread")
    for spec in args.agents:
        agent = make_agent(spec, args.game)
        if not isinstance(agent, SearchingAgent):
            raise SystemExit(f"{spec} does not search")
        agent.think(new_state(args.game, texts[0]), SearchLimits(nodes=16))  # compiles a network
        nodes, seconds = [], []
        for text in texts:
            agent.reset()
            thought = agent.think(new_state(args.game, text), SearchLimits(seconds=args.seconds))
            nodes.append(thought.nodes)
            seconds.append(thought.seconds)
        low, high = np.percentile(nodes, [10, 90])
        print(
            f"{spec}: simulations a move mean {statistics.mean(nodes):,.0f}, median {statistics.median(nodes):,.0f}, "
            f"10-90% {low:,.0f}-{high:,.0f}; searched {statistics.mean(seconds):.3f} s a move on average"
        )
        agent.close()


if __name__ == "__main__":
    main()
