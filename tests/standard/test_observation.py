"""Observation planes decoded plane by plane on hand-checked positions."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from chess_envs.standard import ChessState

PIECES = "PNBRQK"


def play(state: ChessState, *moves: str) -> ChessState:
    for move in moves:
        state.apply_move(move)
    return state


def squares(plane: np.ndarray) -> set[str]:
    """Names of the squares set in an (8, 8) plane read in white's frame (row = rank)."""
    return {chess.square_name(chess.square(f, r)) for r, f in zip(*np.nonzero(plane))}


def mirrored(names: set[str]) -> set[str]:
    return {chess.square_name(chess.square_mirror(chess.parse_square(n))) for n in names}


def test_shape_dtype_and_bounds():
    obs = ChessState().observation()
    assert obs.shape == (119, 8, 8) and obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_start_position_planes_for_white():
    obs = ChessState().observation()
    assert squares(obs[0]) == {f"{f}2" for f in "abcdefgh"}
    assert squares(obs[1]) == {"b1", "g1"}
    assert squares(obs[2]) == {"c1", "f1"}
    assert squares(obs[3]) == {"a1", "h1"}
    assert squares(obs[4]) == {"d1"}
    assert squares(obs[5]) == {"e1"}
    assert squares(obs[6]) == {f"{f}7" for f in "abcdefgh"}
    assert squares(obs[11]) == {"e8"}
    assert not obs[12].any() and not obs[13].any()
    # History shorter than 8: steps 1..7 are zeros.
    assert not obs[14:112].any()
    meta = obs[112:, 0, 0]
    np.testing.assert_array_equal(meta, [0, 0, 1, 1, 1, 1, 0])
    assert (obs[112:] == obs[112:, :1, :1]).all(), "meta planes are constant"


def test_black_perspective_flips_board_and_swaps_colours():
    state = play(ChessState(), "e2e4")
    obs = state.observation()
    assert state.current_player == 1
    # Step 0, black's own pawns first, seen from black's side: rank 7 becomes row 1.
    assert squares(obs[0]) == mirrored({f"{f}7" for f in "abcdefgh"})
    assert squares(obs[5]) == mirrored({"e8"})
    assert squares(obs[6]) == mirrored({f"{f}2" for f in "abcdfgh"} | {"e4"})
    # Step 1 is the start position, also from black's perspective.
    assert squares(obs[14 + 6]) == mirrored({f"{f}2" for f in "abcdefgh"})
    assert squares(obs[14 + 0]) == mirrored({f"{f}7" for f in "abcdefgh"})
    assert not obs[28:112].any()
    meta = obs[112:, 0, 0]
    np.testing.assert_allclose(meta, [1, 1 / 512, 1, 1, 1, 1, 0])


def test_any_player_perspective_can_be_asked_for():
    state = play(ChessState(), "e2e4")
    white_view = state.observation(player=0)
    assert squares(white_view[0]) == {f"{f}2" for f in "abcdfgh"} | {"e4"}
    assert white_view[112, 0, 0] == 0
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        state.observation(player=2)


def test_history_holds_eight_steps_newest_first():
    moves = ["g1f3", "g8f6", "b1c3", "b8c6", "e2e4", "e7e5", "d2d4", "d7d5", "c1e3"]
    state = play(ChessState(), *moves)
    obs = state.observation()  # black to move after 9 plies
    # Step t shows the knights of the position t plies back; white's knights are the opponent's.
    history = [state.copy()]
    for _ in range(7):
        history.append(history[-1].copy())
        history[-1].undo()
    for t, past in enumerate(history):
        white_knights = {chess.square_name(s) for s in past.board.pieces(chess.KNIGHT, chess.WHITE)}
        assert squares(obs[14 * t + 7]) == mirrored(white_knights), t


def test_repetition_planes():
    state = play(ChessState(), "g1f3", "g8f6", "f3g1", "f6g8")
    obs = state.observation()
    assert obs[12].all() and not obs[13].any(), "start position seen a second time"
    assert not obs[14 + 12].any()
    play(state, "g1f3", "g8f6", "f3g1", "f6g8")
    obs = state.observation()
    assert obs[12].all() and obs[13].all()
    assert state.repetitions() == 3


def test_castling_and_counters():
    state = ChessState("r3k2r/8/8/8/8/8/8/R3K2R b Qk - 37 60")
    obs = state.observation()  # black to move
    meta = obs[112:, 0, 0]
    ply = 2 * 59 + 1
    np.testing.assert_allclose(meta, [1, ply / 512, 1, 0, 0, 1, 37 / 150], rtol=1e-6)
    white = state.observation(player=0)[112:, 0, 0]
    np.testing.assert_allclose(white, [0, ply / 512, 0, 1, 1, 0, 37 / 150], rtol=1e-6)


def test_counters_saturate_at_one():
    obs = ChessState("8/8/8/4k3/8/8/3K4/7Q w - - 149 900").observation()
    assert obs[113, 0, 0] == 1.0
    assert obs[118, 0, 0] == pytest.approx(149 / 150)


def test_history_option_changes_the_shape():
    state = ChessState(history=2)
    assert state.observation_shape == (14 * 2 + 7, 8, 8)
    assert state.observation().shape == (35, 8, 8)
    with pytest.raises(ValueError, match="history must be in"):
        ChessState(history=0)


def test_observation_matches_a_slow_reference(positions):
    """Rebuild every plane from python-chess for many random positions and compare."""
    for state in positions[::50]:
        for player in (0, 1):
            obs = state.observation(player)
            past = state.copy()
            for t in range(8):
                board = past.board
                me, them = (chess.WHITE, chess.BLACK) if player == 0 else (chess.BLACK, chess.WHITE)
                for i, piece_type in enumerate(chess.PIECE_TYPES):
                    for j, colour in enumerate((me, them)):
                        expected = {chess.square_name(s) for s in board.pieces(piece_type, colour)}
                        if player == 1:
                            expected = mirrored(expected)
                        assert squares(obs[14 * t + 6 * j + i]) == expected
                if not past.board.move_stack:
                    assert not obs[14 * (t + 1) : 112].any()
                    break
                past.undo()
