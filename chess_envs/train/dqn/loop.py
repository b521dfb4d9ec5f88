"""Masked DQN training on stable-baselines3, one readable script: set-up, opponents, callbacks, learn.

    python -m chess_envs.train.dqn --preset smoke                       # a few thousand steps, under a minute
    python -m chess_envs.train.dqn --preset los_alamos --minutes 30     # the baseline against a random opponent
    python -m chess_envs.train.dqn --preset los_alamos --resume         # continue runs/<run-name>

The learner (:mod:`chess_envs.train.dqn.learner`) plays one seat of the game in each of ``envs``
environments (seats alternate), the other seats moved by the opponent: ``random``, ``greedy``,
or ``self`` (a frozen copy of the learner, refreshed every ``self_play_refresh`` steps); rewards
are the game's outcome, plus, with ``--shaping`` and ``--draw-reward``, a material reward and a
price on draws (:mod:`chess_envs.train.dqn.env`). Epsilon decays linearly from ``exploration_initial_eps``
to ``exploration_final_eps`` over ``exploration_fraction`` of the steps. A run folder
``runs/<run_name>/`` holds ``config.json``, SB3's TensorBoard events and ``progress.csv``,
``metrics.jsonl`` (the evaluations against random and greedy) and ``checkpoints/``
(:mod:`chess_envs.train.dqn.checkpoint`: model and replay of one step, paired by a manifest). No file of a
run is loaded with pickle.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import cast

import torch
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv
from tqdm import tqdm

from chess_envs.agents.dqn import DQNCheckpointError
from chess_envs.agents.simple import GreedyAgent
from chess_envs.train.config import fail, make_parser, parse_args
from chess_envs.train.dqn.checkpoint import MANIFEST, restore_run, save_run
from chess_envs.train.dqn.config import PRESETS, DQNConfig
from chess_envs.train.dqn.env import FrozenOpponent, ModelAgent, make_env
from chess_envs.train.dqn.learner import MaskableDQN
from chess_envs.train.evaluation import baseline_scores
from chess_envs.train.run_folder import RunFolder, StopSignals
from chess_envs.train.run_log import RunLog


class TrainingCallback(BaseCallback):
    """Checkpoints, evaluations, self-play refreshes, the time limit and the progress bar."""

    def __init__(self, args: DQNConfig, run_dir: Path, opponent: FrozenOpponent | None, stop: StopSignals) -> None:
        super().__init__()
        self.args, self.stop = args, stop
        self.run_dir = run_dir
        self.opponent = opponent
        self.run_log = RunLog(run_dir)
        self.started = time.monotonic()
        self.bar = tqdm(total=args.total_steps, unit="step", disable=not args.progress)

    @property
    def learner(self) -> MaskableDQN:
        return cast(MaskableDQN, self.model)

    def _on_training_start(self) -> None:
        self.bar.update(self.num_timesteps)  # a resumed run starts where it stopped

    def _on_step(self) -> bool:
        args, steps = self.args, self.num_timesteps
        self.bar.update(steps - self.bar.n)
        every = lambda period: period and steps // period > (steps - self.training_env.num_envs) // period  # noqa: E731
        if self.opponent is not None and every(args.self_play_refresh):
            self.opponent.refresh(self.learner)
        if every(args.eval_every):
            scores = baseline_scores(args.game, ModelAgent(self.learner), args.eval_games, args.max_plies, args.seed)
            for key, value in scores.items():
                self.logger.record(key, value)
            self.logger.dump(steps)
            self.run_log.write(steps, scores)
            self.bar.set_postfix({key.split("_vs_")[1]: round(value, 2) for key, value in scores.items()})
        if every(args.checkpoint_every):
            save_run(self.learner, self.run_dir)
        out_of_time = args.minutes and time.monotonic() - self.started >= args.minutes * 60
        return not (out_of_time or self.stop.requested)

    def _on_training_end(self) -> None:
        self.bar.close()
        self.run_log.close()


def build_model(args: DQNConfig, env: DummyVecEnv, device: str) -> MaskableDQN:
    # the dqn section's settings, but for the run's length, are SB3's arguments of the same names
    learning = {name: value for name, value in dataclasses.asdict(args.dqn).items() if name != "total_steps"}
    return MaskableDQN(
        env=env,
        game=args.game,
        policy_kwargs=dict(
            features_extractor_kwargs=dict(filters=args.filters, layers=args.layers),
            net_arch=[args.hidden],
        ),
        seed=args.seed,
        device=device,
        **learning,
    )


def parser() -> argparse.ArgumentParser:
    """``chess-envs dqn``'s command line: a flag per setting, by section."""
    return make_parser(DQNConfig, PRESETS, __doc__.splitlines()[0], "chess-envs dqn")


def main(argv: list[str] | None = None) -> Path:
    """Train the masked DQN from the command line ``argv`` (``chess-envs dqn``); returns the run folder."""
    args = parse_args(DQNConfig, PRESETS, argv, parser())
    folder = RunFolder(args)
    started = (folder.checkpoints / MANIFEST).exists()
    if (folder.checkpoints / "last.zip").exists() and not started:
        fail(f"{folder.path} holds a checkpoint in the old pickled SB3 format; start a new --run-name")
    folder.open(args, started)
    device = args.device if args.device != "auto" else "cuda" if torch.cuda.is_available() else "cpu"
    # The self-play opponent needs the model and the env needs the opponent: build the
    # environments around a placeholder that is pointed at the frozen copy once it exists.
    slot: dict[str, FrozenOpponent] = {}
    opponent: object = args.opponent if args.opponent == "random" else GreedyAgent(seed=args.seed)
    if args.opponent == "self":
        opponent = lambda state: slot["player"].select_action(state)  # noqa: E731
    env = DummyVecEnv([make_env(args, seat % 2, opponent) for seat in range(args.envs)])
    model = build_model(args, env, device)
    if started:
        try:
            restore_run(model, folder.path)
        except DQNCheckpointError as error:
            env.close()
            fail(f"cannot resume {folder.path}: {error}")
        print(f"resumed {folder.path} at step {model.num_timesteps}")
    model.set_logger(configure(str(folder.path), ["csv", "tensorboard"]))
    frozen = None
    if args.opponent == "self":
        frozen = slot["player"] = FrozenOpponent(model, seed=args.seed)
    remaining = max(0, args.total_steps - model.num_timesteps)
    with StopSignals() as stop:
        callback = TrainingCallback(args, folder.path, frozen, stop)
        try:
            model.learn(remaining, callback=CallbackList([callback]), reset_num_timesteps=False, log_interval=10)
        except KeyboardInterrupt:
            stop.interrupted()
        finally:
            stop.announce()
            try:
                path = save_run(model, folder.path)
            finally:
                env.close()
    print(f"saved {path} ({model.num_timesteps} steps)")
    return path
