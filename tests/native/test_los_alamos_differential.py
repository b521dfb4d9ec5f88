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


def where(seed: int, ply: int, reference: ReferenceLosAlamosState) -> tuple:
    """An assertion's message (written only when one fails): the game, the ply and its FEN."""
    return (seed, ply, reference.to_text())


def play_games(seeds: range, history: int = 4, adjudicate: bool = False) -> int:
    """Plies of the seeded games. Every ply: the board's legal actions, check, the end, repetitions, mask,
    planes and material. Every fourth ply and at the end: the FEN and each legal action's move
    text too (writing them in Python costs a third of a game; the planes already hold the pieces,
    clocks and side to move every ply)."""
    plies = 0
    options = {"history": history, "adjudicate_insufficient_material": adjudicate}
    for seed in seeds:
        rng = random.Random(seed)
        native, reference = LosAlamosState(**options), ReferenceLosAlamosState(**options)
        for ply in range(MAX_PLIES + 1):
            board_moves = {move[0] for move in native._game.legal_moves()}  # regardless of draw rules
            assert board_moves == reference.legal_moves_by_action().keys(), where(seed, ply, reference)
            assert native._game.in_check() == reference.board.is_check(), where(seed, ply, reference)
            assert native.outcome() == reference.outcome(), where(seed, ply, reference)
            assert native.repetitions() == reference.repetitions(), where(seed, ply, reference)
            mask = native.legal_action_mask()
            assert np.array_equal(mask, reference.legal_action_mask()), where(seed, ply, reference)
            player = rng.randrange(2)
            planes = native.observation(player).tobytes()
            assert planes == reference.observation(player).tobytes(), where(seed, ply, reference)
            assert np.array_equal(native.material(), reference.material()), where(seed, ply, reference)
            if ply % 4 == 0 or native.is_terminal() or ply == MAX_PLIES:
                assert native.to_text() == reference.to_text(), where(seed, ply, reference)
                texts = {action: reference.action_to_move(action) for action in reference.legal_moves_by_action()}
                assert native.legal_moves_by_action() == texts, where(seed, ply, reference)
            if native.is_terminal() or ply == MAX_PLIES:
                break
            action = int(rng.choice(native.legal_actions()))
            native.apply(action)
            reference.apply(action)
            plies += 1
            if rng.random() < 0.05:
                native.undo()
                reference.undo()
                assert native.to_text() == reference.to_text(), where(seed, ply, reference)
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
