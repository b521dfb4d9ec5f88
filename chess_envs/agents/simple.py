"""Baselines that need no training: uniform random, and a one-ply greedy player."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chess_envs.agents.base import AgentBase, register_agent
from chess_envs.core import GameState
from chess_envs.fields import arg


@dataclass
class SeedOption:
    """The baselines' one option."""

    seed: int | None = arg(None, "seed of the moves' random numbers (none: fresh entropy)", low=0)


class SeededAgent(AgentBase):
    """What the baselines share: no path, and their random choices from a seeded generator."""

    name: str

    def __init__(self, game: str | None = None, path: str | None = None, seed: int | None = None) -> None:
        if path is not None:
            raise ValueError(f"the {self.name} agent takes no path")
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """With ``seed``, this game's random choices (moves, tie-breaks) come from it; without, the
        stream goes on across games (so a seeded match is not repetitive)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)


@register_agent("random", SeedOption)
class RandomAgent(SeededAgent):
    """A uniformly random legal move, from a seeded generator (``random?seed=N``)."""

    name = "random"

    def select_action(self, state: GameState) -> int:
        return int(self.rng.choice(state.legal_actions()))


@register_agent("greedy", SeedOption)
class GreedyAgent(SeededAgent):
    """One ply of look-ahead: mate in one, else the most valuable capture, else the best
    promotion, else a random move (ties are broken at random, seeded by ``greedy?seed=N``)."""

    name = "greedy"

    def select_action(self, state: GameState) -> int:
        me = state.current_player
        before = state.material()
        opponents_before = before.sum() - before[me]
        best: list[int] = []
        best_key: tuple[float, float, float] | None = None
        for action in state.legal_actions():
            state.apply(int(action))
            try:
                mate = float(state.is_terminal() and state.returns()[me] > 0)
                after = state.material()
            finally:
                state.undo()
            key = (mate, opponents_before - (after.sum() - after[me]), after[me] - before[me])
            if best_key is None or key > best_key:
                best, best_key = [int(action)], key
            elif key == best_key:
                best.append(int(action))
        return best[int(self.rng.integers(len(best)))]
