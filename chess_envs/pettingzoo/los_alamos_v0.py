"""Los Alamos chess as a PettingZoo AEC environment (agents ``player_0`` white, ``player_1`` black)."""

from chess_envs.pettingzoo.aec_env import make_env_functions

env, raw_env = make_env_functions("los_alamos", "los_alamos_v0")

__all__ = ["env", "raw_env"]
