"""The Gymnasium environment: registration, API checks, modes, rewards and bad input."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import chess_envs
from chess_envs import IllegalActionError
from chess_envs.gym_env import GameEnv

ENV_IDS = {"chess": "Chess-v0", "los_alamos": "LosAlamos-v0", "four_player": "FourPlayerChess-v0"}
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def uci_step(env: gym.Env, move: str):
    return env.step(env.unwrapped.state.move_to_action(move))


def test_make_without_prior_import_in_a_new_interpreter():
    code = textwrap.dedent(
        """
        import sys
        import gymnasium
        assert "chess_envs" not in sys.modules
        env = gymnasium.make("chess_envs:Chess-v0")
        obs, info = env.reset(seed=0)
        assert obs["observation"].shape == (119, 8, 8)
        print("ok")
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"opponent": "random"}, {"opponent": "random", "agent_seat": 1}, {"action_encoding": "from_to"}],
)
def test_check_env_passes(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym.make("Chess-v0", **kwargs).unwrapped)


def test_make_vec_async_steps():
    envs = gym.make_vec("chess_envs:Chess-v0", num_envs=4, vectorization_mode="async")
    try:
        obs, _ = envs.reset(seed=3)
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(60):
            actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]]
            obs, rewards, terminated, truncated, _ = envs.step(np.array(actions))
            finished += int(terminated.sum() + truncated.sum())
        assert obs["observation"].shape == (4, 119, 8, 8)
        assert obs["action_mask"].shape == (4, 4672)
    finally:
        envs.close()


def test_spaces_and_info_mask():
    env = gym.make("Chess-v0")
    obs, info = env.reset(seed=0)
    assert env.observation_space["observation"].shape == (119, 8, 8)
    assert env.observation_space["action_mask"].dtype == np.int8
    assert env.action_space.n == 4672
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() == 20
    np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
    np.testing.assert_array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
    assert isinstance(env.unwrapped.state, chess_envs.ChessState)


def test_self_play_reward_goes_to_the_player_who_moved():
    env = gym.make("Chess-v0")
    env.reset(seed=0)
    for move in FOOLS_MATE[:-1]:
        _, reward, terminated, truncated, _ = uci_step(env, move)
        assert (reward, terminated, truncated) == (0.0, False, False)
    obs, reward, terminated, truncated, info = uci_step(env, FOOLS_MATE[-1])
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["termination"] == "checkmate"
    np.testing.assert_array_equal(info["returns"], [-1.0, 1.0])
    assert not obs["action_mask"].any()


def test_self_play_draw_rewards_zero():
    env = gym.make("Chess-v0", fen="8/8/4k3/8/8/3K4/4r3/8 w - - 0 1")
    env.reset()
    _, reward, terminated, _, info = uci_step(env, "d3e2")
    assert (reward, terminated, info["termination"]) == (0.0, True, "insufficient_material")


def test_truncation_at_max_plies():
    env = gym.make("Chess-v0", max_plies=3)
    env.reset(seed=0)
    for ply, move in enumerate(["g1f3", "g8f6", "f3g1"], start=1):
        _, reward, terminated, truncated, _ = uci_step(env, move)
        assert reward == 0.0 and not terminated
        assert truncated == (ply == 3)
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


class Scripted:
    """An agent that plays a fixed list of moves and counts its resets."""

    name = "scripted"

    def __init__(self, moves):
        self.moves = moves
        self.resets = 0

    def reset(self):
        self.resets += 1
        self.ply = 0

    def select_action(self, state):
        move = self.moves[self.ply]
        self.ply += 1
        return state.move_to_action(move)


def test_opponent_mode_learner_as_white_loses_to_fools_mate():
    opponent = Scripted(["e7e5", "d8h4"])
    env = gym.make("Chess-v0", opponent=opponent)
    obs, info = env.reset(seed=0)
    assert opponent.resets == 1 and info["current_player"] == 0
    obs, reward, terminated, _, _ = uci_step(env, "f2f3")
    assert reward == 0.0 and not terminated and env.unwrapped.state.current_player == 0
    obs, reward, terminated, _, info = uci_step(env, "g2g4")
    assert (reward, terminated, info["termination"]) == (-1.0, True, "checkmate")
    # The final observation is still from the learner's (white's) perspective.
    assert obs["observation"][112, 0, 0] == 0.0


def test_opponent_mode_learner_as_black_sees_opponent_move_in_reset():
    env = gym.make("Chess-v0", opponent=lambda state: state.move_to_action("f2f3"), agent_seat=1)
    obs, info = env.reset(seed=0)
    assert info["current_player"] == 1
    assert obs["observation"][112, 0, 0] == 1.0
    assert env.unwrapped.state.board.peek().uci() == "f2f3"


def test_opponent_random_is_seeded():
    def moves(seed):
        env = gym.make("Chess-v0", opponent="random", max_plies=20)
        env.reset(seed=seed)
        done = False
        while not done:
            action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
            *_, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        return [m.uci() for m in env.unwrapped.state.board.move_stack]

    assert moves(1) == moves(1)
    assert moves(1) != moves(2)


def test_illegal_action_loses_by_default_with_one_warning():
    env = gym.make("Chess-v0")
    env.reset(seed=0)
    action = env.unwrapped.state.move_to_action("e2e5")
    with pytest.warns(UserWarning, match="e2e5.*not legal"):
        obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(action)
    env.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(action)  # no second warning from the same env


def test_illegal_action_raise_mode_keeps_the_state():
    env = gym.make("Chess-v0", illegal_action="raise")
    env.reset(seed=0)
    fen = env.unwrapped.state.to_text()
    with pytest.raises(IllegalActionError, match=r"e2e5\) is not legal in rnbqkbnr"):
        env.step(env.unwrapped.state.move_to_action("e2e5"))
    assert env.unwrapped.state.to_text() == fen
    uci_step(env, "e2e4")


@pytest.mark.parametrize(
    "action, error, match",
    [
        (1.5, TypeError, "action must be an integer"),
        ("e2e4", TypeError, "action must be an integer"),
        (np.array([1, 2]), TypeError, "shape"),
        (4672, ValueError, "outside the action space"),
        (-3, ValueError, "outside the action space"),
    ],
)
def test_bad_action_values(action, error, match):
    env = gym.make("Chess-v0")
    env.reset(seed=0)
    with pytest.raises(error, match=match):
        env.step(action)


def test_step_before_reset_is_an_error():
    env = GameEnv("chess")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"game": "go"}, "unknown game 'go'"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
        ({"render_mode": "human"}, "render_mode must be one of"),
        ({"agent_seat": 2, "opponent": "random"}, "agent_seat must be at least 0, at most 1"),
        ({"max_plies": 0}, "max_plies must be at least 1"),
        ({"opponent": "stockfish"}, "opponent must be None, 'random'"),
        ({"fen": "not a fen"}, "fen"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GameEnv(**kwargs)


def test_reset_options_fen():
    env = gym.make("Chess-v0")
    fen = "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"
    env.reset(options={"fen": fen})
    assert env.unwrapped.state.to_text() == fen


@pytest.mark.parametrize("mode", ["ansi", "svg", "rgb_array"])
def test_render_modes(mode):
    env = gym.make("Chess-v0", render_mode=mode)
    env.reset(seed=0)
    uci_step(env, "e2e4")
    picture = env.render()
    if mode == "ansi":
        assert picture.splitlines()[0] == "r n b q k b n r"
        assert "P" in picture.splitlines()[4]
    elif mode == "svg":
        assert picture.startswith("<svg") and "e2" in picture.lower()
    else:
        assert picture.shape == (8 * 48, 8 * 48, 3) and picture.dtype == np.uint8
        assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 3


class FailsOnCall:
    """An opponent that plays its first legal move, and raises on its ``fail_at``-th call."""

    name = "flaky"

    def __init__(self, fail_at: int) -> None:
        self.calls, self.fail_at = 0, fail_at

    def reset(self) -> None:
        """Nothing to forget."""

    def select_action(self, state) -> int:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ConnectionError("engine died")
        return int(state.legal_actions()[0])


@pytest.mark.parametrize(("game", "fail_at"), [("los_alamos", 2), ("four_player", 5)])
def test_a_failing_opponent_leaves_the_learner_to_move_again(game: str, fail_at: int) -> None:
    """Four-player: the third opponent fails after two others replied; all of it is taken back."""
    env = gym.make(ENV_IDS[game], opponent=FailsOnCall(fail_at), max_plies=50)
    observation, _ = env.reset(seed=0)
    observation, *_ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    state = env.unwrapped.state
    before, mover, plies = state.to_text(), state.current_player, env.unwrapped._plies
    action = int(np.flatnonzero(observation["action_mask"])[-1])
    with pytest.raises(RuntimeError, match="opponent failed .*engine died.*taken back"):
        env.step(action)
    assert state.to_text() == before and state.current_player == mover and env.unwrapped._plies == plies
    observation, *_ = env.step(action)  # the same move again, now answered
    assert env.unwrapped.state.current_player == mover
    assert observation["action_mask"].any()


def test_the_opponent_sees_the_live_state_and_must_restore_it() -> None:
    seen = []

    def opponent(state):
        seen.append(state)
        return int(state.legal_actions()[0])

    env = gym.make("LosAlamos-v0", opponent=opponent)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert seen and all(state is env.unwrapped.state for state in seen)
