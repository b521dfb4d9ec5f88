"""The asynchronous pipeline (``--pipeline async``): self-play never waits for the learner.

Actors play all the time and hand over what each move finished (a :class:`Delivery`); the learner
stores it, learns at ``--replay-ratio`` samples per new position and publishes its weights every
``--publish-every`` steps as a new version; actors take the newest version between moves. Each stored
position keeps the version that played it, so its staleness (learner steps between that version and
the step it arrived at) is measured, and the learner waits rather than run more than
``--max-staleness`` steps ahead of the version any actor last played with.

Two streams feed the same :class:`Pipeline`: :class:`LocalStream` (one worker process beside the
learner) and :class:`~chess_envs.train.alphazero.ray_backend.RayStream` (Ray actors, three calls in flight
each so an actor never waits for the driver). Both run :class:`Actor`, which owns a network copy and
a :class:`~chess_envs.train.alphazero.selfplay.SelfPlay`. While the four-player teacher plays
(``--teacher-games``) the same actors play its games instead, the weights unused; the pipeline tells
them when the network takes over.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Protocol

import numpy as np
import torch

from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
from chess_envs.agents.alphazero.network import AlphaZeroNet, resolve_device
from chess_envs.train.alphazero.config import AlphaZeroConfig, configured_self_play
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.material_worker import new_teacher_self_play, play_chunk
from chess_envs.train.alphazero.players import announce_handover, teaching
from chess_envs.train.alphazero.sections import network_config
from chess_envs.train.alphazero.selfplay import FinishedGame, SelfPlay

Weights = dict[str, torch.Tensor]


@dataclass
class Delivery:
    """What an actor hands over after a chunk of moves."""

    actor: int
    games: list[FinishedGame]
    """the games the chunk finished, each position with its weight version"""
    version: int
    """the weight version the actor played the chunk with"""
    evaluations: int
    network_seconds: float
    positions: int
    """positions played (moves times games in flight)"""
    busy_seconds: float
    """the actor's time playing the chunk"""
    wall_seconds: float
    """the actor's time since its last delivery (busy plus waiting for weights, the learner or a queue)"""
    oldest: int = -1
    """the oldest weight version among the positions of the actor's unfinished games"""
    pid: int = 0
    """the actor's process (a restarted actor has a new one)"""


class Actor:
    """Self-play with its own copy of the network; plays chunks of moves with the weights it is given,
    or the four-player teacher's games while it is told to teach. It searches with ``threads`` torch
    threads (one a Ray actor's CPU; the local worker the run's, since its search is most of the work)."""

    def __init__(self, config: AlphaZeroConfig, index: int, seed: Sequence[int], threads: int = 1) -> None:
        torch.set_num_threads(threads)
        self.config, self.index, self.seed = config, index, list(seed)
        device = resolve_device(config.device)
        self.network = AlphaZeroNet(network_config(config)).to(device).eval()
        self.evaluator = NetworkEvaluator(self.network, device, config.inference)
        self.self_play = configured_self_play(config, self.evaluator, seed)
        self.games_in_parallel = config.games_in_parallel
        self.slowdown = config.actor_slowdown if index == 0 else 1.0
        self.last: float | None = None
        self.teacher: SelfPlay | None = None
        """the teacher's self-play while it teaches (its positions have version -1: no network's)"""

    def play(self, weights: Weights | None, version: int, moves: int, teach: bool = False) -> Delivery:
        """``moves`` moves in every game in flight with ``weights`` (published at ``version``; None:
        the ones it has); with ``teach``, of the teacher's games (the weights kept for later)."""
        start = time.monotonic()
        if self.last is None:
            self.last = start
        if weights is not None and version != self.self_play.version:
            self.network.load_state_dict(weights)
            self.self_play.forget_evaluations()  # evaluations of the old weights
            self.self_play.version = version
        if teach:
            if self.teacher is None:
                self.teacher = new_teacher_self_play(self.config, [*self.seed, 1])
            chunk = play_chunk(self.teacher, moves, self.config.teacher_value_weight)
            games, evaluations, network_seconds = chunk.games, 0, chunk.evaluator_seconds
            oldest = self.self_play.version  # the teacher's games hold no weights back
        else:
            self.teacher = None  # the network took over: the teacher's games in flight are dropped
            evaluations, network_seconds = self.self_play.network_evaluations, self.evaluator.seconds
            games = self.self_play.play(moves)
            evaluations = self.self_play.network_evaluations - evaluations
            network_seconds = self.evaluator.seconds - network_seconds
            oldest = self.self_play.oldest_version
        if self.slowdown > 1:  # a straggler, for tests and measurements: as if its core were slower
            time.sleep((self.slowdown - 1) * (time.monotonic() - start))
        end = time.monotonic()
        delivery = Delivery(
            self.index,
            games,
            self.self_play.version,
            evaluations,
            network_seconds,
            moves * self.games_in_parallel,
            end - start,
            end - self.last,
            oldest,
            os.getpid(),
        )
        self.last = end
        return delivery


class Stream(Protocol):
    """Actors playing all the time: weights in, deliveries out."""

    actors: int
    restarts: int

    def publish(self, weights: Weights, version: int, teach: bool) -> None:
        """Hand the actors a new weight version (and whether the teacher still plays); each takes it
        before its next move."""

    def poll(self, timeout: float) -> list[Delivery]:
        """What the actors delivered since the last poll, waiting up to ``timeout`` seconds for something."""

    def close(self) -> None:
        """Let the actors go (their games in flight are dropped)."""


def _serve(connection: Connection, config: AlphaZeroConfig, seed: list[int], threads: int) -> None:
    """The local worker: a move at a time, the newest weights taken between moves, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run saves, then closes the worker
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    actor = Actor(config, 0, seed, threads)
    outbox: queue.SimpleQueue[Delivery | None] = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(connection, outbox), daemon=True)
    sender.start()
    weights, version, teach = None, -1, False
    try:
        while sender.is_alive():
            while weights is None or connection.poll():
                weights, version, teach = connection.recv()  # the newest of what is waiting
            outbox.put(actor.play(weights, version, 1, teach))
    except (EOFError, OSError):
        return


def _send_all(connection: Connection, outbox: queue.SimpleQueue[Delivery | None]) -> None:
    """The worker's deliveries to the run, from a thread of their own: a delivery larger than the
    pipe's buffer waits there for the learner to read it, not the actor."""
    try:
        while (delivery := outbox.get()) is not None:
            connection.send(delivery)
    except OSError:
        return


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``name`` set to ``value`` (unless already set) for the processes started meanwhile."""
    if name in os.environ:
        yield
        return
    os.environ[name] = value
    try:
        yield
    finally:
        del os.environ[name]


class LocalStream:
    """One self-play worker process beside the learner. The worker searches with the run's torch
    threads and the learner keeps one thread fewer: held to the replay ratio, the learner is idle
    most of the time, and the worker takes its share then. The worker's OpenMP threads sleep between
    parallel regions (``OMP_WAIT_POLICY=PASSIVE`` unless set) rather than spin on the learner's core:
    on 2 cores that took the ``los_alamos`` preset from 151 to 166 positions/s."""

    def __init__(self, config: AlphaZeroConfig, learner: Learner) -> None:
        context = multiprocessing.get_context("spawn")  # the run's process holds torch's threads: no fork
        self._connection, child = context.Pipe()
        seed = [config.seed, 2, learner.counters["iteration"]]
        self.learner_threads = torch.get_num_threads()
        worker = (child, config, seed, self.learner_threads)
        self._process = context.Process(target=_serve, args=worker, name="self-play", daemon=True)
        with _environment("OMP_WAIT_POLICY", "PASSIVE"):  # read when the worker loads OpenMP
            self._process.start()
        child.close()
        self.actors, self.restarts = 1, 0
        torch.set_num_threads(max(1, self.learner_threads - 1))

    def publish(self, weights: Weights, version: int, teach: bool) -> None:
        try:
            self._connection.send((weights, version, teach))
        except OSError as error:
            raise self._died() from error

    def poll(self, timeout: float) -> list[Delivery]:
        deliveries: list[Delivery] = []
        try:
            while self._connection.poll(timeout if not deliveries else 0):
                deliveries.append(self._connection.recv())
        except (EOFError, OSError) as error:
            raise self._died() from error
        return deliveries

    def _died(self) -> RuntimeError:
        self._process.join(timeout=5)
        return RuntimeError(f"the self-play worker process died (exit code {self._process.exitcode})")

    def close(self) -> None:
        self._connection.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        torch.set_num_threads(self.learner_threads)


@dataclass
class Window:
    """The pipeline's figures over one iteration (the charts of its log line)."""

    started: float = field(default_factory=time.monotonic)
    positions: int = 0
    games: list[FinishedGame] = field(default_factory=list)
    evaluations: int = 0
    network_seconds: float = 0.0
    busy_seconds: float = 0.0
    actor_seconds: float = 0.0
    learner_seconds: float = 0.0
    steps: int = 0
    staleness: list[np.ndarray] = field(default_factory=list)
    by_actor: dict[int, int] = field(default_factory=dict)
    """positions played by each actor"""


class Pipeline:
    """The learner's side: store what arrives, learn at the replay ratio, publish versions."""

    LOST_AFTER = 60.0
    """seconds after which a silent actor no longer holds the staleness bound (lost with its node; a
    restarted one starts new games)"""

    def __init__(self, config: AlphaZeroConfig, learner: Learner, stream: Stream) -> None:
        self.config, self.learner, self.stream = config, learner, stream
        self.ratio = config.replay_ratio or lockstep_replay_ratio(config, stream.actors)
        self.bound = config.max_staleness or lockstep_staleness(config)
        self.learnable = 0
        """positions stored since the replay held ``min_replay`` (the ratio counts from there)"""
        self.steps = 0
        """learner steps taken by this pipeline"""
        self.oldest: dict[int, tuple[int, float]] = {}
        """each actor's oldest weight version in flight, and when it said so"""
        self.dropped = 0
        """games that arrived beyond the staleness bound (from an actor counted lost), not stored"""
        self.teaching = teaching(config, learner.counters)
        """whether the actors play the four-player teacher's games (until ``--teacher-games`` or the handover)"""
        self.publish()

    def close(self) -> None:
        """Let the actors go."""
        self.stream.close()

    def publish(self) -> None:
        """The learner's weights as the version of its current step."""
        self.published = self.learner.counters["learner_steps"]
        self.stream.publish(self.learner.weights(), self.published, self.teaching)

    def hand_over(self) -> None:
        """Once the teacher's share is played (or the network outscored it): the network plays from now on."""
        if self.teaching and not teaching(self.config, self.learner.counters):
            announce_handover(self.learner.counters)
            self.teaching = False
            self.publish()

    def allowed_steps(self) -> int:
        """Steps the replay ratio and the staleness bound allow now."""
        if len(self.learner.replay) < self.config.min_replay:
            return 0
        by_ratio = int(self.ratio * self.learnable / self.config.batch_size) - self.steps
        now = time.monotonic()
        heard = [version for version, when in self.oldest.values() if now - when < self.LOST_AFTER]
        oldest = min(heard, default=self.published)
        by_staleness = oldest + self.bound - self.learner.counters["learner_steps"]
        return max(0, min(by_ratio, by_staleness, 1))  # one step between polls: the actors are answered soon

    def iteration(self) -> tuple[Window, dict[str, float]]:
        """Until an iteration's positions (``moves_per_iteration`` moves of every actor's games)
        arrived: store, learn, publish. Returns the window and the mean losses of its steps."""
        window, totals = Window(), np.zeros(2)
        config = self.config
        target = config.moves_per_iteration * config.games_in_parallel * self.stream.actors
        while window.positions < target:
            self.hand_over()
            allowed = self.allowed_steps()
            for delivery in self.stream.poll(0.0 if allowed else 0.05):
                self.take(delivery, window)
            allowed = self.allowed_steps()
            if allowed:
                tick = time.monotonic()
                losses = self.learner.learn(allowed)
                window.learner_seconds += time.monotonic() - tick
                self.steps += allowed
                window.steps += allowed
                totals += (losses["policy"] * allowed, losses["value"] * allowed)
                if self.learner.counters["learner_steps"] - self.published >= config.publish_every:
                    self.publish()
        losses = {"policy": totals[0] / window.steps, "value": totals[1] / window.steps} if window.steps else {}
        return window, losses

    def take(self, delivery: Delivery, window: Window) -> None:
        """Store a delivery's games and count it."""
        filled_before = len(self.learner.replay) >= self.config.min_replay
        limit = self.learner.counters["learner_steps"] - self.bound
        played = [game.versions[game.versions >= 0] for game in delivery.games]  # -1: the teacher's, never stale
        games = [game for game, versions in zip(delivery.games, played) if versions.min(initial=limit) >= limit]
        self.dropped += len(delivery.games) - len(games)
        staleness = self.learner.add_games(games, delivery.evaluations)
        if filled_before:
            self.learnable += sum(game.plies for game in games)
        self.oldest[delivery.actor] = delivery.oldest, time.monotonic()
        window.positions += delivery.positions
        window.games += games
        window.evaluations += delivery.evaluations
        window.network_seconds += delivery.network_seconds
        window.busy_seconds += delivery.busy_seconds
        window.actor_seconds += delivery.wall_seconds
        window.staleness.append(staleness)
        window.by_actor[delivery.actor] = window.by_actor.get(delivery.actor, 0) + delivery.positions

    def charts(self, window: Window) -> dict[str, float]:
        """The pipeline's charts for a window."""
        seconds = max(time.monotonic() - window.started, 1e-9)
        staleness = np.concatenate(window.staleness) if window.staleness else np.zeros(0)
        counters = self.learner.counters
        rates = [window.by_actor.get(actor, 0) / seconds for actor in range(self.stream.actors)]
        return {
            "pipeline/slowest_actor_positions_per_s": min(rates),
            "pipeline/fastest_actor_positions_per_s": max(rates),
            "pipeline/actor_busy_share": window.busy_seconds / max(window.actor_seconds, 1e-9),
            "pipeline/learner_busy_share": window.learner_seconds / seconds,
            "pipeline/positions_in_per_s": window.positions / seconds,
            "pipeline/samples_learned_per_s": window.steps * self.config.batch_size / seconds,
            "pipeline/replay_ratio": self.steps * self.config.batch_size / max(self.learnable, 1),
            "pipeline/replay_ratio_target": self.ratio,
            "pipeline/staleness_mean": float(staleness.mean()) if len(staleness) else 0.0,
            "pipeline/staleness_max": float(staleness.max()) if len(staleness) else 0.0,
            "pipeline/staleness_bound": self.bound,
            "pipeline/actor_lag": counters["learner_steps"] - min((v for v, _ in self.oldest.values()), default=0),
            "pipeline/stale_games_dropped": self.dropped,
            "pipeline/weight_version": self.published,
            "pipeline/restarts": self.stream.restarts,
        }


def lockstep_replay_ratio(config: AlphaZeroConfig, actors: int) -> float:
    """Samples learned per new position in the lock-step loop at these settings: each iteration
    learns ``steps_per_iteration`` batches after ``moves_per_iteration`` moves of every game."""
    played = config.moves_per_iteration * config.games_in_parallel * actors
    return config.steps_per_iteration * config.batch_size / played


def lockstep_staleness(config: AlphaZeroConfig) -> int:
    """The staleness of a game of ``max_plies``'s first position in the lock-step loop (its
    iterations times ``steps_per_iteration``), plus ``publish_every`` (an asynchronous version's age)."""
    iterations = -(-config.max_plies // config.moves_per_iteration)
    return iterations * config.steps_per_iteration + config.publish_every
