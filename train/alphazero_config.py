"""The AlphaZero run's settings: every hyper-parameter a dataclass field (a command-line flag), presets.

Shared by the local script (``train/alphazero.py``) and the Ray backend (``train/ray_backend.py``),
which wire the same two pieces: :mod:`train.selfplay` and :mod:`train.learner`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.alphazero import material
from agents.alphazero.checkpoint import load_checkpoint
from agents.alphazero.mcts import MCTSConfig
from agents.alphazero.network import LIMITS as NETWORK_LIMITS
from agents.alphazero.network import NetworkConfig
from chess_envs.registry import game_names, get_game, new_state
from train.cli import arg, check_args, check_memory


@dataclass
class Args:
    game: str = arg("los_alamos", "game to learn: " + ", ".join(game_names()))
    preset: str = arg("", "the preset these defaults came from")
    run_name: str = arg("alphazero", "run folder name under runs_dir")
    runs_dir: str = arg("runs", "where run folders live")
    resume: bool = arg(False, "continue the run from its last checkpoint (start it if there is none yet)")
    seed: int = arg(0, "seed of every random number generator")
    device: str = arg("auto", "auto (CUDA when present), cpu or cuda")
    backend: str = arg("local", "local (one process) or ray (self-play and learner actors; pip install .[ray])")
    ray_address: str = arg("", "with --backend ray: a cluster address ('auto' or host:port); empty starts a local Ray")
    ray_workers: int = arg(2, "with --backend ray: self-play actors")
    init: str = arg("", "a checkpoint whose network starts the run (e.g. train.distill's); its shape wins")
    # network
    filters: int = arg(48, "convolution filters")
    blocks: int = arg(7, "residual blocks")
    value_hidden: int = arg(128, "hidden units of the value head")
    activation: str = arg("gelu", "gelu or relu (faster on a CPU)")
    # self-play
    games_in_parallel: int = arg(64, "self-play games searched together (one network batch)")
    simulations: int = arg(64, "MCTS simulations per move")
    leaves_per_tree: int = arg(4, "in-flight simulations per tree per batch (virtual loss)")
    search_threads: int = arg(1, "threads the native search walks the games' trees with (for when the network is fast)")
    dirichlet_alpha: float = arg(0.5, "root Dirichlet noise concentration")
    dirichlet_fraction: float = arg(0.25, "share of the root prior replaced by noise")
    temperature_plies: int = arg(10, "plies per game played by sampling visits (temperature 1), then argmax")
    max_plies: int = arg(200, "a self-play game this long is stopped and scored a draw")
    gumbel: bool = arg(False, "Gumbel root search (sequential halving) instead of PUCT at the root")
    value_target_q: float = arg(
        0.0, "share of the search's root value in the value target, the rest the game's outcome (two players)"
    )
    teacher_games: int = arg(
        0, "four-player: the first this many self-play games are played by material-mcts (no network) to learn from"
    )
    teacher_simulations: int = arg(800, "simulations per move of the teacher's search")
    teacher_value_weight: float = arg(
        0.0, "share of the teacher's own evaluation of each position in its games' value targets, the rest the outcome"
    )
    # learner
    optimizer: str = arg("adamw", "adamw or sgd (with momentum 0.9, Nesterov)")
    learning_rate: float = arg(2e-3, "peak learning rate")
    weight_decay: float = arg(1e-4, "weight decay")
    lr_schedule: str = arg("cosine", "cosine (over total_steps, or over --minutes when sooner) or constant")
    total_steps: int = arg(20_000, "learner steps the schedule spans")
    batch_size: int = arg(256, "positions per learner step")
    replay_size: int = arg(200_000, "positions kept in the replay buffer")
    min_replay: int = arg(2_000, "positions in the buffer before learning starts")
    moves_per_iteration: int = arg(8, "self-play moves (in every parallel game) between learning phases")
    steps_per_iteration: int = arg(16, "learner steps per iteration")
    # run length, logging, checkpoints, evaluation
    minutes: float = arg(0.0, "stop after this many minutes of training (0: no limit)")
    iterations: int = arg(0, "stop after this many iterations (0: no limit)")
    checkpoint_every: int = arg(200, "learner steps between checkpoints (one more at the end)")
    keep_checkpoints: int = arg(3, "numbered checkpoints kept besides last.pt")
    eval_every: int = arg(50, "iterations between evaluations against random and greedy (0: never)")
    eval_games: int = arg(20, "games against each baseline per evaluation (colours alternate)")
    eval_simulations: int = arg(32, "simulations per move when evaluating")
    progress: bool = arg(True, "show a progress bar")

    def __post_init__(self) -> None:
        get_game(self.game)  # ValueError naming the known games
        if self.backend not in ("local", "ray"):
            raise ValueError(f"backend must be local or ray, got {self.backend!r}")
        if self.activation not in ("gelu", "relu"):
            raise ValueError(f"activation must be gelu or relu, got {self.activation!r}")
        if self.optimizer not in ("adamw", "sgd") or self.lr_schedule not in ("cosine", "constant"):
            raise ValueError("optimizer must be adamw or sgd, lr_schedule cosine or constant")
        for name in (
            "filters",
            "blocks",
            "games_in_parallel",
            "simulations",
            "batch_size",
            "replay_size",
            "moves_per_iteration",
            "checkpoint_every",
            "leaves_per_tree",
            "search_threads",
            "max_plies",
            "total_steps",
            "ray_workers",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_args(self, UPPER_BOUNDS)
        if self.init:
            self.take_network_shape(self.init)
        prototype = new_state(self.game)
        if not 0.0 <= self.value_target_q <= 1.0 or (self.value_target_q and prototype.num_players != 2):
            raise ValueError(
                f"value_target_q must be in [0, 1], and 0 for games of more than two players, got {self.value_target_q}"
            )
        if not 0.0 <= self.teacher_value_weight <= 1.0:
            raise ValueError(f"teacher_value_weight must be in [0, 1], got {self.teacher_value_weight}")
        if self.teacher_games < 0 or self.teacher_simulations < 1:
            raise ValueError(
                "teacher_games must be >= 0 and teacher_simulations >= 1, "
                f"got {self.teacher_games} and {self.teacher_simulations}"
            )
        if self.teacher_games and (not material.evaluates(self.game) or self.backend != "local"):
            raise ValueError("teacher_games: the material search teaches four-player chess, with --backend local")
        per_position = int(np.prod(prototype.observation_shape)) + 64 * 6 + 4 * prototype.num_players
        check_memory(f"a replay buffer of {self.replay_size:,} positions", self.replay_size * per_position)

    def take_network_shape(self, path: str) -> None:
        """The network fields of the checkpoint at ``path`` (it must be of this game), so that its
        weights fit the run's network; CheckpointError (a ValueError) says why it cannot be used."""
        config = NetworkConfig.from_file(load_checkpoint(path, self.game).get("network"))
        self.filters, self.blocks = config.filters, config.blocks
        self.value_hidden, self.activation = config.value_hidden, config.activation


UPPER_BOUNDS = {
    **{name: NETWORK_LIMITS[name] for name in ("filters", "blocks", "value_hidden")},
    "games_in_parallel": 4_096,
    "simulations": 100_000,
    "leaves_per_tree": 256,
    "search_threads": 256,
    "batch_size": 65_536,
}
"""Sizes past these are typing mistakes (the network's are its loader's limits)."""

PRESETS = {
    "smoke": dict(
        filters=16,
        blocks=1,
        value_hidden=16,
        games_in_parallel=4,
        simulations=8,
        leaves_per_tree=2,
        max_plies=30,
        batch_size=32,
        min_replay=16,
        replay_size=2_000,
        moves_per_iteration=16,
        steps_per_iteration=2,
        iterations=3,
        checkpoint_every=2,
        eval_every=3,
        eval_games=2,
        eval_simulations=4,
        total_steps=100,
    ),
    "los_alamos": dict(
        game="los_alamos",
        activation="relu",
        filters=48,
        blocks=4,
        games_in_parallel=128,
        simulations=48,
        leaves_per_tree=4,
        max_plies=150,
        value_target_q=0.5,
        batch_size=256,
        min_replay=3_000,
        moves_per_iteration=4,
        steps_per_iteration=12,
        total_steps=12_000,
        learning_rate=2e-3,
        eval_every=40,
        eval_games=20,
        eval_simulations=48,
        checkpoint_every=300,
    ),
    "chess": dict(
        game="chess",
        filters=64,
        blocks=6,
        games_in_parallel=64,
        simulations=64,
        max_plies=300,
        batch_size=256,
        min_replay=5_000,
        moves_per_iteration=8,
        steps_per_iteration=16,
        total_steps=50_000,
        eval_every=50,
        eval_games=10,
        eval_simulations=32,
    ),
    "four_player": dict(
        game="four_player",
        activation="relu",
        filters=32,
        blocks=4,
        value_hidden=64,
        games_in_parallel=32,
        simulations=64,
        teacher_games=100_000,
        teacher_simulations=800,
        temperature_plies=16,
        max_plies=400,
        batch_size=256,
        min_replay=5_000,
        moves_per_iteration=8,
        steps_per_iteration=8,
        total_steps=20_000,
        eval_every=100,
        eval_games=8,
        eval_simulations=64,
        checkpoint_every=300,
    ),
}


def network_config(args: Args) -> NetworkConfig:
    """The network the run trains: its input and output sizes from the game, the rest from ``args``."""
    prototype = new_state(args.game)
    return NetworkConfig(
        *prototype.observation_shape,
        num_actions=prototype.num_actions,
        value_size=1 if prototype.num_players == 2 else prototype.num_players,
        filters=args.filters,
        blocks=args.blocks,
        value_hidden=args.value_hidden,
        activation=args.activation,
    )


def self_play_search(args: Args, teacher: bool = False) -> MCTSConfig:
    """The search settings of self-play (``teacher``: of the teacher's games, no cache: its values are cheap)."""
    return MCTSConfig(
        simulations=args.teacher_simulations if teacher else args.simulations,
        leaves_per_tree=args.leaves_per_tree,
        threads=args.search_threads,
        dirichlet_alpha=args.dirichlet_alpha,
        dirichlet_fraction=args.dirichlet_fraction,
        gumbel=args.gumbel,
        cache_mb=0.0 if teacher else 64.0,
        planes="uint8",
    )
