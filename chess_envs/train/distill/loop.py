"""Distillation: an AlphaZero network that first learns from an engine's labels, then self-play.

    python -m chess_envs.train.distill --game chess --teacher "stockfish?depth=8" --positions 200000 --total-steps 20000
    python -m chess_envs.train.distill --run-name NAME --resume          # continue whichever stage was cut off
    python -m chess_envs.train.alphazero --preset chess --init runs/NAME/checkpoints/last.pt

Two stages, both resumable: **data** (:mod:`chess_envs.train.distill.data`: engine processes play and label
games into ``data/shard_NNNNN.npz``), then **learn** (the network trains on the shards; a held-out
share of the games scores it). Its checkpoint is an ordinary AlphaZero one: agents play it and
``chess_envs.train.alphazero --init`` continues it by self-play.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from chess_envs.agents.alphazero.checkpoint import CheckpointError, save_checkpoint
from chess_envs.agents.alphazero.network import resolve_device
from chess_envs.agents.base import AgentError
from chess_envs.train.alphazero.optimization import Optimization, losses_and_logits, restore_training, training_payload
from chess_envs.train.alphazero.sections import network_config, new_network, take_init_shape
from chess_envs.train.config import fail, make_parser, parse_args
from chess_envs.train.distill.config import DistillConfig
from chess_envs.train.distill.data import Shards, generate
from chess_envs.train.run_folder import RunFolder, StopSignals
from chess_envs.train.run_log import RunLog


def held_out(games: np.ndarray, config: DistillConfig) -> np.ndarray:
    """Which positions [N] (bool) belong to a held-out game: ``validation_share`` of the games,
    drawn from the run's seed, so a run and its later scoring split the same way."""
    games_held_out = np.random.default_rng([config.seed, 3]).random(int(games.max()) + 1) < config.validation_share
    return games_held_out[games]


def value_targets(data: dict[str, np.ndarray], config: DistillConfig, value_size: int) -> np.ndarray:
    """Value targets [N, value_size] float32: the engine's score for the mover's side blended with
    the game's result; a network with a value per seat (Teams, seats from the mover) gets the
    side's value for the mover and its partner and its negation for the two others."""
    weight = config.result_weight
    mover = ((1 - weight) * data["scores"] + weight * data["results"]).astype(np.float32)[:, None]
    sides = np.array([1.0 if seat % 2 == 0 else -1.0 for seat in range(value_size)], np.float32)
    return mover * sides


def batch_of(data: dict[str, np.ndarray], values: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """(planes float32 [B, C, H, W], policy actions [B, K], policy probs float32 [B, K], values [B, 1]) of ``rows``."""
    planes = data["planes"][rows].astype(np.float32) / 255.0
    return planes, data["policy_actions"][rows], data["policy_probs"][rows].astype(np.float32), values[rows]


@torch.no_grad()
def score(network: torch.nn.Module, batch: tuple[np.ndarray, ...], device: torch.device) -> dict[str, float]:
    """Policy and value loss of a batch, and how often the network's top move among the teacher's
    lines is the teacher's best: only where the teacher gave more than one line (with one, it
    always is)."""
    policy_loss, value_loss, logits = losses_and_logits(network, batch, device)
    scores = {"validation/policy_loss": policy_loss.item(), "validation/value_loss": value_loss.item()}
    if batch[1].shape[1] > 1:
        actions = torch.from_numpy(batch[1]).long().to(device).clamp(min=0)
        legal = torch.full_like(logits, -torch.inf).scatter_(1, actions, logits.gather(1, actions))
        top = legal.argmax(dim=1).cpu().numpy()
        scores["validation/teacher_move_agreement"] = float(np.mean(top == batch[1][:, 0]))
    return scores


class Trainer:
    """The network and its optimization, the held-out split, checkpoints and logs."""

    def __init__(self, config: DistillConfig, data: dict[str, np.ndarray], folder: RunFolder) -> None:
        self.config, self.folder, self.data = config, folder, data
        self.device = resolve_device(config.device)
        torch.manual_seed(config.seed)
        random.seed(config.seed)
        self.rng = np.random.default_rng([config.seed, 2])
        self.network_config = network_config(config)
        self.network = new_network(config, self.device)
        self.counters: dict[str, Any] = {"learner_steps": 0, "seconds": 0.0, "positions": len(data["scores"])}
        self.optimization = Optimization(self.network, config.optimization, config.minutes, self.counters)
        mask = held_out(data["game"], config)
        self.train_rows, self.validation_rows = np.flatnonzero(~mask), np.flatnonzero(mask)
        if not len(self.train_rows):
            raise ValueError("every game is held out: lower --validation-share or label more positions")
        self.values = value_targets(data, config, self.network_config.value_size)
        self.run_log = RunLog(folder.path)

    def step(self) -> tuple[float, float]:
        rows = self.train_rows[self.rng.integers(len(self.train_rows), size=self.config.batch_size)]
        return self.optimization.step(batch_of(self.data, self.values, rows))

    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        """Losses and how often the network's top move is the teacher's, on the held-out games."""
        rows = self.validation_rows[:4096]
        if not len(rows):
            return {}
        self.network.eval()
        return score(self.network, batch_of(self.data, self.values, rows), self.device)

    def save(self) -> Path:
        payload = training_payload(self.config, self.network_config, self.optimization, self.counters, self.rng)
        payload["distilled_from"] = self.config.teacher
        return self.folder.save(payload, self.counters["learner_steps"], keep=self.config.keep_checkpoints)

    def restore(self, path: Path) -> None:
        payload = restore_training(path, self.config, self.network_config, self.optimization, self.rng)
        self.counters.update({k: payload["counters"][k] for k in ("learner_steps", "seconds")})


def learn(config: DistillConfig, trainer: Trainer) -> Path:
    """Learner steps until ``total_steps`` (or ``minutes``), saving on the way and on Ctrl-C."""
    counters = trainer.counters
    seconds_before = counters["seconds"]
    bar = tqdm(
        total=config.total_steps, initial=counters["learner_steps"], desc="learner steps", disable=not config.progress
    )
    totals, count, started = np.zeros(2), 0, time.monotonic()
    with StopSignals() as stop:
        try:
            while counters["learner_steps"] < config.total_steps and not stop.requested:
                if config.minutes and counters["seconds"] >= config.minutes * 60:
                    break
                totals += trainer.step()
                count += 1
                counters["seconds"] = seconds_before + time.monotonic() - started
                bar.update()
                step = counters["learner_steps"]
                if step % config.eval_every == 0 or step == config.total_steps:
                    values = {"losses/policy": totals[0] / count, "losses/value": totals[1] / count}
                    values["charts/learning_rate"] = trainer.optimization.learning_rate
                    values.update(trainer.validate())
                    trainer.run_log.write(step, values)
                    bar.set_postfix({k.split("/")[1]: round(v, 3) for k, v in values.items() if "validation" in k})
                    totals, count = np.zeros(2), 0
                if step % config.checkpoint_every == 0:
                    trainer.save()
        except KeyboardInterrupt:
            stop.interrupted()
        finally:
            bar.close()
            stop.announce()
            path = trainer.save()
            trainer.run_log.close()
    print(f"saved {path} ({counters['learner_steps']} learner steps on {counters['positions']:,} positions)")
    return path


def parser() -> argparse.ArgumentParser:
    """``chess-envs distill``'s command line: a flag per setting, by section."""
    return make_parser(DistillConfig, {}, __doc__.splitlines()[0], "chess-envs distill")


def main(argv: list[str] | None = None) -> Path | None:
    """Label positions with an engine, then learn them, from the command line ``argv``
    (``chess-envs distill``); returns the run folder, or None after the labelling stage alone."""
    config = parse_args(DistillConfig, {}, argv, parser())
    try:
        config = take_init_shape(config)
    except (CheckpointError, ValueError) as error:
        fail(f"--init: {error}")
    folder = RunFolder(config, save_checkpoint)
    shards = Shards(folder.path / "data")
    folder.open(config, bool(folder.checkpoint_files() or shards.paths), folders=("data",))
    try:
        stopped = generate(config, shards) if config.stage in ("all", "data") else ""
        if stopped or config.stage == "data":
            return None
        trainer = Trainer(config, shards.load(), folder)
        if folder.checkpoint_files():
            trainer.restore(folder.checkpoint_files()[0])
            print(f"resumed learning at step {trainer.counters['learner_steps']}")
    except (AgentError, ValueError, CheckpointError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        fail("interrupted: the labelled files written so far are kept; --resume continues")
    return learn(config, trainer)
