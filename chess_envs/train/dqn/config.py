"""The DQN run's settings: sections of fields (each a command-line flag), and presets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import gymnasium as gym

from chess_envs.agents.dqn import LIMITS
from chess_envs.gym_env import GameEnv
from chess_envs.registry import game_class
from chess_envs.train.config import Config, arg, section
from chess_envs.train.dqn.learner import CompactReplayBuffer
from chess_envs.train.sections import EvaluationSection, RunSection
from chess_envs.train.system import check_memory


@dataclass
class OpponentSection:
    """Who the learner plays, in how many environments, and what it is paid."""

    opponent: str = arg(
        "random", "who moves the other seats: random, greedy or self", choices=("random", "greedy", "self")
    )
    self_play_refresh: int = arg(10_000, "with opponent=self: steps between copies of the learner", low=1)
    envs: int = arg(2, "environments stepped together (the learner's seat alternates between them)", low=1, high=256)
    max_plies: int = arg(150, "an episode this long is cut (a draw)", low=1)
    shaping: float = arg(0.0, "weight of the material reward (0: rewards from outcomes only)")
    draw_reward: float = arg(0.0, "reward for a drawn or cut game (below 0: contempt for draws)")
    cut_is_draw: bool = arg(True, "a game cut at max_plies ends as a draw (no bootstrap past the cut)")


@dataclass
class QNetworkSection:
    """The Q-network: a planes CNN and a dueling head."""

    filters: int = arg(64, "convolution filters of the planes CNN", low=1, high=LIMITS["filters"])
    layers: int = arg(3, "3x3 convolutions of the planes CNN", low=1, high=LIMITS["layers"])
    hidden: int = arg(256, "hidden units of the value MLP in the dueling Q head", low=1, high=LIMITS["hidden"])


@dataclass
class DQNSection:
    """DQN's own settings: steps, replay, targets and exploration."""

    total_steps: int = arg(300_000, "environment steps to train for (all envs together)", low=1)
    learning_rate: float = arg(5e-4, "Adam learning rate", above=0)
    buffer_size: int = arg(200_000, "replay transitions kept", low=1)
    learning_starts: int = arg(5_000, "warm-up steps of uniformly random legal moves before learning", low=0)
    batch_size: int = arg(128, "transitions per gradient step", low=1, high=65_536)
    gamma: float = arg(0.99, "discount per move of the learner", low=0, high=1)
    n_steps: int = arg(1, "moves summed into each TD target (n-step returns)", low=1)
    double_q: bool = arg(True, "Double DQN target: the online network picks, the target network scores")
    train_freq: int = arg(4, "environment steps between gradient steps", low=1)
    gradient_steps: int = arg(1, "gradient steps each time", low=1)
    target_update_interval: int = arg(2_000, "steps between copies to the target network", low=1)
    exploration_fraction: float = arg(0.3, "share of the run over which epsilon decays", low=0, high=1)
    exploration_initial_eps: float = arg(1.0, "epsilon at the start", low=0, high=1)
    exploration_final_eps: float = arg(0.05, "epsilon after the decay", low=0, high=1)


@dataclass
class DQNConfig(Config):
    """Every setting of a DQN run (``python -m chess_envs.train.dqn --help`` lists them by section)."""

    run: RunSection = section(RunSection, run_name="dqn", checkpoint_every=20_000)
    opponents: OpponentSection = section(OpponentSection)
    q_network: QNetworkSection = section(QNetworkSection)
    dqn: DQNSection = section(DQNSection)
    evaluation: EvaluationSection = section(EvaluationSection, eval_every=20_000)

    def check(self) -> None:
        if game_class(self.game).num_players != 2:
            raise ValueError(f"the DQN baseline plays two-player games, not {self.game!r}")
        if self.exploration_final_eps > self.exploration_initial_eps:
            raise ValueError("need exploration_final_eps <= exploration_initial_eps")
        space = cast(gym.spaces.Dict, GameEnv(self.game).observation_space)
        bytes_needed = self.buffer_size * CompactReplayBuffer.bytes_per_transition(space)
        check_memory(f"a replay buffer of {self.buffer_size:,} transitions", bytes_needed)


PRESETS: dict[str, dict[str, Any]] = {
    "smoke": dict(
        filters=16,
        layers=2,
        hidden=64,
        total_steps=3_000,
        buffer_size=5_000,
        learning_starts=500,
        batch_size=32,
        target_update_interval=500,
        checkpoint_every=1_000,
        eval_every=1_500,
        eval_games=4,
        max_plies=60,
    ),
    "los_alamos": dict(
        game="los_alamos",
        opponent="random",
        total_steps=400_000,
        shaping=0.5,
        draw_reward=-0.5,
        learning_rate=2.5e-4,
        exploration_fraction=0.1,
        target_update_interval=8_000,
        eval_every=50_000,
    ),
    "chess": dict(
        game="chess",
        opponent="random",
        total_steps=1_000_000,
        buffer_size=300_000,
        max_plies=200,
        filters=96,
        layers=4,
        hidden=512,
    ),
}
"""named sets of settings over the defaults (``--preset NAME``; the flags given go over them)"""
