"""The shipped networks' moves on fixed positions, recorded so that a refactoring can prove it
plays the same: ``python -m tests.agents.shipped_moves`` writes ``tests/data/shipped_moves.json``
(positions a few random plies into each game, and the move the shipped network chooses at
temperature 0 without root noise); ``test_shipped_moves.py`` replays them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import torch

from chess_envs.agents.base import make_agent
from chess_envs.agents.shipped import shipped_agent
from chess_envs.registry import new_state

DATA = Path(__file__).resolve().parents[1] / "data" / "shipped_moves.json"
POSITIONS = {"chess": 200, "los_alamos": 200, "four_player": 120}
SPEC_OPTIONS = {"sims": 24, "cache_mb": 0, "device": "cpu"}


def positions(game: str, count: int, seed: int = 0) -> list[str]:
    """``count`` distinct positions of ``game``, each 0-40 random plies from the start, none over."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < count:
        state = new_state(game)
        for _ in range(rng.randrange(0, 41)):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(list(state.legal_actions()))))
        if not state.is_terminal() and state.to_text() not in texts:
            texts.append(state.to_text())
    return texts


def chosen_moves(game: str, texts: list[str]) -> list[str]:
    """The shipped network's move text in each position."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # bit-identical network outputs, whatever the machine's core count
    try:
        agent = make_agent(shipped_agent(game, **SPEC_OPTIONS), game)
        moves = []
        for text in texts:
            state = new_state(game, text)
            moves.append(state.action_to_move(agent.select_action(state)))
        return moves
    finally:
        torch.set_num_threads(threads)


def main() -> None:
    record = {}
    for game, count in POSITIONS.items():
        texts = positions(game, count)
        record[game] = [[text, move] for text, move in zip(texts, chosen_moves(game, texts))]
        print(game, len(texts), flush=True)
    DATA.write_text(json.dumps({"options": SPEC_OPTIONS, "positions": record}, indent=1) + "\n")


if __name__ == "__main__":
    main()
