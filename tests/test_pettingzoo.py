"""The PettingZoo AEC environment: PettingZoo's own API and seed tests, rewards, illegal moves."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from chess_envs import IllegalActionError
from chess_envs.pettingzoo import chess_v0


def test_api_test_passes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns that dict observations are not arrays
        api_test(chess_v0.env(), num_cycles=300)


def test_seed_test_passes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(chess_v0.env, num_cycles=100)


def play(env, moves):
    for move in moves:
        env.step(env.unwrapped.state.move_to_action(move))


def test_checkmate_rewards_both_agents():
    env = chess_v0.env()
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    play(env, ["f2f3", "e7e5", "g2g4", "d8h4"])
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos["player_0"]["termination"] == "checkmate"
    obs, reward, terminated, _, _ = env.last()
    assert terminated and not obs["action_mask"].any()


def test_each_agent_observes_from_its_own_side():
    env = chess_v0.env()
    env.reset(seed=0)
    white, black = env.observe("player_0"), env.observe("player_1")
    assert white["action_mask"].sum() == 20 and not black["action_mask"].any()
    assert white["observation"][112, 0, 0] == 0 and black["observation"][112, 0, 0] == 1
    # Each sees its own pawns on its second row.
    assert white["observation"][0, 1].all() and black["observation"][0, 1].all()


def test_illegal_move_ends_the_game_for_the_mover():
    env = chess_v0.env()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(env.unwrapped.state.move_to_action("e2e5"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards["player_0"] == -1


def test_raw_env_raises_on_illegal_moves():
    env = chess_v0.raw_env()
    env.reset()
    with pytest.raises(IllegalActionError):
        env.step(env.state.move_to_action("e2e5"))


def test_truncation_at_max_plies():
    env = chess_v0.env(max_plies=2)
    env.reset()
    play(env, ["g1f3", "g8f6"])
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_random_games_end_with_rewards_that_sum_to_zero():
    env = chess_v0.env()
    rng = np.random.default_rng(0)
    for game in range(3):
        env.reset(seed=game)
        final = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[agent] = reward
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert set(final) == {"player_0", "player_1"}
        assert sum(final.values()) == 0 and set(final.values()) <= {-1.0, 0.0, 1.0}
