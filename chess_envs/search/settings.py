"""The search's settings, each declared once: :class:`MCTSConfig`'s fields are the table (type,
default, bounds, one-line doc, the agent spec's name for it, whether the native search takes it).

Everything else is derived from this table: the native search is given the ``native`` rows by name
(``src/native/search.hpp`` declares the same rows for C++, ``Config::settings``, and
``tests/search/test_settings.py`` compares the two), the AlphaZero agent's spec options are the rows
with a ``spec`` name (:func:`spec_options`), and the AlphaZero trainer's flags are this class as its
``search`` section (``--simulations``, ``--fpu-reduction``, ...), with its own defaults declared there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from chess_envs.fields import arg, check_fields, parse_value


@dataclass
class MCTSConfig:
    """Search settings; the defaults are AlphaZero's where it published them."""

    # fmt: off
    simulations: int = arg(100, "simulations per move and tree", low=1, high=1_000_000, spec="sims")
    c_puct_init: float = arg(1.25, "PUCT's c(s) = c_init + log((1 + N + c_base) / c_base)", low=0, high=100,
                             native=True, spec="cpuct")
    c_puct_base: float = arg(19652.0, "c_base of PUCT's exploration c(s)", low=1, high=1e9, native=True)
    dirichlet_alpha: float = arg(0.3, "root noise concentration (AlphaZero: 0.3 chess; more for fewer moves)", above=0)
    dirichlet_fraction: float = arg(0.0, "share of the root prior replaced by Dirichlet noise", low=0, high=1)
    fpu_reduction: float = arg(0.25, "first-play urgency: an unvisited child scores its parent's value less this",
                               low=-2, high=2, native=True, spec="fpu")
    root_fpu: float | None = arg(1.0, "what an unvisited root child scores (1: a win); none: as below the root",
                                 low=-1, high=1, native=True, spec="root_fpu")
    virtual_loss: float = arg(1.0, "taken off a path's value while its leaf waits", low=0, high=100, native=True)
    leaves_per_tree: int = arg(8, "in-flight simulations per tree per batched evaluation", low=1, high=4_096,
                               native=True, spec="leaves")
    cache_mb: float = arg(256.0, "MB of network outputs kept for positions seen again (0: no cache)", low=0,
                          high=65_536, spec="cache_mb")
    gumbel: bool = arg(False, "root action by Gumbel sequential halving (small budgets)", spec="gumbel")
    gumbel_considered: int = arg(16, "actions the Gumbel search considers at the root", low=1, high=4_096)
    gumbel_c_visit: float = arg(50.0, "Gumbel's c_visit of the completed-Q scale", low=0, high=1e6, native=True)
    gumbel_c_scale: float = arg(1.0, "Gumbel's c_scale of the completed-Q scale", low=0, high=1e3, native=True)
    mate_depth: int = arg(3, "two-player games: forced wins within this many moves are searched for first and "
                          "played (0: not); it costs simulations", low=0, high=5, native=True, spec="mate")
    threads: int = arg(1, "trees the native search walks in parallel in a wave (results as with 1)", low=1,
                       high=256, native=True)
    planes: str = arg("float32", "what the evaluator is given: float32, or uint8 planes (1/255 steps)",
                      choices=("float32", "uint8"))
    # fmt: on

    def __post_init__(self) -> None:
        check_fields(self)


SETTINGS: dict[str, dataclasses.Field] = {item.name: item for item in dataclasses.fields(MCTSConfig)}
"""the table: setting name -> its field (``.default``, ``.type``, ``.metadata``: help, bounds, spec, native)"""

SPEC_NAMES: dict[str, str] = {item.metadata["spec"]: name for name, item in SETTINGS.items() if item.metadata["spec"]}
"""an agent spec's option name -> the setting it sets (``sims`` -> ``simulations``)"""


def native_settings(config: MCTSConfig) -> dict[str, Any]:
    """The settings the native search takes, by name (its ``Search(..., **settings)``)."""
    return {name: getattr(config, name) for name, item in SETTINGS.items() if item.metadata["native"]}


def spec_options(options: dict[str, str]) -> dict[str, Any]:
    """The search settings among an agent spec's ``options`` (``sims=200&fpu=0``) as ``{setting:
    value}``, each read and checked by its row (a ValueError names the option), and taken out of
    ``options``."""
    found = {}
    for key in [key for key in options if key in SPEC_NAMES]:
        found[SPEC_NAMES[key]] = parse_value(SETTINGS[SPEC_NAMES[key]], options.pop(key), f"option {key}")
    return found
