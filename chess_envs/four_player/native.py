"""The native four-player board (``chess_envs._core.FourPlayerBoard``), built from a reference board.

The C++ engine (``src/native/four_player.hpp``) ports :mod:`chess_envs.four_player.board` move for
move; the Python board still reads FEN4 and is the reference the tests compare it with at every
ply. The native board runs perft today; :class:`~chess_envs.four_player.FourPlayerState` still
plays on the Python board.
"""

from __future__ import annotations

from typing import Any

from chess_envs.four_player.board import FFA, TEAMS, Board
from chess_envs.native import core


def native_board(board: Board) -> Any:
    """A native board holding ``board``'s position (not its move stack)."""
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
    return native_board(Board(fen4, mode)).perft(depth)
