"""Vector environments: N games stepped together into batched, preallocated arrays.

``gymnasium.make_vec("chess_envs:Chess-v0", num_envs=64, vectorization_mode="vector_entry_point")``
builds a :class:`GameVectorEnv`: one native call steps every game (optionally on several threads)
and writes all observations and masks, for all three games. A game without a native vector core
(one a user adds) uses Gymnasium's ``SyncVectorEnv`` (``gym.make_vec(id, vectorization_mode="sync")``).

Conventions are :class:`~chess_envs.gym_env.GameEnv`'s (self-play or ``opponent="random"``,
rewards for the mover or ``agent_seat``, ``max_plies`` truncation; an illegal action ends that
game with -1). A finished game restarts by Gymnasium's three autoreset modes, chosen as
``SyncVectorEnv`` takes them (``autoreset_mode=``, a :class:`gymnasium.vector.AutoresetMode` or
its value, also through ``make_vec``):

* ``"NextStep"`` (the default): the step after a game ends resets it (the action is ignored) and
  returns the new game's first observation with reward 0.
* ``"SameStep"``: the step that ends a game resets it at once and returns the new game's first
  observation; the final one is ``info["final_obs"][i]`` (``info["_final_obs"]`` marks the games),
  and that step's info ``info["final_info"]`` (marked by ``info["_final_info"]``).
* ``"Disabled"``: nothing restarts by itself; ``reset(options={"reset_mask": mask})`` (a bool
  array, one per game) restarts the games chosen, and stepping a game that ended before it is
  reset is a ``RuntimeError``.
"""

from __future__ import annotations

import threading
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from chess_envs.core import check_count, check_flag, check_reset_options
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
    ``info["termination"]`` names the rule that ended each game (``""`` for none, ``"illegal_action"``;
    ``info["_termination"]`` marks the games a rule ended), ``info["illegal_action"]`` marks the games
    an illegal action ended (when there are any). ``threads`` > 1 steps the native games on that
    many threads. ``autoreset_mode`` is Gymnasium's (see the module); ``metadata["autoreset_mode"]``
    gives this env's.

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
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        **game_options: Any,
    ) -> None:
        self.autoreset_mode = _check_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
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
        self._ended = np.zeros(n, dtype=bool)  # Disabled mode: games that ended and wait for a reset
        self._spare: tuple[np.ndarray, np.ndarray] | None = None  # Disabled mode: the new starts of those
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
        options = dict(check_reset_options(options))
        masked = "reset_mask" in options
        reset_mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(
                "a vector env's reset takes no options but reset_mask (autoreset_mode Disabled), "
                f"got {sorted(options)} (pass fen= to make_vec)"
            )
        if seed is not None and not isinstance(seed, int):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        if masked:
            chosen = self._check_reset_mask(reset_mask)
            if not chosen.all():
                return self._reset_chosen(chosen, seed)
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**63))
        self._fresh_buffers()
        self._batch.reset(seed % 2**64, True, self._obs, self._mask.view(np.uint8))
        self._ended[:] = False
        self._started = True
        return {"observation": self._obs, "action_mask": self._mask}, {}

    def _check_reset_mask(self, reset_mask: Any) -> np.ndarray:
        """``options["reset_mask"]`` checked as Gymnasium's ``SyncVectorEnv`` checks it."""
        if self.autoreset_mode is not AutoresetMode.DISABLED:
            raise ValueError(
                f"options['reset_mask'] is for autoreset_mode='Disabled'; this env's autoreset_mode is "
                f"{self.autoreset_mode.value!r}, where finished games restart by themselves"
            )
        if not isinstance(reset_mask, np.ndarray):
            raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(reset_mask).__name__}")
        if reset_mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must have shape ({self.num_envs},), got {reset_mask.shape}")
        if reset_mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {reset_mask.dtype}")
        if not reset_mask.any():
            raise ValueError("options['reset_mask'] must choose at least one game (it is all False)")
        return reset_mask

    def _reset_chosen(self, chosen: np.ndarray, seed: int | None):
        """Restart the ``chosen`` games, which have ended. The native core restarts every game that
        has ended (``reset_done``) into spare buffers; the chosen games' rows are handed out, the
        others' wait there for their own reset."""
        if not self._started:
            raise RuntimeError("call reset() before a reset with a partial reset_mask")
        if seed is not None:
            raise ValueError(
                "a reset with a partial reset_mask cannot seed single games; seed the reset of all games "
                "(reset(seed=...) or a reset_mask that is all True)"
            )
        running = np.flatnonzero(chosen & ~self._ended)
        if running.size:
            raise ValueError(
                f"reset_mask chooses games that have not ended: {running.tolist()}; this env restarts single games "
                "once they end (terminated or truncated), and all games together with reset() or a reset_mask "
                "that is all True"
            )
        if self._spare is None:
            self._spare = (np.zeros_like(self._obs), np.zeros_like(self._mask))
        self._batch.reset_done(self._spare[0], self._spare[1].view(np.uint8))
        if self.copy:
            self._obs, self._mask = self._obs.copy(), self._mask.copy()
        self._obs[chosen] = self._spare[0][chosen]
        self._mask[chosen] = self._spare[1][chosen]
        self._ended[chosen] = False
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
        if self._ended.any():
            raise RuntimeError(
                f"games {np.flatnonzero(self._ended).tolist()} have ended: with autoreset_mode='Disabled' reset them "
                "(reset(options={'reset_mask': mask})) before step()"
            )
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
            info = self._end_info()
            if self.autoreset_mode is AutoresetMode.SAME_STEP:
                info = self._restart_now(ended, info)
            elif self.autoreset_mode is AutoresetMode.DISABLED:
                self._ended |= ended  # they wait for reset(options={"reset_mask": ...})
        rewards, terminated, truncated = self._rewards, self._terminated, self._truncated
        if self.copy:
            rewards, terminated, truncated = rewards.copy(), terminated.copy(), truncated.copy()
        return {"observation": self._obs, "action_mask": self._mask}, rewards, terminated, truncated, info

    def _end_info(self) -> dict[str, Any]:
        """The info of a step where games ended: why, per game, batched the way Gymnasium batches infos."""
        names = np.array(["" if code == 0 else _termination_name(int(code)) for code in self._why], dtype=np.str_)
        info: dict[str, Any] = {"termination": names, "_termination": self._terminated.copy()}
        illegal = self._why == ILLEGAL
        if illegal.any():
            info["illegal_action"], info["_illegal_action"] = illegal, illegal.copy()
        return info

    def _restart_now(self, ended: np.ndarray, end_info: dict[str, Any]) -> dict[str, Any]:
        """Same-step autoreset: keep the final observations in the info, then restart the games."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = {"observation": self._obs[i].copy(), "action_mask": self._mask[i].copy()}
        self._batch.reset_done(self._obs, self._mask.view(np.uint8))
        return {"final_obs": final_obs, "_final_obs": ended.copy(), "final_info": end_info, "_final_info": ended.copy()}

    def _fresh_buffers(self) -> None:
        """With ``copy``, new arrays for the next observation (the ones handed out stay the caller's)."""
        if self.copy:
            self._obs = np.empty_like(self._obs)
            self._mask = np.empty_like(self._mask)

    def reset_done(self) -> dict[str, np.ndarray]:
        """Reset now the games that ended on the last step and return the observation with their new
        rows: same-step autoreset by hand in the NextStep mode, as Stable-Baselines3's VecEnv expects
        (``autoreset_mode="SameStep"`` does it inside ``step``; in that mode this does nothing).

        Take any final observations you need from the last step's arrays first: with
        ``copy=False`` their rows are overwritten here."""
        if not self._started:
            raise RuntimeError("call reset() before reset_done()")
        if self.autoreset_mode is AutoresetMode.DISABLED:
            raise RuntimeError(
                "with autoreset_mode='Disabled' restart finished games with reset(options={'reset_mask': mask})"
            )
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
            actions[self._ended] = 0  # Disabled mode: games that ended wait for their reset
        finally:
            self._busy.release()
        return actions

    def action_masks(self) -> np.ndarray:
        """The current legal-action masks as bool, shape (num_envs, num_actions)."""
        return self._mask.astype(bool)

    def fen(self, index: int) -> str:
        """The position of game ``index`` as text (FEN or FEN4). With ``autoreset_mode="Disabled"``, a
        game that ended shows its final position until a partial reset restarts any game; from then
        on it shows its next start."""
        if isinstance(self._batch, core.FourPlayerVector):
            return game_text(self._batch.game(index))
        return self._batch.fen(index)


def _check_autoreset_mode(mode: Any) -> AutoresetMode:
    """``mode`` as an :class:`~gymnasium.vector.AutoresetMode` (it or its value, as ``SyncVectorEnv`` takes it)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        try:
            return AutoresetMode(mode)
        except ValueError:
            pass
    names = ", ".join(repr(choice.value) for choice in AutoresetMode)
    raise ValueError(f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of {names}, got {mode!r}")


def _termination_name(code: int) -> str:
    termination = TERMINATIONS[code] if code != ILLEGAL else None
    return termination.value if termination is not None else "illegal_action"


__all__ = ["GameVectorEnv"]
