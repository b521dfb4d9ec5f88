"""The native vector core's interface over Python game states, stepped in a Python loop: what
:class:`~chess_envs.vector_env.GameVectorEnv` is checked against, step by step, with the Python
reference states (swap it in as ``env._batch``)."""

from __future__ import annotations

import numpy as np

from chess_envs.core import GameClass
from chess_envs.native import TERMINATIONS
from chess_envs.vector_env import ILLEGAL

_CODES = {termination: code for code, termination in enumerate(TERMINATIONS) if termination is not None}


class PythonBatch:
    """The vector core's interface (reset, step, reset_done, random_actions, fen) over Python game states."""

    def __init__(
        self,
        n: int,
        state_class: GameClass,
        fen: str | None,
        options: dict,
        random_opponent: bool,
        seat: int,
        max_plies: int | None,
    ):
        self.new_state = lambda: state_class(fen, **options)
        self.states = [self.new_state() for _ in range(n)]
        self.random_opponent, self.seat, self.max_plies = random_opponent, seat, max_plies
        self.plies = [0] * n
        self.done = [False] * n
        self.rngs = [np.random.default_rng(i) for i in range(n)]
        self.action_rngs = [np.random.default_rng([i, 1]) for i in range(n)]

    def fen(self, index: int) -> str:
        return self.states[index].to_text()

    def reset_done(self, obs: np.ndarray, mask: np.ndarray) -> int:
        ended = [i for i, done in enumerate(self.done) if done]
        for i in ended:
            self._reset_one(i)
            self._write(i, obs, mask)
        return len(ended)

    def random_actions(self, out: np.ndarray) -> None:
        for i, state in enumerate(self.states):
            live = not self.done[i] and not state.is_terminal()
            out[i] = self.action_rngs[i].choice(state.legal_actions()) if live else 0

    def reset(self, seed: int, seeded: bool, obs: np.ndarray, mask: np.ndarray) -> None:
        for i in range(len(self.states)):
            if seeded:
                self.rngs[i] = np.random.default_rng([seed, i])
                self.action_rngs[i] = np.random.default_rng([seed, i, 1])
            self._reset_one(i)
            self._write(i, obs, mask)

    def step(self, actions, obs, mask, rewards, terminated, truncated, why) -> None:
        for i, state in enumerate(self.states):
            rewards[i], terminated[i], truncated[i], why[i] = 0.0, False, False, 0
            if self.done[i]:
                self._reset_one(i)
            else:
                mover = state.current_player
                if not 0 <= actions[i] < state.num_actions or not state.legal_action_mask()[actions[i]]:
                    rewards[i], terminated[i], why[i], self.done[i] = -1.0, True, ILLEGAL, True
                    self._write(i, obs, mask)
                    continue
                state.apply(int(actions[i]))
                self.plies[i] += 1
                self._play_opponents(i)
                outcome = state.outcome()
                terminated[i] = outcome is not None
                truncated[i] = outcome is None and self.max_plies is not None and self.plies[i] >= self.max_plies
                if outcome is not None:
                    rewards[i] = outcome.returns[self.seat if self.random_opponent else mover]
                    why[i] = _CODES[outcome.termination]
                self.done[i] = bool(terminated[i] or truncated[i])
            self._write(i, obs, mask)

    def _reset_one(self, i: int) -> None:
        self.states[i] = self.new_state()
        self.plies[i] = 0
        self.done[i] = False
        self._play_opponents(i)

    def _play_opponents(self, i: int) -> None:
        state = self.states[i]
        while self.random_opponent and state.current_player != self.seat and not state.is_terminal():
            state.apply(int(self.rngs[i].choice(state.legal_actions())))
            self.plies[i] += 1

    def _write(self, i: int, obs: np.ndarray, mask: np.ndarray) -> None:
        state = self.states[i]
        obs[i] = state.observation(self.seat if self.random_opponent else None)
        mask[i] = 0 if self.done[i] else state.legal_action_mask()
