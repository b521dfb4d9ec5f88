"""The AlphaZero agent (``alphazero:PATH?sims=N``): typed options, one spec parser, a search."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from chess_envs.agents.alphazero.evaluators import RUNTIMES, Evaluators, learned_as_teams, make_evaluator
from chess_envs.agents.alphazero.network import AlphaZeroNet, resolve_device
from chess_envs.agents.alphazero.openvino_net import PRECISIONS
from chess_envs.agents.base import AgentError, register_agent
from chess_envs.agents.four_player.material import MaterialEvaluator, evaluates
from chess_envs.agents.search_agent import SearchAgent
from chess_envs.core import GameState
from chess_envs.fields import arg, check_fields, from_text
from chess_envs.search.settings import SPEC_NAMES, MCTSConfig, spec_options

PLAY_SEARCH: dict[str, Any] = {"simulations": 200, "planes": "uint8"}
"""the search settings an agent plays with where the table's default is not the one (on purpose: 200
simulations a move, and the uint8 planes the network evaluators take)"""


@dataclass
class AlphaZeroOptions:
    """The agent's own options (spec names); its search settings are
    :class:`~chess_envs.search.settings.MCTSConfig`'s rows."""

    temperature: float = arg(0.0, "move temperature (0: the most visited move)", low=0, high=100)
    device: str = arg("auto", "torch device: auto, cpu, cuda[:N]")
    seed: int = arg(0, "seed of the search's random numbers", low=0)
    runtime: str = arg("auto", "what runs the network: auto (OpenVINO on a CPU where installed), torch, openvino",
                       choices=("auto", *RUNTIMES))  # fmt: skip
    precision: str = arg("f32", "OpenVINO's arithmetic: f32, or bf16 (faster where the CPU has it)", choices=PRECISIONS)
    policy_temp: float = arg(1.0, "the priors are softmax(logits / this)", low=0.1, high=10)
    material: float = arg(0.0, "four-player: share of the material evaluator's values blended in at leaves", low=0,
                          high=1)  # fmt: skip
    guide: str = arg("all", "four-player: root, the network reads the root alone and material every other node",
                     choices=("all", "root"))  # fmt: skip

    def __post_init__(self) -> None:
        check_fields(self)


class AlphaZeroAgent(SearchAgent):
    """PUCT search guided by a trained network; deterministic at temperature 0 (the default).

    Spec options (each declared once, with its doc and bounds): the search's rows of
    :class:`~chess_envs.search.settings.MCTSConfig` by their spec names (``sims``, ``cpuct``, ``fpu``,
    ``root_fpu``, ``leaves``, ``cache_mb``, ``gumbel``, ``mate``) and :class:`AlphaZeroOptions`
    (``temperature``, ``device``, ``seed``, ``runtime``, ``precision``, ``policy_temp``; four-player
    ``material`` and ``guide``). :meth:`reset` empties the cache.
    """

    evaluator: Evaluators | MaterialEvaluator

    def __init__(
        self,
        game: str,
        path: str | None = None,
        options: AlphaZeroOptions | None = None,
        search: MCTSConfig | None = None,
        network: AlphaZeroNet | None = None,
    ) -> None:
        self.name = "alphazero"
        options = options or AlphaZeroOptions()
        config = search or MCTSConfig(**PLAY_SEARCH)
        on_openvino = options.runtime == "openvino" or options.precision != "f32"
        self.device = resolve_device("cpu" if on_openvino and options.device == "auto" else options.device)
        guided = options.guide == "root"
        if guided:
            if not evaluates(game):
                raise ValueError(f"guide=root reads the leaves with the four-player material evaluator, not {game!r}'s")
            config = dataclasses.replace(config, cache_mb=0.0)  # the root's network reading is never a leaf's
        evaluator = make_evaluator(
            game, path, network, self.device, options.runtime, options.precision, options.material, options.policy_temp
        )
        self.network_evaluator = evaluator
        """what reads positions with the network (the root alone with ``guide=root``)"""
        if learned_as_teams(evaluator):  # its values are Teams results, not Free-For-All placements
            self.plays_only = {"mode": "teams"}
        leaf_evaluator = MaterialEvaluator() if guided else evaluator
        super().__init__(game, leaf_evaluator, config, options.temperature, options.seed, evaluator if guided else None)

    @staticmethod
    def read_options(texts: dict[str, str]) -> dict[str, Any]:
        """A spec's options (``sims=64&fpu=0&device=cpu``) as the constructor's ``options`` and
        ``search``: the search table's rows by their spec names, the rest :class:`AlphaZeroOptions`."""
        search = MCTSConfig(**{**PLAY_SEARCH, **spec_options(texts)})
        return {"options": from_text(AlphaZeroOptions, texts, also=SPEC_NAMES), "search": search}

    @classmethod
    def from_spec(
        cls, game: str, path: str | None = None, network: AlphaZeroNet | None = None, **options: object
    ) -> AlphaZeroAgent:
        """The agent of spec options given as keywords (text or values: ``sims=64``), for Python
        callers; ValueError names an unknown or bad one."""
        values = cls.read_options({name: "none" if value is None else str(value) for name, value in options.items()})
        return cls(game, path, network=network, **values)

    def reset(self, seed: int | None = None) -> None:
        """Empty the evaluation cache; with ``seed``, restart the search's random numbers from it."""
        super().reset(seed)
        self.search.cache.clear()

    def prepare(self, state: GameState) -> None:
        teams = state.teams is not None
        if not teams and self.plays_only:
            raise AgentError(
                "this network learned four-player Teams values (partners share one result) and does not play "
                "Free-For-All: set mode=teams, or play a Free-For-All network (@four_player)"
            )
        if teams != self.evaluator.teams:  # cached values were read for the other seating
            self.evaluator.teams = self.network_evaluator.teams = teams
            self.search.cache.clear()


register_agent("alphazero", AlphaZeroAgent.read_options)(AlphaZeroAgent)
