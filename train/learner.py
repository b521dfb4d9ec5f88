"""The learner: network, optimizer, schedule, replay buffer, counters, checkpoints and logs of a run.

Checkpoints (``checkpoints/last.pt`` and numbered copies) hold the weights, optimizer,
schedule, counters and random states only: a few MB. The replay buffer has its own file,
``replay.npz``, written before each checkpoint (so a checkpoint never counts positions its
replay file lacks); both are written atomically, so a kill during either write loses nothing
beyond the last save.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from agents.alphazero.agent import AlphaZeroAgent
from agents.alphazero.checkpoint import CheckpointError, load_checkpoint, load_network, save_checkpoint
from agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from agents.simple import GreedyAgent, RandomAgent
from chess_envs.registry import new_state
from evaluate.game import play_game
from train.alphazero_config import Args, network_config
from train.replay import ReplayBuffer
from train.run_log import RunLog
from train.selfplay import FinishedGame


def policy_value_loss(
    network: torch.nn.Module, batch: tuple[np.ndarray, ...], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """(policy loss, value loss) of a replay batch: cross-entropy against the sparse policy
    targets (actions padded with -1) and the mean squared error of the values."""
    planes, actions, probs, values = batch
    planes_t = torch.from_numpy(planes).to(device).contiguous(memory_format=torch.channels_last)
    actions_t = torch.from_numpy(actions).long().to(device)
    probs_t = torch.from_numpy(probs).to(device)
    values_t = torch.from_numpy(values).to(device)
    with torch.autocast(device.type, dtype=torch.float16, enabled=device.type == "cuda"):
        logits, predicted = network(planes_t)
    log_probs = F.log_softmax(logits.float(), dim=1)
    picked = torch.gather(log_probs, 1, actions_t.clamp(min=0)) * (actions_t >= 0)
    return -(probs_t * picked).sum(dim=1).mean(), F.mse_loss(predicted.float(), values_t)


class Learner:
    """Everything of a run that outlives a process: the network and how it learns."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.run_dir = Path(args.runs_dir) / args.run_name
        self.device = resolve_device(args.device)
        self.rng = np.random.default_rng([args.seed, 1])
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        prototype = new_state(args.game)
        self.num_players = prototype.num_players
        self.network_config = network_config(args)
        # Channels-last: a los_alamos preset step takes 0.079 s instead of 0.094 s on this CPU.
        self.network = AlphaZeroNet(self.network_config).to(self.device, memory_format=torch.channels_last)
        if args.init:  # a resumed run then loads its own checkpoint over these weights
            self.network.load_state_dict(load_network(args.init, args.game)[0].state_dict())
        parameters = self.network.parameters()
        if args.optimizer == "adamw":
            self.optimizer: torch.optim.Optimizer = torch.optim.AdamW(
                parameters, args.learning_rate, weight_decay=args.weight_decay
            )
        else:
            self.optimizer = torch.optim.SGD(
                parameters, args.learning_rate, momentum=0.9, nesterov=True, weight_decay=args.weight_decay
            )
        self.scaler = torch.amp.GradScaler(enabled=self.device.type == "cuda")
        self.replay = ReplayBuffer(
            args.replay_size, prototype.observation_shape, self.network_config.value_size, max_actions=64
        )
        self.counters = {
            "iteration": 0,
            "learner_steps": 0,
            "games": 0,
            "positions": 0,
            "nn_evaluations": 0,
            "seconds": 0.0,
        }
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda _: self.learning_rate_factor())
        self._log = RunLog(self.run_dir)

    def learning_rate_factor(self) -> float:
        """The share of the peak learning rate now: 1, or (cosine) from 1 down to 1/20 over the
        run, the run's progress being the larger of its share of ``total_steps`` and, with
        ``--minutes``, its share of that time (so a run cut short by time still anneals)."""
        args = self.args
        if args.lr_schedule == "constant":
            return 1.0
        progress = self.counters["learner_steps"] / args.total_steps
        if args.minutes:
            progress = max(progress, self.counters["seconds"] / (args.minutes * 60))
        floor = 1 / 20
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))

    # -- data in ---------------------------------------------------------------------------

    def add_games(self, games: list[FinishedGame], nn_evaluations: int = 0) -> None:
        """Store finished self-play games in the replay buffer and count them."""
        for game in games:
            for planes, actions, policy, value in zip(game.planes, game.actions, game.policies, game.values):
                self.replay.add(planes, actions, policy, value)
            self.counters["positions"] += game.plies
        self.counters["games"] += len(games)
        self.counters["nn_evaluations"] += nn_evaluations

    def weights(self) -> dict[str, torch.Tensor]:
        """The network's weights on the CPU (what self-play workers load)."""
        return {key: value.detach().cpu() for key, value in self.network.state_dict().items()}

    # -- learning --------------------------------------------------------------------------

    def learn(self, steps: int) -> dict[str, float]:
        """``steps`` learner steps on uniform replay batches; mean losses (nothing before ``min_replay``)."""
        if len(self.replay) < self.args.min_replay:
            return {}
        self.network.train()
        totals = {"policy": 0.0, "value": 0.0}
        for _ in range(steps):
            batch = self.replay.sample(self.args.batch_size, self.rng)
            policy_loss, value_loss = policy_value_loss(self.network, batch, self.device)
            loss = policy_loss + value_loss
            self.optimizer.zero_grad(set_to_none=True)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            self.counters["learner_steps"] += 1
            totals["policy"] += policy_loss.item()
            totals["value"] += value_loss.item()
        self.network.eval()
        return {key: value / steps for key, value in totals.items()}

    def evaluate(self) -> dict[str, float]:
        """Scores against the random and greedy baselines, the network taking every seat in turn."""
        args = self.args
        agent = AlphaZeroAgent(
            args.game, sims=args.eval_simulations, device=str(self.device), network=self.network, seed=args.seed
        )
        scores = {}
        for name, opponent in (("random", RandomAgent(seed=args.seed)), ("greedy", GreedyAgent(seed=args.seed))):
            total = 0.0
            for game in range(args.eval_games):
                seat = game % self.num_players
                seats = [opponent] * self.num_players
                seats[seat] = agent
                record = play_game(args.game, seats, new_state(args.game).to_text(), max_plies=args.max_plies)
                total += record.scores[seat]
            scores[f"eval/score_vs_{name}"] = total / args.eval_games
        return scores

    def log(self, values: dict[str, float]) -> None:
        """Scalars to TensorBoard and a line of ``metrics.jsonl``, at the current learner step."""
        self._log.write(self.counters["learner_steps"], values)

    def close(self) -> None:
        self._log.close()

    # -- checkpoints -----------------------------------------------------------------------

    @property
    def replay_path(self) -> Path:
        return self.run_dir / "replay.npz"

    def checkpoint_payload(self) -> dict:
        return {
            "game": self.args.game,
            "args": asdict(self.args),
            "network": self.network_config.to_dict(),
            "model": self.network.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
            "counters": dict(self.counters),
            "replay_added": self.replay.added,
            "rng": {"python": random.getstate(), "numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state()},
        }

    def save(self) -> Path:
        """The replay file, then a numbered checkpoint and ``last.pt``; the oldest numbered ones go."""
        self.replay.save(self.replay_path)
        directory = self.run_dir / "checkpoints"
        payload = self.checkpoint_payload()
        save_checkpoint(directory / f"step_{self.counters['learner_steps']:08d}.pt", payload)
        save_checkpoint(directory / "last.pt", payload)
        numbered = sorted(directory.glob("step_*.pt"))
        for old in numbered[: -self.args.keep_checkpoints]:
            old.unlink()
        return directory / "last.pt"

    def due_for_checkpoint(self, steps_before: int) -> bool:
        """Whether the learner steps since ``steps_before`` crossed a multiple of checkpoint_every.

        Checkpoints are written between iterations only, so a resumed run repeats no work."""
        every = self.args.checkpoint_every
        return self.counters["learner_steps"] // every > steps_before // every

    def checkpoints(self) -> list[Path]:
        """The run's checkpoint files, newest first: numbered ones by step, then ``last.pt``
        (written after the numbered copy of the same save, so never newer than it)."""
        directory = self.run_dir / "checkpoints"
        last = [directory / "last.pt"] if (directory / "last.pt").exists() else []
        return [*sorted(directory.glob("step_*.pt"), reverse=True), *last]

    def restore(self) -> Path:
        """Continue from the newest checkpoint that loads (saying why newer ones were skipped),
        and the replay buffer from its file."""
        problems = []
        for path in self.checkpoints():
            try:
                payload = self._restore_from(path)
            except CheckpointError as error:
                problems.append(str(error))
                print(f"skipping {path.name}: {error}")
                continue
            self._restore_replay(payload.get("replay_added", 0))
            return path
        raise CheckpointError("no checkpoint of the run loads: " + "; ".join(problems))

    def _restore_from(self, path: Path) -> dict:
        payload = load_checkpoint(path, self.args.game, map_location=self.device)
        try:
            stored = NetworkConfig.from_file(payload["network"])
        except ValueError as error:
            raise CheckpointError(f"{path}: {error}") from None
        if stored != self.network_config:
            raise CheckpointError(f"{path} holds a network of another shape: {payload['network']}")
        try:
            self.network.load_state_dict(payload["model"])
            self.optimizer.load_state_dict(payload["optimizer"])
            self.scheduler.load_state_dict(payload["scheduler"])
            self.scaler.load_state_dict(payload["scaler"])
        except (KeyError, ValueError, RuntimeError) as error:
            raise CheckpointError(f"{path}: its training state does not fit this run ({error})") from None
        self.counters.update(payload["counters"])
        random.setstate(payload["rng"]["python"])
        self.rng.bit_generator.state = payload["rng"]["numpy"]
        torch.set_rng_state(payload["rng"]["torch"])
        return payload

    def _restore_replay(self, expected: int) -> None:
        if not self.replay_path.exists():
            if expected:
                raise CheckpointError(
                    f"{self.replay_path} is missing: the checkpoint counts {expected:,} positions in it"
                )
            return
        try:
            self.replay.load(self.replay_path)
        except ValueError as error:
            raise CheckpointError(f"{error}; delete it to resume with an empty replay buffer") from None
        if self.replay.added < expected:
            raise CheckpointError(
                f"{self.replay_path} holds {self.replay.added:,} positions added, the checkpoint counts {expected:,}"
            )
