"""Score networks on every held-out position of a distillation run, split as the run split it.

    python recipes/distill_held_out.py --run NAME [--runs-dir runs] --networks NET [NET ...]

The run's ``config.json`` gives the seed, the held-out share and the value targets; each network
(a checkpoint path or ``@game``) gets the share of its top moves that are the teacher's, its policy
loss and its value loss over all held-out positions (the learning log scores the first 4,096).
A network that learned from another run's labels is scored on positions it never saw.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from chess_envs.agents.alphazero.checkpoint import load_network
from chess_envs.agents.shipped import checkpoint_path
from chess_envs.train.alphazero.sections import network_config
from chess_envs.train.config import from_dict
from chess_envs.train.distill.config import DistillConfig
from chess_envs.train.distill.data import Shards
from chess_envs.train.distill.loop import batch_of, held_out, score, value_targets

BATCH = 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="the distillation run's name")
    parser.add_argument("--runs-dir", default="runs", help="the folder holding the run")
    parser.add_argument("--networks", nargs="+", required=True, help="checkpoints or @game, scored in turn")
    args = parser.parse_args()
    folder = Path(args.runs_dir) / args.run
    config = from_dict(DistillConfig, json.loads((folder / "config.json").read_text()))
    data = Shards(folder / "data").load()
    rows = np.flatnonzero(held_out(data["game"], config))
    if not len(rows):
        raise SystemExit(f"{folder} holds no held-out game")
    values = value_targets(data, config, network_config(config).value_size)
    games = len(np.unique(data["game"][rows]))
    print(f"{folder}: {len(data['scores']):,} positions, {len(rows):,} held out ({games} games, seed {config.seed})")
    print(f"{'network':<50} {'top move = teacher':>18} {'policy loss':>12} {'value loss':>11}")
    for name in args.networks:
        network, _ = load_network(checkpoint_path(name), config.game)
        totals: dict[str, float] = {}
        for start in range(0, len(rows), BATCH):
            part = rows[start : start + BATCH]
            for key, value in score(network, batch_of(data, values, part), torch.device("cpu")).items():
                totals[key] = totals.get(key, 0.0) + value * len(part)
        mean = {key: total / len(rows) for key, total in totals.items()}
        agreement = mean.get("validation/teacher_move_agreement")  # none from a one-line teacher
        print(
            f"{name:<50} {'-' if agreement is None else f'{agreement:.1%}':>18} "
            f"{mean['validation/policy_loss']:>12.3f} {mean['validation/value_loss']:>11.4f}"
        )


if __name__ == "__main__":
    main()
