"""``render()`` in ``rgb_array`` mode hands out a writable frame (video recorders and wrappers that
draw on frames need one; ``np.asarray`` of a PIL image is read-only)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import chess_envs  # noqa: F401  (registers the ids)


@pytest.mark.parametrize("env_id", ["Chess-v0", "LosAlamos-v0", "FourPlayerChess-v0"])
def test_rgb_frames_are_writable_new_arrays(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.flags.writeable and frame.flags.owndata
    frame[0, 0] = (1, 2, 3)
    again = env.render()
    assert again is not frame and tuple(again[0, 0]) != (1, 2, 3)
    env.close()


def test_frames_of_a_rendering_wrapper_are_writable() -> None:
    env = gym.wrappers.AddRenderObservation(gym.make("Chess-v0", render_mode="rgb_array"), render_only=True)
    pixels, _ = env.reset(seed=0)
    assert pixels.flags.writeable
    pixels[:8] = 0  # drawing on the frame, as an annotating recorder would
    env.close()
