"""The DQN learner's environments and opponents: the game as a Gymnasium env for one seat, an
optional material reward, a cut game scored as a draw, and the learner's frozen copy as a self-play opponent."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import cast

import gymnasium as gym
import numpy as np

from chess_envs.agents.base import AgentBase
from chess_envs.agents.dqn import q_action
from chess_envs.core import GameState
from chess_envs.gym_env import GameEnv
from chess_envs.train.dqn.config import DQNConfig
from chess_envs.train.dqn.learner import MaskableDQN


class FrozenOpponent(AgentBase):
    """A frozen copy of the learner's Q-network playing the other seats (self-play)."""

    name = "self"

    def __init__(self, model: MaskableDQN, epsilon: float = 0.05, seed: int = 0) -> None:
        self.model = copy.copy(model)
        self.model.policy = copy.deepcopy(model.policy).to("cpu")
        self.model.policy.set_training_mode(False)
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)

    def refresh(self, model: MaskableDQN) -> None:
        self.model.policy.load_state_dict(model.policy.state_dict())

    def reset(self, seed: int | None = None) -> None:
        """Nothing carried between games."""

    def select_action(self, state: GameState) -> int:
        if self.rng.random() < self.epsilon:
            return int(self.rng.choice(state.legal_actions()))
        return q_action(self.model.policy, state)


class ModelAgent(AgentBase):
    """The learner as an evaluate Agent (greedy over legal moves)."""

    name = "dqn"

    def __init__(self, model: MaskableDQN) -> None:
        self.model = model

    def reset(self, seed: int | None = None) -> None:
        """Nothing carried between games."""

    def select_action(self, state: GameState) -> int:
        return q_action(self.model.policy, state)


class MaterialShaping(gym.Wrapper):
    """Rewards for material and a price on draws, on top of the game's outcome.

    Each step adds ``weight * (phi(s') - phi(s))``, ``phi`` the learner's material minus the
    opponent's in tens of pawns, so a capture pays at once and a lost piece costs; a game that
    ends drawn (or is cut at ``max_plies``) pays ``draw_reward``. This is NOT potential-based
    shaping (nothing is given back at the end): it tilts the learner towards winning material
    and away from draws, the way a player with contempt for draws plays a weaker opponent.
    """

    def __init__(self, env: gym.Env, weight: float, draw_reward: float) -> None:
        super().__init__(env)
        self.weight, self.draw_reward = weight, draw_reward
        self._phi = 0.0

    def _potential(self) -> float:
        game = cast(GameEnv, self.env.unwrapped)
        material = game.state.material()
        seat = game.agent_seat
        return float(2 * material[seat] - material.sum()) / 10.0

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self._phi = self._potential()
        return observation, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        phi = self._potential()
        shaped = float(reward) + self.weight * (phi - self._phi)
        if (terminated or truncated) and reward == 0:  # a draw, or a game cut at max_plies
            shaped += self.draw_reward
        self._phi = phi
        return observation, shaped, terminated, truncated, info


class CutIsDraw(gym.Wrapper):
    """A game cut at ``max_plies`` ends there, as the evaluation scores it: a draw.

    Gymnasium calls the cut a truncation, after which SB3 bootstraps from the next position as
    if the game went on; here the game is over, so the learner's values stay those of the game
    it is scored on (the observation holds the ply count, so the cut is visible to it).
    """

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, reward, terminated or truncated, False, info


def make_env(args: DQNConfig, seat: int, opponent: object) -> Callable[[], gym.Env]:
    """A builder of one environment where the learner plays ``seat`` against ``opponent``."""

    def build() -> gym.Env:
        env: gym.Env = GameEnv(args.game, opponent=opponent, agent_seat=seat, max_plies=args.max_plies)
        if args.shaping or args.draw_reward:
            env = MaterialShaping(env, args.shaping, args.draw_reward)
        return CutIsDraw(env) if args.cut_is_draw else env

    return build
