"""sb3-contrib's MaskablePPO trains on the native vector env through SB3VecEnv."""

from __future__ import annotations

import os

import numpy as np
import pytest

from chess_envs.train.dqn.vec_env import SB3VecEnv
from chess_envs.vector_env import GameVectorEnv

if os.environ.get("CI"):
    import sb3_contrib  # CI installs the dev extras, sb3-contrib included: never skip there
else:
    sb3_contrib = pytest.importorskip("sb3_contrib")


class IllegalCount:
    """Counts games ended by an illegal action (a masking failure) in the infos SB3 sees."""

    def __init__(self, venv: SB3VecEnv) -> None:
        self.venv, self.illegal, self.ended = venv, 0, 0
        self._step_wait = venv.step_wait
        venv.step_wait = self.step_wait

    def step_wait(self):
        obs, rewards, dones, infos = self._step_wait()
        for done, info in zip(dones, infos):
            if done:
                self.ended += 1
                self.illegal += info["termination"] == "illegal_action"
                assert info["terminal_observation"]["observation"].shape == (51, 6, 6)
        assert obs["action_mask"].any(axis=1).all(), "every game has a legal move after same-step reset"
        return obs, rewards, dones, infos


def test_maskable_ppo_learns_on_the_vector_env_without_illegal_moves():
    venv = SB3VecEnv(GameVectorEnv(8, "los_alamos", opponent="random", max_plies=60))
    counter = IllegalCount(venv)
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [32]}
    )
    model.learn(total_timesteps=1024)
    assert counter.ended > 8 and counter.illegal == 0
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (8, 1944) and masks.any(axis=1).all()


def test_reset_done_restarts_the_games_that_just_ended():
    native = GameVectorEnv(4, "chess", max_plies=6, copy=False)
    native.reset(seed=2)
    for _ in range(6):
        obs, _, terminated, truncated, _ = native.step(native.random_actions())
    assert (terminated | truncated).all()
    assert not obs["action_mask"].any()
    fresh = native.reset_done()
    assert fresh["action_mask"].any(axis=1).all()
    assert native.fen(0).startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    _, rewards, terminated, truncated, _ = native.step(native.random_actions())  # plays, no second reset
    assert not (terminated | truncated).any() and native.fen(0).split()[1] == "b"
