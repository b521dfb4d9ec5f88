"""Chess reinforcement-learning environments: Gymnasium and PettingZoo, numpy only.

Importing the package registers the Gymnasium ids, so both ``gymnasium.make("Chess-v0")``
(after ``import chess_envs``) and ``gymnasium.make("chess_envs:Chess-v0")`` work.
"""

from gymnasium.envs.registration import register, registry

from chess_envs.core import GameState, IllegalActionError, Outcome, Termination
from chess_envs.four_player import FourPlayerState
from chess_envs.los_alamos import LosAlamosState
from chess_envs.native import InUseError
from chess_envs.standard import ChessState

__all__ = [
    "ENV_IDS",
    "ChessState",
    "FourPlayerState",
    "GameState",
    "IllegalActionError",
    "InUseError",
    "LosAlamosState",
    "Outcome",
    "Termination",
]
__version__ = "0.1.0"

# Gymnasium id -> game name.
ENV_IDS = {"Chess-v0": "chess", "LosAlamos-v0": "los_alamos", "FourPlayerChess-v0": "four_player"}

for _env_id, _game in ENV_IDS.items():
    if _env_id not in registry:
        register(
            id=_env_id,
            entry_point="chess_envs.gym_env:GameEnv",
            vector_entry_point="chess_envs.vector_env:GameVectorEnv",
            kwargs={"game": _game},
        )
