"""A replay buffer of self-play positions in compact form.

Planes are stored as uint8 (value * 255, exact for the 0/1 planes, 1/255 steps for the
counters), policy targets sparsely (the searched actions and their probabilities, float16),
and one value target per seat counted from the mover. The buffer lives in its own file beside
the checkpoints (:meth:`save`, :meth:`load`): an ``.npz`` of plain arrays, written atomically and
read without pickle, so checkpoints stay a few MB.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from agents.alphazero.mcts_config import quantize_planes
from chess_envs.files import write_atomic

_ARRAYS = ("planes", "policy_actions", "policy_probs", "values")


class ReplayBuffer:
    def __init__(self, capacity: int, planes_shape: tuple[int, ...], value_size: int, max_actions: int = 64) -> None:
        self.capacity = capacity
        self.max_actions = max_actions
        self.planes = np.zeros((capacity, *planes_shape), dtype=np.uint8)
        self.policy_actions = np.full((capacity, max_actions), -1, dtype=np.int32)
        self.policy_probs = np.zeros((capacity, max_actions), dtype=np.float16)
        self.values = np.zeros((capacity, value_size), dtype=np.float32)
        self.size = 0
        self.position = 0
        self.added = 0

    def __len__(self) -> int:
        return self.size

    def add(self, planes: np.ndarray, actions: np.ndarray, probs: np.ndarray, value: np.ndarray) -> None:
        """One position: float planes, the policy target over ``actions``, the value target."""
        i = self.position
        self.planes[i] = quantize_planes(planes)
        if len(actions) > self.max_actions:  # keep the most visited actions, renormalised
            keep = np.argsort(-probs)[: self.max_actions]
            actions, probs = actions[keep], probs[keep] / probs[keep].sum()
        self.policy_actions[i] = -1
        self.policy_probs[i] = 0
        self.policy_actions[i, : len(actions)] = actions
        self.policy_probs[i, : len(actions)] = probs
        self.values[i] = value
        self.position = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        self.added += 1

    def sample(self, batch_size: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """(planes float32, policy actions, policy probs float32, values) of a uniform batch."""
        index = rng.integers(self.size, size=batch_size)
        planes = self.planes[index].astype(np.float32) / 255.0
        return planes, self.policy_actions[index], self.policy_probs[index].astype(np.float32), self.values[index]

    def save(self, path: str | Path) -> Path:
        """Write the filled part of the buffer to ``path`` (an ``.npz``), whole or not at all."""
        n = self.size
        arrays = {name: getattr(self, name)[:n] for name in _ARRAYS}
        counters = np.array([self.position, self.added], dtype=np.int64)
        return write_atomic(path, lambda handle: np.savez(handle, counters=counters, **arrays))

    def load(self, path: str | Path) -> None:
        """Fill the buffer from a file of :meth:`save`; ValueError says why a file does not fit."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in (*_ARRAYS, "counters")}
        except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError) as error:
            raise ValueError(f"{path} is not a replay buffer file ({error})") from None
        n = len(arrays["planes"])
        if n > self.capacity or arrays["planes"].shape[1:] != self.planes.shape[1:]:
            raise ValueError(f"{path}: replay data of shape {arrays['planes'].shape} does not fit this buffer")
        for name in _ARRAYS:
            target = getattr(self, name)
            if arrays[name].shape[1:] != target.shape[1:] or len(arrays[name]) != n:
                raise ValueError(
                    f"{path}: its {name} have shape {arrays[name].shape}, expected [{n}, *{target.shape[1:]}]"
                )
            target[:n] = arrays[name]
        position, added = (int(x) for x in arrays["counters"])
        self.size, self.position, self.added = n, position % self.capacity, added
