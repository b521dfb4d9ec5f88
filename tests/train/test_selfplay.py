"""Self-play's value targets: the outcome, or its blend with the search's root value (four-player: mover's entry)."""

from __future__ import annotations

import numpy as np
import pytest

from chess_envs.agents.four_player.material import MaterialEvaluator
from chess_envs.registry import new_state
from chess_envs.search.mcts import MCTS
from chess_envs.search.python_mcts import PythonMCTS
from chess_envs.search.settings import MCTSConfig
from chess_envs.train.alphazero.config import AlphaZeroConfig
from chess_envs.train.alphazero.selfplay import SelfPlay
from chess_envs.train.config import build


def position_dependent_evaluator(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors and a value in [-0.5, 0.5] that depends on the position (so Q is not 0)."""
    num_actions = new_state("los_alamos").num_actions
    flat = planes.reshape(len(planes), -1).astype(np.float64)
    values = (flat * np.arange(flat.shape[1])).sum(axis=1) % 101 / 100 - 0.5
    return np.zeros((len(planes), num_actions), np.float32), values[:, None].astype(np.float32)


def finished_games(value_target_q: float, game: str = "los_alamos") -> list:
    """The same seeded short games at each ``value_target_q`` (its share changes the targets, not the
    play); root values from the evaluator: Los Alamos's position-dependent one, four-player's material
    evaluator (its values differ by seat)."""
    four = game == "four_player"
    self_play = SelfPlay(
        game,
        MaterialEvaluator() if four else position_dependent_evaluator,
        MCTSConfig(simulations=16 if four else 12, leaves_per_tree=2, planes="uint8", mate_depth=0),
        games_in_parallel=2 if four else 3,
        temperature_plies=8 if four else 4,
        max_plies=12 if four else 16,
        rng=np.random.default_rng(3 if four else 5),
        value_target_q=value_target_q,
    )
    return self_play.play(12 if four else 16)


def test_value_targets_blend_outcome_and_root_value_in_the_given_share():
    outcome, root, half = (finished_games(q) for q in (0.0, 1.0, 0.5))
    assert [g.plies for g in outcome] == [g.plies for g in root] == [g.plies for g in half]  # same games
    for pure, searched, blended in zip(outcome, root, half):
        movers = np.arange(pure.plies) % 2
        np.testing.assert_array_equal(pure.values[:, 0], pure.returns[movers])  # the outcome, mover's seat
        assert not np.allclose(searched.values, pure.values)
        assert np.all(np.abs(searched.values) <= 0.5 + 1e-6)  # means of the evaluator's values
        np.testing.assert_allclose(blended.values, (pure.values + searched.values) / 2, atol=1e-6)


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_value_target_share_out_of_range_is_refused(share):
    with pytest.raises(ValueError, match="value_target_q"):
        build(AlphaZeroConfig, value_target_q=share)


def test_four_player_value_targets_blend_the_root_value_into_the_movers_own_entry():
    outcome, root, half = (finished_games(q, "four_player") for q in (0.0, 1.0, 0.5))
    assert [g.plies for g in outcome] == [g.plies for g in root] == [g.plies for g in half] == [12, 12]
    for pure, searched, blended in zip(outcome, root, half):
        movers = np.arange(pure.plies) % 4
        np.testing.assert_array_equal(pure.values, [np.roll(pure.returns, -m) for m in movers])
        np.testing.assert_array_equal(searched.values[:, 1:], pure.values[:, 1:])  # the other seats: the outcome
        assert not np.allclose(searched.values[:, 0], pure.values[:, 0])
        np.testing.assert_allclose(blended.values, (pure.values + searched.values) / 2, atol=1e-6)
        # the mover's entry is the search's root value: the material evaluator's values, backed up
        assert np.all(np.abs(searched.values[:, 0]) <= 1 + 1e-6)


def test_records_come_from_the_search_and_temperatures_are_per_game():
    config = MCTSConfig(simulations=12, leaves_per_tree=2, planes="uint8")

    def play(temperature_plies: int) -> list:
        rng = np.random.default_rng(1)
        self_play = SelfPlay("los_alamos", position_dependent_evaluator, config, 2, temperature_plies, 6, rng)
        assert isinstance(self_play.search, MCTS)
        return self_play.play(6)

    greedy, sampled = play(0), play(6)
    for game in greedy + sampled:
        assert game.plies == 6
        for actions, policy in zip(game.actions, game.policies):
            assert actions.dtype == np.int64 and policy.dtype == np.float32 and policy.shape == actions.shape
            assert policy.sum() == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_array_equal(greedy[0].planes, greedy[1].planes)  # temperature 0: one game, twice
    assert not np.array_equal(sampled[0].planes, sampled[1].planes)  # sampled moves: two games


def test_a_game_in_python_alone_plays_with_the_python_search():
    from tests import toy_game

    toy_game.register()

    def uniform(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(planes), 9), np.float32), np.zeros((len(planes), 1), np.float32)

    self_play = SelfPlay("tic_tac_toe", uniform, MCTSConfig(simulations=16), 2, 2, 9, np.random.default_rng(0))
    assert isinstance(self_play.search, PythonMCTS)
    games = self_play.play(9)
    assert len(games) == 2 and all(5 <= game.plies <= 9 for game in games)
    for game in games:
        assert set(game.values[:, 0].tolist()) <= {-1.0, 0.0, 1.0}
