"""The masked DQN learner: stable-baselines3's DQN, extended so it never picks an illegal move.

SB3's DQN chooses or scores actions in four places; :class:`MaskableDQN` applies the env's
``action_mask`` in each of them:

1. warm-up sampling (``_sample_action`` before ``learning_starts``): uniform over legal moves;
2. epsilon-greedy exploration (``predict`` with probability epsilon): uniform over legal moves;
3. the greedy action (:class:`chess_envs.agents.dqn.MaskedQNetwork`): argmax over legal moves only;
4. the TD target (``train``): the max over the NEXT observation's legal moves (zero where the
   game is over and nothing is legal).

:class:`CompactReplayBuffer` stores planes as uint8 and masks as packed bits, about four times
smaller than SB3's float32 buffer (see docs/dqn.md for the sums), and gives n-step returns.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import DictReplayBuffer
from stable_baselines3.common.type_aliases import DictReplayBufferSamples
from torch import nn

from chess_envs.agents.dqn import MASK, PLANES, MaskedDQNPolicy, legal


class CompactReplayBuffer(DictReplayBuffer):
    """SB3's dict replay buffer storing planes as uint8 (x255) and the mask as packed bits.

    The planes are 0/1 except a few scalar planes in [0, 1], which keep 1/255 resolution.
    With ``n_steps > 1`` a sample is an n-step transition (SB3's ``NStepReplayBuffer`` for dict
    observations): the discounted rewards of up to ``n_steps`` moves, stopping at the end of the
    game, the observation after the last of them and the discount left for its bootstrap.
    """

    def __init__(
        self,
        buffer_size: int,
        observation_space: gym.spaces.Dict,
        *args: Any,
        n_steps: int = 1,
        gamma: float = 0.99,
        **kwargs: Any,
    ) -> None:
        super().__init__(buffer_size, observation_space, *args, **kwargs)
        if n_steps < 1:
            raise ValueError(f"n_steps must be >= 1, got {n_steps}")
        self.n_steps, self.gamma = n_steps, gamma
        self._mask_size = int(np.prod(cast(tuple[int, ...], observation_space[MASK].shape)))
        packed = (self._mask_size + 7) // 8
        for store in (self.observations, self.next_observations):
            store[PLANES] = np.zeros((self.buffer_size, self.n_envs, *self.obs_shape[PLANES]), dtype=np.uint8)
            store[MASK] = np.zeros((self.buffer_size, self.n_envs, packed), dtype=np.uint8)
        self.obs_shape = {**self.obs_shape, MASK: (packed,)}

    def _compress(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        planes = np.rint(np.asarray(obs[PLANES], dtype=np.float32) * 255.0).astype(np.uint8)
        mask = np.packbits(np.asarray(obs[MASK]).reshape(self.n_envs, -1) > 0, axis=1)
        return {PLANES: planes, MASK: mask}

    def add(self, obs, next_obs, action, reward, done, infos) -> None:  # noqa: ANN001 (SB3's signature)
        super().add(self._compress(obs), self._compress(next_obs), action, reward, done, infos)

    def _expand(self, obs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        bits = torch.arange(7, -1, -1, device=obs[MASK].device)
        mask = (obs[MASK].long().unsqueeze(-1) >> bits) & 1
        return {PLANES: obs[PLANES].float() / 255.0, MASK: mask.flatten(1)[:, : self._mask_size].float()}

    def _get_samples(self, batch_inds: np.ndarray, env=None):  # noqa: ANN001, ANN202 (SB3's signature)
        samples = super()._get_samples(batch_inds, env) if self.n_steps == 1 else self._n_step_samples(batch_inds)
        return samples._replace(
            observations=self._expand(samples.observations), next_observations=self._expand(samples.next_observations)
        )

    def _n_step_samples(self, batch_inds: np.ndarray) -> DictReplayBufferSamples:
        """n-step transitions starting at ``batch_inds`` (environments drawn at random)."""
        envs = np.random.randint(0, self.n_envs, size=len(batch_inds))
        offsets = np.arange(self.n_steps)
        rows = (batch_inds[:, None] + offsets) % self.buffer_size
        dones, timeouts = self.dones[rows, envs[:, None]], self.timeouts[rows, envs[:, None]]
        # The newest transition ends every sequence: what follows it is older data or nothing.
        stop = (dones > 0) | (timeouts > 0) | (rows == (self.pos - 1) % self.buffer_size)
        last = np.where(stop.any(axis=1), stop.argmax(axis=1), self.n_steps - 1)
        used = offsets <= last[:, None]
        rewards = (self.rewards[rows, envs[:, None]] * self.gamma**offsets * used).sum(axis=1, keepdims=True)
        end = rows[np.arange(len(rows)), last]
        finished = self.dones[end, envs] * (1 - self.timeouts[end, envs])
        return DictReplayBufferSamples(
            observations={key: self.to_torch(store[batch_inds, envs]) for key, store in self.observations.items()},
            actions=self.to_torch(self.actions[batch_inds, envs]),
            next_observations={key: self.to_torch(store[end, envs]) for key, store in self.next_observations.items()},
            dones=self.to_torch(finished.reshape(-1, 1)),
            rewards=self.to_torch(rewards.astype(np.float32)),
            discounts=self.to_torch((self.gamma ** (last + 1)).astype(np.float32).reshape(-1, 1)),
        )

    @staticmethod
    def bytes_per_transition(observation_space: gym.spaces.Dict) -> int:
        """Bytes one transition takes here (observation and next observation, both stored)."""
        planes = int(np.prod(cast(tuple[int, ...], observation_space[PLANES].shape)))
        mask = (int(np.prod(cast(tuple[int, ...], observation_space[MASK].shape))) + 7) // 8
        return 2 * (planes + mask) + 8 + 4 + 4 + 4  # + action (int64), reward, done, timeout


def _legal_choice(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (0 where nothing is legal)."""
    masks = np.asarray(masks).reshape(len(masks), -1) > 0
    choices = np.zeros(len(masks), dtype=np.int64)
    for row, mask in enumerate(masks):
        actions = np.flatnonzero(mask)
        if actions.size:
            choices[row] = rng.choice(actions)
    return choices


class MaskableDQN(DQN):
    """SB3's DQN with the legal-action mask applied wherever it picks or scores an action.

    ``game`` is saved with the model, so a checkpoint for another game is refused on load.
    ``double_q``: the TD target scores the online network's best legal move with the target
    network (Double DQN), which curbs the overestimation of a max over noisy values.
    ``n_steps``: n-step returns (see :class:`CompactReplayBuffer`).
    """

    policy_aliases = {**DQN.policy_aliases, "MaskedDQNPolicy": MaskedDQNPolicy}

    def __init__(
        self,
        policy: Any = MaskedDQNPolicy,
        env: Any = None,
        *,
        game: str = "",
        double_q: bool = True,
        n_steps: int = 1,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("replay_buffer_class", CompactReplayBuffer)
        if n_steps > 1:  # SB3 sets n-step returns up only for its own buffers: hand them to ours
            extra = {"n_steps": n_steps, "gamma": kwargs.get("gamma", 0.99)}
            kwargs["replay_buffer_kwargs"] = {**(kwargs.get("replay_buffer_kwargs") or {}), **extra}
        super().__init__(policy, env, **kwargs)
        self.game = game
        self.double_q = double_q
        self._mask_rng = np.random.default_rng(kwargs.get("seed"))

    # place 1: warm-up sampling
    def _sample_action(self, learning_starts: int, action_noise: Any = None, n_envs: int = 1):  # noqa: ANN202
        if self.num_timesteps < learning_starts:
            action = _legal_choice(cast(dict[str, np.ndarray], self._last_obs)[MASK], self._mask_rng)
            return action, action
        return super()._sample_action(learning_starts, action_noise, n_envs)

    # place 2: epsilon-greedy exploration (place 3 is the policy's masked argmax)
    def predict(self, observation: Any, state: Any = None, episode_start: Any = None, deterministic: bool = False):  # noqa: ANN201
        if not deterministic and np.random.rand() < self.exploration_rate:
            masks = np.asarray(observation[MASK])
            vectorized = masks.ndim == 2
            action = _legal_choice(masks if vectorized else masks[None], self._mask_rng)
            return (action if vectorized else action[0]), state
        return self.policy.predict(observation, state, episode_start, deterministic)

    # place 4: the target's max over the next observation's legal actions
    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            data = cast(CompactReplayBuffer, self.replay_buffer).sample(batch_size, env=self._vec_normalize_env)
            n_step = getattr(data, "discounts", None)
            discounts: torch.Tensor | float = self.gamma if n_step is None else n_step
            with torch.no_grad():
                next_legal = legal(cast(dict[str, torch.Tensor], data.next_observations))
                next_q = self.q_net_target(data.next_observations)
                if self.double_q:  # the online network picks the move, the target network scores it
                    best = self.q_net(data.next_observations).masked_fill(~next_legal, -torch.inf).argmax(dim=1)
                    next_q = next_q.gather(1, best[:, None]).expand_as(next_q)
                target_q = masked_max(next_q, next_legal)
                target = data.rewards + (1 - data.dones) * discounts * target_q.reshape(-1, 1)
            current = torch.gather(self.q_net(data.observations), dim=1, index=data.actions.long())
            loss = F.smooth_l1_loss(current, target)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)))

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_mask_rng"]


def masked_max(q_values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per row, the max Q-value over the legal actions; 0 for rows with none (finished games)."""
    best = q_values.masked_fill(~mask, -torch.inf).max(dim=1).values
    return torch.where(mask.any(dim=1), best, torch.zeros_like(best))
