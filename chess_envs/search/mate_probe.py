"""The root's mate probe of the Python search, move for move the native one (``src/native/mate.hpp``).

Before the simulations, a two-player search with ``MCTSConfig.mate_depth`` looks for a forced win
of the side to move within 1, then 2, ... ``mate_depth`` of its moves: an exhaustive AND-OR search
over the legal moves in legal-action order, under a budget of moves played (a quarter of the
simulation budget, :data:`PLAYS_PER_SIMULATION` moves counting as one simulation). A win is
reported only when every defence was refuted, so running out of budget reports none.
"""

from __future__ import annotations

import numpy as np

from chess_envs.core import GameState
from chess_envs.native import MATE_PLAYS_PER_SIMULATION

PLAYS_PER_SIMULATION = MATE_PLAYS_PER_SIMULATION
"""moves played by the probe that cost one simulation of the budget (the native search's constant)"""
GROWTH = 20
"""a probe one move deeper is expected to cost this many times more: a depth is not tried when the
one before it cost more than ``1 / GROWTH`` of what is left"""


class MateProbe:
    """Forced wins of ``state``'s mover, searched with ``apply``/``undo`` within ``budget`` moves played."""

    def __init__(self, state: GameState, budget: int) -> None:
        self.state, self.left, self.plays = state, budget, 0
        self.attacker = state.current_player

    def wins_with(self, action: int, moves: int) -> bool:
        """Whether ``action`` (legal, the attacker to move) forces a win within ``moves`` moves."""
        if not self._spend():
            return False
        self.state.apply(action)
        won = self._after_attack(moves)
        self.state.undo()
        return won

    def _spend(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        self.plays += 1
        return True

    def _won(self) -> bool:
        return bool(self.state.returns()[self.attacker] > 0)

    def _after_attack(self, moves: int) -> bool:
        if self.state.is_terminal():
            return self._won()
        return moves > 1 and self._defence_fails(moves - 1)

    def _defence_fails(self, moves: int) -> bool:
        for action in self.state.legal_actions():
            if not self._spend():
                return False
            self.state.apply(int(action))
            lost = self._won() if self.state.is_terminal() else self._attack_wins(moves)
            self.state.undo()
            if not lost:
                return False
        return True

    def _attack_wins(self, moves: int) -> bool:
        # Once the budget is spent, wins_with is False for every move left, and plays nothing.
        return any(self.wins_with(int(action), moves) for action in self.state.legal_actions())


def probe_root(
    state: GameState, actions: np.ndarray, priors: np.ndarray, depth: int, budget: int
) -> tuple[int | None, int, int]:
    """(the winning root action or None, plies to mate along it, moves played): wins in 1, then 2,
    ... ``depth`` moves (while the last depth's cost says the next one fits, :data:`GROWTH`), among
    the root ``actions`` whose prior is not zero, within a quarter of ``budget`` simulations' worth
    of moves."""
    cap = budget * PLAYS_PER_SIMULATION // 4
    probe, last = MateProbe(state, cap), 0
    for moves in range(1, depth + 1):
        if moves > 1 and (probe.plays - last) * GROWTH > cap - probe.plays:
            break
        last = probe.plays
        for action, prior in zip(actions, priors):
            if prior > 0 and probe.wins_with(int(action), moves):
                return int(action), 2 * moves - 1, probe.plays
    return None, 0, probe.plays
