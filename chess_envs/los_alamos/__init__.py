"""Los Alamos chess (6x6, no bishops) with Fairy-Stockfish's conventions.

The rules run in C++ (``src/native``); the tests compare them with a pure-Python reference engine
kept in ``tests/los_alamos``.
"""

from chess_envs.los_alamos.state import NUM_ACTIONS, START_FEN, LosAlamosState, legal_moves, perft, result

__all__ = ["NUM_ACTIONS", "START_FEN", "LosAlamosState", "legal_moves", "perft", "result"]
