"""Standard chess: python-chess's rules, run in C++ (``src/native``), with AlphaZero-style planes and actions.

The tests compare the native rules with python-chess and the planes with a pure-Python reference
state kept in ``tests/standard``.
"""

from chess_envs.standard.encoding import ENCODINGS, ActionEncoding, get_encoding
from chess_envs.standard.state import ChessState, legal_moves, perft

__all__ = ["ENCODINGS", "ActionEncoding", "ChessState", "get_encoding", "legal_moves", "perft"]
