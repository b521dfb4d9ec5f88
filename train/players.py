"""Where an iteration's self-play games come from: this process (here), or Ray actors
(:mod:`train.ray_backend`), behind one interface, so both run the loop of ``train/alphazero.py``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from agents.alphazero.agent import NetworkEvaluator
from agents.alphazero.material import MaterialEvaluator
from train.alphazero_config import AlphaZeroConfig, self_play_search
from train.learner import Learner
from train.selfplay import FinishedGame, SelfPlay


@dataclass
class Played:
    """What one iteration of self-play handed back."""

    games: list[FinishedGame]
    evaluations: int
    """positions the network evaluated"""
    seconds: float
    """wall time of the self-play"""
    network_seconds: float
    """of which inside the network (summed over workers)"""
    positions: int
    """positions played (moves times games in flight)"""
    restarts: int = 0
    """workers that died and were restarted so far"""


class Players(Protocol):
    def play(self, moves: int) -> Played:
        """``moves`` moves in every game in flight, with the learner's current weights."""

    def close(self) -> None:
        """Let the workers go."""


def teaching(config: AlphaZeroConfig, counters: dict) -> bool:
    """Whether the teacher still plays self-play: fewer than ``teacher_games`` games so far, and the
    network has not yet outscored it (``teacher_handover``)."""
    return counters["games"] < config.teacher_games and not counters["handed_over"]


def new_self_play(config: AlphaZeroConfig, learner: Learner, seed: Sequence[int]) -> SelfPlay:
    """Self-play with the learner's network (one process: the same weights object), or while
    :func:`teaching`, with the material search as its teacher."""
    teacher = teaching(config, learner.counters)
    return SelfPlay(
        config.game,
        MaterialEvaluator() if teacher else NetworkEvaluator(learner.network.eval(), learner.device, config.inference),
        self_play_search(config, teacher),
        config.games_in_parallel,
        config.temperature_plies,
        config.max_plies,
        np.random.default_rng(seed),
        config.value_target_q,
    )


def with_teacher_values(games: list[FinishedGame], teacher: MaterialEvaluator, weight: float) -> list[FinishedGame]:
    """The teacher's games with value targets ``(1 - weight) * outcome + weight * its evaluation``:
    one game's final standings are a noisy label for each of its hundreds of positions; the
    material and points the teacher reads off each position are a steadier, if shallower, one."""
    for game in games:
        game.values = ((1 - weight) * game.values + weight * teacher.values(game.planes)).astype(np.float32)
    return games


class LocalSelfPlay:
    """Self-play in this process, with the learner's own network object (no weights to copy)."""

    def __init__(self, config: AlphaZeroConfig, learner: Learner) -> None:
        self.config, self.learner = config, learner
        self.self_play = new_self_play(config, learner, [config.seed, 0, learner.counters["iteration"]])
        self.steps_seen = learner.counters["learner_steps"]

    def play(self, moves: int) -> Played:
        config, counters = self.config, self.learner.counters
        evaluator = self.evaluator
        if isinstance(evaluator, MaterialEvaluator) and not teaching(config, counters):
            print(f"the teacher played {counters['games']} games: the network plays from now on")
            self.self_play = new_self_play(config, self.learner, [config.seed, 1, counters["iteration"]])
            evaluator = self.evaluator
        if counters["learner_steps"] != self.steps_seen:
            self.self_play.forget_evaluations()  # they are of the weights before the last steps
            self.steps_seen = counters["learner_steps"]
        tick, network_before = time.monotonic(), evaluator.seconds
        evaluations = self.self_play.network_evaluations
        games = self.self_play.play(moves)
        if isinstance(evaluator, MaterialEvaluator) and config.teacher_value_weight:
            games = with_teacher_values(games, evaluator, config.teacher_value_weight)
        return Played(
            games,
            self.self_play.network_evaluations - evaluations,
            time.monotonic() - tick,
            evaluator.seconds - network_before,
            moves * config.games_in_parallel,
        )

    @property
    def evaluator(self) -> NetworkEvaluator | MaterialEvaluator:
        """What self-play evaluates positions with now: the network, or the teacher's material search."""
        return cast(NetworkEvaluator | MaterialEvaluator, self.self_play.search.evaluate)

    def close(self) -> None:
        """Nothing to let go."""
