"""The config sections every trainer has: the run and the evaluation (no algorithm's, so DQN loads no AlphaZero)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from chess_envs.agents.base import check_device
from chess_envs.registry import game_names, get_game
from chess_envs.train.config import arg


@dataclass
class RunSection:
    """What a run is and where it lives: its game, folder, seed, device, length and checkpoints."""

    game: str = arg("los_alamos", "game to learn: " + ", ".join(game_names()))
    preset: str = arg("", "the preset these defaults came from")
    run_name: str = arg("run", "run folder name under runs_dir")
    runs_dir: str = arg("runs", "where run folders live")
    resume: bool = arg(False, "continue the run from what it saved (start it if it saved nothing yet)")
    seed: int = arg(0, "seed of every random number generator", low=0)
    device: str = arg("auto", "auto (CUDA when present), cpu, cuda or cuda:N")
    minutes: float = arg(
        0.0, "minutes of training (AlphaZero and distillation: summed over a run's resumed parts; 0: no limit)", low=0
    )
    checkpoint_every: int = arg(200, "steps between checkpoints (one more at the end)", low=1)
    progress: bool = arg(True, "show a progress bar")

    def check(self) -> None:
        get_game(self.game)  # ValueError naming the known games
        check_device(self.device)
        if Path(self.run_name).name != self.run_name or self.run_name in ("", ".", ".."):
            raise ValueError(f"run_name must be a folder name (the folder goes under runs_dir), got {self.run_name!r}")


@dataclass
class EvaluationSection:
    """Games against the random and greedy baselines during the run."""

    eval_every: int = arg(50, "iterations between evaluations against random and greedy (0: never)", low=0)
    eval_games: int = arg(20, "games against each baseline per evaluation (seats alternate)", low=1, high=10_000)
