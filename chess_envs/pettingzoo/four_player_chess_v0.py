"""Four-player chess as a PettingZoo AEC environment.

Agents ``player_0`` (Red), ``player_1`` (Blue), ``player_2`` (Yellow), ``player_3`` (Green);
``mode="teams"`` for Teams. In Free-For-All an eliminated player is terminated at once and leaves
``env.agents`` after its last (dead) step; see ``GameAECEnv`` for its reward.
"""

from chess_envs.pettingzoo.aec_env import make_env_functions

env, raw_env = make_env_functions("four_player", "four_player_chess_v0")

__all__ = ["env", "raw_env"]
