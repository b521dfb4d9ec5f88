"""What a search is given and gives, shared by the native search and the Python one: the evaluator
it calls, the :class:`Search` protocol with its one call (``policy``), the typed result of that call
(:class:`PolicyOutput`) and the helpers both searches share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

from chess_envs.core import GameState
from chess_envs.search.settings import MCTSConfig

Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""planes ``[B, C, H, W]`` (float32, or uint8 with ``MCTSConfig.planes="uint8"``) -> (logits
``[B, num_actions]``, values ``[B, value_size]``, mover first)."""


def quantize_planes(planes: np.ndarray) -> np.ndarray:
    """Planes in [0, 1] as uint8 steps of 1/255 (rounded half to even, clamped): exact for the 0/1
    planes, 1/255 steps for the counters. The replay buffer's format, and the search's with
    ``planes="uint8"``; ``x / 255`` in float32 gives the network its input back."""
    return np.clip(np.rint(planes * np.float32(255.0)), 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class PolicyOutput:
    """What one search call gives for a batch of ``B`` trees (mctx's ``PolicyOutput``, with the
    per-tree arrays over each root's legal actions, whose number ``A_i`` differs from tree to tree)."""

    action: np.ndarray
    """int64 ``[B]``: the move chosen in each tree"""
    legal_actions: tuple[np.ndarray, ...]
    """per tree, int64 ``[A_i]``: the root's legal actions, the order of the arrays below"""
    action_weights: tuple[np.ndarray, ...]
    """per tree, float32 ``[A_i]``: the improved policy (visit shares; Gumbel: softmax of logits plus
    scaled completed Q-values), the training target"""
    visit_counts: tuple[np.ndarray, ...]
    """per tree, float64 ``[A_i]``: the root's visits per action"""
    root_value: np.ndarray
    """float32 ``[B]``: the search's value of the root for its mover (visit-weighted mean of its
    edges' values; the network's value when nothing was visited)"""
    score: np.ndarray
    """float32 ``[B]``: the mover's expected outcome in [-1, 1] after the chosen move (its edge's mean
    value; the root's value when it was not visited)"""
    trees: tuple[Any, ...]
    """the searched trees (their ``root`` nodes hold the statistics; see :func:`most_visited_line`)"""


class Search(Protocol):
    """A batched tree search: :class:`~chess_envs.search.mcts.MCTS` (native games) and
    :class:`~chess_envs.search.python_mcts.PythonMCTS` (any game) both are one."""

    evaluate: Evaluator
    config: MCTSConfig
    cache: Any

    @property
    def network_evaluations(self) -> int: ...

    @property
    def simulations_done(self) -> int: ...

    def new_tree(self, state: GameState) -> Any:
        """A tree searching ``state`` (the tree walks the state; play moves with ``tree.advance``)."""
        ...

    def policy(
        self,
        trees: Sequence[Any],
        rng: np.random.Generator,
        *,
        temperature: float | Sequence[float] = 0.0,
        simulations: int | None = None,
    ) -> PolicyOutput:
        """Search every tree ``simulations`` (default: the config's) more times and choose a move in
        each: Gumbel's pick, the shortest proven win, the most visited (temperature 0) or a sample
        proportional to ``visits ** (1 / temperature)``. ``rng`` draws every random number (root
        noise, Gumbel noise, sampling). A finished game is a ValueError."""
        ...


def temperatures(temperature: float | Sequence[float], count: int) -> np.ndarray:
    """``temperature`` (one for all, or one per tree) as float64 ``[count]``; ValueError if negative."""
    values = np.asarray(temperature, dtype=np.float64)
    if values.ndim > 1 or (values.ndim == 1 and len(values) != count):
        raise ValueError(f"temperature must be a number or one per tree ({count}), got shape {values.shape}")
    values = np.broadcast_to(values, (count,))
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"temperatures must be finite and >= 0, got {values.tolist()}")
    return values


def checked_trees(trees: Sequence[Any], kind: type, temperature: float | Sequence[float]) -> tuple[list, np.ndarray]:
    """``trees`` as a list and their temperatures (:func:`temperatures`), once every tree is a
    ``kind`` of a game not over: ValueError (empty, finished) or TypeError (another kind) if not."""
    trees = list(trees)
    if not trees:
        raise ValueError("policy() needs at least one tree")
    if not all(isinstance(tree, kind) for tree in trees):
        raise TypeError(f"policy() takes the {kind.__name__}s of its search's new_tree")
    temps = temperatures(temperature, len(trees))
    for tree in trees:
        check_not_over(tree.state)
    return trees, temps


def check_not_over(state: GameState) -> None:
    """ValueError when ``state``'s game is over: a finished game has no move to choose."""
    outcome = state.outcome()
    if outcome is not None:
        raise ValueError(f"the game is over ({outcome.termination.value}): there is no move to choose")


def restricted_priors(actions: np.ndarray, priors: np.ndarray, only: np.ndarray) -> np.ndarray | None:
    """The root priors (n,) with the moves not in ``only`` zeroed and the rest renormalised (evenly
    where their priors are all zero), or None when nothing changes (all or none of them legal).
    Both searches never search a root move of zero prior, so the simulations go to ``only``."""
    keep = np.isin(actions, only)
    if not keep.any() or keep.all():
        return None
    weights = np.where(keep, priors, 0.0)
    return weights / weights.sum() if weights.sum() > 0 else keep / keep.sum()


def sample_visits(visits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """An index drawn with probability proportional to ``visits ** (1 / temperature)`` (uniform
    when nothing was visited, as at a root reached by ``advance``)."""
    weights = visits ** (1.0 / temperature)
    if not weights.sum() > 0:
        weights = np.ones_like(weights)
    return int(rng.choice(len(visits), p=weights / weights.sum()))


def root_statistics(node: Any, index: int) -> tuple[float, float]:
    """(root value, score of the action at ``index``) for the root ``node``'s mover."""
    visits, values = node.visits, node.values
    total = visits.sum()
    root = float(values.sum() / total) if total > 0 else float(node.value[node.player])  # unvisited: the network's
    score = float(values[index] / visits[index]) if visits[index] > 0 else root
    return root, score


def child_after(node: Any, action: int) -> Any:
    """The child of ``node`` (a node view) that ``action`` leads to: None when it was never
    expanded, or when ``action`` is not a move there."""
    index = np.flatnonzero(node.actions == action)
    return node.children[int(index[0])] if len(index) else None


def most_visited_line(node: Any, limit: int = 64) -> list[int]:
    """The most visited line from ``node`` (a node view, or None), as actions (at most ``limit``)."""
    line = cast(list[int], [])
    while node is not None and len(node.actions) and node.visits.max() > 0 and len(line) < limit:
        index = int(np.argmax(node.visits))
        line.append(int(node.actions[index]))
        node = node.children[index]
    return line
