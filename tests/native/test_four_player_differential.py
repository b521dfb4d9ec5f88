"""The native four-player game state against the Python reference state, at every ply.

Seeded random games in both modes: legal moves by action, the game end and its returns, final
points, repetitions, standings, the planes (bit for bit, from a random seat) and the mask must be
the reference's at every ply, the whole position text (FEN4) every fourth ply; undo must restore
the history exactly.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from chess_envs.four_player import FFA, TEAMS, FourPlayerState
from tests.four_player.reference import ReferenceFourPlayerState

MAX_PLIES = 120


def play_games(seeds: range, mode: str = FFA, history: int = 4, max_plies: int = MAX_PLIES) -> int:
    plies = 0
    for seed in seeds:
        rng = random.Random(seed)
        native = FourPlayerState(mode=mode, history=history)
        reference = ReferenceFourPlayerState(mode=mode, history=history)
        for ply in range(max_plies + 1):
            where = (mode, seed, ply)
            if ply % 4 == 0:  # the whole FEN4 (written in Python, 0.2 ms a side); the rest every ply
                assert native.to_text() == reference.to_text(), where
            moves = native.legal_moves_by_action()
            assert moves == reference.legal_moves_by_action(), where
            assert native.outcome() == reference.outcome(), where
            assert native.final_points() == reference.final_points(), where
            assert native.repetitions() == reference.repetitions(), where
            assert native.standings() == reference.standings() and native.eliminated == reference.eliminated, where
            assert np.array_equal(native.legal_action_mask(), reference.legal_action_mask()), where
            player = rng.randrange(4)
            assert native.observation(player).tobytes() == reference.observation(player).tobytes(), where
            if rng.random() < 0.05:
                assert np.array_equal(native.material(), reference.material()), where
            if native.is_terminal() or ply == max_plies:
                break
            action = int(rng.choice(list(moves)))
            native.apply(action)
            reference.apply(action)
            plies += 1
            if rng.random() < 0.05:
                native.undo()
                reference.undo()
                assert native.to_text() == reference.to_text(), where
                native.apply(action)
                reference.apply(action)
    return plies


@pytest.mark.parametrize("mode", [FFA, TEAMS])
def test_a_thousand_random_games_per_mode_agree_ply_by_ply(mode):
    with ProcessPoolExecutor(max_workers=2) as pool:
        plies = sum(pool.map(play_games, [range(0, 1000, 2), range(1, 1000, 2)], [mode, mode]))
    assert plies > 1000 * 60


def test_other_history_agrees():
    assert play_games(range(7000, 7040), history=2) > 1000


@pytest.mark.slow
@pytest.mark.parametrize("mode", [FFA, TEAMS])
def test_whole_games_agree(mode):
    """40 more games per mode played to their end (or 2,000 plies): claim wins, draws, eliminations."""
    with ProcessPoolExecutor(max_workers=2) as pool:
        halves = [range(8000, 8040, 2), range(8001, 8040, 2)]
        assert sum(pool.map(play_games, halves, [mode, mode], [4, 4], [2000, 2000])) > 40 * 100
