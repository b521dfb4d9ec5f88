"""The native Los Alamos core against the pure-Python reference (and Fairy-Stockfish), at every ply.

Seeded random games: at each ply the legal moves, the game end and its reason, the planes and
the mask must be the reference's, bit for bit; undo must restore the history exactly.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from chess_envs.los_alamos import LosAlamosState
from tests.los_alamos.reference import ReferenceLosAlamosState

MAX_PLIES = 200


def play_games(seeds: range, history: int = 4, adjudicate: bool = False) -> int:
    plies = 0
    options = {"history": history, "adjudicate_insufficient_material": adjudicate}
    for seed in seeds:
        rng = random.Random(seed)
        native, reference = LosAlamosState(**options), ReferenceLosAlamosState(**options)
        for ply in range(MAX_PLIES + 1):
            text = reference.to_text()
            where = (seed, ply, text)
            assert native.to_text() == text, where
            moves = native.legal_moves_by_action()
            assert moves == {
                a: m for a, m in ((a, reference.action_to_move(a)) for a in reference.legal_moves_by_action())
            }, where
            assert native._game.in_check() == reference.board.is_check(), where
            assert native.outcome() == reference.outcome(), where
            assert native.repetitions() == reference.repetitions(), where
            assert np.array_equal(native.legal_action_mask(), reference.legal_action_mask()), where
            player = rng.randrange(2)
            assert native.observation(player).tobytes() == reference.observation(player).tobytes(), where
            assert np.array_equal(native.material(), reference.material()), where
            if native.is_terminal() or ply == MAX_PLIES:
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


def test_two_thousand_random_games_agree_ply_by_ply():
    with ProcessPoolExecutor(max_workers=2) as pool:
        plies = sum(pool.map(play_games, [range(0, 2000, 2), range(1, 2000, 2)]))
    assert plies > 50_000


def test_adjudication_and_long_history_agree():
    assert play_games(range(9000, 9200), history=9, adjudicate=True) > 5_000


@pytest.mark.slow
def test_a_thousand_more_games_agree():
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert sum(pool.map(play_games, [range(20_000, 21_000, 2), range(20_001, 21_000, 2)])) > 25_000
