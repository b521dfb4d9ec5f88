"""Four-player rules, native and the Python reference engine, against
tests/data/reference/four_player/perft_public.jsonl, depth by depth."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from chess_envs.four_player import legal_moves, perft
from chess_envs.four_player.notation import move_text
from tests.four_player.board import Board, reference_perft

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "four_player" / "perft_public.jsonl"
_PARALLEL_NODES = 2_000_000  # counts above this are split by root move over two processes


def records() -> list[dict]:
    return [json.loads(line) for line in REFERENCE.read_text().splitlines() if line.strip()]


def pytest_generate_tests(metafunc):
    if "record" in metafunc.fixturenames:
        found = records()
        metafunc.parametrize("record", found, ids=[r["id"] for r in found])
    if "record_depth" in metafunc.fixturenames:
        cases = [(r, int(d)) for r in records() for d in r["perft"]]
        metafunc.parametrize("record_depth", cases, ids=[f"{r['id']}-d{d}" for r, d in cases])


def test_reference_data_is_present():
    found = records()
    assert len(found) == 28
    assert {r["mode"] for r in found} == {"ffa", "teams"}


def test_legal_moves(record):
    assert legal_moves(record["fen4"], record["mode"]) == record["legal_moves"]
    reference = Board(record["fen4"], record["mode"])
    assert sorted(map(move_text, reference.legal_moves())) == record["legal_moves"]


def test_reference_perft_to_depth_2(record):
    """The Python engine, the oracle of the native one, counts the first two plies right too."""
    for depth in (1, 2):
        assert reference_perft(record["fen4"], depth, record["mode"]) == record["perft"][str(depth)]


def test_features(record):
    board = Board(record["fen4"], record["mode"])
    moves = board.legal_moves()
    features = record["features"]
    assert board.in_check() == features["in_check"]
    assert sum(1 for m in moves if m >> 16 & 15) == features["promotions"]
    assert sum(1 for m in moves if m >> 20 == 2) == features["en_passant"]
    assert sum(1 for m in moves if m >> 20 == 3) == features["castling"]
    captures = [m for m in moves if board.squares[m >> 8 & 255] or m >> 20 == 2]
    assert len(captures) == features["captures"]
    assert sum(1 for m in captures if board.squares[m >> 8 & 255] & 7 == 6) == features["king_captures"]


def _subtree(args: tuple[str, str, int]) -> int:
    return perft(*args)


def test_perft(record_depth):
    record, depth = record_depth
    expected = record["perft"][str(depth)]
    if expected <= _PARALLEL_NODES:
        assert perft(record["fen4"], depth, record["mode"]) == expected
        return
    # Split the tree by root move; a FEN4 after each root move holds everything perft needs.
    board = Board(record["fen4"], record["mode"])
    jobs = []
    for move in board.legal_moves():
        board.push(move)
        if not board.game_over:
            jobs.append((board.fen4(), depth - 1, record["mode"]))
        board.pop()
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert sum(pool.map(_subtree, jobs)) == expected, f"perft {depth} of {record['id']}"
