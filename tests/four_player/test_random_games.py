"""Seeded random four-player games to their end, with the engine's invariants checked every ply."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from chess_envs.four_player import FourPlayerState
from chess_envs.four_player.board import KING, move_text

FFA_GAMES, TEAMS_GAMES = 1000, 300


def _snapshot(state: FourPlayerState) -> tuple:
    board = state.board
    return (
        board.fen4(),
        tuple(board.squares),
        tuple(frozenset(p) for p in board.pieces),
        tuple(board.kings),
        tuple(board.live),
        tuple(board.points),
        tuple(map(tuple, board.castling)),
        tuple(board.en_passant),
        board.halfmove_clock,
        board.turn,
        board.game_over,
        state._keys[-1],
        state.repetitions(),
    )


def play_checked_game(job: tuple[int, str]) -> Counter:
    """Play one seeded random game, asserting the invariants at every ply; return what it saw."""
    seed, mode = job
    rng = random.Random(seed)
    state = FourPlayerState(mode=mode, history=1)
    seen: Counter = Counter()
    while not state.is_terminal():
        board = state.board
        for colour in range(4):
            kings = board.squares.count(colour << 3 | KING)
            assert kings == (1 if board.live[colour] else 0), (seed, board.fen4())
            assert board.kings[colour] == (board.squares.index(colour << 3 | KING) if kings else -1)
        mask = state.legal_action_mask()
        from_mask = sorted(state.action_to_move(a) for a in np.flatnonzero(mask))
        assert from_mask == sorted(move_text(m) for m in board.legal_moves()), (seed, board.fen4())
        before = _snapshot(state)
        action = int(rng.choice(np.flatnonzero(mask)))
        move = state.legal_moves_by_action()[action]
        flag = move >> 20
        seen["en_passant"] += flag == 2
        seen["castling"] += flag == 3
        seen["promotion"] += bool(move >> 16 & 15)
        live_before = sum(board.live)
        state.apply(action)
        after = _snapshot(state)
        assert all(b >= a for a, b in zip(before[5], after[5])), f"points fell in game {seed}"
        seen["elimination"] += live_before - sum(state.board.live)
        state.undo()
        assert _snapshot(state) == before, f"undo did not restore game {seed} at {before[0]}"
        state.apply(action)
        assert _snapshot(state) == after
    seen[state.outcome().termination.value] += 1
    seen["plies"] += len(state._keys) - 1
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
