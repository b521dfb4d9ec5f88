"""Four-player chess (14x14, 160 squares), Free-For-All and Teams, with our action encoding.

The rules run in C++ (``src/native``); the tests compare them with a pure-Python reference engine
kept in ``tests/four_player``.
"""

from chess_envs.four_player.native import perft
from chess_envs.four_player.notation import FFA, START_FEN4, TEAMS
from chess_envs.four_player.state import NUM_ACTIONS, FourPlayerState, legal_moves, standings_returns

__all__ = [
    "FFA",
    "NUM_ACTIONS",
    "START_FEN4",
    "TEAMS",
    "FourPlayerState",
    "legal_moves",
    "perft",
    "standings_returns",
]
