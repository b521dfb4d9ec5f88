"""Four-player chess (14x14, 160 squares), Free-For-All and Teams: our rules engine and encoding."""

from chess_envs.four_player.board import FFA, START_FEN4, TEAMS, Board
from chess_envs.four_player.native import perft
from chess_envs.four_player.state import NUM_ACTIONS, FourPlayerState, legal_moves, reference_perft, standings_returns

__all__ = [
    "FFA",
    "NUM_ACTIONS",
    "START_FEN4",
    "TEAMS",
    "Board",
    "FourPlayerState",
    "legal_moves",
    "perft",
    "reference_perft",
    "standings_returns",
]
