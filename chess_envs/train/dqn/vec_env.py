"""Our native vector envs as a Stable-Baselines3 ``VecEnv``, for SB3 and sb3-contrib algorithms.

SB3 resets a finished game within the same step and hands its last observation over in
``infos[i]["terminal_observation"]``; :class:`GameVectorEnv` resets on the next step
(Gymnasium 1.x), so this adapter takes the final rows and then calls ``reset_done()``.
``env_method("action_masks")`` serves sb3-contrib's ``MaskablePPO``::

    venv = SB3VecEnv(GameVectorEnv(8, "los_alamos", opponent="random"))
    MaskablePPO("MultiInputPolicy", venv).learn(10_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from chess_envs.vector_env import GameVectorEnv


class SB3VecEnv(VecEnv):
    """A :class:`~chess_envs.vector_env.GameVectorEnv` behind SB3's ``VecEnv`` interface."""

    def __init__(self, env: GameVectorEnv) -> None:
        if env.autoreset_mode is not AutoresetMode.NEXT_STEP:
            raise ValueError(f"SB3VecEnv resets games itself: give it a next-step env, not {env.autoreset_mode}")
        self.env = env
        self._actions = np.zeros(env.num_envs, dtype=np.int64)
        self._seed: int | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> dict[str, np.ndarray]:
        obs, _ = self.env.reset(seed=self._seed)
        self._seed = None
        return {key: value.copy() for key, value in obs.items()}

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        obs = {key: value.copy() for key, value in obs.items()}
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            names = info.get("termination", [""] * self.num_envs)
            for i in np.flatnonzero(dones):
                infos[i] = {
                    "terminal_observation": {key: value[i].copy() for key, value in obs.items()},
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "termination": names[i],
                }
            fresh = self.env.reset_done()
            for key in obs:
                obs[key][dones] = fresh[key][dones]
        return obs, rewards.copy(), dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal-action masks, (num_envs, num_actions) bool."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        self._seed = seed
        return [seed] * self.num_envs

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.env, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"SB3VecEnv does not set {attr_name!r} on the native games")

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"SB3VecEnv offers only action_masks() per game, not {method_name!r}")
        masks = self.env.action_masks()
        return [masks[i] for i in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)
