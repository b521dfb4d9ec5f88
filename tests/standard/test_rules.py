"""End rules, returns, make/undo and perft of standard chess."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from chess_envs import IllegalActionError, Termination
from chess_envs.standard import ChessState, legal_moves, perft
from tests.conftest import KIWIPETE


def play(state: ChessState, *moves: str) -> ChessState:
    for move in moves:
        state.apply_move(move)
    return state


def shuffle_knights(state: ChessState, times: int) -> ChessState:
    for _ in range(times):
        play(state, "g1f3", "g8f6", "f3g1", "f6g8")
    return state


def test_checkmate_scores_the_winner():
    state = play(ChessState(), "f2f3", "e7e5", "g2g4", "d8h4")
    outcome = state.outcome()
    assert outcome.termination is Termination.CHECKMATE
    assert outcome.winner == 1
    np.testing.assert_array_equal(state.returns(), [-1.0, 1.0])
    assert not state.legal_action_mask().any() and state.legal_actions().size == 0


def test_white_checkmate():
    state = play(ChessState(), "e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7")
    np.testing.assert_array_equal(state.returns(), [1.0, -1.0])


def test_stalemate_is_a_draw():
    state = ChessState("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert state.outcome().termination is Termination.STALEMATE
    np.testing.assert_array_equal(state.returns(), [0.0, 0.0])


@pytest.mark.parametrize(
    "fen", ["8/8/4k3/8/8/3K4/8/8 w - - 0 1", "8/8/4k3/8/8/3KN3/8/8 w - - 0 1", "8/8/4kb2/8/8/3KB3/8/8 w - - 0 1"]
)
def test_insufficient_material_is_a_draw(fen):
    assert ChessState(fen).outcome().termination is Termination.INSUFFICIENT_MATERIAL


def test_insufficient_material_reached_by_a_capture():
    state = ChessState("8/8/4k3/8/8/3K4/4r3/8 w - - 0 1")
    assert not state.is_terminal()
    play(state, "d3e2")
    assert state.outcome().termination is Termination.INSUFFICIENT_MATERIAL


def test_threefold_repetition_when_it_occurs_with_claim_draws():
    state = shuffle_knights(ChessState(), 1)
    assert state.repetitions() == 2 and not state.is_terminal()
    # python-chess's can_claim_threefold_repetition already says yes here (one move ahead);
    # the game ends only once the position has actually occurred three times.
    play(state, "g1f3", "g8f6", "f3g1")
    assert state.board.can_claim_threefold_repetition()
    assert not state.is_terminal()
    play(state, "f6g8")
    assert state.outcome().termination is Termination.THREEFOLD_REPETITION


def test_fivefold_repetition_without_claims():
    state = shuffle_knights(ChessState(claim_draws=False), 2)
    assert not state.is_terminal(), "threefold is not claimed"
    shuffle_knights(state, 2)
    assert state.repetitions() == 5
    assert state.outcome().termination is Termination.FIVEFOLD_REPETITION


def test_fifty_move_rule_when_it_occurs_with_claim_draws():
    fen = "8/8/4k3/8/8/3K4/3R4/8 w - - 99 80"
    state = ChessState(fen)
    assert not state.is_terminal()
    play(state, "d2a2")
    assert state.outcome().termination is Termination.FIFTY_MOVES
    unclaimed = play(ChessState(fen, claim_draws=False), "d2a2")
    assert not unclaimed.is_terminal()


def test_seventyfive_move_rule_always():
    state = play(ChessState("8/8/4k3/8/8/3K4/3R4/8 w - - 149 80", claim_draws=False), "d2a2")
    assert state.outcome().termination is Termination.SEVENTYFIVE_MOVES


def test_checkmate_beats_the_move_rules():
    state = play(ChessState("6k1/5ppp/8/8/8/8/8/K2R4 w - - 149 80"), "d1d8")
    assert state.outcome().termination is Termination.CHECKMATE


def test_undo_restores_the_state(positions):
    for state in positions[::40]:
        before_obs, before_mask, fen = state.observation(), state.legal_action_mask(), state.to_text()
        reps = state.repetitions()
        for action in state.legal_actions()[:5]:
            state.apply(action)
            state.undo()
            assert state.to_text() == fen and state.repetitions() == reps
            np.testing.assert_array_equal(state.observation(), before_obs)
            np.testing.assert_array_equal(state.legal_action_mask(), before_mask)


def test_copy_is_independent():
    state = ChessState()
    other = state.copy()
    other.apply(other.move_to_action("e2e4"))
    assert state.to_text() == chess.STARTING_FEN
    assert not state.observation()[14:112].any(), "no history"


@pytest.mark.parametrize("depth, nodes", [(1, 20), (2, 400), (3, 8902), (4, 197281)])
def test_perft_start(depth, nodes):
    assert perft(chess.STARTING_FEN, depth) == nodes


@pytest.mark.parametrize(
    "depth, nodes", [(1, 48), (2, 2039), (3, 97862), pytest.param(4, 4085603, marks=pytest.mark.slow)]
)
def test_perft_kiwipete(depth, nodes):
    assert perft(KIWIPETE, depth) == nodes


def test_perft_kiwipete_from_to_encoding():
    assert perft(KIWIPETE, 3, action_encoding="from_to") == 97862


def test_legal_moves_lists_uci():
    assert legal_moves(chess.STARTING_FEN)[:3] == ["a2a3", "a2a4", "b1a3"]
    assert len(legal_moves(KIWIPETE)) == 48


def test_illegal_action_names_move_and_position_and_changes_nothing():
    state = ChessState()
    action = state.move_to_action("e2e5")
    with pytest.raises(IllegalActionError, match=r"action \d+ \(e2e5\) is not legal in rnbqkbnr/pppppppp"):
        state.apply(action)
    assert state.to_text() == chess.STARTING_FEN and state.repetitions() == 1
    with pytest.raises(IllegalActionError, match="off the board"):
        state.apply(6 * 7)  # from a1 to the west
    assert state.to_text() == chess.STARTING_FEN


def test_wrong_action_types_and_ranges():
    state = ChessState()
    with pytest.raises(TypeError, match="action must be an integer"):
        state.apply(1.5)
    with pytest.raises(TypeError, match="action must be an integer"):
        state.apply("e2e4")
    with pytest.raises(TypeError, match="boolean|integer"):
        state.apply(True)
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(4672)
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(-1)
    state.apply(np.int32(state.move_to_action("e2e4")))
    state.apply(np.array(state.move_to_action("e7e5")))
    assert state.board.fullmove_number == 2


@pytest.mark.parametrize(
    "fen, reason",
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 9", "more parts than expected"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "invalid character in position"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "invalid character in position"),
        ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "position part of fen"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "no white king"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "turn"),
        ("Pnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQkq - 0 1", "pawns on backrank"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "half-move clock"),
    ],
)
def test_malformed_fen_says_why(fen, reason):
    with pytest.raises(ValueError, match=reason):
        ChessState(fen)


def test_fen_must_be_text():
    with pytest.raises(TypeError, match="fen must be a string"):
        ChessState(42)
