"""A distillation run's settings: what the teacher labels and how, the held-out games, and the
sections every trainer has (``python -m chess_envs.train.distill --help`` lists them)."""

from __future__ import annotations

from dataclasses import dataclass

from chess_envs.agents.base import AgentSpec
from chess_envs.registry import get_game, new_state, registered_games
from chess_envs.train.alphazero.sections import NetworkSection, OptimizerSection, game_options
from chess_envs.train.config import Config, arg, section
from chess_envs.train.distill.labels import check_teacher
from chess_envs.train.sections import RunSection


@dataclass
class DataSection:
    """What the teacher labels, and how."""

    teacher: str = arg(
        "stockfish?depth=8",
        "the engine that labels: stockfish (chess), fairy-stockfish or 4pchess (four-player Teams), a spec",
    )
    game_options: str = arg("", "the game's options the games are played with, name=value,... (mode=teams)")
    stage: str = arg(
        "all",
        "all, data (label positions only) or learn (train on the data there is)",
        choices=("all", "data", "learn"),
    )
    positions: int = arg(200_000, "positions to label in all", low=1)
    workers: int = arg(2, "teacher processes labelling in parallel", low=1, high=64)
    multipv: int = arg(4, "moves the teacher scores per position (the soft policy's support)", low=1, high=256)
    policy_temperature: float = arg(
        100.0, "centipawns: the policy target is softmax(score / this); 0: best move only", low=0
    )
    value_scale: float = arg(400.0, "centipawns per factor 10 of odds when a score becomes an expected result", above=0)
    result_weight: float = arg(
        0.1, "share of the game's result in the value target, the rest the teacher's score", low=0, high=1
    )
    book_share: float = arg(0.5, "share of games that start from a line of the opening book (chess)", low=0, high=1)
    random_plies: int = arg(6, "random plies at the start of each game, --fewest-random-plies to this many", low=0)
    fewest_random_plies: int = arg(
        0, "fewest random plies at the start of each game (a one-line teacher replays a start)", low=0
    )
    student: str = arg(
        "",
        "an agent that plays one side of a share of the games, the teacher labelling its positions too "
        "(the network's own positions: DAgger); empty: the teacher plays every move",
    )
    student_share: float = arg(0.5, "share of the games the student plays a side of", low=0, high=1)
    sample_plies: int = arg(8, "plies after the opening where the teacher's move is sampled from its policy", low=0)
    max_plies: int = arg(300, "a game this long stops; the teacher's last score stands for its result", low=1)
    shard_size: int = arg(8192, "positions per data file (whole games)", low=1)


@dataclass
class ValidationSection:
    """The games held out to score the network on, and the checkpoints kept to rate it later."""

    validation_share: float = arg(0.02, "share of the games held out to score the network", low=0, high=1)
    eval_every: int = arg(500, "learner steps between scores on the held-out games", low=1)
    keep_checkpoints: int = arg(0, "numbered checkpoints kept besides last.pt (a learning curve's points)", low=0)


@dataclass
class DistillConfig(Config):
    """Every setting of a distillation run (``python -m chess_envs.train.distill --help`` lists them by section)."""

    run: RunSection = section(RunSection, game="chess", run_name="distill", checkpoint_every=1_000)
    data: DataSection = section(DataSection)
    network: NetworkSection = section(NetworkSection, filters=64, blocks=6, activation="relu")
    optimization: OptimizerSection = section(OptimizerSection, weight_decay=0.03)
    validation: ValidationSection = section(ValidationSection)

    def check(self) -> None:
        four_pchess = AgentSpec.parse(self.teacher).kind == "4pchess"
        if not (get_game(self.game).engines or four_pchess):
            taught = ", ".join(record.name for record in registered_games() if record.engines)
            raise ValueError(f"the teacher {self.teacher!r} teaches {taught}, not {self.game!r} (four_player: 4pchess)")
        check_teacher(self.teacher, self.game)
        if self.student:
            AgentSpec.parse(self.student)
        prototype = new_state(self.game, **game_options(self))
        if prototype.num_players > 2 and prototype.teams is None:
            raise ValueError("a four-player teacher plays Teams: set --game-options mode=teams")
