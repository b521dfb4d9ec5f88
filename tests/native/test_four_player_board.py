"""The native four-player board against the Python reference board, at every ply of random games,
and against every public perft record."""

from __future__ import annotations

import json
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from chess_envs.four_player import FFA, START_FEN4, TEAMS, perft
from tests.four_player.board import Board, native_board

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "four_player" / "perft_public.jsonl"
MAX_PLIES = 120


def snapshot(board: Board) -> tuple:
    return (
        list(board.squares),
        board.turn,
        [bool(x) for x in board.live],
        list(board.points),
        [bool(x) for x in board.castling[0]],
        [bool(x) for x in board.castling[1]],
        board.halfmove_clock,
        board.game_over,
        -1 if board.winner_team is None else board.winner_team,
    )


def play_games(seeds: range, mode: str = FFA, max_plies: int = MAX_PLIES) -> int:
    plies = 0
    for seed in seeds:
        rng = random.Random(seed)
        reference = Board(START_FEN4, mode)
        native = native_board(reference)
        played = []
        for ply in range(max_plies):
            where = (mode, seed, ply)
            moves = reference.legal_moves()
            assert sorted(native.legal_moves()) == sorted(moves), where
            assert native.snapshot() == tuple(snapshot(reference)), where
            for colour in range(4):
                assert native.in_check(colour) == reference.in_check(colour), where
            if not moves or reference.game_over:
                break
            move = rng.choice(moves)
            reference.push(move)
            native.push(move)
            played.append(move)
            plies += 1
            if rng.random() < 0.05:  # take back and replay: unmake must restore everything
                reference.pop()
                native.pop()
                assert native.snapshot() == tuple(snapshot(reference)), where
                reference.push(move)
                native.push(move)
    return plies


@pytest.mark.parametrize("mode", [FFA, TEAMS])
def test_two_thousand_random_games_agree_ply_by_ply(mode):
    with ProcessPoolExecutor(max_workers=2) as pool:
        plies = sum(pool.map(play_games, [range(0, 2000, 2), range(1, 2000, 2)], [mode, mode]))
    assert plies > 2000 * 40


@pytest.mark.slow
@pytest.mark.parametrize("mode", [FFA, TEAMS])
def test_whole_games_agree(mode):
    """200 more games per mode played to their end (or 1,000 plies)."""
    with ProcessPoolExecutor(max_workers=2) as pool:
        halves = [range(5000, 5200, 2), range(5001, 5200, 2)]
        assert sum(pool.map(play_games, halves, [mode, mode], [1000, 1000])) > 200 * 60


def records() -> list[dict]:
    return (
        [json.loads(line) for line in REFERENCE.read_text().splitlines() if line.strip()] if REFERENCE.exists() else []
    )


@pytest.mark.parametrize("record", records(), ids=[r["id"] for r in records()])
def test_every_public_perft_record(record):
    for depth, nodes in record["perft"].items():
        assert perft(record["fen4"], int(depth), record["mode"]) == nodes, (record["id"], depth)


def test_illegal_moves_and_bad_fields_are_refused():
    board = native_board(Board())
    with pytest.raises(ValueError, match="not legal"):
        board.push(0)
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(ValueError, match="bad piece code"):
        from chess_envs.native import core

        core.FourPlayerBoard([9] + [0] * 195, 0, [True] * 4, [True] * 4, [True] * 4, [0] * 4, 0, [-1] * 8, False)
