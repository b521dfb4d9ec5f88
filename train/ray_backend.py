"""AlphaZero training on Ray: self-play actors and a learner actor, weights through the object store.

    python -m train.alphazero --preset smoke --backend ray                     # a local Ray
    python -m train.alphazero --preset los_alamos --backend ray --ray-workers 8 --ray-address auto

The learner actor owns the local backend's :class:`~train.alphazero.Trainer` (network,
optimizer, scheduler, replay buffer, counters, checkpoints); each self-play actor runs the same
Trainer's batched self-play loop with its own copy of the network and hands its finished games
back instead of storing them. Every iteration the driver puts the learner's weights into Ray's
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
from torch.utils.tensorboard import SummaryWriter

from train.alphazero import Args, Trainer, _log


class _GameCollector(Trainer):
    """The local Trainer's self-play, keeping finished games for the learner instead of storing them."""

    def __init__(self, args: Args) -> None:
        super().__init__(args)
        self.finished_games: list[tuple[list, np.ndarray]] = []

    def _store(self, history: list, returns: np.ndarray) -> None:
        self.finished_games.append((history, np.asarray(returns, dtype=np.float32)))


@ray.remote(max_restarts=-1, max_task_retries=-1)
class SelfPlayActor:
    """Plays batched self-play games with the weights it is given."""

    def __init__(self, args: dict, index: int) -> None:
        torch.set_num_threads(1)
        settings = Args(**{**args, "seed": args["seed"] + 1009 * (index + 1), "replay_size": 1, "min_replay": 1})
        self.collector = _GameCollector(settings)

    def play(self, weights: dict, moves: int) -> tuple[list, dict]:
        collector = self.collector
        collector.network.load_state_dict(weights)
        collector.mcts.cache.clear()  # evaluations of the old weights
        evaluations = collector.mcts.network_evaluations
        finished = collector.self_play(moves)
        games, collector.finished_games = collector.finished_games, []
        finished["nn_evaluations"] = collector.mcts.network_evaluations - evaluations
        return games, finished

    def pid(self) -> int:
        """The actor's process id (a restarted actor has a new one)."""
        return os.getpid()


@ray.remote(max_restarts=0)
class LearnerActor:
    """The run's Trainer: replay buffer, learner steps, counters and checkpoints."""

    def __init__(self, args: dict, resume: bool) -> None:
        self.trainer = Trainer(Args(**args))
        self.resumed = resume and bool(self.trainer.checkpoints())
        if self.resumed:
            self.trainer.restore()

    def add_games(self, games: list, nn_evaluations: int) -> None:
        trainer = self.trainer
        for history, returns in games:
            trainer._store(history, returns)
            trainer.counters["positions"] += len(history)
        trainer.counters["games"] += len(games)
        trainer.counters["nn_evaluations"] += nn_evaluations

    def learn(self, steps: int) -> dict[str, float]:
        steps_before = self.trainer.counters["learner_steps"]
        losses = self.trainer.learn(steps)
        self.trainer.counters["iteration"] += 1
        if self.trainer.due_for_checkpoint(steps_before):
            self.trainer.save()
        return losses

    def weights(self) -> dict:
        return {key: value.detach().cpu() for key, value in self.trainer.network.state_dict().items()}

    def counters(self) -> dict:
        return {**self.trainer.counters, "replay_size": len(self.trainer.replay), "resumed": self.resumed}

    def evaluate(self) -> dict[str, float]:
        return self.trainer.evaluate()

    def save(self) -> str:
        return str(self.trainer.save())


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
        run_dir = Path(args.runs_dir) / args.run_name
        writer = SummaryWriter(str(run_dir))
        iteration = ray.get(learner.counters.remote())["iteration"]
        while not (args.iterations and iteration >= args.iterations):
            if args.minutes and time.monotonic() - started >= args.minutes * 60:
                break
            weights = ray.put(ray.get(learner.weights.remote()))
            for future in [actor.play.remote(weights, args.moves_per_iteration) for actor in actors]:
                try:
                    games, finished = ray.get(future)
                except RayActorError:
                    restarts += 1  # gave up on this call; Ray restarts the actor
                    continue
                ray.get(learner.add_games.remote(games, finished["nn_evaluations"]))
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
            _log(writer, run_dir / "metrics.jsonl", counters["learner_steps"], values)
            if args.progress:
                print(
                    f"iteration {iteration}: {counters['games']} games, {counters['learner_steps']} learner steps, "
                    f"{restarts} actor restarts {losses}"
                )
            if on_iteration is not None:
                on_iteration(iteration, actors, learner)
        path = Path(ray.get(learner.save.remote()))
        writer.close()
        print(f"saved {path} ({restarts} self-play actor restarts)")
        return path
    finally:
        if started_ray:
            ray.shutdown()
