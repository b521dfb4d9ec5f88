"""Los Alamos chess (6x6, no bishops): our rules engine, Fairy-Stockfish's conventions."""

from chess_envs.los_alamos.board import START_FEN, Board
from chess_envs.los_alamos.state import NUM_ACTIONS, LosAlamosState, legal_moves, perft, result

__all__ = ["NUM_ACTIONS", "START_FEN", "Board", "LosAlamosState", "legal_moves", "perft", "result"]
