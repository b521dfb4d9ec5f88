"""AlphaZero self-play training: the loop (:mod:`.loop`), its settings and presets (:mod:`.config`),
the learner, the replay store, self-play here or on Ray actors.

    python -m chess_envs.train.alphazero --preset smoke      # or: chess-envs train --preset smoke
"""

from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.loop import main, run

__all__ = ["PRESETS", "AlphaZeroConfig", "main", "run"]
