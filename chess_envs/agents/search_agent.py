"""Agents that play by tree search (AlphaZero's network, the material evaluator): moves, thinking
within limits, and the choice of the native or the Python search for a game. Torch-free."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from chess_envs.agents.base import AgentBase, Report, SearchLimits, Stop, Thought
from chess_envs.core import GameState
from chess_envs.registry import get_game
from chess_envs.search.mcts import MCTS
from chess_envs.search.protocol import Evaluator, Search, child_after, most_visited_line
from chess_envs.search.python_mcts import PythonMCTS
from chess_envs.search.settings import MCTSConfig

CHUNK = 16
"""simulations between the first looks at the clock, the stop flag and the report"""
CHUNK_SECONDS = 0.005
"""a chunk that took less doubles the next (up to MAX_CHUNK): a fast search (material-mcts runs
~120,000 simulations a second) would otherwise spend most of a timed move between chunks"""
MAX_CHUNK = 4096


def new_search(game: str, evaluator: Evaluator, config: MCTSConfig, root_evaluator: Evaluator | None = None) -> Search:
    """The search for ``game``: native where the registry names a native core, else the Python one
    (``root_evaluator``, which expands the roots apart from the leaves, needs the native one)."""
    record = get_game(game)
    if record.native_class("Search") is not None:
        return MCTS(evaluator, record.num_players, config, root_evaluator)
    if root_evaluator is not None:
        raise ValueError(f"{game!r} has no native search: its roots and leaves are read by one evaluator")
    return PythonMCTS(evaluator, record.num_players, config)


class SearchAgent(AgentBase):
    """A move is the search's choice after ``config.simulations`` simulations, unless a move wins at
    once; ``think`` searches within :class:`~chess_envs.agents.base.SearchLimits` and reports as it goes."""

    def __init__(
        self,
        game: str,
        evaluator: Evaluator,
        config: MCTSConfig,
        temperature: float,
        seed: int | None,
        root_evaluator: Evaluator | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.search = new_search(game, evaluator, config, root_evaluator)
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)
        self._tree = None
        self._slowest = 0.0
        """seconds a simulation took in the slowest chunk of the last timed search (see ``think``)"""

    def reset(self, seed: int | None = None) -> None:
        """Forget the last tree; with ``seed``, this game's random choices come from it."""
        self._tree = None
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def clear_cache(self) -> None:
        """Forget the evaluations kept for positions seen before."""
        self.search.cache.clear()

    def cache_usage(self) -> float | None:
        """The share of the evaluation cache in use, in [0, 1]; None when the search keeps none."""
        cache = self.search.cache
        return min(1.0, cache.bytes / cache.capacity) if cache.capacity else None

    def set_temperature(self, temperature: float) -> None:
        """Choose moves at this temperature from now on (0: the most visited move)."""
        self.temperature = temperature

    def prepare(self, state: GameState) -> None:
        """Called before each search (an evaluator that reads the game's options adapts here)."""

    def warm_up(self, state: GameState) -> None:
        """A throwaway search of ``state`` (its own random numbers, the agent's left as they are),
        so the evaluator is compiled and its buffers sized before a timed move."""
        self.prepare(state)
        tree = self.search.new_tree(state.copy())
        self.search.policy([tree], np.random.default_rng(0), temperature=self.temperature, simulations=CHUNK)

    def select_action(self, state: GameState) -> int:
        """A move that wins on the spot when there is one, else the search's choice: PUCT spends
        its simulations on the network's favourite moves and may never try a low-prior mate."""
        winning = winning_action(state)
        if winning is not None:
            return winning
        self.prepare(state)
        self._tree = None
        tree = self.search.new_tree(state.copy())
        return int(self.search.policy([tree], self.rng, temperature=self.temperature).action[0])

    def think(self, state: GameState, limits: SearchLimits, stop: Stop = None, report: Report = None) -> Thought:
        self.prepare(state)
        only = None if limits.moves is None else np.asarray(sorted(set(limits.moves)), dtype=np.int64)
        tree = self._tree
        if tree is None or tree.state.to_text() != state.to_text() or not _same(getattr(tree, "only", None), only):
            tree = self._tree = self.search.new_tree(state.copy())
            if only is not None and hasattr(tree, "only"):
                tree.only = only  # the native search also spends its simulations on these moves only
        nodes = limits.nodes
        if nodes is None and limits.seconds is None and not limits.infinite:
            nodes = self.search.config.simulations
        started, searched, size = time.monotonic(), 0, CHUNK
        last_slowest, self._slowest = self._slowest, 0.0
        while True:
            chunk = size if nodes is None else min(size, nodes - searched)
            elapsed = time.monotonic() - started
            if limits.seconds is not None and searched and elapsed > 0:  # the last chunk ends on time
                # Simulations of positions seen before cost next to nothing, and a search can run
                # through thousands before it reaches new ones: a chunk is sized at the slowest
                # rate of this move and the last, so one that must read them still ends on time.
                cost = max(elapsed / searched, self._slowest, last_slowest)
                chunk = max(1, min(chunk, int((limits.seconds - elapsed) / cost)))
            chunk_started = time.monotonic()
            output = self.search.policy([tree], self.rng, temperature=self.temperature, simulations=chunk)
            took = time.monotonic() - chunk_started
            if took < CHUNK_SECONDS:
                size = min(2 * size, MAX_CHUNK)
            else:  # long enough to time a simulation by
                self._slowest = max(self._slowest, took / chunk)
            searched += chunk
            root, action = tree.root, int(output.action[0])
            if only is not None and root is not None and action not in only:
                action = _most_visited_of(root, only, action)
            lines = root_lines(root, limits.lines, only) if limits.lines > 1 and root is not None else ()
            thought = Thought(
                action,
                float(output.score[0]),
                line_after(root, action) if root is not None else (action,),
                int(root.visits.sum()) if root is not None else searched,
                time.monotonic() - started,
                lines,
                _shares(root, [line[0] for line in lines]) if lines else (),
            )
            if report is not None:
                report(thought)
            if tree.forced is not None:  # the mate probe proved a win: no search needed
                while limits.infinite and stop is not None and not stop():
                    time.sleep(0.01)  # an infinite search (pondering) still ends only when told to
                return thought
            if (stop is not None and stop()) or (nodes is not None and searched >= nodes):
                return thought
            if limits.seconds is not None and thought.seconds >= limits.seconds:
                return thought
            if limits.depth is not None and len(thought.pv) >= limits.depth:
                return thought


def line_after(root: Any, action: int) -> tuple[int, ...]:
    """``action`` and the most visited line after it: the principal variation of the move chosen
    (which the solver or Gumbel may pick over the most visited one)."""
    return (action, *most_visited_line(child_after(root, action), 63))


def _shares(root: Any, actions: list[int]) -> tuple[float, ...]:
    """The share of the root's visits each of ``actions`` got."""
    total = max(float(root.visits.sum()), 1.0)
    return tuple(float(root.visits[np.flatnonzero(root.actions == a)[0]]) / total for a in actions)


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def _most_visited_of(root: Any, only: np.ndarray, fallback: int) -> int:
    """The most visited root move among ``only`` (the first legal one of them when none was
    visited), or ``fallback`` when none of them is legal here."""
    keep = np.isin(root.actions, only)
    if not keep.any():
        return fallback
    visits = np.where(keep, root.visits, -1.0)
    return int(root.actions[int(np.argmax(visits))])


def root_lines(root: Any, count: int, only: np.ndarray | None = None) -> tuple[tuple[int, float, tuple[int, ...]], ...]:
    """The ``count`` most visited moves of ``root`` (of ``only``, when given) as (action, mean value
    for the mover, line)."""
    visits = root.visits if only is None else np.where(np.isin(root.actions, only), root.visits, 0)
    order = [int(i) for i in np.argsort(-visits, kind="stable")[:count] if visits[i] > 0]  # most visited first
    return tuple(
        (int(root.actions[i]), float(root.values[i] / root.visits[i]), line_after(root, int(root.actions[i])))
        for i in order
    )


def winning_action(state: GameState) -> int | None:
    """The first legal action after which the game is over with the mover alone on the best return
    (a mate in one), or None."""
    mover, scratch = state.current_player, state.copy()
    for action in state.legal_actions():
        scratch.apply(int(action))
        returns = scratch.returns() if scratch.is_terminal() else None
        scratch.undo()
        if returns is not None and returns[mover] > np.delete(returns, mover).max():
            return int(action)
    return None
