"""Self-play on Ray actors, for the loop of ``chess_envs/train/alphazero/loop.py`` (``--backend ray``).

    python -m chess_envs.train.alphazero --preset smoke --backend ray                     # a local Ray
    python -m chess_envs.train.alphazero --preset los_alamos --backend ray --ray-workers 8 --ray-address auto

This module only places the pieces: each actor owns a :class:`~chess_envs.train.alphazero.selfplay.SelfPlay` with its
own copy of the network; the learner stays in the driver, as in a local run. Every iteration
the learner's weights go into Ray's object store once, every actor plays ``moves_per_iteration``
moves in its games with them and hands its finished games back. Actors restart by themselves
when they die (``max_restarts=-1``); the games they had in flight are lost, the learner's state
is not. Calls made while an actor restarts wait for it (``max_task_retries=-1``).
"""

from __future__ import annotations

import os
import time

import ray
import torch
from ray.exceptions import RayActorError

from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
from chess_envs.agents.alphazero.network import AlphaZeroNet, resolve_device
from chess_envs.train.alphazero.config import AlphaZeroConfig, configured_self_play
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.players import Played
from chess_envs.train.alphazero.sections import network_config
from chess_envs.train.alphazero.selfplay import FinishedGame
from chess_envs.train.config import from_dict, to_dict


@ray.remote(max_restarts=-1, max_task_retries=-1)
class SelfPlayActor:
    """Plays batched self-play games with the weights it is given; owns no optimizer or replay."""

    def __init__(self, config: dict, index: int) -> None:
        torch.set_num_threads(1)
        settings = from_dict(AlphaZeroConfig, config)
        device = resolve_device(settings.device)
        self.network = AlphaZeroNet(network_config(settings)).to(device).eval()
        self.evaluator = NetworkEvaluator(self.network, device, settings.inference)
        self.self_play = configured_self_play(settings, self.evaluator, [settings.seed, 1009, index])

    def play(self, weights: dict, version: int, moves: int) -> tuple[list[FinishedGame], int, float]:
        """Finished games after ``moves`` moves with ``weights`` (published at learner step ``version``),
        the network evaluations and seconds it took."""
        if version != self.self_play.version:
            self.network.load_state_dict(weights)
            self.self_play.forget_evaluations()  # evaluations of the old weights
            self.self_play.version = version
        evaluations, seconds = self.self_play.network_evaluations, self.evaluator.seconds
        games = self.self_play.play(moves)
        return games, self.self_play.network_evaluations - evaluations, self.evaluator.seconds - seconds

    def pid(self) -> int:
        """The actor's process id (a restarted actor has a new one)."""
        return os.getpid()


class RaySelfPlay:
    """``ray_workers`` self-play actors (on a Ray it starts, or the cluster at ``ray_address``)."""

    def __init__(self, config: AlphaZeroConfig, learner: Learner) -> None:
        self.config, self.learner = config, learner
        self.started_ray = not ray.is_initialized()
        if self.started_ray:
            ray.init(
                address=config.ray_address or None,
                num_cpus=None if config.ray_address else max(2, config.ray_workers),
                include_dashboard=False,
                log_to_driver=False,
            )
        settings = to_dict(config)
        actor = SelfPlayActor.options(num_cpus=1)  # type: ignore[attr-defined]  # made by @ray.remote
        self.actors = [actor.remote(settings, i) for i in range(config.ray_workers)]
        self.restarts = 0

    def play(self, moves: int) -> Played:
        tick = time.monotonic()
        weights = ray.put(self.learner.weights())
        played = Played([], 0, 0.0, 0.0, 0)
        version = self.learner.counters["learner_steps"]
        for future in [actor.play.remote(weights, version, moves) for actor in self.actors]:
            try:
                games, evaluations, network_seconds = ray.get(future)
            except RayActorError:
                self.restarts += 1  # gave up on this call; Ray restarts the actor
                continue
            played.games += games
            played.evaluations += evaluations
            played.network_seconds += network_seconds
            played.positions += moves * self.config.games_in_parallel
        played.seconds, played.restarts = time.monotonic() - tick, self.restarts
        return played

    def close(self) -> None:
        if self.started_ray:
            ray.shutdown()
