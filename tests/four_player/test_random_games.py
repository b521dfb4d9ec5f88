"""Seeded random four-player games to their end, with the engine's invariants checked every ply."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from chess_envs.four_player import FourPlayerState
from chess_envs.four_player.notation import KING, move_text

FFA_GAMES, TEAMS_GAMES = 1000, 300


def _snapshot(state: FourPlayerState) -> tuple:
    """Everything undo must restore (the FEN4 is made from the native snapshot, so it is not compared:
    writing it in Python would cost three times the rest of the check)."""
    return (state._game.snapshot(), state.repetitions(), state.legal_actions().tobytes())


def play_checked_game(job: tuple[int, str]) -> Counter:
    """Play one seeded random game, asserting the invariants at every ply; return what it saw.
    The snapshot after a move (checked against the one after undo and redo) is the next ply's
    snapshot before: each position is read once."""
    seed, mode = job
    rng = random.Random(seed)
    state = FourPlayerState(mode=mode, history=1)
    seen: Counter = Counter()
    plies = 0
    before = _snapshot(state)
    while not state.is_terminal():
        squares, _, live, points, *_ = before[0]
        for colour in range(4):
            kings = squares.count(colour << 3 | KING)
            assert kings == (1 if live[colour] else 0), (seed, state.to_text())
        legal = np.flatnonzero(state.legal_action_mask())
        moves = state.legal_moves_by_action()
        assert legal.tolist() == sorted(moves), (seed, state.to_text())
        action = int(rng.choice(legal))
        move = moves[action]
        assert state.action_to_move(action) == move_text(move), seed
        flag = move >> 20
        seen["en_passant"] += flag == 2
        seen["castling"] += flag == 3
        seen["promotion"] += bool(move >> 16 & 15)
        state.apply(action)
        plies += 1
        after = _snapshot(state)
        assert all(b >= a for a, b in zip(points, after[0][3])), f"points fell in game {seed}"
        seen["elimination"] += sum(live) - sum(after[0][2])
        state.undo()
        assert _snapshot(state) == before, f"undo did not restore game {seed} at ply {plies}"
        state.apply(action)
        before = _snapshot(state)
        assert before == after
    seen[state.outcome().termination.value] += 1
    seen["plies"] += plies
    assert abs(sum(state.returns())) < 1e-6
    return seen


def _play_all(jobs: list[tuple[int, str]]) -> Counter:
    total: Counter = Counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        for seen in pool.map(play_checked_game, jobs, chunksize=10):
            total.update(seen)
    return total


def test_ffa_random_games():
    seen = _play_all([(seed, "ffa") for seed in range(FFA_GAMES)])
    assert (
        sum(
            v
            for k, v in seen.items()
            if k
            in {"last_player_standing", "claim_win", "fifty_moves", "threefold_repetition", "insufficient_material"}
        )
        == FFA_GAMES
    )
    for event in ("en_passant", "castling", "promotion", "elimination", "claim_win", "fifty_moves"):
        assert seen[event] > 0, f"no {event} in {FFA_GAMES} random FFA games: {seen}"


def test_teams_random_games():
    seen = _play_all([(seed, "teams") for seed in range(10_000, 10_000 + TEAMS_GAMES)])
    for event in ("en_passant", "castling", "promotion", "king_capture"):
        assert seen[event] > 0, f"no {event} in {TEAMS_GAMES} random Teams games: {seen}"
