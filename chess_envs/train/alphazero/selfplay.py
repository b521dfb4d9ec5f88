"""Self-play: games in flight and their batched search in, finished games as arrays out.

:class:`SelfPlay` keeps ``games_in_parallel`` games going. Each move it searches all of them
together (the leaves of every tree in one network call per wave), records the position, the
search's policy target and the mover, and plays the chosen move, keeping the subtree (tree
reuse). A game that ends, or reaches ``max_plies``, comes back as a :class:`FinishedGame` with
its value targets filled in: the outcome, or optionally a blend of the outcome and the search's
root value (``value_target_q``), which is less noisy than one game's result (four-player: in the
mover's own entry alone, since the search keeps each edge's value for its mover only).
It owns no optimizer and no replay buffer: the learner does. With game ``options`` (four-player
``mode="teams"``) its games are played under them, and an evaluator reads its values as the
teams' (partners share one result).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from chess_envs.agents.search_agent import new_search
from chess_envs.core import GameState
from chess_envs.registry import new_state
from chess_envs.search.protocol import Evaluator
from chess_envs.search.settings import MCTSConfig


@dataclass
class FinishedGame:
    """One self-play game as training data: a row per position, values counted from each mover."""

    planes: np.ndarray
    """float32 ``[plies, C, H, W]``: the mover's observation"""
    actions: list[np.ndarray]
    """per position: the legal actions searched"""
    policies: list[np.ndarray]
    """per position: the search's policy target over ``actions``"""
    values: np.ndarray
    """float32 ``[plies, value_size]``: the outcome from the mover's seat (per seat from the mover's for 4 players)"""
    returns: np.ndarray
    """the final returns per seat"""
    versions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """int64 ``[plies]``: the weight version that played each position (-1: not a network's)"""

    @property
    def plies(self) -> int:
        return len(self.planes)


@runtime_checkable
class ReadsTeams(Protocol):
    """An evaluator that reads a four-player position's values as the teams' when told."""

    teams: bool


@dataclass
class _Game:
    tree: Any
    """the search's tree of this game"""
    planes: list[np.ndarray] = field(default_factory=list)
    actions: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    movers: list[int] = field(default_factory=list)
    root_values: list[float] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)


def final_returns(state: GameState) -> np.ndarray:
    """The game's returns; a game stopped at ``max_plies`` is a draw, or scored by its standings
    where the game has them (four-player Free-For-All points)."""
    return np.asarray(state.returns() if state.is_terminal() else state.standings(), dtype=np.float32)


class SelfPlay:
    """Plays batched self-play games of ``game`` with the network behind ``evaluator``."""

    def __init__(
        self,
        game: str,
        evaluator: Evaluator,
        search: MCTSConfig,
        games_in_parallel: int,
        temperature_plies: int,
        max_plies: int,
        rng: np.random.Generator,
        value_target_q: float = 0.0,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.game, self.options = game, dict(options or {})
        prototype = new_state(game, **self.options)
        self.num_players = prototype.num_players
        if prototype.teams is not None:
            if not isinstance(evaluator, ReadsTeams):
                raise ValueError(f"{type(evaluator).__name__} cannot read values for Teams ({self.options})")
            evaluator.teams = True
        if not 0.0 <= value_target_q <= 1.0:
            raise ValueError(f"value_target_q must be in [0, 1], got {value_target_q}")
        self.value_target_q = value_target_q
        self.search = new_search(game, evaluator, search)
        self.rng = rng
        self.games_in_parallel = games_in_parallel
        self.temperature_plies = temperature_plies
        self.max_plies = max_plies
        self.games: list[_Game] = []
        self.version = -1
        """the weight version the evaluator's network has now (the learner step it was published at)"""

    @property
    def network_evaluations(self) -> int:
        return self.search.network_evaluations

    @property
    def oldest_version(self) -> int:
        """The oldest weight version among the positions of the games in flight (the current one when none)."""
        return min((game.versions[0] for game in self.games if game.versions), default=self.version)

    def forget_evaluations(self) -> None:
        """Empty the evaluation cache: call it when the network's weights change."""
        self.search.cache.clear()

    def play(self, moves: int) -> list[FinishedGame]:
        """Play ``moves`` moves in every game in flight; returns the games that finished."""
        while len(self.games) < self.games_in_parallel:
            self.games.append(_Game(self.search.new_tree(new_state(self.game, **self.options))))
        finished = []
        for _ in range(moves):
            temperature = [1.0 if len(g.movers) < self.temperature_plies else 0.0 for g in self.games]
            output = self.search.policy([g.tree for g in self.games], self.rng, temperature=temperature)
            for index, game in enumerate(self.games):
                tree = game.tree
                state = tree.state
                game.planes.append(state.observation())
                game.actions.append(output.legal_actions[index])
                game.policies.append(output.action_weights[index])
                game.movers.append(state.current_player)
                game.versions.append(self.version)
                game.root_values.append(float(output.root_value[index]) if self.value_target_q else 0.0)
                tree.advance(int(output.action[index]))
                if tree.state.is_terminal() or len(game.movers) >= self.max_plies:
                    finished.append(self._finish(game))
                    self.games[index] = _Game(self.search.new_tree(new_state(self.game, **self.options)))
        return finished

    def _finish(self, game: _Game) -> FinishedGame:
        returns = final_returns(game.tree.state)
        # mover first: two-player targets are the mover's value alone; the search keeps one value per
        # edge, its mover's, so the root value is blended into the mover's own entry
        width = 1 if self.num_players == 2 else self.num_players
        values = np.array([np.roll(returns, -mover)[:width] for mover in game.movers], dtype=np.float64)
        values[:, 0] = (1 - self.value_target_q) * values[:, 0] + self.value_target_q * np.array(game.root_values)
        return FinishedGame(
            np.stack(game.planes),
            game.actions,
            game.policies,
            values.astype(np.float32),
            returns,
            np.array(game.versions, dtype=np.int64),
        )
