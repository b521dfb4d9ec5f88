"""The UCI engine driven as lichess-bot drives engines: python-chess's ``SimpleEngine``, the options
of lichess-bot's default configuration set with ``configure``, ``play(..., ponder=True)`` under a
clock, a whole game against Stockfish; and MultiPV analysis through ``analyse(..., multipv=3)``."""

from __future__ import annotations

import logging
import sys
import time

import chess
import chess.engine
import pytest

from tests.engines import require_engine

pytestmark = pytest.mark.slow
ENGINE = [sys.executable, "-m", "chess_envs.apps.uci"]


def test_a_clocked_game_against_stockfish_with_pondering(caplog) -> None:
    stockfish = chess.engine.SimpleEngine.popen_uci(require_engine("stockfish"))
    ours = chess.engine.SimpleEngine.popen_uci(ENGINE)
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    try:
        ours.configure({"Threads": 1, "Hash": 64, "Move Overhead": 100})  # lichess-bot's defaults send these
        board, clock, increment = chess.Board(), 8.0, 0.1
        ponders = 0
        while not board.is_game_over(claim_draw=True) and board.ply() < 160:
            if board.turn == chess.WHITE:
                started = time.monotonic()
                limit = chess.engine.Limit(
                    white_clock=clock, black_clock=clock, white_inc=increment, black_inc=increment
                )
                result = ours.play(board, limit, ponder=True)
                clock -= time.monotonic() - started
                assert clock > 0, "lost on time"
                clock += increment
                assert result.move in board.legal_moves
                board.push(result.move)
                if result.ponder is not None:
                    ponders += 1
                if board.ply() <= 6 and result.ponder in board.legal_moves:
                    board.push(result.ponder)  # the reply it expects: the next play() sends ponderhit
                    continue
            else:
                board.push(stockfish.play(board, chess.engine.Limit(depth=1)).move)
    finally:
        ours.quit()
        stockfish.quit()
    log = caplog.text
    assert ponders > 10, "bestmove comes with a ponder move"
    assert any(line.rstrip().endswith("ponderhit") for line in log.splitlines()), "python-chess sent ponderhit"
    reused = [line for line in log.splitlines() if "ponderhit: the search goes on from the" in line]
    proven = [line for line in reused if "from the proven win" in line]  # the mate probe's: no visits needed
    assert reused and all(int(line.split("from the ")[1].split()[0]) > 0 for line in reused if line not in proven)


def test_multipv_three_gives_three_lines_with_scores_and_pvs() -> None:
    with chess.engine.SimpleEngine.popen_uci(ENGINE) as ours:
        ours.configure({"Threads": 1, "Hash": 16})
        infos = ours.analyse(chess.Board(), chess.engine.Limit(nodes=96), multipv=3)
    assert len(infos) == 3
    moves = [info["pv"][0] for info in infos]
    assert len(set(moves)) == 3 and all(move in chess.Board().legal_moves for move in moves)
    assert all(isinstance(info["score"].relative, chess.engine.Cp) and len(info["pv"]) >= 1 for info in infos)
