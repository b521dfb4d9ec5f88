"""Action encodings: masks equal python-chess's legal moves, and decoding inverts encoding."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from chess_envs.standard import ENCODINGS, ChessState
from tests.conftest import random_positions


@pytest.fixture(scope="module", params=sorted(ENCODINGS))
def encoded_positions(request) -> list[ChessState]:
    return random_positions(2500, seed=7, action_encoding=request.param)


def test_sample_covers_special_moves(encoded_positions):
    boards = [s.board for s in encoded_positions]
    moves = [(b, m) for b in boards for m in b.legal_moves]
    assert sum(b.turn == chess.BLACK for b in boards) > 1000
    assert any(b.is_castling(m) and b.turn == chess.WHITE for b, m in moves)
    assert any(b.is_castling(m) and b.turn == chess.BLACK for b, m in moves)
    assert any(b.is_en_passant(m) and b.turn == chess.WHITE for b, m in moves)
    assert any(b.is_en_passant(m) and b.turn == chess.BLACK for b, m in moves)
    promotions = {
        (b.turn, m.promotion, chess.square_file(m.to_square) - chess.square_file(m.from_square))
        for b, m in moves
        if m.promotion
    }
    assert len(promotions) == 2 * 4 * 3, "every promotion piece in every direction for both colours"


def test_mask_equals_python_chess_legal_moves(encoded_positions):
    for state in encoded_positions:
        expected = {state.move_to_action(move.uci()) for move in state.board.legal_moves}
        assert len(expected) == state.board.legal_moves.count(), state.to_text()
        assert set(np.flatnonzero(state.legal_action_mask())) == expected, state.to_text()
        assert set(state.legal_actions().tolist()) == expected


def test_action_to_move_inverts_move_to_action(encoded_positions):
    for state in encoded_positions:
        for move in state.board.legal_moves:
            assert state.action_to_move(state.move_to_action(move.uci())) == move.uci(), state.to_text()


def test_applying_an_action_plays_its_move(encoded_positions):
    for state in encoded_positions[::25]:
        for action in state.legal_actions():
            child = state.copy()
            child.apply(action)
            assert child.board.peek().uci() == state.action_to_move(action)


# Every underpromotion: white and black pawns that can push and capture both ways onto the last rank.
UNDERPROMOTION_FENS = {
    chess.WHITE: "1n1n4/2P5/8/8/8/8/8/k1K5 w - - 0 1",
    chess.BLACK: "k1K5/8/8/8/8/8/2p5/1N1N4 b - - 0 1",
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("colour", [chess.WHITE, chess.BLACK])
def test_every_underpromotion_round_trips(encoding, colour):
    state = ChessState(UNDERPROMOTION_FENS[colour], action_encoding=encoding)
    promotions = [m for m in state.board.legal_moves if m.promotion]
    assert len(promotions) == 3 * 4
    actions = {state.move_to_action(m.uci()) for m in promotions}
    assert len(actions) == 12
    for move in promotions:
        assert state.action_to_move(state.move_to_action(move.uci())) == move.uci()


def test_alphazero_layout_formulas():
    state = ChessState()
    # e2e4: from e2 (12), direction N (0), distance 2 -> move type 1.
    assert state.move_to_action("e2e4") == 12 * 73 + 1
    # g1f3: knight (df, dr) = (-1, +2) is knight index 7 -> move type 63.
    assert state.move_to_action("g1f3") == 6 * 73 + 56 + 7
    black = ChessState("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    # e7e5 for black is e2e4 in the mover's frame.
    assert black.move_to_action("e7e5") == 12 * 73 + 1
    promo = ChessState(UNDERPROMOTION_FENS[chess.WHITE])
    # c7xb8=N: capture towards file-1 (direction 0), knight (0).
    assert promo.move_to_action("c7b8n") == 50 * 73 + 64
    assert promo.move_to_action("c7d8r") == 50 * 73 + 64 + 2 * 3 + 2
    # Queen promotion is the queen-like move (north, distance 1).
    assert promo.move_to_action("c7c8q") == 50 * 73 + 0
    assert promo.action_to_move(50 * 73 + 0) == "c7c8q"


def test_from_to_layout_formulas():
    state = ChessState(action_encoding="from_to")
    assert state.num_actions == 4272
    assert state.move_to_action("e2e4") == 12 * 64 + 28
    promo = ChessState(UNDERPROMOTION_FENS[chess.WHITE], action_encoding="from_to")
    assert promo.move_to_action("c7c8n") == 4096 + 2 * 4 + 0  # push from file c
    assert promo.move_to_action("c7b8q") == 4096 + (8 + 1) * 4 + 3  # capture to file-1 from file c
    assert promo.move_to_action("c7d8b") == 4096 + (15 + 2) * 4 + 1  # capture to file+1 from file c
    black = ChessState(UNDERPROMOTION_FENS[chess.BLACK], action_encoding="from_to")
    assert black.move_to_action("c2c1r") == 4096 + 2 * 4 + 2  # mirrored: the same push


def test_encodings_are_bijections():
    for encoding in ENCODINGS.values():
        decoded = [encoding.decode(a) for a in range(encoding.num_actions)]
        valid = [m for m in decoded if m is not None]
        assert len(set(valid)) == len(valid)
        for action, move in enumerate(decoded):
            if move is not None:
                assert encoding.encode(*move) == action
    assert ENCODINGS["alphazero"].num_actions == 4672


def test_unknown_encoding_is_rejected():
    with pytest.raises(ValueError, match="unknown action_encoding 'bogus'"):
        ChessState(action_encoding="bogus")


def test_malformed_uci_is_rejected():
    with pytest.raises(ValueError, match="malformed UCI move 'e9e4'"):
        ChessState().move_to_action("e9e4")
