"""Batched PUCT Monte-Carlo tree search over many games at once, and a Gumbel root search, in C++.

Each :class:`SearchTree` owns one game state of a game with a native core (the registry's
``native`` entry). One call, :meth:`MCTS.policy`, runs ``simulations`` simulations in every tree
and chooses a move in each: in each wave the native search (``src/native/search.hpp``) collects up
to ``leaves_per_tree`` leaves per tree (virtual loss spreads them over the tree), gathers their
planes into one contiguous buffer, Python hands it to the evaluator in ONE batched call, and the
outputs go back for the backup. Values are vectors with one entry per seat, so one backup rule
serves two players (negamax) and more (max-n). Games without a native core are searched by the
same algorithm in Python (:mod:`chess_envs.search.python_mcts`).

Safety: a tree remembers its root position, so a game moved outside :meth:`SearchTree.advance` is
searched again from where it is; while :meth:`MCTS.policy` runs, its trees and their games refuse
moves from elsewhere, and a second thread calling the same MCTS is refused
(:class:`~chess_envs.InUseError`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from chess_envs.core import GameState
from chess_envs.native import InUseError, NativeState, core
from chess_envs.registry import get_game
from chess_envs.search.protocol import (
    Evaluator,
    PolicyOutput,
    checked_trees,
    restricted_priors,
    sample_visits,
)
from chess_envs.search.settings import MCTSConfig, native_settings

__all__ = ["MCTS", "NodeView", "SearchTree"]


class NodeView:
    """A snapshot of a node of a native tree: its mover, legal actions, priors and edge statistics."""

    def __init__(self, tree: Any, index: int, num_players: int) -> None:
        fields = tree.node(index)
        self.player, self.terminal, proven, self.depth, self.n, value, proof = fields[:7]
        actions, priors, visits, values, children = fields[7:12]
        self.value = value[:num_players]
        self.proven = proof[:num_players] if proven else None
        self.actions, self.priors, self.visits, self.values = actions, priors, visits, values
        self._tree, self._children, self._num_players = tree, children, num_players

    @property
    def children(self) -> list[NodeView | None]:
        return [NodeView(self._tree, int(c), self._num_players) if c >= 0 else None for c in self._children]

    def q(self) -> np.ndarray:
        """Mean value of each child for this node's mover (0 where unvisited)."""
        return np.divide(self.values, self.visits, out=np.zeros_like(self.values), where=self.visits > 0)


class SearchTree:
    """One game being searched: its state (at the root) and the reusable native tree below it."""

    def __init__(self, state: GameState) -> None:
        # isinstance first: a Python game need not be registered
        tree_class = get_game(state.game_name).native_class("SearchTree") if isinstance(state, NativeState) else None
        if tree_class is None or not isinstance(state, NativeState):
            raise ValueError(
                f"{type(state).__name__} has no native search; search it with chess_envs.search.python_mcts.PythonMCTS"
            )
        self._state = state
        self._native = tree_class(state._game)
        self._only: np.ndarray | None = None

    @property
    def only(self) -> np.ndarray | None:
        """The root moves to search (UCI's ``searchmoves``; None: all): the others' priors are
        zeroed and the search never visits them. Setting it starts the tree afresh (a reused
        subtree's visits would count for the others); :meth:`advance` clears it."""
        return self._only

    @only.setter
    def only(self, actions: np.ndarray | None) -> None:
        self._native.clear()
        self._only = None if actions is None else np.asarray(actions, dtype=np.int64)

    @property
    def state(self) -> GameState:
        """The game searched (the tree walks it; play moves with :meth:`advance`)."""
        return self._state

    @property
    def root(self) -> NodeView | None:
        """A snapshot of the root node, None before the first search."""
        index = self._native.root
        return NodeView(self._native, index, self._state.num_players) if index >= 0 else None

    @property
    def forced(self) -> int | None:
        """The forced win the last search's mate probe found at the root (its action), else None."""
        return self._native.forced if self._native.at_root else None

    def advance(self, action: int) -> None:
        """Play ``action`` and keep its subtree as the new root (tree reuse)."""
        self._state.apply(action)
        self._native.reroot(int(action))
        self._only = None


def restrict_root(search: Any, handle: Any, only: np.ndarray) -> None:
    """Zero the root priors of moves not in ``only`` (the rest renormalised): the search never
    visits a root move of zero prior, so it spends every simulation on ``only``; idempotent, a
    no-op when none of them is legal."""
    actions, priors = handle.node(handle.root)[7:9]
    weights = restricted_priors(actions, priors, only)
    if weights is not None:
        search.mix_noise(handle, weights, 1.0)


class MCTS:
    """PUCT search over batches of native trees with one evaluator call per wave."""

    def __init__(
        self,
        evaluator: Evaluator,
        num_players: int,
        config: MCTSConfig | None = None,
        root_evaluator: Evaluator | None = None,
    ) -> None:
        self.evaluate = evaluator
        self.root_evaluate = root_evaluator or evaluator
        """reads the roots (a network, where the leaves are read by something cheaper)"""
        self.num_players = num_players
        self.config = config or MCTSConfig()
        self.cache = core.EvaluationCache(self.config.cache_mb)
        self._evaluations = 0
        self._simulations = 0
        self._planes: np.ndarray | None = None
        self._busy = threading.Lock()

    @property
    def network_evaluations(self) -> int:
        """Positions the evaluator was given so far."""
        return self._evaluations

    @property
    def simulations_done(self) -> int:
        return self._simulations

    def new_tree(self, state: GameState) -> SearchTree:
        return SearchTree(state)

    def policy(
        self,
        trees: Sequence[SearchTree],
        rng: np.random.Generator,
        *,
        temperature: float | Sequence[float] = 0.0,
        simulations: int | None = None,
    ) -> PolicyOutput:
        """Search every tree and choose a move in each (see :class:`~chess_envs.search.protocol.Search`)."""
        trees, temps = checked_trees(trees, SearchTree, temperature)
        if len({type(tree._native) for tree in trees}) > 1:
            raise ValueError("one search takes trees of one game")
        if not self._busy.acquire(blocking=False):
            raise InUseError(
                "in use: another thread is inside this MCTS's search; one MCTS searches for one thread at a time "
                "(give each thread its own MCTS)"
            )
        try:
            search = self._native_search(trees[0].state)
            budget = self.config.simulations if simulations is None else simulations
            try:
                return self._waves(search, trees, budget, temps, rng)
            except BaseException:
                search.abort()  # a failed evaluator or Ctrl-C: the trees and games go back as they were
                raise
        finally:
            self._busy.release()

    def _waves(
        self, search: Any, trees: list[SearchTree], budget: int, temps: np.ndarray, rng: np.random.Generator
    ) -> PolicyOutput:
        handles = [tree._native for tree in trees]
        planes = self._planes_for(trees[0].state, len(trees) * max(1, self.config.leaves_per_tree))
        rows = search.expand_roots(handles, trees[0].state.num_actions, planes)
        if rows:
            self._receive(search, planes, rows, self.root_evaluate)
        config = self.config
        if config.dirichlet_fraction > 0:
            for handle in handles:
                if handle.root_size > 1:
                    noise = rng.dirichlet([config.dirichlet_alpha] * handle.root_size)
                    search.mix_noise(handle, noise, config.dirichlet_fraction)
        for tree, handle in zip(trees, handles):  # after the noise, which would give the others a prior again
            if tree.only is not None and handle.root_size > 0:
                restrict_root(search, handle, tree.only)
        live = search.begin(handles, budget)
        budgets = [handle.budget for handle in handles]  # less what the mate probe cost
        if config.gumbel:
            for handle, is_live, left in zip(handles, live, budgets):
                if is_live:
                    search.start_gumbel(handle, rng.gumbel(size=handle.root_size), left, config.gumbel_considered)
        # The last collect() lets the trees and their games go: the answers are read before it, once
        # every live tree has spent its budget, so no other thread can move a game under them.
        output, expected, done = None, sum(budgets), 0
        while True:
            if output is None and done >= expected:
                output = self._output(search, trees, temps, rng)
            rows = search.collect(planes)
            if rows < 0:
                break
            assert output is None, "the search went on after every tree had spent its budget"
            if rows:
                self._receive(search, planes, rows, self.evaluate)
            done += search.take_simulations()
        self._simulations += done
        return output if output is not None else self._output(search, trees, temps, rng)

    def _output(
        self, search: Any, trees: list[SearchTree], temps: np.ndarray, rng: np.random.Generator
    ) -> PolicyOutput:
        """The chosen moves and root statistics, trees in order (random numbers drawn in that order)."""
        actions, visits, values, weights, offsets, action, root_values, scores = search.answers(
            [tree._native for tree in trees], [bool(t <= 0) for t in temps], self.config.gumbel
        )
        for i in np.flatnonzero(action < 0):  # sampled by visit counts, trees in order
            first = offsets[i]
            edge = first + sample_visits(visits[first : offsets[i + 1]], temps[i], rng)
            action[i] = actions[edge]
            scores[i] = values[edge] / visits[edge] if visits[edge] > 0 else root_values[i]
        pairs = list(pairwise(offsets.tolist()))
        return PolicyOutput(
            action,
            tuple(actions[a:b] for a, b in pairs),
            tuple(weights[a:b] for a, b in pairs),
            tuple(visits[a:b] for a, b in pairs),
            root_values,
            scores,
            tuple(trees),
        )

    def _native_search(self, state: GameState) -> Any:
        """The native search for the state's game, with the current config (cheap to build)."""
        return get_game(state.game_name).native_class("Search")(
            num_players=self.num_players,
            cache=self.cache,
            planes_size=int(np.prod(state.observation_shape)),
            num_actions=state.num_actions,
            **native_settings(self.config),
        )

    def _planes_for(self, state: GameState, rows: int) -> np.ndarray:
        """The wave buffer: at least ``rows`` positions of the state's planes, reused between searches."""
        shape = tuple(state.observation_shape)
        dtype = np.dtype(self.config.planes)
        planes = self._planes
        if planes is None or planes.shape[1:] != shape or len(planes) < rows or planes.dtype != dtype:
            planes = self._planes = np.empty((rows, *shape), dtype=dtype)
        return planes

    def _receive(self, search: Any, planes: np.ndarray, rows: int, evaluate: Evaluator) -> None:
        """Evaluate the wave's ``rows`` with ``evaluate`` and hand the outputs back."""
        logits, values = evaluate(planes[:rows])
        values = np.ascontiguousarray(values, dtype=np.float32).reshape(rows, -1)
        search.receive(np.ascontiguousarray(logits, dtype=np.float32), values)
        self._evaluations += rows
