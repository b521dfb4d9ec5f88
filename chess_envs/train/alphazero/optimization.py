"""How an AlphaZero network learns, for self-play and distillation alike: the policy and value
loss, the optimizer, the learning-rate schedule and mixed precision on a GPU."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from chess_envs.agents.alphazero.checkpoint import CheckpointError, load_checkpoint
from chess_envs.agents.alphazero.network import NetworkConfig
from chess_envs.train.alphazero.sections import OptimizerSection
from chess_envs.train.config import Config, to_dict


def losses_and_logits(
    network: torch.nn.Module, batch: tuple[np.ndarray, ...], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(policy loss, value loss, the logits [B, A] they came from) of a batch: planes [B, C, H, W]
    float32, policy actions [B, K] (padded with -1) and probabilities [B, K], values [B, V];
    cross-entropy against the sparse policy targets and the mean squared error of the values."""
    planes, actions, probs, values = batch
    planes_t = torch.from_numpy(planes).to(device).contiguous(memory_format=torch.channels_last)
    actions_t = torch.from_numpy(actions).long().to(device)
    probs_t = torch.from_numpy(probs).to(device)
    values_t = torch.from_numpy(values).to(device)
    with torch.autocast(device.type, dtype=torch.float16, enabled=device.type == "cuda"):
        logits, predicted = network(planes_t)
    log_probs = F.log_softmax(logits.float(), dim=1)
    picked = torch.gather(log_probs, 1, actions_t.clamp(min=0)) * (actions_t >= 0)
    return -(probs_t * picked).sum(dim=1).mean(), F.mse_loss(predicted.float(), values_t), logits.float()


def learning_rate_factor(section: OptimizerSection, steps: int, seconds: float, minutes: float) -> float:
    """The share of the peak learning rate after ``steps`` steps and ``seconds`` of a run: 1, or
    (cosine) from 1 down to 1/20, the run's progress being the larger of its share of
    ``total_steps`` and, with ``minutes``, its share of that time (a run cut short by time still anneals)."""
    if section.lr_schedule == "constant":
        return 1.0
    progress = steps / section.total_steps
    if minutes:
        progress = max(progress, seconds / (minutes * 60))
    floor = 1 / 20
    return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))


class Optimization:
    """The optimizer, schedule and gradient scaler of ``network``; ``counters`` (the run's, shared)
    holds ``learner_steps`` and ``seconds``, which :meth:`step` and the schedule read."""

    def __init__(
        self, network: torch.nn.Module, section: OptimizerSection, minutes: float, counters: dict[str, Any]
    ) -> None:
        self.network, self.section, self.minutes, self.counters = network, section, minutes, counters
        self.device = next(network.parameters()).device
        parameters = network.parameters()
        if section.optimizer == "adamw":
            self.optimizer: torch.optim.Optimizer = torch.optim.AdamW(
                parameters, section.learning_rate, weight_decay=section.weight_decay
            )
        else:
            self.optimizer = torch.optim.SGD(
                parameters, section.learning_rate, momentum=0.9, nesterov=True, weight_decay=section.weight_decay
            )
        self.scaler = torch.amp.GradScaler(enabled=self.device.type == "cuda")
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer,
            lambda _: learning_rate_factor(section, counters["learner_steps"], counters["seconds"], minutes),
        )

    @property
    def learning_rate(self) -> float:
        return float(self.scheduler.get_last_lr()[0])

    def step(self, batch: tuple[np.ndarray, ...], module: torch.nn.Module | None = None) -> tuple[float, float]:
        """One learner step on ``batch`` (see :func:`losses_and_logits`); (policy loss, value loss).
        ``module``: what runs the network forward, when not the network itself (a data-parallel wrapper)."""
        self.network.train()
        policy_loss, value_loss, _ = losses_and_logits(module or self.network, batch, self.device)
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(policy_loss + value_loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        self.counters["learner_steps"] += 1
        return policy_loss.item(), value_loss.item()

    def state_dict(self) -> dict[str, Any]:
        """The checkpoint's keys for the optimization (as 0.2 named them)."""
        return {
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
        }

    def load_state_dict(self, payload: dict[str, Any]) -> None:
        """From a checkpoint's keys; KeyError, ValueError or RuntimeError when they do not fit."""
        self.optimizer.load_state_dict(payload["optimizer"])
        self.scheduler.load_state_dict(payload["scheduler"])
        if "scaler" in payload:  # distillation checkpoints of 0.2 had none (it learned in float32)
            self.scaler.load_state_dict(payload["scaler"])


def training_payload(
    config: Config, network_config: NetworkConfig, optimization: Optimization, counters: dict, rng: np.random.Generator
) -> dict[str, Any]:
    """A trainer's checkpoint: what agents load (game, network shape, weights), then the config,
    optimization, counters and random states that ``--resume`` continues from."""
    return {
        "game": config.game,
        "config": to_dict(config),
        "network": network_config.to_dict(),
        "model": optimization.network.state_dict(),
        **optimization.state_dict(),
        "counters": dict(counters),
        "rng": {"python": random.getstate(), "numpy": rng.bit_generator.state, "torch": torch.get_rng_state()},
    }


def restore_training(
    path: Path, config: Config, network_config: NetworkConfig, optimization: Optimization, rng: np.random.Generator
) -> dict[str, Any]:
    """Load a checkpoint of :func:`training_payload` into the network, optimization and random
    states (the caller takes the counters it keeps); CheckpointError says why it does not fit."""
    payload = load_checkpoint(path, config.game, map_location=optimization.device)
    try:
        stored = NetworkConfig.from_file(payload["network"])
    except ValueError as error:
        raise CheckpointError(f"{path}: {error}") from None
    if stored != network_config:
        raise CheckpointError(f"{path} holds a network of another shape: {payload['network']}")
    try:
        optimization.network.load_state_dict(payload["model"])
        optimization.load_state_dict(payload)
        states = payload["rng"]
        rng.bit_generator.state = states["numpy"]
        torch.set_rng_state(states["torch"])
        if "python" in states:  # distillation checkpoints of 0.2 had none
            random.setstate(states["python"])
    except (KeyError, ValueError, RuntimeError, TypeError) as error:
        raise CheckpointError(f"{path}: its training state does not fit this run ({error})") from None
    return payload
