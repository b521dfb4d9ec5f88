"""One PettingZoo AEC environment class for every game of the package.

Agents are ``player_0`` .. ``player_{n-1}`` in seat order (``player_0`` is white in chess).
Each agent observes ``{"observation": planes from its own perspective, "action_mask": int8}``;
the mask is all zeros except for the agent to move, as in PettingZoo's classic chess.
Rewards come at the end of the game (the game's value per seat); in four-player Free-For-All a
player eliminated mid-game terminates at once and leaves ``agents`` after its dead step.
``env()`` adds PettingZoo's usual wrappers: an illegal action ends the game with -1 for its mover.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from chess_envs import render
from chess_envs.core import GameState, check_count, check_reset_options
from chess_envs.registry import game_class

RENDER_MODES = ("ansi", "rgb_array", "svg")


class GameAECEnv(AECEnv, EzPickle):
    """A board game as an AEC environment; ``fen``, ``max_plies`` and game options as in GameEnv."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "game_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        game: str | type = "chess",
        *,
        name: str | None = None,
        fen: str | None = None,
        max_plies: int | None = None,
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        EzPickle.__init__(self, game, name=name, fen=fen, max_plies=max_plies, render_mode=render_mode, **game_options)
        super().__init__()
        self._game = game_class(game)
        self._game_options = game_options
        self._fen = fen
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.metadata = {**self.metadata, "name": name or f"{self._game.game_name}_v0"}
        self.render_mode = render_mode
        self.max_plies = check_count(max_plies, "max_plies", allow_none=True)
        prototype = self._game(fen, **game_options)
        self.possible_agents = [f"player_{seat}" for seat in range(self._game.num_players)]
        self._num_actions = prototype.num_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, prototype.observation_shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (prototype.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(prototype.num_actions) for agent in self.possible_agents}
        self.state: GameState = prototype  # the start position until reset()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        state = self.state
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask = state.legal_action_mask().view(np.int8)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": state.observation(seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = check_reset_options(options)
        self.state = self._game(options.get("fen", self._fen), **self._game_options)
        self._plies = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player]
        if self.state.is_terminal():
            self._finish()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.state.apply(action)
        self._plies += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            self._finish()
        else:
            self._retire_eliminated()
            if self.max_plies is not None and self._plies >= self.max_plies:
                self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self.state.current_player]
        self._deads_step_first()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def _finish(self) -> None:
        outcome = self.state.outcome()
        assert outcome is not None, "_finish is called on finished games only"
        for agent in self.agents:
            self.rewards[agent] = float(outcome.returns[self._seat(agent)])
            self.infos[agent] = {"termination": outcome.termination.value}
        self.terminations = dict.fromkeys(self.agents, True)

    def _retire_eliminated(self) -> None:
        """Players knocked out of a game that goes on (four-player FFA) terminate now.

        Their reward is the value of their place in the standings at that moment: their points
        are final, but players still in the game may yet pass them, so it is provisional
        (``infos[agent]["provisional"]``); the returns of the finished game are exact.
        """
        eliminated = self.state.eliminated
        if not any(eliminated):
            return
        standings = self.state.standings()
        for agent in self.agents:
            seat = self._seat(agent)
            if eliminated[seat] and not self.terminations[agent]:
                self.terminations[agent] = True
                self.rewards[agent] = float(standings[seat])
                self.infos[agent] = {"termination": "eliminated", "provisional": True}

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return render.render_ansi(self.state)
        if self.render_mode == "svg":
            return render.render_svg(self.state)
        return render.render_rgb(self.state)

    def close(self) -> None:
        pass


def make_env_functions(game: str, name: str) -> tuple[Callable[..., AECEnv], Callable[..., GameAECEnv]]:
    """The ``env()`` and ``raw_env()`` pair of a game module, as PettingZoo's modules have."""

    def raw_env(**kwargs: Any) -> GameAECEnv:
        """The unwrapped AEC environment; an illegal action raises IllegalActionError."""
        return GameAECEnv(game, name=name, **kwargs)

    def env(**kwargs: Any) -> AECEnv:
        """The AEC environment with PettingZoo's standard wrappers."""
        wrapped = wrappers.TerminateIllegalWrapper(raw_env(**kwargs), illegal_reward=-1)
        wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
        return wrappers.OrderEnforcingWrapper(wrapped)

    return env, raw_env
