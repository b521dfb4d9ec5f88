"""A replay buffer of self-play positions in compact form.

Planes are stored as uint8 (value * 255, exact for the 0/1 planes, 1/255 steps for the
counters), policy targets sparsely (the searched actions and their probabilities, float16),
and one value target per seat counted from the mover. ``state_dict`` holds tensors only, so
the buffer goes into a ``weights_only`` checkpoint.
"""

from __future__ import annotations

import numpy as np
import torch


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
        self.planes[i] = np.rint(planes * 255.0)
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

    def state_dict(self) -> dict:
        n = self.size
        return {
            "planes": torch.from_numpy(self.planes[:n].copy()),
            "policy_actions": torch.from_numpy(self.policy_actions[:n].copy()),
            "policy_probs": torch.from_numpy(self.policy_probs[:n].copy()),
            "values": torch.from_numpy(self.values[:n].copy()),
            "position": self.position,
            "added": self.added,
        }

    def load_state_dict(self, state: dict) -> None:
        n = state["planes"].shape[0]
        if n > self.capacity or tuple(state["planes"].shape[1:]) != self.planes.shape[1:]:
            raise ValueError(f"replay data of shape {tuple(state['planes'].shape)} does not fit this buffer")
        self.planes[:n] = state["planes"].numpy()
        self.policy_actions[:n] = state["policy_actions"].numpy()
        self.policy_probs[:n] = state["policy_probs"].numpy()
        self.values[:n] = state["values"].numpy()
        self.size, self.position, self.added = n, int(state["position"]) % self.capacity, int(state["added"])
