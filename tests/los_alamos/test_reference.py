"""Los Alamos rules, native and the Python reference engine, against the reference data, and
against Fairy-Stockfish (its engine binary over UCI, and pyffish)."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest

from chess_envs.los_alamos import LosAlamosState, legal_moves, perft, result
from tests.engines import FairyStockfish, require_engine
from tests.los_alamos import reference

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "los_alamos"


def records(name: str) -> list[dict]:
    path = REFERENCE / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def pytest_generate_tests(metafunc):
    if "perft_record" in metafunc.fixturenames:
        perft_records = records("perft_public.jsonl")
        metafunc.parametrize("perft_record", perft_records, ids=[f"{r['id']}-d{r['depth']}" for r in perft_records])
    if "terminal_record" in metafunc.fixturenames:
        terminal_records = records("terminal_public.jsonl")
        metafunc.parametrize("terminal_record", terminal_records, ids=[r["id"] for r in terminal_records])


def test_reference_data_is_present():
    assert len(records("perft_public.jsonl")) == 65
    assert len(records("terminal_public.jsonl")) == 57


def test_perft_record(perft_record):
    if "moves" in perft_record:
        assert legal_moves(perft_record["fen"]) == perft_record["moves"]
        assert reference.legal_moves(perft_record["fen"]) == perft_record["moves"]
    assert perft(perft_record["fen"], perft_record["depth"]) == perft_record["nodes"]
    assert reference.perft(perft_record["fen"], perft_record["depth"]) == perft_record["nodes"]


def test_terminal_record(terminal_record):
    assert result(terminal_record["fen"]) == terminal_record["result"]
    assert reference.result(terminal_record["fen"]) == terminal_record["result"]
    state = LosAlamosState(terminal_record["fen"])
    reason = {"checkmate": "checkmate", "stalemate": "stalemate", "fifty_move_rule": "fifty_moves"}
    assert state.outcome().termination.value == reason[terminal_record["reason"]]


def test_threefold_repetition_as_in_rules_md():
    state = LosAlamosState()
    for _ in range(2):
        for move in ("b1a3", "b6a4", "a3b1", "a4b6"):
            assert not state.is_terminal()
            state.apply_move(move)
        assert state.repetitions() == (2 if _ == 0 else 3)
    assert state.outcome().termination.value == "threefold_repetition"


def play_against_fairy_stockfish(seeds: range, engine: FairyStockfish) -> int:
    """Random games from ``seeds``: at every ply the legal move sets and the game end must agree."""
    import pyffish

    plies = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = LosAlamosState()
        anchor, since = state.to_text(), []  # the last irreversible position and the moves after it
        seen: Counter[str] = Counter()  # placement and side to move, since the anchor
        while True:
            fen = state.to_text()
            position = " ".join(fen.split()[:2])
            seen[position] += 1
            ours = legal_moves(fen)
            theirs = engine.legal_moves(fen)
            assert ours == theirs, (seed, fen)
            # Los Alamos has no castling and no en passant, so a position repeats when its placement
            # and side to move do: pyffish (2.8 ms a call) is asked about the optional ends,
            # threefold repetition and the 50-move rule, where that count or the move clock says
            # one may be due; elsewhere there is none to report.
            due = seen[position] >= 3 or len(since) >= 100  # an earlier threefold would have ended the game
            optional_end = due and pyffish.is_optional_game_end("losalamos", anchor, since)[0]
            assert state.is_terminal() == (not theirs or optional_end), (seed, fen, since)
            if state.is_terminal():
                if not theirs:
                    value = pyffish.game_result("losalamos", fen, [])
                    assert state.returns()[state.current_player] == (0.0 if value == 0 else -1.0), (seed, fen)
                break
            move = rng.choice(ours)
            state.apply_move(move)
            plies += 1
            if state.to_text().split()[4] == "0":
                anchor, since = state.to_text(), []
                seen.clear()
            else:
                since.append(move)
    return plies


@pytest.mark.slow
def test_agrees_with_fairy_stockfish_on_random_games():
    """1,000 seeded random games checked ply by ply against Fairy-Stockfish: its engine's legal
    moves at every ply, pyffish's optional game ends and results (the native core meets the
    Python reference, checked here, on 3,000 more)."""
    if not os.environ.get("CI"):  # CI installs the dev extras, pyffish included: never skip there
        pytest.importorskip("pyffish")
    engine = FairyStockfish(require_engine("fairy-stockfish"), "losalamos")
    try:
        assert play_against_fairy_stockfish(range(1_000), engine) > 100_000
    finally:
        engine.close()
