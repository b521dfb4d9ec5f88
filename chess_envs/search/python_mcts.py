"""The search of :mod:`chess_envs.search.mcts` in pure Python, for games without a native core.

A game written in Python alone (any :class:`~chess_envs.core.GameState`, such as a toy game
registered by a user) is searched here with the same algorithm as the native games: batched PUCT
with virtual loss, one evaluator call per wave over every tree's leaves, an MCTS-solver, and a
Gumbel root search. Each :class:`PythonSearchTree` owns one game state and walks it with
``apply``/``undo``; :meth:`PythonMCTS.policy` is the same one call as :meth:`MCTS.policy
<chess_envs.search.mcts.MCTS.policy>`. The tests also use it as the executable reference of the
native search: given the same evaluator and random numbers, both give the same visit counts.

Values are vectors with one entry per seat, so one backup rule serves two players (negamax)
and more (max-n): an edge out of a node is scored from the perspective of that node's mover.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from chess_envs.core import GameState
from chess_envs.native import InUseError
from chess_envs.search.mate_probe import PLAYS_PER_SIMULATION, probe_root
from chess_envs.search.protocol import (
    Evaluator,
    PolicyOutput,
    checked_trees,
    child_after,
    quantize_planes,
    restricted_priors,
    root_statistics,
    sample_visits,
)
from chess_envs.search.settings import MCTSConfig

__all__ = ["EvaluationCache", "Node", "PythonMCTS", "PythonSearchTree"]


class EvaluationCache:
    """Network outputs of positions seen before, least recently used first out, bounded in bytes.

    An entry holds what a hit needs and no more: the logits of the legal moves and the value,
    under a 16-byte digest of the planes and the legal actions (never the planes themselves).
    Its size is counted as its arrays plus :attr:`OVERHEAD` for the key and the containers.
    """

    OVERHEAD = 400
    """bytes per entry besides its arrays (dict slot, key, tuple, two array headers), measured"""

    def __init__(self, megabytes: float) -> None:
        if not (megabytes >= 0 and math.isfinite(megabytes)):
            raise ValueError(f"cache_mb must be a finite number >= 0, got {megabytes}")
        self.capacity = int(megabytes * 1_000_000)
        self.bytes = 0
        self._entries: OrderedDict[bytes, tuple[np.ndarray, np.ndarray]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def key(self, planes: np.ndarray, actions: np.ndarray) -> bytes:
        """The entry's key (empty when the cache is off, so nothing is hashed for nothing)."""
        if not self.capacity:
            return b""
        digest = hashlib.blake2b(planes.tobytes(), digest_size=16)
        digest.update(actions.tobytes())
        return digest.digest()

    def get(self, key: bytes) -> tuple[np.ndarray, np.ndarray] | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: bytes, legal_logits: np.ndarray, value: np.ndarray) -> None:
        if self.capacity == 0 or key in self._entries:
            return
        entry = (legal_logits.astype(np.float32), value.astype(np.float32))
        self._entries[key] = entry
        self.bytes += self._size(entry)
        while self.bytes > self.capacity:
            _, old = self._entries.popitem(last=False)
            self.bytes -= self._size(old)

    def clear(self) -> None:
        self._entries.clear()
        self.bytes = 0

    def _size(self, entry: tuple[np.ndarray, np.ndarray]) -> int:
        return entry[0].nbytes + entry[1].nbytes + self.OVERHEAD


class Node:
    """A position reached in the tree: its legal actions, their priors and edge statistics."""

    __slots__ = (
        "actions",
        "priors",
        "logits",
        "visits",
        "values",
        "children",
        "player",
        "value",
        "terminal",
        "n",
        "proven",
        "depth",
    )

    def __init__(
        self, player: int, value: np.ndarray, actions: np.ndarray, logits: np.ndarray | None, terminal: bool
    ) -> None:
        self.player = player
        self.value = value  # per seat: network estimate, or the game's returns when terminal
        self.terminal = terminal
        self.actions = actions
        self.logits = logits
        if logits is not None and len(actions):
            shifted = np.exp(logits.astype(np.float64) - logits.max())
            self.priors = shifted / shifted.sum()
        else:
            self.priors = np.zeros(len(actions))
        self.visits = np.zeros(len(actions))
        self.values = np.zeros(len(actions))
        self.children: list[Node | None] = [None] * len(actions)
        self.n = 0
        # The exact value per seat once the game-theoretic result below this node is known.
        self.proven: np.ndarray | None = value if terminal else None
        self.depth = 0  # plies to the end of the game along the proof, once proven

    def q(self) -> np.ndarray:
        """Mean value of each child for this node's mover (0 where unvisited)."""
        return np.divide(self.values, self.visits, out=np.zeros_like(self.values), where=self.visits > 0)


class PythonSearchTree:
    """One game being searched: its state (at the root), the tree below it, and its Gumbel state."""

    def __init__(self, state: GameState) -> None:
        self._state = state
        state.enable_search_caches()
        self.root: Node | None = None
        self._gumbel: np.ndarray | None = None
        self._candidates: np.ndarray | None = None
        self._phase_visits = 0
        self._phase_target = 0.0
        self.forced: int | None = None
        """the forced win the last search's mate probe found at the root (its action), else None"""
        self._only: np.ndarray | None = None

    @property
    def state(self) -> GameState:
        """The game searched (the tree walks it; play moves with :meth:`advance`)."""
        return self._state

    @property
    def only(self) -> np.ndarray | None:
        """The root moves to search (None: all), as :attr:`chess_envs.search.mcts.SearchTree.only`."""
        return self._only

    @only.setter
    def only(self, actions: np.ndarray | None) -> None:
        self.root = None
        self._gumbel = self._candidates = self.forced = None
        self._only = None if actions is None else np.asarray(actions, dtype=np.int64)

    @property
    def node(self) -> Node:
        """The root node, once the search has expanded it (RuntimeError before)."""
        if self.root is None:
            raise RuntimeError("the tree has no root yet: search it first")
        return self.root

    def advance(self, action: int) -> None:
        """Play ``action`` and keep its subtree as the new root (tree reuse)."""
        child = None if self.root is None else child_after(self.root, action)
        self._state.apply(action)
        self.root = child
        self._gumbel = self._candidates = self.forced = self._only = None


class _Pending:
    __slots__ = ("tree", "path", "planes", "actions", "player", "key", "parent", "index")

    def __init__(self, tree, path, planes, actions, player, key, parent, index) -> None:
        self.tree, self.path, self.planes, self.actions = tree, path, planes, actions
        self.player, self.key, self.parent, self.index = player, key, parent, index


class PythonMCTS:
    """PUCT search over batches of :class:`PythonSearchTree` with one evaluator call per wave."""

    def __init__(self, evaluator: Evaluator, num_players: int, config: MCTSConfig | None = None) -> None:
        self.evaluate = evaluator
        self.num_players = num_players
        self.config = config or MCTSConfig()
        self.cache = EvaluationCache(self.config.cache_mb)
        self.network_evaluations = 0
        self.simulations_done = 0
        self.rng = np.random.default_rng()  # the generator of the call in progress
        self._busy = threading.Lock()

    def new_tree(self, state: GameState) -> PythonSearchTree:
        return PythonSearchTree(state)

    def policy(
        self,
        trees: Sequence[PythonSearchTree],
        rng: np.random.Generator,
        *,
        temperature: float | Sequence[float] = 0.0,
        simulations: int | None = None,
    ) -> PolicyOutput:
        """Search every tree and choose a move in each (see :class:`~chess_envs.search.protocol.Search`)."""
        trees, temps = checked_trees(trees, PythonSearchTree, temperature)
        if not self._busy.acquire(blocking=False):
            raise InUseError("in use: another thread is inside this PythonMCTS's search")
        try:
            self.rng = rng
            self._search(trees, self.config.simulations if simulations is None else simulations)
            chosen, weights, counts = [], [], []
            root_values, scores = np.zeros(len(trees), np.float32), np.zeros(len(trees), np.float32)
            for i, tree in enumerate(trees):
                root = tree.node
                weights.append(self._improved_policy(tree).astype(np.float32))
                action = self._choose(tree, float(temps[i]))
                root_values[i], scores[i] = root_statistics(root, int(np.flatnonzero(root.actions == action)[0]))
                if tree.forced is not None:  # a proven win for the mover
                    root_values[i] = scores[i] = 1.0
                chosen.append(action)
                counts.append(root.visits.copy())
            return PolicyOutput(
                np.array(chosen, dtype=np.int64),
                tuple(tree.node.actions for tree in trees),
                tuple(weights),
                tuple(counts),
                root_values,
                scores,
                tuple(trees),
            )
        finally:
            self._busy.release()

    # -- values ----------------------------------------------------------------------------

    def _seat_values(self, player: int, output: np.ndarray) -> np.ndarray:
        """Network values (mover first) as a vector indexed by seat."""
        if self.num_players == 2:
            v = float(output[0])
            return np.array([v, -v] if player == 0 else [-v, v])
        values = np.asarray(output, dtype=np.float64)
        if values.shape != (self.num_players,):
            raise ValueError(f"the evaluator must give {self.num_players} values a position, got {values.shape}")
        return np.roll(values, player)

    # -- the search ------------------------------------------------------------------------

    def _search(self, trees: list[PythonSearchTree], budget: int) -> None:
        """Run ``budget`` simulations in every tree."""
        self._expand_roots(trees)
        remaining = {}
        for tree in trees:
            tree.forced, root = None, tree.node
            if root.terminal or not len(root.actions):
                continue
            plays, depth = 0, self.config.mate_depth
            if depth and self.num_players == 2:
                tree.forced, _, plays = probe_root(tree.state, root.actions, root.priors, depth, budget)
            if tree.forced is None:
                remaining[id(tree)] = budget - plays // PLAYS_PER_SIMULATION
        live = [tree for tree in trees if id(tree) in remaining]
        for tree in live:
            if self.config.gumbel:
                self._start_gumbel(tree, remaining[id(tree)])
        while live:
            pending: list[_Pending] = []
            for tree in live:
                taken = self._collect(tree, min(self.config.leaves_per_tree, remaining[id(tree)]), pending)
                remaining[id(tree)] -= taken
            self._evaluate_pending(pending)
            live = [tree for tree in live if remaining[id(tree)] > 0]

    def _expand_roots(self, trees: list[PythonSearchTree]) -> None:
        pending = []
        for tree in trees:
            if tree.root is None:
                leaf = self._leaf(tree, [], None, -1)
                if isinstance(leaf, Node):
                    tree.root = leaf
                else:
                    pending.append(leaf)
        self._evaluate_pending(pending)
        if self.config.dirichlet_fraction > 0:
            for tree in trees:
                root = tree.node
                if len(root.actions) > 1:
                    noise = self.rng.dirichlet([self.config.dirichlet_alpha] * len(root.actions))
                    fraction = self.config.dirichlet_fraction
                    root.priors = (1 - fraction) * root.priors + fraction * noise
        for tree in trees:
            if tree.only is not None:
                weights = restricted_priors(tree.node.actions, tree.node.priors, tree.only)
                if weights is not None:
                    tree.node.priors = weights

    def _leaf(self, tree: PythonSearchTree, path: list, parent: Node | None, index: int) -> Node | _Pending:
        """A node for the tree's current state: built at once if terminal or cached, else pending."""
        state = tree.state
        player = state.current_player
        if state.is_terminal():
            return Node(player, state.returns().astype(np.float64), np.zeros(0, dtype=np.int64), None, True)
        planes = state.observation()
        if self.config.planes == "uint8":
            planes = quantize_planes(planes)
        actions = state.legal_actions()
        key = self.cache.key(planes, actions)
        cached = self.cache.get(key)
        if cached is not None:
            legal_logits, value = cached
            return Node(player, self._seat_values(player, value), actions, legal_logits, False)
        return _Pending(tree, path, planes, actions, player, key, parent, index)

    def _collect(self, tree: PythonSearchTree, count: int, pending: list[_Pending]) -> int:
        """Descend ``count`` times (fewer on a collision); returns the simulations started."""
        started = 0
        waiting: set[tuple[int, int]] = {(id(p.parent), p.index) for p in pending if p.tree is tree}
        vl = self.config.virtual_loss
        for _ in range(count):
            node = tree.node
            path: list[tuple[Node, int]] = []
            leaf: Node | _Pending | None
            state = tree.state
            while True:
                index = self._select(tree, node, is_root=not path)
                path.append((node, index))
                node.visits[index] += vl
                node.values[index] -= vl
                state.apply(int(node.actions[index]))
                child = node.children[index]
                if child is None or child.proven is not None:
                    break
                node = child
            parent, index = path[-1]
            if child is not None:  # a terminal or solved node already in the tree
                leaf = child
            elif (id(parent), index) in waiting:
                leaf = None
            else:
                leaf = self._leaf(tree, path, parent, index)
            for _ in path:
                state.undo()
            if leaf is None:  # the same leaf is already waiting for the network: stop this wave
                for visited, i in path:
                    visited.visits[i] -= vl
                    visited.values[i] += vl
                break
            started += 1
            if isinstance(leaf, Node):
                if child is None:
                    parent.children[index] = leaf
                self._backup(path, leaf.value if leaf.proven is None else leaf.proven)
            else:
                waiting.add((id(parent), index))
                pending.append(leaf)
        return started

    def _evaluate_pending(self, pending: list[_Pending]) -> None:
        if not pending:
            return
        logits, values = self.evaluate(np.stack([p.planes for p in pending]))
        self.network_evaluations += len(pending)
        for p, row_logits, row_value in zip(pending, logits, values):
            legal_logits = row_logits[p.actions]
            self.cache.put(p.key, legal_logits, row_value)
            node = Node(p.player, self._seat_values(p.player, row_value), p.actions, legal_logits, False)
            if p.parent is None:
                p.tree.root = node
            else:
                p.parent.children[p.index] = node
                self._backup(p.path, node.value)

    def _backup(self, path: list[tuple[Node, int]], value: np.ndarray) -> None:
        vl = self.config.virtual_loss
        for node, index in path:
            node.visits[index] += 1 - vl
            node.values[index] += value[node.player] + vl
            node.n += 1
        self.simulations_done += 1
        for node, index in reversed(path):
            if not self._solve(node, index):
                break

    @staticmethod
    def _solve(node: Node, index: int) -> bool:
        """Mark ``node`` proven when a child wins outright for its mover or every child is proven
        (an MCTS-solver step); returns whether it is proven, so the parent is tried next."""
        child = node.children[index]
        if node.proven is not None:
            return True
        if child is None or child.proven is None:
            return False
        if child.proven[node.player] >= 1.0:
            node.proven, node.depth = child.proven, child.depth + 1
            return True
        proven = [(c.proven, c.depth) for c in node.children if c is not None and c.proven is not None]
        if len(proven) == len(node.children):
            best = max(proven, key=lambda item: (item[0][node.player], -item[1]))
            node.proven, node.depth = best[0], max(depth for _, depth in proven) + 1
            return True
        return False

    # -- selection -------------------------------------------------------------------------

    def _select(self, tree: PythonSearchTree, node: Node, is_root: bool) -> int:
        if is_root and tree._candidates is not None:
            return self._gumbel_select(tree)
        config = self.config
        if not is_root:  # below the root a proven win is all there is to know; at the root a shorter one may exist
            for i, child in enumerate(node.children):
                if child is not None and child.proven is not None and child.proven[node.player] >= 1.0:
                    return i
        total = node.visits.sum()
        c = config.c_puct_init + math.log((1 + total + config.c_puct_base) / config.c_puct_base)
        if is_root and config.root_fpu is not None:
            unvisited = config.root_fpu
        else:
            parent_value = node.values.sum() / total if total > 0 else node.value[node.player]
            unvisited = parent_value - config.fpu_reduction
        q = np.where(node.visits > 0, node.values / np.maximum(node.visits, 1e-9), unvisited)
        u = c * node.priors * math.sqrt(max(total, 1.0)) / (1.0 + node.visits)
        score = q + u
        if is_root and (node.priors > 0).any():
            score[node.priors <= 0] = -np.inf  # a restricted root's other moves are never searched
        for i, child in enumerate(node.children):
            if child is not None and child.proven is not None and child.proven[node.player] <= -1.0:
                score[i] -= 1e6  # a proven loss is chosen only when nothing else is left
        return int(np.argmax(score))

    # -- Gumbel root search (Danihelka et al. 2022): sequential halving over sampled actions --

    def _start_gumbel(self, tree: PythonSearchTree, budget: int) -> None:
        root = tree.node
        gumbel = self.rng.gumbel(size=len(root.actions))
        considered = min(self.config.gumbel_considered, len(root.actions))
        scores = gumbel + np.log(np.maximum(root.priors, 1e-12))
        if (root.priors > 0).any():  # a restricted root's other moves are never candidates
            considered = min(considered, int((root.priors > 0).sum()))
            scores[root.priors <= 0] = -np.inf
        tree._gumbel = gumbel
        tree._candidates = np.argsort(-scores, kind="stable")[:considered]
        phases = max(1, math.ceil(math.log2(considered)))
        tree._phase_visits = max(1, budget // (phases * considered))  # visits per candidate per phase
        tree._phase_target = root.visits[tree._candidates].min() + tree._phase_visits

    def _sigma(self, node: Node, q: np.ndarray) -> np.ndarray:
        return (self.config.gumbel_c_visit + node.visits.max()) * self.config.gumbel_c_scale * q

    def _gumbel_select(self, tree: PythonSearchTree) -> int:
        root, candidates = tree.node, tree._candidates
        if candidates is None or tree._gumbel is None:
            raise RuntimeError("a Gumbel step on a tree whose Gumbel search has not started")
        visits = root.visits[candidates]
        if len(candidates) > 1 and visits.min() >= tree._phase_target:
            score = tree._gumbel + np.log(np.maximum(root.priors, 1e-12)) + self._sigma(root, root.q())
            keep = max(1, len(candidates) // 2)
            tree._candidates = candidates = candidates[np.argsort(-score[candidates])[:keep]]
            tree._phase_visits *= 2
            tree._phase_target = root.visits[candidates].min() + tree._phase_visits
            visits = root.visits[candidates]
        return int(candidates[np.argmin(visits)])

    # -- choosing the move -----------------------------------------------------------------

    def _improved_policy(self, tree: PythonSearchTree) -> np.ndarray:
        """The training target over the root's legal actions: visit shares (PUCT), or the
        softmax of logits plus the scaled completed Q-values (Gumbel)."""
        root = tree.node
        if tree.forced is not None:  # a proven win: all of the target on it
            return (root.actions == tree.forced).astype(np.float64)
        if self.config.gumbel and root.logits is not None:
            q = np.where(root.visits > 0, root.q(), root.value[root.player])
            score = np.log(np.maximum(root.priors, 1e-12)) + self._sigma(root, q)
            shifted = np.exp(score - score.max())
            return shifted / shifted.sum()
        total = root.visits.sum()
        return root.visits / total if total > 0 else np.full(len(root.actions), 1.0 / len(root.actions))

    def _choose(self, tree: PythonSearchTree, temperature: float = 0.0) -> int:
        """The move to play: Gumbel's pick, the most visited (temperature 0), or a sample ∝ N^(1/T)."""
        root = tree.node
        if tree.forced is not None:
            return tree.forced
        if self.config.gumbel and tree._candidates is not None:
            score = tree._gumbel + np.log(np.maximum(root.priors, 1e-12)) + self._sigma(root, root.q())
            return int(root.actions[tree._candidates[np.argmax(score[tree._candidates])]])
        wins = {
            i: c.depth
            for i, c in enumerate(root.children)
            if c is not None and c.proven is not None and c.proven[root.player] >= 1.0
        }
        if wins:  # the shortest proven win
            return int(root.actions[min(wins, key=lambda i: (wins[i], -root.visits[i]))])
        if temperature <= 0:  # the first of the most visited
            return int(root.actions[np.argmax(root.visits)])
        return int(root.actions[sample_visits(root.visits, temperature, self.rng)])
