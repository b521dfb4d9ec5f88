"""AlphaZero training on Ray: self-play actors and a learner actor, weights through the object store.

    python -m train.alphazero --preset smoke --backend ray                     # a local Ray
    python -m train.alphazero --preset los_alamos --backend ray --ray-workers 8 --ray-address auto

The learner actor owns a :class:`~train.learner.Learner` (network, optimizer, schedule, replay
buffer, counters, checkpoints, logs); each self-play actor owns a :class:`~train.selfplay.SelfPlay`
with its own copy of the network and hands its finished games back. These are the same two
pieces the local script wires, used as they are. Every iteration the driver puts the learner's weights into Ray's
object store once, every actor plays ``moves_per_iteration`` moves in its games with them, and
the learner adds the games and takes ``steps_per_iteration`` steps. Self-play actors restart
by themselves when they die (``max_restarts=-1``); the games they had in flight are lost, the
learner's state is not. Calls made while an actor restarts wait for it (``max_task_retries=-1``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import ray
import torch
from ray.exceptions import RayActorError

from agents.alphazero.agent import NetworkEvaluator
from agents.alphazero.network import AlphaZeroNet, resolve_device
from train.alphazero_config import Args, network_config, self_play_search
from train.learner import Learner
from train.selfplay import FinishedGame, SelfPlay


@ray.remote(max_restarts=-1, max_task_retries=-1)
class SelfPlayActor:
    """Plays batched self-play games with the weights it is given; owns no optimizer or replay."""

    def __init__(self, args: dict, index: int) -> None:
        torch.set_num_threads(1)
        settings = Args(**args)
        device = resolve_device(settings.device)
        self.network = AlphaZeroNet(network_config(settings)).to(device).eval()
        self.self_play = SelfPlay(
            settings.game,
            NetworkEvaluator(self.network, device),
            self_play_search(settings),
            settings.games_in_parallel,
            settings.temperature_plies,
            settings.max_plies,
            np.random.default_rng([settings.seed, 1009, index]),
            settings.value_target_q,
        )

    def play(self, weights: dict, moves: int) -> tuple[list[FinishedGame], int]:
        """Finished games after ``moves`` moves with ``weights``, and the network evaluations it took."""
        self.network.load_state_dict(weights)
        self.self_play.forget_evaluations()  # evaluations of the old weights
        evaluations = self.self_play.network_evaluations
        games = self.self_play.play(moves)
        return games, self.self_play.network_evaluations - evaluations

    def pid(self) -> int:
        """The actor's process id (a restarted actor has a new one)."""
        return os.getpid()


@ray.remote(max_restarts=0)
class LearnerActor:
    """The run's :class:`~train.learner.Learner`: replay buffer, learner steps, counters, checkpoints."""

    def __init__(self, args: dict, resume: bool) -> None:
        self.learner = Learner(Args(**args))
        self.resumed = resume and bool(self.learner.checkpoints())
        if self.resumed:
            self.learner.restore()

    def add_games(self, games: list[FinishedGame], nn_evaluations: int) -> None:
        self.learner.add_games(games, nn_evaluations)

    def learn(self, steps: int) -> dict[str, float]:
        learner = self.learner
        steps_before = learner.counters["learner_steps"]
        losses = learner.learn(steps)
        learner.counters["iteration"] += 1
        if learner.due_for_checkpoint(steps_before):
            learner.save()
        return losses

    def weights(self) -> dict:
        return self.learner.weights()

    def counters(self) -> dict:
        return {**self.learner.counters, "replay_size": len(self.learner.replay), "resumed": self.resumed}

    def evaluate(self) -> dict[str, float]:
        return self.learner.evaluate()

    def log(self, values: dict[str, float]) -> None:
        self.learner.log(values)

    def save(self) -> str:
        path = str(self.learner.save())
        self.learner.close()
        return path


def train(args: Args, on_iteration: Callable[[int, list, object], None] | None = None) -> Path:
    """Run the training loop on Ray; ``on_iteration(iteration, actors, learner)`` is a test hook."""
    args = replace(args, runs_dir=str(Path(args.runs_dir).resolve()))
    settings = asdict(args)
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(
            address=args.ray_address or None,
            num_cpus=None if args.ray_address else max(2, args.ray_workers),
            include_dashboard=False,
            log_to_driver=False,
        )
    try:
        learner = LearnerActor.options(num_cpus=0).remote(settings, args.resume)
        actors = [SelfPlayActor.options(num_cpus=1).remote(settings, i) for i in range(args.ray_workers)]
        restarts = 0
        started = time.monotonic()
        iteration = ray.get(learner.counters.remote())["iteration"]
        while not (args.iterations and iteration >= args.iterations):
            if args.minutes and time.monotonic() - started >= args.minutes * 60:
                break
            weights = ray.put(ray.get(learner.weights.remote()))
            for future in [actor.play.remote(weights, args.moves_per_iteration) for actor in actors]:
                try:
                    games, evaluations = ray.get(future)
                except RayActorError:
                    restarts += 1  # gave up on this call; Ray restarts the actor
                    continue
                ray.get(learner.add_games.remote(games, evaluations))
            losses = ray.get(learner.learn.remote(args.steps_per_iteration))
            iteration += 1
            if args.eval_every and iteration % args.eval_every == 0:
                losses = {**losses, **ray.get(learner.evaluate.remote())}
            counters = ray.get(learner.counters.remote())
            values = {
                **losses,
                "charts/games": counters["games"],
                "charts/replay_size": counters["replay_size"],
                "charts/actor_restarts": restarts,
            }
            ray.get(learner.log.remote(values))
            if args.progress:
                print(
                    f"iteration {iteration}: {counters['games']} games, {counters['learner_steps']} learner steps, "
                    f"{restarts} actor restarts {losses}"
                )
            if on_iteration is not None:
                on_iteration(iteration, actors, learner)
        path = Path(ray.get(learner.save.remote()))
        print(f"saved {path} ({restarts} self-play actor restarts)")
        return path
    finally:
        if started_ray:
            ray.shutdown()
