"""The search's settings and the evaluator it calls, shared by the native and the reference search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""planes ``[B, C, H, W]`` -> (logits ``[B, num_actions]``, values ``[B, value_size]``, mover first)."""


@dataclass
class MCTSConfig:
    """Search settings; the defaults are AlphaZero's where it published them."""

    simulations: int = 100
    """simulations per move and tree"""
    c_puct_init: float = 1.25
    """exploration constant c(s) = c_init + log((1 + N + c_base) / c_base)"""
    c_puct_base: float = 19652.0
    dirichlet_alpha: float = 0.3
    """root noise concentration (AlphaZero: 0.3 chess; larger for fewer moves)"""
    dirichlet_fraction: float = 0.0
    """share of root prior replaced by Dirichlet noise (0.25 in self-play, 0 to play)"""
    fpu_reduction: float = 0.25
    """first-play urgency: an unvisited child scores the parent's value minus this"""
    root_fpu: float | None = 1.0
    """unvisited root children score this (1.0: every root move is tried once); None: as below the root"""
    virtual_loss: float = 1.0
    leaves_per_tree: int = 8
    """in-flight simulations per tree per batched evaluation"""
    cache_mb: float = 256.0
    """memory for network outputs kept for positions seen again (0: no cache); see EvaluationCache"""
    gumbel: bool = False
    """root action by Gumbel sequential halving (for small simulation budgets)"""
    gumbel_considered: int = 16
    """actions considered at the root by the Gumbel search"""
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
