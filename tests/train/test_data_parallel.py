"""The data-parallel learner: two ranks on the CPU over gloo end with the weights one process learns
from the same batches when it computes each rank's shard's BatchNorm statistics apart (gloo has no
synchronized BatchNorm; the running statistics are the ranks' mean). A whole-batch step gives other
weights, so the comparison can fail. Then a run with two ranks trains, saves and resumes."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.registry import new_state
from chess_envs.train import alphazero
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.data_parallel import DataParallel
from chess_envs.train.alphazero.optimization import Optimization, losses_and_logits
from chess_envs.train.alphazero.replay import ReplayBuffer
from chess_envs.train.alphazero.sections import new_network
from chess_envs.train.config import build

SMOKE = {**PRESETS["smoke"], "eval_every": 0, "progress": False}
CPU = torch.device("cpu")
STEPS, RANKS = 4, 2


def batches(config: AlphaZeroConfig) -> list[tuple[np.ndarray, ...]]:
    """``STEPS`` replay batches of random Los Alamos positions (random planes, policies and values)."""
    rng = np.random.default_rng(3)
    shape = new_state(config.game).observation_shape
    replay = ReplayBuffer(500, shape, 1)
    for _ in range(500):
        actions = rng.choice(1_000, size=5, replace=False)
        probs = rng.dirichlet(np.ones(5)).astype(np.float32)
        replay.add(rng.random(shape) < 0.3, actions, probs, rng.uniform(-1, 1, 1).astype(np.float32))
    return [replay.sample(config.batch_size, rng) for _ in range(STEPS)]


def optimization(network: torch.nn.Module, config: AlphaZeroConfig) -> Optimization:
    return Optimization(network, config.optimization, 0.0, {"learner_steps": 0, "seconds": 0.0})


def shard_step(learning: Optimization, batch: tuple[np.ndarray, ...], ranks: int) -> None:
    """One process's step as ``ranks`` CPU ranks take it: each shard normalized by its own
    statistics from the same running statistics, the gradients and running statistics averaged."""
    network = learning.network
    network.train()
    start = {name: buffer.clone() for name, buffer in network.named_buffers()}
    after: dict[str, torch.Tensor] = {}
    learning.optimizer.zero_grad()
    for shard in zip(*(np.split(array, ranks) for array in batch)):
        for name, buffer in network.named_buffers():
            buffer.copy_(start[name])
        policy, value, _ = losses_and_logits(network, shard, CPU)
        ((policy + value) / ranks).backward()
        for name, buffer in network.named_buffers():
            after[name] = after.get(name, 0) + buffer / ranks if buffer.is_floating_point() else buffer.clone()
    for name, buffer in network.named_buffers():
        buffer.copy_(after[name])
    learning.optimizer.step()
    learning.scheduler.step()
    learning.counters["learner_steps"] += 1


def close(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return all(torch.allclose(a[key].float(), b[key].float(), rtol=1e-4, atol=1e-5) for key in a)


def test_two_gloo_ranks_learn_what_one_process_learns_from_the_same_shards():
    config = build(AlphaZeroConfig, **{**SMOKE, "batch_size": 64}, learner_ranks=RANKS)
    torch.manual_seed(0)
    network = new_network(config, CPU)
    reference, whole = copy.deepcopy(network), copy.deepcopy(network)
    parallel = DataParallel(config, optimization(network, config))
    data = batches(config)
    try:
        losses = [parallel.step(batch) for batch in data]
    finally:
        parallel.close()
    assert not parallel.processes and all(np.isfinite(losses).ravel())
    one, plain = optimization(reference, config), optimization(whole, config)
    for batch in data:
        shard_step(one, batch, RANKS)
        plain.step(batch)
    learned = network.state_dict()
    assert close(learned, reference.state_dict())
    assert not close(learned, whole.state_dict())  # the shards' statistics are what the ranks compute


@pytest.mark.slow
def test_a_run_with_two_learner_ranks_trains_saves_and_resumes(tmp_path):
    settings = {**SMOKE, "runs_dir": str(tmp_path), "run_name": "ddp", "iterations": 3, "learner_ranks": 2}
    path = alphazero.run(build(AlphaZeroConfig, **settings))
    steps = load_checkpoint(path, "los_alamos")["counters"]["learner_steps"]
    assert steps > 0
    resumed = alphazero.run(build(AlphaZeroConfig, **{**settings, "iterations": 5, "resume": True}))
    assert load_checkpoint(resumed, "los_alamos")["counters"]["learner_steps"] > steps


def test_the_ranks_must_split_the_batch():
    with pytest.raises(ValueError, match="--learner-ranks 3 must divide --batch-size 32"):
        build(AlphaZeroConfig, **SMOKE, learner_ranks=3)
