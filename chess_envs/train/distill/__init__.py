"""Distillation: a network that learns from an engine's labels (:mod:`.labels`, :mod:`.data`,
:mod:`.loop`); self-play goes on from it with ``chess_envs.train.alphazero --init``.

    python -m chess_envs.train.distill --game chess --teacher "stockfish?depth=8"   # or: chess-envs distill
"""

from chess_envs.train.distill.config import DistillConfig
from chess_envs.train.distill.loop import main

__all__ = ["DistillConfig", "main"]
