"""Opening books: PGN and EPD files (read by python-chess's rules) and FEN or FEN4 lines."""

from __future__ import annotations

import chess
import pytest

from chess_envs.arena.game import read_openings, shipped_book
from chess_envs.registry import new_state
from tests.agents.test_agents import needs_fairy
from tools.make_book import make_book


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


@pytest.mark.parametrize("game, least", [("chess", 500), ("los_alamos", 500), ("four_player", 300)])
def test_each_game_ships_a_balanced_book_that_says_how_it_was_made(game, least) -> None:
    openings = read_openings(f"@{game}", game)  # every position validated by the game's rules
    assert len(openings) >= least and len(set(openings)) == len(openings)
    header = shipped_book(game).read_text().splitlines()[:2]
    assert header[0].startswith(f"# {len(openings)} balanced {game} openings") and "make_book" in header[1]
    with pytest.raises(ValueError, match="no opening book is shipped"):
        read_openings("@no_such_game", game)


@needs_fairy
def test_a_book_keeps_only_openings_the_engine_scores_near_equal() -> None:
    lines = make_book("los_alamos", count=4, plies=4, depth=6, margin=30, seed=3)
    assert len(lines) == 4
    for line in lines:
        score = int(line.split('c0 "')[1].split('"')[0])
        assert abs(score) <= 30
        new_state("los_alamos", " ".join(line.split()[:4]) + " 0 1")


def test_a_four_player_book_is_judged_by_the_shipped_network() -> None:
    lines = make_book("four_player", count=2, plies=4, depth=0, margin=300, seed=1)
    assert len(lines) == 2 and all(new_state("four_player", line).to_text() == line for line in lines)
