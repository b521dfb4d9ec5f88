"""A data-parallel learner (``--learner-ranks N``): N processes, each with a replica of the network,
learn every step on their share of one replay batch; torch's DistributedDataParallel averages the
gradients, so every replica takes the same optimizer step and the weights stay equal.

This process is rank 0: it samples the batch from its replay buffer as a one-process learner does
and scatters the shards (``batch_size / N`` positions each) over a gloo group; ranks 1.. are spawned
here, hold no replay and no checkpoint (rank 0's state is the run's), and start from rank 0's weights
and optimizer state. On GPUs rank r uses ``cuda:r`` and the gradients travel over NCCL; on the CPU
over gloo.

BatchNorm: on GPUs the network's BatchNorm layers become SyncBatchNorm (statistics over the whole
batch, as one process would compute them). gloo has no synchronized BatchNorm, so on the CPU each rank
normalizes with its own shard's statistics and the running statistics are averaged over the ranks
after every step: the reference is one process that computes each shard's statistics apart
(``tests/train/test_data_parallel.py`` checks the weights against it).
"""

from __future__ import annotations

import contextlib
import inspect
import multiprocessing
import os
import signal
from datetime import timedelta
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from chess_envs.train.alphazero.config import AlphaZeroConfig
from chess_envs.train.alphazero.optimization import Optimization
from chess_envs.train.alphazero.sections import new_network

TIMEOUT = timedelta(seconds=120)
"""How long a rank waits for the others (a lost rank fails the step after this, not never)."""
NO_BUFFER_SYNC: dict[str, Any] = (
    {"forward_sync_buffers": False}  # torch 2.13 renamed broadcast_buffers
    if "forward_sync_buffers" in inspect.signature(DistributedDataParallel.__init__).parameters
    else {"broadcast_buffers": False}
)
"""DDP's setting for buffers each rank keeps (the running statistics are averaged after each step instead)."""
STOP, STEP = 0.0, 1.0
"""Rank 0's commands to the others, the first number of each step's header."""


def rank_device(device: torch.device, rank: int) -> torch.device:
    """Rank ``rank``'s device when rank 0 learns on ``device``: ``cuda:rank`` on GPUs, else the CPU."""
    return torch.device("cuda", rank) if device.type == "cuda" else torch.device("cpu")


class Replica:
    """One rank's network in DistributedDataParallel, and the step every rank takes on its shard."""

    def __init__(self, optimization: Optimization, world: int) -> None:
        self.optimization, self.world = optimization, world
        network, device = optimization.network, optimization.device
        self.synchronized = device.type == "cuda"
        if self.synchronized:  # the same Parameter objects: the optimizer keeps its references
            torch.nn.SyncBatchNorm.convert_sync_batchnorm(network)
        self.module = DistributedDataParallel(
            network, device_ids=[device.index] if device.type == "cuda" else None, **NO_BUFFER_SYNC
        )
        self.running = [buffer for buffer in network.buffers() if buffer.is_floating_point()]

    def step(self, shard: tuple[np.ndarray, ...]) -> tuple[float, float]:
        """One learner step on this rank's shard; the ranks' mean (policy loss, value loss)."""
        losses = self.optimization.step(shard, module=self.module)
        if not self.synchronized:
            for buffer in self.running:
                dist.all_reduce(buffer)
                buffer /= self.world
        mean = torch.tensor(losses, dtype=torch.float64, device=self.optimization.device)
        dist.all_reduce(mean)
        return float(mean[0]) / self.world, float(mean[1]) / self.world


def _join(rank: int, world: int, port: int, device: torch.device) -> dist.ProcessGroup:
    """Join the ranks' default group (NCCL on GPUs, gloo on the CPU); the gloo group rank 0 commands through."""
    store = dist.TCPStore("127.0.0.1", port, world, is_master=False, timeout=TIMEOUT)
    backend = "nccl" if device.type == "cuda" else "gloo"
    dist.init_process_group(backend, store=store, rank=rank, world_size=world, timeout=TIMEOUT)
    return dist.new_group(backend="gloo", timeout=TIMEOUT)


def _serve(rank: int, world: int, port: int, config: AlphaZeroConfig, device: torch.device) -> None:
    """A rank other than 0: take rank 0's state, then a step on each shard it scatters until it says stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is rank 0's to handle: it stops the others
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    if device.type == "cuda":
        torch.cuda.set_device(device)
    control = _join(rank, world, port, device)
    counters: dict[str, Any] = {"learner_steps": 0, "seconds": 0.0}
    optimization = Optimization(new_network(config, device), config.optimization, config.minutes, counters)
    start: list[Any] = [None]
    dist.broadcast_object_list(start, src=0, group=control)
    state, shapes = start[0]
    optimization.network.load_state_dict(state["model"])
    optimization.load_state_dict(state)
    replica = Replica(optimization, world)
    header = torch.zeros(3, dtype=torch.float64)
    while True:
        dist.broadcast(header, src=0, group=control)
        if header[0] == STOP:
            break
        counters["learner_steps"], counters["seconds"] = int(header[1]), float(header[2])
        shard = [torch.empty(shape, dtype=dtype) for shape, dtype in shapes]
        for tensor in shard:
            dist.scatter(tensor, None, src=0, group=control)
        replica.step(tuple(tensor.numpy() for tensor in shard))
    dist.destroy_process_group()


class DataParallel:
    """Rank 0 of ``config.learner_ranks``: :meth:`step` takes a whole batch and learns it with the
    other ranks, which start at the first step (from the weights and optimizer state ``optimization``
    has then: a resumed run's) and stop at :meth:`close`."""

    def __init__(self, config: AlphaZeroConfig, optimization: Optimization) -> None:
        self.config, self.optimization, self.world = config, optimization, config.learner_ranks
        self.processes: list[BaseProcess] = []
        self.replica: Replica | None = None
        self.control: dist.ProcessGroup | None = None

    def _start(self, batch: tuple[np.ndarray, ...]) -> tuple[Replica, dist.ProcessGroup]:
        device = self.optimization.device
        if device.type == "cuda" and torch.cuda.device_count() < self.world:
            gpus = torch.cuda.device_count()
            raise ValueError(f"--learner-ranks {self.world} on CUDA needs as many GPUs; {gpus} here")
        store = dist.TCPStore("127.0.0.1", 0, self.world, is_master=True, timeout=TIMEOUT, wait_for_workers=False)
        context = multiprocessing.get_context("spawn")  # this process holds torch's threads: no fork
        for rank in range(1, self.world):
            args = (rank, self.world, store.port, self.config, rank_device(device, rank))
            process = context.Process(target=_serve, args=args, daemon=True, name=f"learner-rank-{rank}")
            process.start()
            self.processes.append(process)
        backend = "nccl" if device.type == "cuda" else "gloo"
        dist.init_process_group(backend, store=store, rank=0, world_size=self.world, timeout=TIMEOUT)
        control = dist.new_group(backend="gloo", timeout=TIMEOUT)
        shapes = [((len(array) // self.world, *array.shape[1:]), torch.from_numpy(array).dtype) for array in batch]
        state = {"model": self.optimization.network.state_dict(), **self.optimization.state_dict()}
        dist.broadcast_object_list([(state, shapes)], src=0, group=control)
        return Replica(self.optimization, self.world), control

    def step(self, batch: tuple[np.ndarray, ...]) -> tuple[float, float]:
        """One learner step of all ranks on ``batch`` (as
        :func:`~chess_envs.train.alphazero.optimization.losses_and_logits` takes it; its length a multiple
        of the ranks); the ranks' mean (policy loss, value loss)."""
        if self.replica is None or self.control is None:
            self.replica, self.control = self._start(batch)
        counters = self.optimization.counters
        header = torch.tensor([STEP, counters["learner_steps"], counters["seconds"]], dtype=torch.float64)
        try:
            dist.broadcast(header, src=0, group=self.control)
            mine = []
            for array in batch:
                whole = torch.from_numpy(np.ascontiguousarray(array))
                shards = [shard.contiguous() for shard in whole.chunk(self.world)]
                tensor = torch.empty_like(shards[0])
                dist.scatter(tensor, shards, src=0, group=self.control)
                mine.append(tensor.numpy())
            return self.replica.step(tuple(mine))
        except RuntimeError as error:
            lost = [p.name for p in self.processes if not p.is_alive()]
            raise RuntimeError(f"the data-parallel learner lost a rank ({', '.join(lost) or error})") from error

    def close(self) -> None:
        """Stop the other ranks (they hold nothing of the run's) and leave the group."""
        if self.control is not None:
            with contextlib.suppress(RuntimeError):  # a rank already gone: there is nothing left to stop
                dist.broadcast(torch.tensor([STOP, 0, 0], dtype=torch.float64), src=0, group=self.control)
            dist.destroy_process_group()
            self.control = self.replica = None
        for process in self.processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
        self.processes = []
