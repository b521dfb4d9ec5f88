"""One Gymnasium environment class for every game of the package."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from chess_envs import render
from chess_envs.core import GameState, IllegalActionError, check_count, check_reset_options
from chess_envs.registry import game_class

Opponent = Callable[[GameState], int]
ILLEGAL_ACTION_MODES = ("lose", "raise")


class GameEnv(gym.Env):
    """A board game as a Gymnasium environment, in self-play or against fixed opponents.

    ## Description
    Any game of :mod:`chess_envs.registry` (``Chess-v0``, ...). Each game's spec page in ``docs/``
    fixes its planes, actions and rules; this class adds the RL conventions common to all.

    ## Action Space
    ``Discrete(num_actions)``: the game's action indices, in the frame of the side to move.

    ## Observation Space
    ``Dict(observation=Box(0, 1, observation_shape, float32), action_mask=Box(0, 1, (num_actions,), int8))``.
    The planes are seen from the side to move in self-play and from ``agent_seat`` against
    opponents. ``info["action_mask"]`` repeats the mask; :meth:`action_masks` returns it as bool.
    The mask is all zeros once the game is over.

    ## Rewards
    Self-play: the game's value (+1 win, -1 loss, 0 draw) for the player who just moved, given
    when the game ends, 0 before. Against opponents: the value for ``agent_seat``.
    An illegal action (with ``illegal_action="lose"``) ends the game: -1 for the player who made it.

    ## Starting State
    The game's standard start, or ``fen`` (also ``reset(options={"fen": ...})``). Against
    opponents, if ``agent_seat`` is not to move first, the opponents move inside ``reset``.

    ## Episode End
    ``terminated`` when the game ends by its rules (``info["termination"]`` names the rule) or by
    an illegal action (``info["illegal_action"] = True``); ``truncated`` after ``max_plies`` plies
    (counting the opponents' plies). Stepping a finished episode raises ``RuntimeError``. An
    opponent that fails inside ``step`` raises ``RuntimeError`` with the learner's move taken back.

    ## Arguments
    ``game``: a name ("chess") or a state class. ``fen``: start position. ``max_plies``: truncation.
    ``opponent``: None for self-play, ``"random"``, an Agent (``select_action(state)``) or a
    callable ``state -> action``, or a list of these for games with more seats.
    ``agent_seat``: the learner's seat against opponents. ``illegal_action``: "lose" or "raise".
    ``render_mode``: "ansi", "rgb_array" or "svg". Other keywords (``history``,
    ``claim_draws``, ``action_encoding``) go to the game's state class.

    ## Version History
    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "svg"], "render_fps": 2}

    def __init__(
        self,
        game: str | type = "chess",
        *,
        fen: str | None = None,
        max_plies: int | None = None,
        opponent: Any = None,
        agent_seat: int = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        self._game = game_class(game)
        self._game_options = game_options
        self._fen = fen
        prototype = self._game(fen, **game_options)
        num_players = self._game.num_players
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.max_plies = check_count(max_plies, "max_plies", allow_none=True)
        agent_seat = check_count(agent_seat, "agent_seat", minimum=0, maximum=num_players - 1)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.agent_seat = agent_seat
        self._opponents = self._resolve_opponents(opponent, num_players)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, prototype.observation_shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (prototype.num_actions,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(prototype.num_actions)
        self._num_actions = prototype.num_actions
        self._state: GameState | None = None
        self._done = False
        self._plies = 0
        self._warned_illegal = False

    # -- opponents -------------------------------------------------------------------------

    def _resolve_opponents(self, opponent: Any, num_players: int) -> dict[int, Any] | None:
        if opponent is None:
            return None
        others = [seat for seat in range(num_players) if seat != self.agent_seat]
        choices = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent] * len(others)
        if len(choices) != len(others):
            raise ValueError(f"need {len(others)} opponents for this game, got {len(choices)}")
        return {seat: self._opponent_policy(choice) for seat, choice in zip(others, choices)}

    def _opponent_policy(self, opponent: Any) -> Any:
        if opponent == "random":
            return self._random_action
        if hasattr(opponent, "select_action"):
            return opponent
        if callable(opponent):
            return opponent
        raise ValueError(
            f"opponent must be None, 'random', an Agent with select_action(state) or a callable "
            f"state -> action; got {opponent!r} (build named agents with chess_envs.agents.make_agent)"
        )

    def _random_action(self, state: GameState) -> int:
        return int(self.np_random.choice(state.legal_actions()))

    def _opponent_action(self, policy: Any) -> int:
        # The live state, not a copy: an opponent, like any Agent, leaves it as it found it.
        if hasattr(policy, "select_action"):
            return policy.select_action(self.state)
        return policy(self.state)

    def _play_opponents(self) -> int:
        """Let the opponents move until it is the learner's turn; returns the plies played. They
        finish their turns even past ``max_plies`` (the step reports the truncation), so the learner
        is to move in every observation it is asked to act on."""
        state = self.state
        opponents = self._opponents or {}
        played = 0
        while state.current_player != self.agent_seat and not state.is_terminal():
            state.apply(self._opponent_action(opponents[state.current_player]))
            self._plies += 1
            played += 1
        return played

    # -- the Gymnasium API -----------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current game state (do not mutate it while the episode runs)."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        options = check_reset_options(options)
        super().reset(seed=seed)
        fen = options.get("fen", self._fen)
        self._state = self._game(fen, **self._game_options)
        self._done = False
        self._plies = 0
        if self._opponents is not None:
            for policy in self._opponents.values():
                if hasattr(policy, "reset"):
                    policy.reset()
            self._play_opponents()
        observation = self._observe()
        return observation, self._info(observation["action_mask"])

    def step(self, action: Any):
        state = self.state
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        mover = state.current_player
        try:
            state.apply(action)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            return self._illegal_step(mover, error)
        self._plies += 1
        if self._opponents is not None:
            self._reply(state)
        outcome = state.outcome()
        terminated = outcome is not None
        truncated = not terminated and self.max_plies is not None and self._plies >= self.max_plies
        self._done = terminated or truncated
        reward = 0.0
        observation = self._observe()
        info = self._info(observation["action_mask"])
        if outcome is not None:
            reward = float(outcome.returns[mover if self._opponents is None else self.agent_seat])
            info["termination"] = outcome.termination.value
            info["returns"] = np.asarray(outcome.returns, dtype=np.float32)
        return observation, reward, terminated, truncated, info

    def _reply(self, state: GameState) -> None:
        """The opponents' replies to the learner's move; if an opponent fails, the learner's move
        and any replies are taken back, so the episode goes on from where it was."""
        before = self._plies - 1
        try:
            self._play_opponents()
        except BaseException as error:
            for _ in range(self._plies - before):
                state.undo()
            self._plies = before
            if isinstance(error, Exception):
                raise RuntimeError(
                    f"the opponent failed ({type(error).__name__}: {error}); the learner's move was taken back, "
                    f"so step() may be called again from the same position"
                ) from error
            raise

    def _illegal_step(self, mover: int, error: IllegalActionError):
        if not self._warned_illegal:
            warnings.warn(f"{error}; the game ends as a loss for the mover", stacklevel=3)
            self._warned_illegal = True
        self._done = True
        observation = self._observe()
        info = self._info(observation["action_mask"])
        info["illegal_action"] = True
        return observation, -1.0, True, False, info

    def _observe(self) -> dict[str, np.ndarray]:
        state = self.state
        perspective = None if self._opponents is None else self.agent_seat
        mask = self.action_masks().view(np.int8)
        return {"observation": state.observation(perspective), "action_mask": mask}

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        return {"action_mask": mask, "current_player": self.state.current_player}

    def action_masks(self) -> np.ndarray:
        """The legal-action mask as bool (the method sb3-contrib's MaskablePPO calls)."""
        if self._done:
            return np.zeros(self._num_actions, dtype=bool)
        return self.state.legal_action_mask()

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to make()")
            return None
        if self.render_mode == "ansi":
            return render.render_ansi(self.state)
        if self.render_mode == "svg":
            return render.render_svg(self.state)
        return render.render_rgb(self.state)
