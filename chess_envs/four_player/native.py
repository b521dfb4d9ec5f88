"""The native four-player board (``chess_envs._core.FourPlayerBoard``), read from FEN4.

The rules and the FEN4 reader run in C++ (``src/native``); the tests compare them at every ply
and on mutated FEN4 text with a Python reference engine kept in ``tests/four_player``.
"""

from __future__ import annotations

from typing import Any

from chess_envs.core import check_text
from chess_envs.four_player.notation import FFA, MODES, TEAMS
from chess_envs.native import core


def parse_board(fen4: str, mode: str = FFA) -> Any:
    """A native board of the FEN4 ``fen4`` in ``mode`` ("ffa" or "teams"); ValueError says what is wrong."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    text = check_text(fen4, "FEN4").strip()
    if not text.isascii():
        raise ValueError("FEN4 must be ASCII text")
    return core.FourPlayerBoard.from_fen4(text, mode == TEAMS)


def perft(fen4: str, depth: int, mode: str = FFA) -> int:
    """Leaf nodes of the legal-move tree at ``depth`` as the reference data counts them (a move
    that ends the game is a leaf at its own depth; draw rules ignored), on the native board."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return parse_board(fen4, mode).perft(depth)
