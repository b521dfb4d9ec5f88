"""Opening books: PGN and EPD files (read by python-chess's rules) and FEN or FEN4 lines."""

from __future__ import annotations

import chess
import pytest

from evaluate.game import read_openings


def test_a_pgn_book_gives_the_position_each_game_reaches(tmp_path) -> None:
    book = tmp_path / "book.pgn"
    book.write_text('[Event "a"]\n\n1. e4 e5 2. Nf3 *\n\n[Event "b"]\n\n1. d4 d5 2. c4 *\n')
    fens = read_openings(str(book), "chess")
    expected = []
    for moves in (["e4", "e5", "Nf3"], ["d4", "d5", "c4"]):
        board = chess.Board()
        for move in moves:
            board.push_san(move)
        expected.append(board.fen())
    assert fens == expected
    with pytest.raises(ValueError, match="PGN books are for standard chess"):
        read_openings(str(book), "los_alamos")


def test_an_epd_book_drops_its_operations(tmp_path) -> None:
    book = tmp_path / "book.epd"
    book.write_text('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id "e4"; c0 "balanced";\n# a comment\n')
    assert read_openings(str(book), "chess") == ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
    (tmp_path / "bad.epd").write_text("not a position\n")
    with pytest.raises(ValueError, match="bad.epd, opening 1"):
        read_openings(str(tmp_path / "bad.epd"), "chess")
