"""The native four-player board (``chess_envs._core.FourPlayerBoard``): from FEN4, or from a Python board.

The C++ engine (``src/native/four_player.hpp``, ``fen4.hpp``) ports :mod:`chess_envs.four_player.board`
move for move and its FEN4 reader rule for rule; the Python board is the reference the tests
compare it with at every ply and on mutated FEN4 text.
"""

from __future__ import annotations

from typing import Any

from chess_envs.core import check_text
from chess_envs.four_player.board import FFA, MODES, TEAMS, Board
from chess_envs.native import core


def parse_board(fen4: str, mode: str = FFA) -> Any:
    """A native board of the FEN4 ``fen4`` in ``mode`` ("ffa" or "teams"); ValueError says what is wrong."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    text = check_text(fen4, "FEN4").strip()
    if not text.isascii():
        raise ValueError("FEN4 must be ASCII text")
    return core.FourPlayerBoard.from_fen4(text, mode == TEAMS)


def native_board(board: Board) -> Any:
    """A native board holding a Python board's position (not its move stack), for the tests."""
    en_passant: list[int] = []
    for target in board.en_passant:
        en_passant += list(target) if target else [-1, -1]
    return core.FourPlayerBoard(
        list(board.squares),
        board.turn,
        [bool(live) for live in board.live],
        [bool(right) for right in board.castling[0]],
        [bool(right) for right in board.castling[1]],
        list(board.points),
        board.halfmove_clock,
        en_passant,
        board.mode == TEAMS,
    )


def perft(fen4: str, depth: int, mode: str = FFA) -> int:
    """Leaf nodes of the legal-move tree at ``depth`` as the reference data counts them (a move
    that ends the game is a leaf at its own depth; draw rules ignored), on the native board."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return parse_board(fen4, mode).perft(depth)
