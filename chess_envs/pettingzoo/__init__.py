"""PettingZoo AEC environments, one module per game as PettingZoo's classic suite does."""

from chess_envs.pettingzoo.aec_env import GameAECEnv

__all__ = ["GameAECEnv"]
