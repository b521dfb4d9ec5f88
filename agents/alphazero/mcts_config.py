"""The search's settings and the evaluator it calls, shared by the native and the reference search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MAX_THREADS = 256
"""the most threads a native search descends trees with"""

Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""planes ``[B, C, H, W]`` (float32, or uint8 with ``MCTSConfig.planes="uint8"``) -> (logits
``[B, num_actions]``, values ``[B, value_size]``, mover first)."""


def quantize_planes(planes: np.ndarray) -> np.ndarray:
    """Planes in [0, 1] as uint8 steps of 1/255 (rounded half to even, clamped): exact for the 0/1
    planes, 1/255 steps for the counters. The replay buffer's format, and the search's with
    ``planes="uint8"``; ``x / 255`` in float32 gives the network its input back."""
    return np.clip(np.rint(planes * np.float32(255.0)), 0, 255).astype(np.uint8)


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
    """unvisited root children score this (1.0: as much as a win, so most root moves get tried, though a
    favourite's value plus exploration bonus can still outbid it); None: as below the root"""
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
    threads: int = 1
    """trees the native search descends in parallel in each wave (same results as 1: each tree is
    walked by one thread, its leaves queued in order); pays off when the search, not the network,
    is the bottleneck, e.g. with a GPU. The Python reference search ignores it."""
    planes: str = "float32"
    """what the evaluator is given: float32 planes, or ``uint8`` (:func:`quantize_planes`: a
    quarter of the bytes to write and to move to a GPU; what self-play and the agent use)"""

    def __post_init__(self) -> None:
        if not 1 <= self.threads <= MAX_THREADS:
            raise ValueError(f"threads must be in [1, {MAX_THREADS}], got {self.threads}")
        if self.planes not in ("float32", "uint8"):
            raise ValueError(f"planes must be float32 or uint8, got {self.planes!r}")
