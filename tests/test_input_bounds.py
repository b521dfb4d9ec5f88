"""Size options and position text are bounded; small options are validated (never a silent wrong state)."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import chess_envs  # noqa: F401  (registers the envs)
from chess_envs.core import MAX_HISTORY
from chess_envs.four_player import START_FEN4, FourPlayerState
from chess_envs.gym_env import GameEnv
from chess_envs.pettingzoo.aec_env import GameAECEnv
from chess_envs.registry import game_class, game_names

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("history", [10**6, MAX_HISTORY + 1, 0, -1, 2.0, True])
def test_history_is_bounded(game: str, history: object) -> None:
    with pytest.raises(ValueError, match="history"):
        game_class(game)(history=history)
    with pytest.raises(ValueError, match="history"):
        GameEnv(game, history=history)


@pytest.mark.parametrize("game", game_names())
def test_largest_history_is_accepted(game: str) -> None:
    state = game_class(game)(history=np.int64(MAX_HISTORY))
    assert state.observation().shape == state.observation_shape


def test_huge_fen4_extras_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="FEN4"):
        FourPlayerState(START_FEN4 + "-{'enPassant':" + "(" * 100_000 + "}")
    with pytest.raises(ValueError, match="extras"):
        FourPlayerState(START_FEN4 + "-{'enPassant':(" * 20 + "}")


@pytest.mark.parametrize("game", game_names())
def test_huge_position_text_is_refused(game: str) -> None:
    with pytest.raises(ValueError, match="characters"):
        game_class(game)("x" * 100_000)


def test_reset_options_must_be_a_dict() -> None:
    env = gym.make("LosAlamos-v0")
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options="fen")
    aec = GameAECEnv("los_alamos")
    with pytest.raises(TypeError, match="options must be a dict"):
        aec.reset(options="fen")


def test_numpy_integers_are_accepted_for_counts() -> None:
    env = GameEnv("los_alamos", max_plies=np.int64(4), opponent="random", agent_seat=np.int32(1))
    assert env.max_plies == 4 and env.agent_seat == 1 and type(env.agent_seat) is int
    env.reset(seed=0)
    assert GameAECEnv("los_alamos", max_plies=np.int16(3)).max_plies == 3
    for bad in (True, 2.5, "3", 0):
        with pytest.raises(ValueError, match="max_plies"):
            GameEnv("los_alamos", max_plies=bad)
    with pytest.raises(ValueError, match="agent_seat"):
        GameEnv("los_alamos", opponent="random", agent_seat=2)


@pytest.mark.parametrize(
    ("game", "option"),
    [("chess", "claim_draws"), ("four_player", "claim_win"), ("los_alamos", "adjudicate_insufficient_material")],
)
def test_boolean_options_take_bools_only(game: str, option: str) -> None:
    for bad in ("no", "false", 0, None):
        with pytest.raises(ValueError, match=option):
            game_class(game)(**{option: bad})
    assert getattr(game_class(game)(**{option: np.bool_(False)}), option) is False


def test_docs_give_the_four_player_action_count() -> None:
    count = FourPlayerState.num_actions
    assert count == 196 * 109
    for path in (ROOT / "README.md", ROOT / "docs" / "four_player.md"):
        numbers = {int(n) for n in re.findall(r"\b(21\d{3})\b", path.read_text(encoding="utf-8"))}
        assert numbers == {count}, (path, numbers)
