"""The native vector env in each of Gymnasium's autoreset modes is Gymnasium's ``SyncVectorEnv`` over
the single envs in that mode: step for step the same observations, rewards, end flags and infos
(the keys both give), through games that end by the rules and by ``max_plies``.

Infos differ only in keys one side alone gives: the single env's ``action_mask``,
``current_player`` and ``returns`` (the vector env does not repeat them), and the vector env's
``termination`` on steps where games were only truncated (the single env names a termination only
when a rule ended the game)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import chess_envs  # noqa: F401  (registers the ids)
from chess_envs.vector_env import GameVectorEnv

# Positions where random play ends games quickly (mate, stalemate, material, a last player standing),
# with max_plies small enough that others are truncated.
CASES = {
    "chess": ("Chess-v0", "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", 20),
    "chess_start": ("Chess-v0", None, 6),
    "los_alamos": ("LosAlamos-v0", "k5/6/1K4/6/6/4Q1 w - - 0 1", 20),
    "four_player": (
        "FourPlayerChess-v0",
        "R-0,0,1,1-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/5,rK,1,bQ,6/4,bK,9/"
        "7,rP,6/7,rR,6/6,rR,7/14/14/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x",
        30,
    ),
}
NUM_ENVS = 4
STEPS = 120
ONLY_SINGLE = {"action_mask", "current_player", "returns"}
ONLY_OURS = {"termination"}


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row (0 where a row has none)."""
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask.view(bool)])


def assert_same_obs(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> None:
    np.testing.assert_array_equal(ours["observation"], theirs["observation"])
    np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"])


def assert_same_info(ours: dict[str, Any], theirs: dict[str, Any], where: str = "info") -> None:
    """The keys both infos have hold the same values for the games both mark; the others are the
    documented ones."""
    names = {key.lstrip("_") for key in (*ours, *theirs)}
    for name in sorted(names):
        if name not in ours or name not in theirs:
            assert name in (ONLY_SINGLE if name in theirs else ONLY_OURS), f"{where}[{name!r}] only on one side"
            continue
        marked = theirs[f"_{name}"]
        np.testing.assert_array_equal(ours[f"_{name}"], marked, err_msg=f"{where}['_{name}']")
        if name == "final_obs":
            for i in np.flatnonzero(marked):
                assert_same_obs(ours[name][i], theirs[name][i])
        elif isinstance(theirs[name], dict):
            assert_same_info(ours[name], theirs[name], f"{where}[{name!r}]")
        else:
            np.testing.assert_array_equal(ours[name][marked], theirs[name][marked], err_msg=f"{where}[{name!r}]")


def pair(case: str, mode: AutoresetMode):
    env_id, fen, max_plies = CASES[case]
    ours = gym.make_vec(
        f"chess_envs:{env_id}",
        num_envs=NUM_ENVS,
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode.value,
        fen=fen,
        max_plies=max_plies,
    )
    theirs = gym.make_vec(
        f"chess_envs:{env_id}",
        num_envs=NUM_ENVS,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        fen=fen,
        max_plies=max_plies,
    )
    return ours, theirs


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda mode: mode.value)
@pytest.mark.parametrize("case", list(CASES))
def test_each_autoreset_mode_is_sync_vector_envs(case: str, mode: AutoresetMode) -> None:
    ours, theirs = pair(case, mode)
    assert isinstance(ours.unwrapped, GameVectorEnv)
    assert ours.metadata["autoreset_mode"] is mode is theirs.metadata["autoreset_mode"]
    a, _ = ours.reset(seed=3)
    b, _ = theirs.reset(seed=3)
    rng = np.random.default_rng(3)
    terminations = truncations = resets = 0
    for _ in range(STEPS):
        assert_same_obs(a, b)
        actions = random_actions(rng, a["action_mask"])
        a, ra, ta, ua, ia = ours.step(actions)
        b, rb, tb, ub, ib = theirs.step(actions)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(ua, ub)
        assert_same_info(ia, ib)
        terminations += int(ta.sum())
        truncations += int(ua.sum())
        if mode is AutoresetMode.DISABLED and (ta | ua).any():
            assert_same_obs(a, b)  # the final observations, before the reset
            chosen = ta | ua
            a, _ = ours.reset(options={"reset_mask": chosen.copy()})
            b, _ = theirs.reset(options={"reset_mask": chosen.copy()})
            resets += 1
    assert_same_obs(a, b)
    assert truncations > 0 and (terminations > 0 or case == "chess_start")
    assert mode is not AutoresetMode.DISABLED or resets > 0
    ours.close()
    theirs.close()


def test_same_step_hands_over_the_final_observation_and_info() -> None:
    env = GameVectorEnv(2, "chess", autoreset_mode="SameStep", max_plies=2)
    obs, _ = env.reset(seed=0)
    obs, _, _, _, info = env.step(env.random_actions())
    assert info == {}
    before = {key: value.copy() for key, value in obs.items()}
    obs, _, _, truncated, info = env.step(env.random_actions())
    assert truncated.all() and info["_final_obs"].all() and info["_final_info"].all()
    final = info["final_obs"][0]
    assert not final["action_mask"].any() and (final["observation"] != before["observation"][0]).any()
    start = GameVectorEnv(1, "chess").reset(seed=0)[0]
    np.testing.assert_array_equal(obs["observation"][1], start["observation"][0])
    assert obs["action_mask"].sum(axis=1).tolist() == [20, 20]


def test_disabled_resets_only_the_games_chosen() -> None:
    env = GameVectorEnv(3, "los_alamos", autoreset_mode=AutoresetMode.DISABLED, max_plies=1)
    first, _ = env.reset(seed=1)
    obs, _, _, truncated, _ = env.step(env.random_actions())
    assert truncated.all()
    assert env.random_actions().tolist() == [0, 0, 0]
    start, final = GameVectorEnv(1, "los_alamos").fen(0), env.fen(1)
    assert final != start  # an ended game stays at its final position until a reset
    with pytest.raises(RuntimeError, match=r"games \[0, 1, 2\] have ended"):
        env.step(np.zeros(3, dtype=np.int64))
    mask = np.array([True, False, True])
    again, _ = env.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(again["observation"][mask], first["observation"][mask])
    np.testing.assert_array_equal(again["observation"][1], obs["observation"][1])  # still the ended game
    assert again["action_mask"][mask].any(axis=1).all() and not again["action_mask"][1].any()
    with pytest.raises(RuntimeError, match=r"games \[1\] have ended"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"have not ended: \[0\]"):
        env.reset(options={"reset_mask": np.array([True, True, False])})
    with pytest.raises(ValueError, match="cannot seed single games"):
        env.reset(seed=4, options={"reset_mask": np.array([False, True, False])})
    env.reset(options={"reset_mask": np.array([False, True, False])})
    env.step(env.random_actions())
    everything, _ = env.reset(seed=1, options={"reset_mask": np.ones(3, dtype=bool)})  # all: a full reset
    np.testing.assert_array_equal(everything["observation"], first["observation"])
    with pytest.raises(RuntimeError, match="reset_mask"):
        env.reset_done()


def test_make_vec_takes_the_mode_and_metadata_is_per_env() -> None:
    same = gym.make_vec(
        "chess_envs:Chess-v0", num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode="SameStep"
    )
    default = gym.make_vec("chess_envs:Chess-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert default.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert GameVectorEnv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("mode", ["next_step", "SAME_STEP", 1, None])
def test_bad_autoreset_modes_say_why(mode: Any) -> None:
    with pytest.raises(ValueError, match="autoreset_mode must be .* 'NextStep', 'SameStep', 'Disabled'"):
        GameVectorEnv(2, "chess", autoreset_mode=mode)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"reset_mask": [True, False]}, TypeError, "must be a numpy array"),
        ({"reset_mask": None}, TypeError, "must be a numpy array, got NoneType"),
        ({"reset_mask": np.array([True])}, ValueError, r"shape \(2,\)"),
        ({"reset_mask": np.array([1, 0])}, TypeError, "dtype bool"),
        ({"reset_mask": np.array([False, False])}, ValueError, "at least one game"),
        ({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, ValueError, r"no options but reset_mask.*\['fen'\]"),
    ],
)
def test_bad_reset_masks_say_why(options: dict[str, Any], error: type[Exception], message: str) -> None:
    env = GameVectorEnv(2, "chess", autoreset_mode="Disabled")
    env.reset(seed=0)
    with pytest.raises(error, match=message):
        env.reset(options=options)


def test_reset_mask_needs_the_disabled_mode() -> None:
    env = GameVectorEnv(2, "chess")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="reset_mask'\\] is for autoreset_mode='Disabled'.*'NextStep'"):
        env.reset(options={"reset_mask": np.array([True, False])})


def test_an_illegal_action_is_named_in_both_keys() -> None:
    env = GameVectorEnv(2, "chess", autoreset_mode="SameStep")
    obs, _ = env.reset(seed=0)
    legal = int(np.flatnonzero(obs["action_mask"][1])[0])
    _, rewards, terminated, _, info = env.step(np.array([0, legal]))
    assert rewards[0] == -1.0 and terminated.tolist() == [True, False]
    final = info["final_info"]
    assert final["illegal_action"].tolist() == [True, False] and final["termination"][0] == "illegal_action"
