"""The AlphaZero learner: network, optimization, replay buffer, counters, checkpoints and logs of a run.

Checkpoints (``checkpoints/last.pt`` and numbered copies) hold the weights, optimizer,
schedule, counters and random states only: a few MB. The replay buffer is its own store,
``replay/`` (appended chunks, :mod:`chess_envs.train.alphazero.replay`), saved before each checkpoint, so a
checkpoint never counts positions the store lacks; a kill during either write loses nothing
beyond the last save.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from chess_envs.agents.alphazero.agent import AlphaZeroAgent
from chess_envs.agents.alphazero.checkpoint import CheckpointError, save_checkpoint
from chess_envs.agents.alphazero.network import resolve_device
from chess_envs.agents.four_player.material import MaterialSearchAgent
from chess_envs.files import ctrl_c_deferred
from chess_envs.registry import new_state
from chess_envs.train.alphazero.config import AlphaZeroConfig
from chess_envs.train.alphazero.data_parallel import DataParallel
from chess_envs.train.alphazero.optimization import Optimization, restore_training, training_payload
from chess_envs.train.alphazero.replay import ReplayBuffer, ReplayError
from chess_envs.train.alphazero.sections import game_options, network_config, new_network
from chess_envs.train.alphazero.selfplay import FinishedGame
from chess_envs.train.evaluation import baseline_scores, score_against
from chess_envs.train.run_folder import RunFolder
from chess_envs.train.run_log import RunLog

REPLAY = "replay"
"""The replay store's folder in the run folder."""


class Learner:
    """Everything of a run that outlives a process: the network and how it learns."""

    def __init__(self, config: AlphaZeroConfig) -> None:
        self.config = config
        self.folder = RunFolder(config, save_checkpoint)
        self.run_dir = self.folder.path
        self.device = resolve_device(config.device)
        self.rng = np.random.default_rng([config.seed, 1])
        random.seed(config.seed)
        torch.manual_seed(config.seed)
        self.num_players = new_state(config.game).num_players
        self.network_config = network_config(config)
        self.network = new_network(config, self.device)
        self.counters: dict[str, Any] = dict.fromkeys(
            ("iteration", "learner_steps", "games", "positions", "nn_evaluations", "handed_over"), 0
        )
        self.counters["seconds"] = 0.0
        self.optimization = Optimization(self.network, config.optimization, config.minutes, self.counters)
        self.replay = ReplayBuffer(
            config.replay_size, new_state(config.game).observation_shape, self.network_config.value_size
        )
        self._log = RunLog(self.run_dir)
        self.parallel = DataParallel(config, self.optimization) if config.learner_ranks > 1 else None

    # -- data in ---------------------------------------------------------------------------

    def add_games(self, games: list[FinishedGame], nn_evaluations: int = 0) -> np.ndarray:
        """Store finished self-play games in the replay buffer and count them; returns each stored
        network position's staleness (int64 ``[positions]``: learner steps since the weights that played it)."""
        staleness = []
        for game in games:
            versions = game.versions if len(game.versions) == game.plies else np.full(game.plies, -1)
            rows = zip(game.planes, game.actions, game.policies, game.values, versions)
            for planes, actions, policy, value, version in rows:
                self.replay.add(planes, actions, policy, value, int(version))
            staleness.append(self.counters["learner_steps"] - versions[versions >= 0])
            self.counters["positions"] += game.plies
        self.counters["games"] += len(games)
        self.counters["nn_evaluations"] += nn_evaluations
        return np.concatenate(staleness) if staleness else np.zeros(0, dtype=np.int64)

    def weights(self) -> dict[str, torch.Tensor]:
        """The network's weights on the CPU (what self-play workers load)."""
        return {key: value.detach().cpu() for key, value in self.network.state_dict().items()}

    # -- learning --------------------------------------------------------------------------

    def learn(self, steps: int) -> dict[str, float]:
        """``steps`` learner steps on uniform replay batches; mean losses (nothing before ``min_replay``)."""
        if len(self.replay) < self.config.min_replay or not steps:
            return {}
        totals = np.zeros(2)
        step = self.parallel.step if self.parallel else self.optimization.step
        for _ in range(steps):
            totals += step(self.replay.sample(self.config.batch_size, self.rng))
        self.network.eval()
        return {"policy": totals[0] / steps, "value": totals[1] / steps}

    def evaluate(self) -> dict[str, float]:
        """Scores against the random and greedy baselines, the network taking every seat in turn."""
        config = self.config
        agent = AlphaZeroAgent.from_spec(
            config.game, sims=config.eval_simulations, device=str(self.device), network=self.network, seed=config.seed
        )
        return baseline_scores(
            config.game, agent, config.eval_games, config.max_plies, config.seed, game_options(config)
        )

    def score_against_teacher(self) -> float:
        """The network's pairwise placement against its teacher (``material-mcts``) over
        ``eval_games`` games, each at its self-play simulations (``simulations`` and
        ``teacher_simulations``): whether the network's own games would now teach more."""
        config = self.config
        agent = AlphaZeroAgent.from_spec(
            config.game, sims=config.simulations, device=str(self.device), network=self.network, seed=config.seed
        )
        teacher = MaterialSearchAgent.from_spec(config.game, sims=config.teacher_simulations, seed=config.seed)
        return score_against(config.game, agent, teacher, config.eval_games, config.max_plies, game_options(config))

    def log(self, values: dict[str, float]) -> None:
        """Scalars to TensorBoard and a line of ``metrics.jsonl``, at the current learner step."""
        self._log.write(self.counters["learner_steps"], values)

    def close(self) -> None:
        """Close the logs and let a data-parallel learner's other ranks go."""
        self._log.close()
        if self.parallel:
            self.parallel.close()

    # -- checkpoints -----------------------------------------------------------------------

    def save(self) -> Path:
        """The replay store's new positions, then a numbered checkpoint and ``last.pt``."""
        with ctrl_c_deferred():  # the replay and the checkpoint that counts it, or neither
            self.replay.save(self.run_dir / REPLAY)
            payload = training_payload(self.config, self.network_config, self.optimization, self.counters, self.rng)
            payload["replay_added"] = self.replay.added
            return self.folder.save(payload, self.counters["learner_steps"], self.config.keep_checkpoints)

    def due_for_checkpoint(self, steps_before: int) -> bool:
        """Whether the learner steps since ``steps_before`` crossed a multiple of checkpoint_every.

        Checkpoints are written between iterations only, so a resumed run repeats no work."""
        every = self.config.checkpoint_every
        return self.counters["learner_steps"] // every > steps_before // every

    def restore(self) -> Path:
        """Continue from the newest checkpoint that loads, and the replay buffer as that checkpoint counted it."""
        path, payload = self.folder.restore(self._restore_from)
        expected = payload.get("replay_added", 0)
        try:
            self.replay.load(self.run_dir / REPLAY, expected)
        except ReplayError as error:
            if expected or (self.run_dir / REPLAY).exists():
                raise CheckpointError(f"{error}; delete it to resume with an empty replay buffer") from None
        return path

    def _restore_from(self, path: Path) -> dict:
        payload = restore_training(path, self.config, self.network_config, self.optimization, self.rng)
        self.counters.update(payload["counters"])
        return payload
