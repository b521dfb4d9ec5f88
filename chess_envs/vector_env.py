"""Vector environments: N games stepped together into batched, preallocated arrays.

``gymnasium.make_vec("chess_envs:Chess-v0", num_envs=64, vectorization_mode="vector_entry_point")``
builds a :class:`GameVectorEnv`: one native call steps every game (optionally on several threads)
and writes all observations and masks, for all three games. A game without a native vector core
(one a user adds) uses Gymnasium's ``SyncVectorEnv`` (``gym.make_vec(id, vectorization_mode="sync")``).

Conventions are :class:`~chess_envs.gym_env.GameEnv`'s (self-play or ``opponent="random"``,
rewards for the mover or ``agent_seat``, ``max_plies`` truncation; an illegal action ends that
game with -1), with Gymnasium 1.x's next-step autoreset: the step after a game ends resets it
(the action is ignored) and returns the new game's first observation with reward 0.
"""

from __future__ import annotations

import threading
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from chess_envs.core import check_count, check_flag
from chess_envs.four_player.state import game_text
from chess_envs.native import TERMINATIONS, InUseError, core
from chess_envs.registry import game_class

_NATIVE = {"chess": "ChessVector", "los_alamos": "LosAlamosVector"}  # built from a FEN; four_player from a game
ILLEGAL = -1


class GameVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games of ``game`` in one vector environment.

    Observations are ``{"observation": (N, C, H, W) float32, "action_mask": (N, A) int8}``, new
    arrays each call that the native core writes in place; with ``copy=False`` they are the env's
    own buffers, reused and overwritten by the next call (no allocation, cache-resident).
    ``info["termination"]`` names the rule that ended each game (``""`` for none, ``"illegal_action"``).
    ``threads`` > 1 steps the native games on that many threads.

    One env serves one thread at a time: a call while another thread is inside one raises
    :class:`~chess_envs.InUseError` (give each thread its own env).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        game: str = "chess",
        *,
        fen: str | None = None,
        max_plies: int | None = None,
        opponent: str | None = None,
        agent_seat: int = 0,
        threads: int = 1,
        copy: bool = True,
        **game_options: Any,
    ) -> None:
        self.num_envs = check_count(num_envs, "num_envs", maximum=65536)
        self.max_plies = check_count(max_plies, "max_plies", allow_none=True)
        self.threads = check_count(threads, "threads", maximum=256)
        self.copy = check_flag(copy, "copy")
        if opponent not in (None, "random"):
            raise ValueError(f"a vector env's opponent must be None (self-play) or 'random', got {opponent!r}")
        state_class = game_class(game)
        name = state_class.game_name
        if name not in _NATIVE and name != "four_player":
            raise ValueError(
                f"GameVectorEnv serves the games with a native vector core ({', '.join([*_NATIVE, 'four_player'])}), "
                f"not {name!r}: use Gymnasium's gymnasium.vector.SyncVectorEnv "
                '(gym.make_vec(id, vectorization_mode="sync"))'
            )
        prototype: Any = state_class(fen, **game_options)  # native games add native_options()
        self.agent_seat = check_count(agent_seat, "agent_seat", minimum=0, maximum=state_class.num_players - 1)
        self.random_opponent = opponent == "random"
        num_actions = prototype.num_actions
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, prototype.observation_shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._obs = np.zeros((n, *prototype.observation_shape), dtype=np.float32)
        self._mask = np.zeros((n, num_actions), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._why = np.zeros(n, dtype=np.int8)
        self._actions = np.zeros(n, dtype=np.int64)
        if name in _NATIVE:
            flag, table = prototype.native_options()
            self._batch: Any = getattr(core, _NATIVE[name])(
                n,
                prototype.to_text(),
                prototype.history,
                flag,
                table,
                self.random_opponent,
                self.agent_seat,
                self.max_plies or 0,
                self.threads,
            )
        else:
            self._batch = core.FourPlayerVector(
                n, prototype._game, self.random_opponent, self.agent_seat, self.max_plies or 0, self.threads
            )
        self._started = False
        self._busy = threading.Lock()

    def _claim(self) -> None:
        if not self._busy.acquire(blocking=False):
            raise InUseError(
                "in use: another thread is inside a call of this vector env; one env serves one thread at a time "
                "(give each thread its own env)"
            )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._claim()
        try:
            return self._reset(seed, options)
        finally:
            self._busy.release()

    def _reset(self, seed: int | None, options: dict[str, Any] | None):
        if options:
            raise ValueError(f"a vector env's reset takes no options, got {options!r} (pass fen= to make_vec)")
        super().reset(seed=seed)
        if seed is not None and not isinstance(seed, int):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        if seed is None:
            seed = int(self.np_random.integers(2**63))
        self._fresh_buffers()
        self._batch.reset(seed % 2**64, True, self._obs, self._mask.view(np.uint8))
        self._started = True
        return {"observation": self._obs, "action_mask": self._mask}, {}

    def step(self, actions: Any):
        self._claim()
        try:
            return self._step(actions)
        finally:
            self._busy.release()

    def _step(self, actions: Any):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got shape {actions.shape} ({actions.dtype})")
        self._actions[:] = actions
        self._fresh_buffers()
        self._batch.step(
            self._actions,
            self._obs,
            self._mask.view(np.uint8),
            self._rewards,
            self._terminated,
            self._truncated,
            self._why,
        )
        info: dict[str, Any] = {}
        ended = self._terminated | self._truncated
        if ended.any():
            names = np.array(["" if code == 0 else _termination_name(int(code)) for code in self._why], dtype=np.str_)
            info = {"termination": names, "_termination": self._terminated.copy()}
        rewards, terminated, truncated = self._rewards, self._terminated, self._truncated
        if self.copy:
            rewards, terminated, truncated = rewards.copy(), terminated.copy(), truncated.copy()
        return {"observation": self._obs, "action_mask": self._mask}, rewards, terminated, truncated, info

    def _fresh_buffers(self) -> None:
        """With ``copy``, new arrays for the next observation (the ones handed out stay the caller's)."""
        if self.copy:
            self._obs = np.empty_like(self._obs)
            self._mask = np.empty_like(self._mask)

    def reset_done(self) -> dict[str, np.ndarray]:
        """Reset now the games that ended on the last step (same-step autoreset, which
        Stable-Baselines3's VecEnv expects) and return the observation with their new rows.

        Take any final observations you need from the last step's arrays first: with
        ``copy=False`` their rows are overwritten here."""
        if not self._started:
            raise RuntimeError("call reset() before reset_done()")
        self._claim()
        try:
            self._batch.reset_done(self._obs, self._mask.view(np.uint8))
        finally:
            self._busy.release()
        return {"observation": self._obs, "action_mask": self._mask}

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per game (0 where the next step resets the game),
        drawn natively from a stream seeded by ``reset(seed=...)``: a fast random policy."""
        actions = np.empty(self.num_envs, dtype=np.int64)
        self._claim()
        try:
            self._batch.random_actions(actions)
        finally:
            self._busy.release()
        return actions

    def action_masks(self) -> np.ndarray:
        """The current legal-action masks as bool, shape (num_envs, num_actions)."""
        return self._mask.astype(bool)

    def fen(self, index: int) -> str:
        """The position of game ``index`` as text (FEN or FEN4)."""
        if isinstance(self._batch, core.FourPlayerVector):
            return game_text(self._batch.game(index))
        return self._batch.fen(index)


def _termination_name(code: int) -> str:
    termination = TERMINATIONS[code] if code != ILLEGAL else None
    return termination.value if termination is not None else "illegal_action"


__all__ = ["GameVectorEnv"]
