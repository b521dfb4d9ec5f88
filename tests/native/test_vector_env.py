"""The vector environments: Gymnasium's make_vec, next-step autoreset, and the native batch against
the Python batch and the single env, step by step."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import chess_envs  # noqa: F401  (registers the ids)
from chess_envs.gym_env import GameEnv
from chess_envs.vector_env import GameVectorEnv
from tests.four_player.reference import ReferenceFourPlayerState
from tests.los_alamos.reference import ReferenceLosAlamosState
from tests.native.python_batch import PythonBatch
from tests.standard.reference import ReferenceChessState


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row (0 where a row has none: that game is resetting)."""
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask.view(bool)])


@pytest.mark.parametrize("env_id", ["Chess-v0", "LosAlamos-v0", "FourPlayerChess-v0"])
def test_make_vec_steps_every_game_within_its_spaces(env_id):
    env = gym.make_vec(f"chess_envs:{env_id}", num_envs=3, vectorization_mode="vector_entry_point", max_plies=40)
    assert env.metadata["autoreset_mode"] is gym.vector.AutoresetMode.NEXT_STEP
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        assert obs in env.observation_space
        obs, rewards, terminated, truncated, _ = env.step(random_actions(rng, obs["action_mask"]))
        assert rewards.dtype == np.float32 and terminated.shape == (3,)
        ended += int((terminated | truncated).sum())
    assert ended >= 3
    env.close()


REFERENCES = {
    "chess": ReferenceChessState,
    "los_alamos": ReferenceLosAlamosState,
    "four_player": ReferenceFourPlayerState,
}


def batches(game: str, n: int, **options):
    """The native vector env, and one stepping the Python reference states in a Python loop."""
    native = GameVectorEnv(n, game, copy=False, **options)
    python = GameVectorEnv(n, game, copy=False, **options)
    python._batch = PythonBatch(n, REFERENCES[game], None, {}, False, 0, options.get("max_plies"))
    return native, python


@pytest.mark.parametrize("game", ["chess", "los_alamos", "four_player"])
def test_native_batch_matches_the_reference_batch_step_by_step(game):
    native, python = batches(game, 6, max_plies=60)
    a, _ = native.reset(seed=1)
    b, _ = python.reset(seed=1)
    rng = np.random.default_rng(1)
    resets = 0
    for _ in range(400):
        np.testing.assert_array_equal(a["observation"], b["observation"])
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        actions = random_actions(rng, a["action_mask"])
        if rng.random() < 0.02:
            actions[0] = int(np.flatnonzero(a["action_mask"][0] == 0)[0])  # illegal: loses that game
        a, ra, ta, ua, ia = native.step(actions)
        b, rb, tb, ub, ib = python.step(actions)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(ua, ub)
        if ia or ib:
            np.testing.assert_array_equal(ia["termination"], ib["termination"])
        resets += int((ta | ua).sum())
    assert resets > 10


def test_one_game_of_the_vector_env_is_the_single_env():
    vector = GameVectorEnv(1, "chess", max_plies=200)
    single = GameEnv("chess", max_plies=200)
    obs, _ = vector.reset(seed=3)
    one, _ = single.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(200):
        np.testing.assert_array_equal(obs["observation"][0], one["observation"])
        np.testing.assert_array_equal(obs["action_mask"][0], one["action_mask"])
        action = random_actions(rng, obs["action_mask"])
        obs, reward, terminated, truncated, _ = vector.step(action)
        one, single_reward, single_terminated, single_truncated, _ = single.step(int(action[0]))
        assert (reward[0], terminated[0], truncated[0]) == (single_reward, single_terminated, single_truncated)
        if terminated[0] or truncated[0]:
            break


def test_four_player_against_random_opponents_sees_its_own_seat():
    env = GameVectorEnv(4, "four_player", opponent="random", agent_seat=2, max_plies=60)
    obs, _ = env.reset(seed=9)
    for _ in range(40):
        live = obs["action_mask"].any(axis=1)
        assert (obs["observation"][live, 25 * 4 + 2] == 1.0).all()  # the one-hot colour plane of Yellow
        obs, rewards, *_ = env.step(env.random_actions())
        assert env.fen(0).split("-")[0] in "RBYG"


def test_against_the_random_opponent_the_learner_always_moves():
    env = GameVectorEnv(16, "los_alamos", opponent="random", agent_seat=1, max_plies=80)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(100):
        live = obs["action_mask"].any(axis=1)
        assert (obs["observation"][live, 12 * 4] == 1.0).all()  # the colour plane: planes seen by black
        obs, rewards, terminated, truncated, _ = env.step(random_actions(rng, obs["action_mask"]))
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}


def test_illegal_action_loses_and_the_next_step_resets():
    env = GameVectorEnv(2, "chess")
    obs, _ = env.reset(seed=0)
    _, rewards, terminated, _, info = env.step(np.array([0, int(np.flatnonzero(obs["action_mask"][1])[0])]))
    assert rewards[0] == -1.0 and terminated[0] and info["termination"][0] == "illegal_action"
    obs, rewards, terminated, _, _ = env.step(np.array([0, 0]))
    assert rewards[0] == 0.0 and not terminated[0] and env.fen(0).startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP")


def test_threads_give_the_same_games():
    one = GameVectorEnv(32, "chess", threads=1, max_plies=50)
    two = GameVectorEnv(32, "chess", threads=2, max_plies=50)
    a, _ = one.reset(seed=7)
    b, _ = two.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(120):
        actions = random_actions(rng, a["action_mask"])
        a, *rest_a = one.step(actions)
        b, *rest_b = two.step(actions)
        np.testing.assert_array_equal(a["observation"], b["observation"])
        for x, y in zip(rest_a[:3], rest_b[:3]):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", ["chess", "los_alamos", "four_player"])
def test_random_actions_are_legal_and_repeat_with_the_seed(game):
    env = GameVectorEnv(8, game, max_plies=30)
    runs = []
    for _ in range(2):
        obs, _ = env.reset(seed=4)
        taken = []
        for _ in range(40):
            actions = env.random_actions()
            live = obs["action_mask"].any(axis=1)
            assert obs["action_mask"][live, actions[live]].all()
            taken.append(actions)
            obs, *_ = env.step(actions)
        runs.append(np.array(taken))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_seeded_resets_repeat_and_copies_are_fresh():
    env = GameVectorEnv(4, "los_alamos", opponent="random")
    first, _ = env.reset(seed=11)
    again, _ = env.reset(seed=11)
    np.testing.assert_array_equal(first["observation"], again["observation"])
    assert first["observation"] is not again["observation"]
    reused = GameVectorEnv(4, "los_alamos", copy=False)
    a, _ = reused.reset(seed=1)
    b, *_ = reused.step(reused.random_actions())
    assert a["observation"] is b["observation"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"threads": 0}, "threads"),
        ({"opponent": "greedy"}, "opponent"),
        ({"max_plies": -1}, "max_plies"),
        ({"copy": "yes"}, "copy"),
    ],
)
def test_bad_arguments_say_why(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GameVectorEnv(game="chess", **{"num_envs": 2, **kwargs})


def test_bad_actions_say_why():
    env = GameVectorEnv(2, "chess")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        env.step(np.array([1.5, 2.0]))
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        env.step(np.array([1, 2, 3]))
