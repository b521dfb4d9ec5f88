"""Helpers of chess_envs.core shared by every game."""

from __future__ import annotations

import numpy as np
import pytest

from chess_envs.core import GameState, Outcome, Termination, as_action, bitboards_to_planes
from chess_envs.standard import ChessState


def test_bitboards_to_planes_maps_bit_to_row_and_column():
    boards = np.array([1 << 0, 1 << 9, 1 << 63], dtype=np.uint64)
    planes = bitboards_to_planes(boards)
    assert planes.shape == (3, 8, 8)
    assert list(zip(*np.nonzero(planes))) == [(0, 0, 0), (1, 1, 1), (2, 7, 7)]


def test_bitboards_to_planes_on_a_smaller_board():
    planes = bitboards_to_planes(np.array([1 << 35], dtype=np.uint64), 6, 6)
    assert planes.shape == (1, 6, 6) and planes[0, 5, 5] == 1 and planes.sum() == 1


@pytest.mark.parametrize("value", [0, 7, np.int64(7), np.int16(7), np.uint8(7), np.array(7)])
def test_as_action_accepts_integers(value):
    assert as_action(value, 10) == int(value)
    assert type(as_action(value, 10)) is int


@pytest.mark.parametrize("value", [None, 1.0, "1", True, np.bool_(False), np.array([1]), np.array(1.0)])
def test_as_action_rejects_non_integers(value):
    with pytest.raises(TypeError):
        as_action(value, 10)


def test_outcome_winner():
    assert Outcome(Termination.CHECKMATE, (1.0, -1.0)).winner == 0
    assert Outcome(Termination.STALEMATE, (0.0, 0.0)).winner is None


def test_chess_state_satisfies_the_protocol():
    assert isinstance(ChessState(), GameState)
