"""The AlphaZero run's settings: sections of fields (each a command-line flag), and presets.

Shared by the local loop (:mod:`.loop`) and the Ray backend (:mod:`.ray_backend`), which wire the same
two pieces: :mod:`.selfplay` and :mod:`.learner`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chess_envs.agents.alphazero.evaluators import RUNTIMES
from chess_envs.agents.alphazero.network import resolve_device
from chess_envs.agents.four_player import material
from chess_envs.registry import new_state
from chess_envs.search.protocol import Evaluator
from chess_envs.search.settings import MCTSConfig
from chess_envs.train.alphazero.sections import NetworkSection, OptimizerSection, game_options
from chess_envs.train.alphazero.selfplay import SelfPlay
from chess_envs.train.config import Config, arg, section
from chess_envs.train.sections import EvaluationSection, RunSection
from chess_envs.train.system import check_memory

SELF_PLAY_SEARCH: dict[str, Any] = dict(
    simulations=64,
    leaves_per_tree=4,
    dirichlet_alpha=0.5,
    dirichlet_fraction=0.25,
    mate_depth=2,
    cache_mb=64.0,
    planes="uint8",
)
"""Self-play's search where it differs from the table's defaults (chess_envs.search.settings), on
purpose: fewer simulations and leaves, root noise for exploration, a shallower mate probe, a smaller
cache, uint8 planes (the replay format). Every search setting is a flag of the run's ``search`` section."""


@dataclass
class SelfPlaySection:
    """How self-play plays: games searched together, the search, noise, temperature, the teacher."""

    games_in_parallel: int = arg(64, "self-play games searched together (one network batch)", low=1, high=4_096)
    temperature_plies: int = arg(10, "plies per game played by sampling visits (temperature 1), then argmax", low=0)
    max_plies: int = arg(200, "a self-play game this long is stopped and scored a draw", low=1)
    value_target_q: float = arg(
        0.0,
        "share of the search's root value in the value target, the rest the game's outcome (four-player: the "
        "mover's own entry; the teacher's games too)",
        low=0,
        high=1,
    )
    game_options: str = arg(
        "",
        "the game's rule options for self-play and evaluation, name=value[,name=value] (four-player: mode=teams "
        "learns Teams, partners sharing one result)",
    )
    teacher_games: int = arg(
        0,
        "four-player: the first this many self-play games are played by material-mcts (no network) to learn from",
        low=0,
    )
    teacher_simulations: int = arg(800, "simulations per move of the teacher's search", low=1, high=100_000)
    teacher_value_weight: float = arg(
        0.0,
        "share of the teacher's own evaluation of each position in its games' value targets, the rest the outcome",
        low=0,
        high=1,
    )
    teacher_process: bool = arg(
        True,
        "while the teacher plays in a local lock-step run: its games in a worker process, a chunk of moves ahead, "
        "beside the learner (false: the two take turns in this process; the asynchronous pipeline and Ray "
        "play them on their actors)",
    )
    teacher_handover: float = arg(
        0.0,
        "four-player: the network plays self-play from the first evaluation (every --eval-every iterations) at "
        "which it scores at least this pairwise placement against the teacher over --eval-games games, each "
        "searching as in self-play (0: only after --teacher-games)",
        low=0,
        high=1,
    )
    eval_simulations: int = arg(32, "simulations per move when evaluating", low=1, high=100_000)
    inference: str = arg(
        "torch",
        "what runs the network in self-play: torch, or openvino (CPU only, the same outputs, faster; "
        "pip install .[openvino])",
        choices=RUNTIMES,
    )


@dataclass
class LearnerSection:
    """The replay buffer and the rhythm of play and learning."""

    replay_size: int = arg(200_000, "positions kept in the replay buffer", low=1)
    min_replay: int = arg(2_000, "positions in the buffer before learning starts", low=0)
    moves_per_iteration: int = arg(8, "self-play moves (in every parallel game) between learning phases", low=1)
    steps_per_iteration: int = arg(16, "learner steps per iteration", low=0)
    iterations: int = arg(0, "stop after this many iterations (0: no limit)", low=0)
    keep_checkpoints: int = arg(3, "numbered checkpoints kept besides last.pt", low=0)
    pause_at: float = arg(
        0.0, "stop this part once the run has trained this many minutes in all; --resume goes on (0: never)", low=0
    )
    pipeline: str = arg(
        "lockstep",
        "lockstep: self-play and learning take turns (reproducible); async: actors play all the time and the "
        "learner learns beside them at --replay-ratio",
        choices=("lockstep", "async"),
    )
    replay_ratio: float = arg(
        0.0,
        "async: samples learned per new position (0: the lock-step loop's at these settings, steps_per_iteration x "
        "batch_size / (moves_per_iteration x games_in_parallel x actors))",
        low=0,
    )
    learner_ranks: int = arg(
        1,
        "processes of a data-parallel learner (DistributedDataParallel: gloo on the CPU, NCCL on GPUs, rank r on "
        "cuda:r); each learns batch_size / ranks positions of every batch",
        low=1,
        high=64,
    )
    publish_every: int = arg(16, "async: learner steps between weight versions handed to the actors", low=1)
    max_staleness: int = arg(
        0,
        "async: the learner waits rather than run more steps than this ahead of the oldest weights in an actor's "
        "unfinished games (0: the lock-step loop's longest at these settings, a game of max_plies, plus "
        "publish_every)",
        low=0,
    )


@dataclass
class BackendSection:
    """Where self-play runs: in this process, or on Ray actors."""

    backend: str = arg(
        "local", "local (one process) or ray (self-play actors; pip install .[ray])", choices=("local", "ray")
    )
    ray_address: str = arg("", "with --backend ray: a cluster address ('auto' or host:port); empty starts a local Ray")
    ray_workers: int = arg(2, "with --backend ray: self-play actors", low=1, high=4_096)
    ray_resources: str = arg(
        "",
        "with --backend ray: a custom resource each actor needs, name=amount (place them on self-play nodes "
        "started with ray start --resources)",
    )
    actor_slowdown: float = arg(
        1.0,
        "with --backend ray: the first actor plays this many times slower (a straggler, for tests and measurements)",
        low=1,
    )


@dataclass
class AlphaZeroConfig(Config):
    """Every setting of an AlphaZero run (``python -m chess_envs.train.alphazero --help`` lists them by section)."""

    run: RunSection = section(RunSection, run_name="alphazero")
    search: MCTSConfig = section(MCTSConfig, **SELF_PLAY_SEARCH)
    network: NetworkSection = section(NetworkSection)
    optimization: OptimizerSection = section(OptimizerSection)
    selfplay: SelfPlaySection = section(SelfPlaySection)
    learner: LearnerSection = section(LearnerSection)
    evaluation: EvaluationSection = section(EvaluationSection)
    placement: BackendSection = section(BackendSection)

    def check(self) -> None:
        prototype = new_state(self.game, **game_options(self))
        if self.teacher_games and not material.evaluates(self.game):
            raise ValueError(f"teacher_games: the material search teaches four-player chess, not {self.game}")
        if self.teacher_handover and not (self.teacher_games and self.eval_every):
            raise ValueError("teacher_handover is checked at the evaluations: it needs teacher_games and eval_every")
        if self.batch_size % self.learner_ranks:
            raise ValueError(f"--learner-ranks {self.learner_ranks} must divide --batch-size {self.batch_size}")
        if self.ray_resources and not _resource(self.ray_resources):
            raise ValueError(f"--ray-resources: expected name=amount, got {self.ray_resources!r}")
        if self.inference == "openvino" and resolve_device(self.device).type != "cpu":
            raise ValueError(f"--inference openvino runs self-play on the CPU: use --device cpu, not {self.device}")
        per_position = int(np.prod(prototype.observation_shape)) + 64 * 6 + 4 * prototype.num_players
        check_memory(f"a replay buffer of {self.replay_size:,} positions", self.replay_size * per_position)


PRESETS: dict[str, dict[str, Any]] = {
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
    "quick": dict(  # the README's main job: Los Alamos from scratch, a few minutes on a laptop CPU
        game="los_alamos",
        activation="relu",
        filters=16,  # 16x2 with Gumbel at 16 simulations: on an AVX2-only CPU, 32x3 at 24 PUCT
        blocks=2,  # simulations made half the games and scored 35% against greedy (docs/results.md)
        value_hidden=32,
        games_in_parallel=64,
        simulations=16,
        gumbel=True,
        leaves_per_tree=4,
        max_plies=120,
        value_target_q=0.5,
        batch_size=128,
        min_replay=1_000,
        replay_size=50_000,
        moves_per_iteration=4,
        steps_per_iteration=8,
        total_steps=4_000,
        learning_rate=3e-3,
        minutes=2.0,
        eval_every=0,
        checkpoint_every=500,
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
        teacher_value_weight=0.5,
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
"""named sets of settings over the defaults (``--preset NAME``; the flags given go over them)"""


def _resource(text: str) -> dict[str, float]:
    """``name=amount`` as Ray's resources argument (empty where the text is not of that form)."""
    name, _, amount = text.partition("=")
    try:
        return {name.strip(): float(amount)} if name.strip() and float(amount) > 0 else {}
    except ValueError:
        return {}


def ray_resources(config: AlphaZeroConfig) -> dict[str, float]:
    """The custom resource each self-play actor needs (``--ray-resources``)."""
    return _resource(config.ray_resources) if config.ray_resources else {}


def configured_self_play(
    config: AlphaZeroConfig, evaluator: Evaluator, seed: Sequence[int], teacher: bool = False
) -> SelfPlay:
    """Self-play as ``config`` plays it, evaluating with ``evaluator`` (the teacher's search settings
    with ``teacher``), seeded with ``seed``."""
    return SelfPlay(
        config.game,
        evaluator,
        self_play_search(config, teacher),
        config.games_in_parallel,
        config.temperature_plies,
        config.max_plies,
        np.random.default_rng(seed),
        config.value_target_q,
        game_options(config),
    )


def self_play_search(args: AlphaZeroConfig, teacher: bool = False) -> MCTSConfig:
    """The search settings of self-play (``teacher``: of the teacher's games, no cache: its values are cheap)."""
    if not teacher:
        return args.search
    return dataclasses.replace(args.search, simulations=args.teacher_simulations, cache_mb=0.0)
