"""Where an iteration's self-play games come from: this process (here), or Ray actors
(:mod:`.ray_backend`), behind one interface, so both run the loop of :mod:`.loop`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import torch

from chess_envs.agents.alphazero.evaluators import NetworkEvaluator
from chess_envs.agents.four_player.material import MaterialEvaluator
from chess_envs.train.alphazero.config import AlphaZeroConfig, configured_self_play
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.material_worker import Chunk, TeacherWorker, new_teacher_self_play, play_chunk
from chess_envs.train.alphazero.selfplay import FinishedGame, SelfPlay


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
    busy_seconds: float = 0.0
    """the workers' time playing (Ray actors: summed over them)"""
    worker_seconds: float = 0.0
    """the workers' wall time since their last hand-over (0: not measured, one process)"""


class Players(Protocol):
    """What the loop asks of self-play, here or on Ray actors: play, then close."""

    def play(self, moves: int) -> Played:
        """``moves`` moves in every game in flight, with the learner's current weights."""

    def close(self) -> None:
        """Let the workers go."""


def teaching(config: AlphaZeroConfig, counters: dict) -> bool:
    """Whether the teacher still plays self-play: fewer than ``teacher_games`` games so far, and the
    network has not yet outscored it (``teacher_handover``)."""
    return counters["games"] < config.teacher_games and not counters["handed_over"]


def announce_handover(counters: dict) -> None:
    """Say in the run's log that the network takes over self-play from the teacher."""
    print(f"the teacher played {counters['games']} games: the network plays from now on")


def new_self_play(config: AlphaZeroConfig, learner: Learner, seed: Sequence[int]) -> SelfPlay:
    """Self-play with the learner's network (one process: the same weights object), or while
    :func:`teaching`, with the material search as its teacher."""
    if teaching(config, learner.counters):
        return new_teacher_self_play(config, seed)
    return configured_self_play(
        config, NetworkEvaluator(learner.network.eval(), learner.device, config.inference), seed
    )


class LocalSelfPlay:
    """Self-play in this process, with the learner's own network object (no weights to copy).

    While the teacher plays (``--teacher-process``, the default) its games are played by a
    :class:`~chess_envs.train.alphazero.material_worker.TeacherWorker` a chunk ahead: each ``play`` takes the chunk
    the worker finished and starts the next, which it plays while the learner learns; the learner
    keeps one thread fewer meanwhile, for the worker's core."""

    def __init__(self, config: AlphaZeroConfig, learner: Learner) -> None:
        self.config, self.learner = config, learner
        seed = [config.seed, 0, learner.counters["iteration"]]
        self.worker: TeacherWorker | None = None
        self.learner_threads = torch.get_num_threads()
        if config.teacher_process and teaching(config, learner.counters):
            self.worker = TeacherWorker(config, seed)
            torch.set_num_threads(max(1, self.learner_threads - 1))
        else:
            self.self_play = new_self_play(config, learner, seed)
        self.steps_seen = learner.counters["learner_steps"]

    def play(self, moves: int) -> Played:
        config, counters = self.config, self.learner.counters
        if self.worker is not None and teaching(config, counters):
            return self._play_ahead(self.worker, moves)
        if (self.worker is not None or self.teacher_here) and not teaching(config, counters):
            announce_handover(counters)
            self.close()
            self.self_play = new_self_play(config, self.learner, [config.seed, 1, counters["iteration"]])
        if self.teacher_here:
            return self._teacher_played(play_chunk(self.self_play, moves, config.teacher_value_weight), moves)
        evaluator = self.evaluator
        if counters["learner_steps"] != self.steps_seen:
            self.self_play.forget_evaluations()  # they are of the weights before the last steps
            self.steps_seen = counters["learner_steps"]
        self.self_play.version = counters["learner_steps"]  # the learner's own network: always the newest
        tick, network_before = time.monotonic(), evaluator.seconds
        evaluations = self.self_play.network_evaluations
        games = self.self_play.play(moves)
        return Played(
            games,
            self.self_play.network_evaluations - evaluations,
            time.monotonic() - tick,
            evaluator.seconds - network_before,
            moves * config.games_in_parallel,
        )

    def _play_ahead(self, worker: TeacherWorker, moves: int) -> Played:
        """The worker's last chunk; the next one started, unless these games end the teacher's share."""
        config, counters = self.config, self.learner.counters
        if not worker.busy:
            worker.submit(moves)
        chunk = worker.result()
        if counters["games"] + len(chunk.games) < config.teacher_games:
            worker.submit(moves)  # played while the learner learns from this chunk
        return self._teacher_played(chunk, moves)

    def _teacher_played(self, chunk: Chunk, moves: int) -> Played:
        """A chunk of the teacher's games as an iteration's self-play (no network evaluations)."""
        return Played(chunk.games, 0, chunk.seconds, chunk.evaluator_seconds, moves * self.config.games_in_parallel)

    @property
    def teacher_here(self) -> bool:
        """Whether the teacher's games are played in this process (``--teacher-process false``)."""
        return self.worker is None and isinstance(self.evaluator, MaterialEvaluator)

    @property
    def evaluator(self) -> NetworkEvaluator | MaterialEvaluator:
        """What self-play evaluates positions with now: the network, or the teacher's material search."""
        return cast(NetworkEvaluator | MaterialEvaluator, self.self_play.search.evaluate)

    def close(self) -> None:
        """Let the teacher's worker go (a chunk it is playing is dropped) and the learner its threads back."""
        if self.worker is not None:
            self.worker.close()
            self.worker = None
            torch.set_num_threads(self.learner_threads)
