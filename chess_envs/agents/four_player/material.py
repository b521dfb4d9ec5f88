"""A hand-made evaluator for four-player chess and the search agent that uses it (``material-mcts``).

Before a network has learned anything, max-n search needs values that mean something. This
evaluator reads each seat's points and live material from the observation planes, so it scores
the search's batched leaves the way a network would, and gives every legal move the same prior.
Free-For-All: a seat's score is ``points + material_weight * material`` and its value is a soft
placement, the mean over the other seats of ``tanh((its score - theirs) / scale)`` (so a clear
leader gets near +1, like the first place's return). Teams: ``tanh((own team's material - the
other team's) / scale)``.

    agent = make_agent("material-mcts?sims=400", "four_player")
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from chess_envs.agents.base import register_agent
from chess_envs.agents.search_agent import SearchAgent
from chess_envs.core import GameState
from chess_envs.fields import arg, from_text
from chess_envs.four_player.state import FourPlayerState
from chess_envs.registry import get_game
from chess_envs.search.settings import SPEC_NAMES, MCTSConfig, spec_options

PIECE_VALUES = np.array([1.0, 3.0, 5.0, 5.0, 9.0, 0.0], dtype=np.float32)
"""Pawn, knight, bishop, rook, queen, king: what capturing each scores in four-player chess."""

PLANES_PER_STEP = 25
META_PLANES = 23
POINTS_SCALE = 200.0
"""A points plane holds ``min(points, 200) / 200``."""


class MaterialEvaluator:
    """Planes ``[B, C, 14, 14]`` of four-player positions (float32, or uint8 scaled by 255) ->
    (uniform logits ``[B, num_actions]``, values ``[B, 4]`` per relative seat)."""

    def __init__(self, material_weight: float = 0.5, scale: float = 10.0, teams: bool = False) -> None:
        if scale <= 0 or material_weight < 0:
            raise ValueError(f"scale must be > 0 and material_weight >= 0, got {scale} and {material_weight}")
        self.material_weight, self.scale, self.teams = material_weight, scale, teams
        self.seconds = 0.0
        """time spent evaluating, as the network evaluator counts it"""
        self._logits = np.zeros((0, FourPlayerState.num_actions), dtype=np.float32)

    def seat_scores(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(points, live material) per relative seat, ``[B, 4]`` each, read from the planes."""
        unit = 255.0 if planes.dtype == np.uint8 else 1.0
        meta = planes.shape[1] - META_PLANES
        if meta < PLANES_PER_STEP or meta % PLANES_PER_STEP:
            raise ValueError(f"not four-player planes: {planes.shape[1]} planes")
        pieces = planes[:, :24].reshape(len(planes), 4, 6, -1).sum(axis=3, dtype=np.float32) / unit
        material = pieces @ PIECE_VALUES
        points = planes[:, meta + 15 : meta + 19, 0, 0].astype(np.float32) * (POINTS_SCALE / unit)
        return points, material

    def values(self, planes: np.ndarray) -> np.ndarray:
        """The value of each relative seat, ``[B, 4]`` in [-1, 1]."""
        points, material = self.seat_scores(planes)
        if self.teams:
            team = material[:, [0, 1]] + material[:, [2, 3]]
            lead = np.tanh((team[:, 0] - team[:, 1]) / self.scale)
            return np.stack([lead, -lead, lead, -lead], axis=1).astype(np.float32)
        score = points + self.material_weight * material
        differences = np.tanh((score[:, :, None] - score[:, None, :]) / self.scale)
        return (differences.sum(axis=2) / 3.0).astype(np.float32)

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        if len(self._logits) < len(planes):
            self._logits = np.zeros((len(planes), FourPlayerState.num_actions), dtype=np.float32)
        values = self.values(planes)
        self.seconds += time.perf_counter() - start
        return self._logits[: len(planes)], values


class NetworkLike(Protocol):
    """A network evaluator that reads four-player values for Teams when told (``teams``)."""

    teams: bool

    @property
    def seconds(self) -> float:
        """wall time spent in calls so far"""

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


class BlendedEvaluator:
    """A network's logits with its values blended with the material evaluator's at every leaf:
    ``(1 - weight) x network + weight x material``, ``[B, 4]`` per relative seat. The hand-made
    evaluator sees the material a shallow search is about to win or lose, which a small network's
    value head reads only roughly (AlphaGo mixed its value network with rollouts the same way)."""

    def __init__(self, network: NetworkLike, weight: float) -> None:
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"the material weight must be in [0, 1], got {weight}")
        self.network, self.weight, self.material = network, weight, MaterialEvaluator()

    @property
    def seconds(self) -> float:
        """time spent evaluating, both evaluators together"""
        return self.network.seconds + self.material.seconds

    @property
    def teams(self) -> bool:
        return self.material.teams

    @teams.setter
    def teams(self, teams: bool) -> None:
        """Both read the position as Teams (the network's values as its team's lead)."""
        self.material.teams = teams
        self.network.teams = teams

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = self.network(planes)
        start = time.perf_counter()
        blended = (1.0 - self.weight) * values + self.weight * self.material.values(planes)
        self.material.seconds += time.perf_counter() - start
        return logits, blended.astype(np.float32, copy=False)


def evaluates(game: str) -> bool:
    """Whether :class:`MaterialEvaluator` reads ``game``'s planes (four-player chess's layout)."""
    return get_game(game).state_class() is FourPlayerState


PLAY_SEARCH: dict[str, Any] = {"simulations": 200, "cache_mb": 0.0}
"""the search settings material-mcts plays with where the table's default is not the one: 200
simulations, and no cache (its values cost less than a lookup)"""


@dataclass
class MaterialOptions:
    """``material-mcts``'s own options (its ``sims`` is the search table's)."""

    material_weight: float = arg(0.5, "a seat's score is its points plus this times its material", low=0, high=100)
    scale: float = arg(10.0, "a score lead of this many points is a value of tanh(1)", low=1e-3, high=1e6)
    temperature: float = arg(0.0, "move temperature (0: the most visited move)", low=0, high=100)
    seed: int = arg(0, "seed of the search's random numbers", low=0)


class MaterialSearchAgent(SearchAgent):
    """Max-n search over four-player chess guided by :class:`MaterialEvaluator`, no network: a
    baseline above greedy and the teacher a four-player network first learns from. Spec options:
    the search table's (``sims``: default 200; no cache by default, its values are cheap) and
    :class:`MaterialOptions`."""

    evaluator: MaterialEvaluator

    def __init__(
        self,
        game: str,
        path: str | None = None,
        options: MaterialOptions | None = None,
        search: MCTSConfig | None = None,
    ) -> None:
        if not evaluates(game):
            raise ValueError(f"material-mcts reads four-player planes; it does not play {game!r}")
        if path is not None:
            raise ValueError("material-mcts takes no path")
        self.name = "material-mcts"
        options = options or MaterialOptions()
        evaluator = MaterialEvaluator(options.material_weight, options.scale)
        super().__init__(game, evaluator, search or MCTSConfig(**PLAY_SEARCH), options.temperature, options.seed)

    @staticmethod
    def read_options(texts: dict[str, str]) -> dict[str, Any]:
        """A spec's options as the constructor's ``options`` and ``search`` (the search table's rows)."""
        search = MCTSConfig(**{**PLAY_SEARCH, **spec_options(texts)})
        return {"options": from_text(MaterialOptions, texts, also=SPEC_NAMES), "search": search}

    @classmethod
    def from_spec(cls, game: str, **options: object) -> MaterialSearchAgent:
        """The agent of spec options given as keywords (``sims=400``), for Python callers."""
        return cls(game, **cls.read_options({name: str(value) for name, value in options.items()}))

    def prepare(self, state: GameState) -> None:
        self.evaluator.teams = state.teams is not None


register_agent("material-mcts", MaterialSearchAgent.read_options)(MaterialSearchAgent)
