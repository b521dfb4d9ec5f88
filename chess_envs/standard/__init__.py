"""Standard chess: python-chess's rules with AlphaZero-style planes and actions."""

from chess_envs.standard.encoding import ENCODINGS, ActionEncoding, get_encoding
from chess_envs.standard.state import ChessState, legal_moves, perft

__all__ = ["ENCODINGS", "ActionEncoding", "ChessState", "get_encoding", "legal_moves", "perft"]
