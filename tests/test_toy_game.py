"""A game added from outside the package (tests/toy_game.py: its module plus one registry record)
works end to end: Gymnasium's check_env, PettingZoo's api_test, the Python search, and a
tournament whose spawned workers learn the game from the record they are handed."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from chess_envs.agents.search_agent import new_search
from chess_envs.arena.report import pgn
from chess_envs.arena.tournament import TournamentConfig, run_tournament
from chess_envs.pettingzoo.aec_env import make_env_functions
from chess_envs.registry import game_names, get_game, new_state, register_game
from chess_envs.search.python_mcts import PythonMCTS
from chess_envs.search.settings import MCTSConfig
from chess_envs.vector_env import GameVectorEnv
from tests import toy_game

toy_game.register()
GAME = toy_game.RECORD.name


def uniform(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A network that knows nothing: equal logits, value 0."""
    return np.zeros((len(planes), 9), np.float32), np.zeros((len(planes), 1), np.float32)


def test_the_record_registers_and_reads_its_shapes_from_the_game() -> None:
    assert GAME in game_names()
    record = get_game(GAME)
    assert (record.num_players, record.observation_shape, record.num_actions) == (2, (3, 3, 3), 9)
    assert toy_game.register() is toy_game.RECORD  # registering the same record again is a no-op
    with pytest.raises(ValueError, match="already registered"):
        register_game(replace(toy_game.RECORD, title="another"))
    with pytest.raises(ValueError, match="has no game option"):
        new_state(GAME, mode="teams")


def test_gymnasium_check_env() -> None:
    env = gym.make("TicTacToe-v0")
    check_env(env.unwrapped)
    env = gym.make("TicTacToe-v0", opponent="random")
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (3, 3, 3)
    vector = gym.make_vec("TicTacToe-v0", num_envs=2, vectorization_mode="sync")
    assert vector.reset(seed=0)[0]["action_mask"].shape == (2, 9)
    with pytest.raises(ValueError, match=r"native vector core.*SyncVectorEnv"):
        GameVectorEnv(2, GAME)  # the native vector env is for the games with a native core


def test_pettingzoo_api_test() -> None:
    env, _ = make_env_functions(GAME, "tic_tac_toe_v0")
    api_test(env(), num_cycles=50)


def test_the_python_search_wins_and_blocks() -> None:
    search = new_search(GAME, uniform, MCTSConfig(simulations=200, leaves_per_tree=4, cache_mb=1.0))
    assert isinstance(search, PythonMCTS)
    win, block = new_state(GAME, "xx.oo.... x"), new_state(GAME, "xx.o..... o")
    output = search.policy([search.new_tree(win), search.new_tree(block)], np.random.default_rng(0))
    assert output.action.tolist() == [2, 2]
    assert output.score[0] == pytest.approx(1.0)  # a proven win for the mover
    assert [len(w) for w in output.action_weights] == [5, 6]


def test_a_tournament_with_two_workers(tmp_path) -> None:
    config = TournamentConfig(GAME, ["random", "greedy"], 4, ["......... x", "....x.... o"], max_plies=9)
    records = run_tournament(config, tmp_path, workers=2, progress=False)
    assert len(records) == 4
    assert all(record.game == GAME and len(record.moves) >= 3 for record in records)
    assert '[Variant "tic_tac_toe"]' in pgn(records)
