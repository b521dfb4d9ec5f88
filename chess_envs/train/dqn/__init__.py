"""The masked DQN baseline on stable-baselines3: the loop (:mod:`.loop`), settings and presets
(:mod:`.config`), the learner, its environments and checkpoints.

    python -m chess_envs.train.dqn --preset smoke      # or: chess-envs dqn --preset smoke
"""

from chess_envs.train.dqn.config import PRESETS, DQNConfig
from chess_envs.train.dqn.loop import main

__all__ = ["PRESETS", "DQNConfig", "main"]
