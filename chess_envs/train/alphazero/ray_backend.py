"""Self-play on Ray actors, for the loop of ``chess_envs/train/alphazero/loop.py`` (``--backend ray``).

    python -m chess_envs.train.alphazero --preset smoke --backend ray                     # a local Ray
    python -m chess_envs.train.alphazero --preset los_alamos --backend ray --ray-workers 8 --ray-address auto

This module only places the pieces: each actor owns a :class:`~chess_envs.train.alphazero.pipeline.Actor` (its
own copy of the network and a self-play); the learner stays in the driver, as in a local run. In the lock-step
loop, every iteration the learner's weights go into Ray's object store once, every actor plays
``moves_per_iteration`` moves in its games with them and hands its finished games back; in the asynchronous
pipeline (``--pipeline async``, :class:`RayStream`) the actors play all the time and take each new weight
version between moves. ``--ray-resources selfplay=1`` places the actors on nodes started with
``ray start --address=HEAD --resources='{"selfplay": 4}'``. Actors restart by themselves
when they die (``max_restarts=-1``); the games they had in flight are lost, the learner's state
is not. Calls made while an actor restarts wait for it (``max_task_retries=-1``).
"""

from __future__ import annotations

import os
import time

import ray
from ray.exceptions import RayActorError

from chess_envs.train.alphazero.config import AlphaZeroConfig, ray_resources
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.pipeline import Actor, Delivery, Weights
from chess_envs.train.alphazero.players import Played, teaching
from chess_envs.train.config import from_dict, to_dict


@ray.remote(max_restarts=-1, max_task_retries=-1)
class SelfPlayActor:
    """An :class:`~chess_envs.train.alphazero.pipeline.Actor` in a Ray actor; owns no optimizer or replay."""

    def __init__(self, config: dict, index: int) -> None:
        settings = from_dict(AlphaZeroConfig, config)
        self.actor = Actor(settings, index, [settings.seed, 1009, index])

    def play(self, weights: list[ray.ObjectRef], version: int, moves: int, teach: bool = False) -> Delivery:
        """A chunk of ``moves`` moves with the weights in the object store at ``weights[0]`` (published
        at learner step ``version``; boxed in a list so Ray fetches them only when the version is new);
        with ``teach``, of the four-player teacher's games."""
        new = version != self.actor.self_play.version
        return self.actor.play(ray.get(weights[0]) if new else None, version, moves, teach)

    def pid(self) -> int:
        """The actor's process id (a restarted actor has a new one)."""
        return os.getpid()

    def node(self) -> str:
        """The id of the Ray node the actor runs on."""
        return ray.get_runtime_context().get_node_id()


def start_actors(config: AlphaZeroConfig) -> tuple[bool, list]:
    """Ray (started here unless the process or ``ray_address`` has one) and ``ray_workers`` actors,
    each needing a CPU and ``--ray-resources``; whether this call started Ray."""
    started = not ray.is_initialized()
    if started:
        ray.init(
            address=config.ray_address or None,
            num_cpus=None if config.ray_address else max(2, config.ray_workers),
            include_dashboard=False,
            log_to_driver=False,
        )
    settings = to_dict(config)
    actor = SelfPlayActor.options(num_cpus=1, resources=ray_resources(config))  # type: ignore[attr-defined]
    return started, [actor.remote(settings, i) for i in range(config.ray_workers)]


class RaySelfPlay:
    """The lock-step loop's ``ray_workers`` self-play actors (on a Ray it starts, or the cluster at ``ray_address``)."""

    def __init__(self, config: AlphaZeroConfig, learner: Learner) -> None:
        self.config, self.learner = config, learner
        self.started_ray, self.actors = start_actors(config)
        self.restarts = 0

    def play(self, moves: int) -> Played:
        tick = time.monotonic()
        weights = ray.put(self.learner.weights())
        played = Played([], 0, 0.0, 0.0, 0)
        version, teach = self.learner.counters["learner_steps"], teaching(self.config, self.learner.counters)
        for future in [actor.play.remote([weights], version, moves, teach) for actor in self.actors]:
            try:
                delivery = ray.get(future)
            except RayActorError:
                self.restarts += 1  # gave up on this call; Ray restarts the actor
                continue
            played.games += delivery.games
            played.evaluations += delivery.evaluations
            played.network_seconds += delivery.network_seconds
            played.positions += delivery.positions
            played.busy_seconds += delivery.busy_seconds
            played.worker_seconds += delivery.wall_seconds
        played.seconds, played.restarts = time.monotonic() - tick, self.restarts
        return played

    def close(self) -> None:
        if self.started_ray:
            ray.shutdown()


class RayStream:
    """The asynchronous pipeline's actors on Ray: each has three chunks in flight (the next ones wait
    in its queue while it plays one), so it never waits for the driver; a chunk carries the newest
    weight version published when it was sent. Ray restarts a lost actor (``max_restarts=-1``) and
    runs its calls again there (``max_task_retries=-1``); a delivery from a new process counts a restart."""

    IN_FLIGHT = 3
    MOVES = 1
    """moves per chunk: the actors take a new version between moves"""

    def __init__(self, config: AlphaZeroConfig, learner: Learner) -> None:
        self.started_ray, self.handles = start_actors(config)
        self.actors, self.restarts = len(self.handles), 0
        self.pending: dict[ray.ObjectRef, int] = {}
        self.pids: dict[int, int] = {}
        self.weights: ray.ObjectRef | None = None
        self.version, self.teach = -1, False

    def publish(self, weights: Weights, version: int, teach: bool) -> None:
        self.weights, self.version, self.teach = ray.put(weights), version, teach
        if not self.pending:
            for index in range(self.actors):
                for _ in range(self.IN_FLIGHT):
                    self._send(index)

    def _send(self, index: int) -> None:
        self.pending[self.handles[index].play.remote([self.weights], self.version, self.MOVES, self.teach)] = index

    def poll(self, timeout: float) -> list[Delivery]:
        ready, _ = ray.wait(list(self.pending), num_returns=len(self.pending), timeout=timeout)
        deliveries = []
        for future in ready:
            index = self.pending.pop(future)
            try:
                delivery = ray.get(future)
            except RayActorError:  # lost with its actor; Ray restarts it
                self.restarts += 1
            else:
                if self.pids.setdefault(index, delivery.pid) != delivery.pid:  # retried on a restarted actor
                    self.restarts += 1
                    self.pids[index] = delivery.pid
                deliveries.append(delivery)
            self._send(index)
        return deliveries

    def close(self) -> None:
        self.pending.clear()
        if self.started_ray:
            ray.shutdown()
