"""Batched PUCT Monte-Carlo tree search over many games at once, and a Gumbel root search.

Each :class:`SearchTree` owns one game state. A call to :meth:`MCTS.search` runs ``simulations``
simulations in every tree: in each wave it collects up to ``leaves_per_tree`` leaves per tree
(virtual loss spreads them over the tree), evaluates the leaves of all trees in ONE batched call
of the evaluator, then backs the values up. Values are vectors with one entry per seat, so one
backup rule serves two players (negamax) and more (max-n).

For the games with a native core the trees, selection, backup, MCTS-solver and Gumbel halving run
in C++ (``src/native/search.hpp``): Python only hands the wave's planes, gathered natively into
one contiguous buffer, to the evaluator and the outputs back. Other games (any
:class:`~chess_envs.core.GameState`) run the same algorithm in Python
(:mod:`agents.alphazero.reference_mcts`), which the tests keep as the reference: both give the
same visit counts for the same evaluator and random numbers.

Safety: a tree remembers its root position, so a game moved outside :meth:`SearchTree.advance` is
searched again from where it is (and :meth:`MCTS.choose` refuses to answer for a stale search);
while :meth:`MCTS.search` runs, its trees and their games refuse moves from elsewhere, and a
second thread calling the same MCTS is refused (:class:`~chess_envs.InUseError`).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from agents.alphazero.mcts_config import Evaluator, MCTSConfig
from agents.alphazero.reference_mcts import EvaluationCache, Node, ReferenceMCTS
from chess_envs.core import GameState
from chess_envs.native import InUseError, NativeState, core

__all__ = ["MCTS", "Evaluator", "MCTSConfig", "SearchTree"]

_NATIVE = {
    core.ChessGame: (core.ChessSearchTree, core.ChessSearch),
    core.LosAlamosGame: (core.LosAlamosSearchTree, core.LosAlamosSearch),
    core.FourPlayerGame: (core.FourPlayerSearchTree, core.FourPlayerSearch),
}
"""Native game class -> (its search tree class, its search class)."""


class NativeNode:
    """A snapshot of a node of a native tree, with the reference :class:`Node`'s attributes."""

    def __init__(self, tree: Any, index: int, num_players: int) -> None:
        fields = tree.node(index)
        self.player, self.terminal, proven, self.depth, self.n, value, proof = fields[:7]
        actions, priors, visits, values, children = fields[7:12]
        self.value = value[:num_players]
        self.proven = proof[:num_players] if proven else None
        self.actions, self.priors, self.visits, self.values = actions, priors, visits, values
        self._tree, self._children, self._num_players = tree, children, num_players

    @property
    def children(self) -> list[NativeNode | None]:
        return [NativeNode(self._tree, int(c), self._num_players) if c >= 0 else None for c in self._children]

    def q(self) -> np.ndarray:
        """Mean value of each child for this node's mover (0 where unvisited)."""
        return np.divide(self.values, self.visits, out=np.zeros_like(self.values), where=self.visits > 0)


class SearchTree:
    """One game being searched: its state (at the root) and the reusable tree below it."""

    def __init__(self, state: GameState) -> None:
        self._state = state
        state.enable_search_caches()
        native = _NATIVE.get(type(state._game)) if isinstance(state, NativeState) else None
        self._native = native[0](state._game) if native else None
        self._root: Node | None = None
        # The reference search's Gumbel state (the native tree keeps its own).
        self._gumbel: np.ndarray | None = None
        self._candidates: np.ndarray | None = None
        self._phase_visits = 0
        self._phase_target = 0.0

    @property
    def state(self) -> GameState:
        """The game searched (the tree walks it; play moves with :meth:`advance`)."""
        return self._state

    @property
    def root(self) -> Any:
        """The root node (``None`` before the first search): a :class:`Node`, or a
        :class:`NativeNode` snapshot for native games."""
        if self._native is None:
            return self._root
        index = self._native.root
        return NativeNode(self._native, index, self.state.num_players) if index >= 0 else None

    @root.setter
    def root(self, node: Node | None) -> None:
        if self._native is not None:
            raise AttributeError("the root of a native tree is set by the search")
        self._root = node

    def visit_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions, root visit counts)."""
        if self._native is not None:
            return self._native.root_visits()
        if self._root is None:
            raise RuntimeError("search() has not run on this tree")
        return self._root.actions, self._root.visits.copy()

    def advance(self, action: int) -> None:
        """Play ``action`` and keep its subtree as the new root (tree reuse)."""
        if self._native is not None:
            self.state.apply(action)
            self._native.reroot(int(action))
            return
        child = None
        if self._root is not None:
            index = np.flatnonzero(self._root.actions == action)
            if len(index):
                child = self._root.children[int(index[0])]
        self.state.apply(action)
        self._root = child
        self._gumbel = self._candidates = None


class _Caches:
    """The native evaluation cache and the reference search's, as one (``len``, ``bytes``, ``clear``)."""

    def __init__(self, native: Any, reference: EvaluationCache) -> None:
        self.native, self.reference = native, reference

    def __len__(self) -> int:
        return len(self.native) + len(self.reference)

    @property
    def bytes(self) -> int:
        return self.native.bytes + self.reference.bytes

    def clear(self) -> None:
        self.native.clear()
        self.reference.clear()


class MCTS:
    """PUCT search over batches of trees with one network call per wave."""

    def __init__(
        self,
        evaluator: Evaluator,
        num_players: int,
        config: MCTSConfig | None = None,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.evaluate = evaluator
        self.num_players = num_players
        self.config = config or MCTSConfig()
        self.rng = rng or np.random.default_rng()
        self._reference = ReferenceMCTS(evaluator, num_players, self.config, self.rng)
        self.cache = _Caches(core.EvaluationCache(self.config.cache_mb), self._reference.cache)
        self._evaluations = 0
        self._simulations = 0
        self._searches: dict[type, Any] = {}
        self._planes: np.ndarray | None = None
        self._busy = threading.Lock()

    @property
    def network_evaluations(self) -> int:
        """Positions the evaluator was given so far."""
        return self._evaluations + self._reference.network_evaluations

    @property
    def simulations_done(self) -> int:
        return self._simulations + self._reference.simulations_done

    def search(self, trees: list[SearchTree], simulations: int | None = None) -> None:
        """Run ``simulations`` (default: the config's) simulations in every tree."""
        if not trees:
            return
        if not self._busy.acquire(blocking=False):
            raise InUseError(
                "in use: another thread is inside this MCTS's search; one MCTS searches for one thread at a time "
                "(give each thread its own MCTS)"
            )
        try:
            self._search(trees, self.config.simulations if simulations is None else simulations)
        finally:
            self._busy.release()

    def _search(self, trees: list[SearchTree], budget: int) -> None:
        kinds = {type(tree._native) for tree in trees}
        if len(kinds) > 1:
            raise ValueError("one search takes trees of one game (and all native or all Python)")
        if trees[0]._native is None:
            self._synced_reference().search(trees, budget)
            return
        search = self._native_search(trees[0].state)
        try:
            self._waves(search, trees, budget)
        except BaseException:
            search.abort()  # a failed evaluator or Ctrl-C: the trees and games go back as they were
            raise
        self._simulations += search.take_simulations()

    def _waves(self, search: Any, trees: list[SearchTree], budget: int) -> None:
        handles = [tree._native for tree in trees]
        planes = self._planes_for(trees[0].state, len(trees) * max(1, self.config.leaves_per_tree))
        rows = search.expand_roots(handles, trees[0].state.num_actions, planes)
        if rows:
            self._receive(search, planes, rows)
        config = self.config
        if config.dirichlet_fraction > 0:
            for handle in handles:
                if handle.root_size > 1:
                    noise = self.rng.dirichlet([config.dirichlet_alpha] * handle.root_size)
                    search.mix_noise(handle, noise, config.dirichlet_fraction)
        live = search.begin(handles, budget)
        if config.gumbel:
            for handle, is_live in zip(handles, live):
                if is_live:
                    noise = self.rng.gumbel(size=handle.root_size)
                    search.start_gumbel(handle, noise, budget, config.gumbel_considered)
        while (rows := search.collect(planes)) >= 0:
            if rows:
                self._receive(search, planes, rows)

    def _synced_reference(self) -> ReferenceMCTS:
        """The Python search, with this search's current evaluator, settings and generator."""
        reference = self._reference
        reference.evaluate, reference.config, reference.rng = self.evaluate, self.config, self.rng
        return reference

    def _native_search(self, state: GameState) -> Any:
        """The native search for the state's game, with the current config (cheap to build)."""
        config = self.config
        search = _NATIVE[type(state._game)][1](
            num_players=self.num_players,
            cache=self.cache.native,
            planes_size=int(np.prod(state.observation_shape)),
            num_actions=state.num_actions,
            c_puct_init=config.c_puct_init,
            c_puct_base=config.c_puct_base,
            fpu_reduction=config.fpu_reduction,
            has_root_fpu=config.root_fpu is not None,
            root_fpu=config.root_fpu if config.root_fpu is not None else 0.0,
            virtual_loss=config.virtual_loss,
            leaves_per_tree=config.leaves_per_tree,
            gumbel_c_visit=config.gumbel_c_visit,
            gumbel_c_scale=config.gumbel_c_scale,
            threads=config.threads,
        )
        self._searches[type(state._game)] = search
        return search

    def _planes_for(self, state: GameState, rows: int) -> np.ndarray:
        """The wave buffer: at least ``rows`` positions of the state's planes, reused between searches."""
        shape = tuple(state.observation_shape)
        dtype = np.dtype(self.config.planes)
        planes = self._planes
        if planes is None or planes.shape[1:] != shape or len(planes) < rows or planes.dtype != dtype:
            self._planes = np.empty((rows, *shape), dtype=dtype)
        return self._planes

    def _receive(self, search: Any, planes: np.ndarray, rows: int) -> None:
        logits, values = self.evaluate(planes[:rows])
        values = np.ascontiguousarray(values, dtype=np.float32).reshape(rows, -1)
        search.receive(np.ascontiguousarray(logits, dtype=np.float32), values)
        self._evaluations += rows

    def _searched(self, tree: SearchTree) -> Any:
        """The native search that answers questions about ``tree``'s last search."""
        if tree.root is None:
            raise RuntimeError("search() has not run on this tree")
        return self._searches.get(type(tree.state._game)) or self._native_search(tree.state)

    @staticmethod
    def _check_not_over(tree: SearchTree, what: str) -> None:
        outcome = tree.state.outcome()
        if outcome is not None:
            raise ValueError(f"the game is over ({outcome.termination.value}): there is no {what} to choose")

    def improved_policy(self, tree: SearchTree) -> np.ndarray:
        """The training target over the root's legal actions: visit shares (PUCT), or the
        softmax of logits plus the scaled completed Q-values (Gumbel)."""
        self._check_not_over(tree, "policy")
        if tree._native is None:
            return self._synced_reference().improved_policy(tree)
        return self._searched(tree).improved_policy(tree._native, self.config.gumbel)

    def choose(self, tree: SearchTree, temperature: float = 0.0) -> int:
        """The move to play: Gumbel's pick, the shortest proven win, the most visited
        (temperature 0), or a sample ∝ N^(1/T)."""
        self._check_not_over(tree, "move")
        if tree._native is None:
            return self._synced_reference().choose(tree, temperature)
        action = self._searched(tree).choose(tree._native, temperature <= 0)
        if action >= 0:
            return int(action)
        actions, visits = tree.visit_counts()
        weights = visits ** (1.0 / temperature)
        if not weights.sum() > 0:  # no visits yet (a root reached by advance): all moves alike
            weights = np.ones_like(weights)
        return int(actions[self.rng.choice(len(visits), p=weights / weights.sum())])
