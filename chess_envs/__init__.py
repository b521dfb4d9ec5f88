"""Chess reinforcement-learning environments: Gymnasium and PettingZoo, numpy only.

Importing the package registers the Gymnasium ids of every game in :mod:`chess_envs.registry`,
so both ``gymnasium.make("Chess-v0")`` (after ``import chess_envs``) and
``gymnasium.make("chess_envs:Chess-v0")`` work.
"""

from chess_envs.core import GameState, IllegalActionError, Outcome, Termination
from chess_envs.four_player import FourPlayerState
from chess_envs.los_alamos import LosAlamosState
from chess_envs.native import InUseError
from chess_envs.registry import GameOption, GameRecord, get_game, register_game, registered_games
from chess_envs.standard import ChessState

__all__ = [
    "ENV_IDS",
    "ChessState",
    "FourPlayerState",
    "GameOption",
    "GameRecord",
    "GameState",
    "IllegalActionError",
    "InUseError",
    "LosAlamosState",
    "Outcome",
    "Termination",
    "get_game",
    "register_game",
]
__version__ = "0.4.0"

ENV_IDS = {record.env_id: record.name for record in registered_games()}
"""Gymnasium id -> game name, of the games registered when the package was imported."""
