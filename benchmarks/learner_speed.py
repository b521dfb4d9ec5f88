"""The learner's steps per second at each preset, on CUDA when a GPU is present (else the CPU), with
one rank and with the data-parallel learner (``--learner-ranks``: one rank per GPU on CUDA, 2 on the CPU).

    python benchmarks/learner_speed.py [--presets los_alamos chess four_player] [--steps 30]

The replay holds random positions of the game (the step's cost does not depend on what they are).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch

from chess_envs.agents.alphazero.network import resolve_device
from chess_envs.registry import new_state
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.config import build


def steps_per_second(preset: str, ranks: int, steps: int) -> float:
    """Learner steps per second of ``preset`` with ``ranks`` ranks, after two warm-up steps."""
    with tempfile.TemporaryDirectory() as folder:
        settings = {**PRESETS[preset], "teacher_games": 0, "eval_every": 0, "progress": False}
        config = build(AlphaZeroConfig, **settings, runs_dir=folder, run_name="speed", learner_ranks=ranks)
        learner = Learner(config)
        rng = np.random.default_rng(0)
        shape, width = new_state(config.game).observation_shape, learner.network_config.value_size
        for _ in range(max(config.min_replay, config.batch_size)):
            actions = rng.choice(1_000, size=8, replace=False)
            values = rng.uniform(-1, 1, width).astype(np.float32)
            learner.replay.add(rng.random(shape) < 0.3, actions, np.full(8, 1 / 8, np.float32), values)
        try:
            learner.learn(2)
            if learner.device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            learner.learn(steps)
            if learner.device.type == "cuda":
                torch.cuda.synchronize()
            return steps / (time.perf_counter() - start)
        finally:
            learner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["los_alamos", "chess", "four_player"])
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    device = resolve_device("auto")
    many = torch.cuda.device_count() if device.type == "cuda" else 2
    worlds = sorted({1, many})
    print(f"device {device} ({torch.cuda.get_device_name() if device.type == 'cuda' else 'CPU'}), ranks {worlds}")
    print(f"{'preset':<14}" + "".join(f"{f'{w} rank(s) steps/s':>20}" for w in worlds) + f"{'samples/s':>14}")
    for preset in args.presets:
        rates = [steps_per_second(preset, world, args.steps) for world in worlds]
        batch = PRESETS[preset]["batch_size"]
        print(f"{preset:<14}" + "".join(f"{rate:>20.2f}" for rate in rates) + f"{max(rates) * batch:>14,.0f}")


if __name__ == "__main__":
    main()
