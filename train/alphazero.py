"""AlphaZero self-play training, one readable file: set-up, self-play, learn, log, checkpoint.

    python -m train.alphazero --preset smoke                  # a minute, any game
    python -m train.alphazero --preset los_alamos --minutes 60
    python -m train.alphazero --preset los_alamos --resume    # continue runs/<run-name>

Self-play runs ``games_in_parallel`` games at once in one loop: every move, the leaves of all
their search trees go through the network in one batch (on a GPU when there is one). A run
folder ``runs/<run_name>/`` holds ``args.json``, ``checkpoints/`` (``last.pt`` and numbered
copies, each with the model, optimizer, scheduler, counters, RNG states and replay buffer),
TensorBoard events and ``metrics.jsonl``.
"""

from __future__ import annotations

import json
import random
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator
from agents.alphazero.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from agents.alphazero.network import LIMITS as NETWORK_LIMITS
from agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from agents.simple import GreedyAgent, RandomAgent
from chess_envs.files import remove_stale_temporaries, write_text_atomic
from chess_envs.games import GAMES, new_state
from evaluate.game import play_game
from train.cli import arg, check_args, check_memory, fail, parse_args, prepare_run_dir
from train.replay import ReplayBuffer


@dataclass
class Args:
    game: str = arg("los_alamos", "game to learn: " + ", ".join(sorted(GAMES)))
    preset: str = arg("", "the preset these defaults came from")
    run_name: str = arg("alphazero", "run folder name under runs_dir")
    runs_dir: str = arg("runs", "where run folders live")
    resume: bool = arg(False, "continue the run from its last checkpoint (start it if there is none yet)")
    seed: int = arg(0, "seed of every random number generator")
    device: str = arg("auto", "auto (CUDA when present), cpu or cuda")
    backend: str = arg("local", "local (one process) or ray (self-play and learner actors; pip install .[ray])")
    ray_address: str = arg("", "with --backend ray: a cluster address ('auto' or host:port); empty starts a local Ray")
    ray_workers: int = arg(2, "with --backend ray: self-play actors")
    # network
    filters: int = arg(48, "convolution filters")
    blocks: int = arg(7, "residual blocks")
    value_hidden: int = arg(128, "hidden units of the value head")
    # self-play
    games_in_parallel: int = arg(64, "self-play games searched together (one network batch)")
    simulations: int = arg(64, "MCTS simulations per move")
    leaves_per_tree: int = arg(4, "in-flight simulations per tree per batch (virtual loss)")
    dirichlet_alpha: float = arg(0.5, "root Dirichlet noise concentration")
    dirichlet_fraction: float = arg(0.25, "share of the root prior replaced by noise")
    temperature_plies: int = arg(10, "plies per game played by sampling visits (temperature 1), then argmax")
    max_plies: int = arg(200, "a self-play game this long is stopped and scored a draw")
    gumbel: bool = arg(False, "Gumbel root search (sequential halving) instead of PUCT at the root")
    # learner
    optimizer: str = arg("adamw", "adamw or sgd (with momentum 0.9, Nesterov)")
    learning_rate: float = arg(2e-3, "peak learning rate")
    weight_decay: float = arg(1e-4, "weight decay")
    lr_schedule: str = arg("cosine", "cosine (over total_steps) or constant")
    total_steps: int = arg(20_000, "learner steps the schedule spans")
    batch_size: int = arg(256, "positions per learner step")
    replay_size: int = arg(200_000, "positions kept in the replay buffer")
    min_replay: int = arg(2_000, "positions in the buffer before learning starts")
    moves_per_iteration: int = arg(8, "self-play moves (in every parallel game) between learning phases")
    steps_per_iteration: int = arg(16, "learner steps per iteration")
    # run length, logging, checkpoints, evaluation
    minutes: float = arg(0.0, "stop after this many minutes of training (0: no limit)")
    iterations: int = arg(0, "stop after this many iterations (0: no limit)")
    checkpoint_every: int = arg(200, "learner steps between checkpoints (one more at the end)")
    keep_checkpoints: int = arg(3, "numbered checkpoints kept besides last.pt")
    eval_every: int = arg(50, "iterations between evaluations against random and greedy (0: never)")
    eval_games: int = arg(20, "games against each baseline per evaluation (colours alternate)")
    eval_simulations: int = arg(32, "simulations per move when evaluating")
    progress: bool = arg(True, "show a progress bar")

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}; choose one of {sorted(GAMES)}")
        if self.backend not in ("local", "ray"):
            raise ValueError(f"backend must be local or ray, got {self.backend!r}")
        if self.optimizer not in ("adamw", "sgd") or self.lr_schedule not in ("cosine", "constant"):
            raise ValueError("optimizer must be adamw or sgd, lr_schedule cosine or constant")
        for name in (
            "filters",
            "blocks",
            "games_in_parallel",
            "simulations",
            "batch_size",
            "replay_size",
            "moves_per_iteration",
            "checkpoint_every",
            "leaves_per_tree",
            "max_plies",
            "total_steps",
            "ray_workers",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_args(self, UPPER_BOUNDS)
        prototype = new_state(self.game)
        per_position = int(np.prod(prototype.observation_shape)) + 64 * 6 + 4 * prototype.num_players
        check_memory(f"a replay buffer of {self.replay_size:,} positions", self.replay_size * per_position)


UPPER_BOUNDS = {
    **{name: NETWORK_LIMITS[name] for name in ("filters", "blocks", "value_hidden")},
    "games_in_parallel": 4_096,
    "simulations": 100_000,
    "leaves_per_tree": 256,
    "batch_size": 65_536,
}
"""Sizes past these are typing mistakes (the network's are its loader's limits)."""

PRESETS = {
    "smoke": dict(
        filters=16,
        blocks=1,
        value_hidden=16,
        games_in_parallel=4,
        simulations=8,
        leaves_per_tree=2,
        max_plies=30,
        batch_size=32,
        min_replay=16,
        replay_size=2_000,
        moves_per_iteration=16,
        steps_per_iteration=2,
        iterations=3,
        checkpoint_every=2,
        eval_every=3,
        eval_games=2,
        eval_simulations=4,
        total_steps=100,
    ),
    "los_alamos": dict(
        game="los_alamos",
        filters=48,
        blocks=4,
        games_in_parallel=128,
        simulations=48,
        leaves_per_tree=4,
        max_plies=150,
        batch_size=256,
        min_replay=3_000,
        moves_per_iteration=4,
        steps_per_iteration=12,
        total_steps=12_000,
        learning_rate=2e-3,
        eval_every=40,
        eval_games=20,
        eval_simulations=48,
        checkpoint_every=300,
    ),
    "chess": dict(
        game="chess",
        filters=64,
        blocks=6,
        games_in_parallel=64,
        simulations=64,
        max_plies=300,
        batch_size=256,
        min_replay=5_000,
        moves_per_iteration=8,
        steps_per_iteration=16,
        total_steps=50_000,
        eval_every=50,
        eval_games=10,
        eval_simulations=32,
    ),
    "four_player": dict(
        game="four_player",
        filters=64,
        blocks=6,
        games_in_parallel=32,
        simulations=64,
        max_plies=400,
        batch_size=256,
        min_replay=5_000,
        moves_per_iteration=8,
        steps_per_iteration=8,
        total_steps=50_000,
        eval_every=50,
        eval_games=8,
        eval_simulations=32,
    ),
}


class Trainer:
    """Everything a run holds: network, optimizer, buffer, counters and the games in flight."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.run_dir = Path(args.runs_dir) / args.run_name
        self.device = resolve_device(args.device)
        self.rng = np.random.default_rng(args.seed)
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        prototype = new_state(args.game)
        self.num_players = prototype.num_players
        self.network_config = NetworkConfig(
            *prototype.observation_shape,
            num_actions=prototype.num_actions,
            value_size=1 if self.num_players == 2 else self.num_players,
            filters=args.filters,
            blocks=args.blocks,
            value_hidden=args.value_hidden,
        )
        self.network = AlphaZeroNet(self.network_config).to(self.device)
        if args.optimizer == "adamw":
            self.optimizer = torch.optim.AdamW(
                self.network.parameters(), args.learning_rate, weight_decay=args.weight_decay
            )
        else:
            self.optimizer = torch.optim.SGD(
                self.network.parameters(),
                args.learning_rate,
                momentum=0.9,
                nesterov=True,
                weight_decay=args.weight_decay,
            )
        if args.lr_schedule == "cosine":
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
                self.optimizer, args.total_steps, eta_min=args.learning_rate / 20
            )
        else:
            self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda step: 1.0)
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
        mcts_config = MCTSConfig(
            simulations=args.simulations,
            leaves_per_tree=args.leaves_per_tree,
            dirichlet_alpha=args.dirichlet_alpha,
            dirichlet_fraction=args.dirichlet_fraction,
            gumbel=args.gumbel,
            cache_mb=64.0,
        )
        self.mcts = MCTS(NetworkEvaluator(self.network, self.device), self.num_players, mcts_config, self.rng)
        self.games: list[dict] = []

    # -- checkpoints -----------------------------------------------------------------------

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
            "rng": {"python": random.getstate(), "numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state()},
            "replay": self.replay.state_dict(),
        }

    def save(self) -> Path:
        directory = self.run_dir / "checkpoints"
        step = self.counters["learner_steps"]
        payload = self.checkpoint_payload()
        save_checkpoint(directory / f"step_{step:08d}.pt", payload)
        save_checkpoint(directory / "last.pt", payload)
        numbered = sorted(directory.glob("step_*.pt"))
        for old in numbered[: -self.args.keep_checkpoints]:
            old.unlink()
        return directory / "last.pt"

    def due_for_checkpoint(self, steps_before: int) -> bool:
        """Whether the learner steps of the iteration just ended crossed a multiple of checkpoint_every.

        Checkpoints are written between iterations only, so a resumed run repeats no work."""
        every = self.args.checkpoint_every
        return self.counters["learner_steps"] // every > steps_before // every

    def checkpoints(self) -> list[Path]:
        """The run's checkpoint files, newest first: numbered ones by step, then ``last.pt``
        (written after the numbered copy of the same save, so never newer than it)."""
        directory = self.run_dir / "checkpoints"
        return [*sorted(directory.glob("step_*.pt"), reverse=True), *[p for p in [directory / "last.pt"] if p.exists()]]

    def restore(self) -> Path:
        """Continue from the newest checkpoint that loads; say which, and why newer ones were skipped."""
        problems = []
        for path in self.checkpoints():
            try:
                self._restore_from(path)
            except CheckpointError as error:
                problems.append(str(error))
                print(f"skipping {path.name}: {error}")
                continue
            return path
        raise CheckpointError("no checkpoint of the run loads: " + "; ".join(problems))

    def _restore_from(self, path: Path) -> None:
        payload = load_checkpoint(path, self.args.game, map_location=self.device)
        if payload["network"] != self.network_config.to_dict():
            raise CheckpointError(f"{path} holds a network of another shape: {payload['network']}")
        self.network.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.scheduler.load_state_dict(payload["scheduler"])
        self.scaler.load_state_dict(payload["scaler"])
        self.counters.update(payload["counters"])
        random.setstate(payload["rng"]["python"])
        self.rng.bit_generator.state = payload["rng"]["numpy"]
        torch.set_rng_state(payload["rng"]["torch"])
        try:
            self.replay.load_state_dict(payload["replay"])
        except (KeyError, ValueError, RuntimeError) as error:
            raise CheckpointError(f"{path}: its replay buffer does not fit this run ({error})") from None

    # -- self-play -------------------------------------------------------------------------

    def _new_game(self) -> dict:
        return {"tree": SearchTree(new_state(self.args.game)), "history": [], "plies": 0}

    def self_play(self, moves: int) -> dict:
        """Play ``moves`` moves in every parallel game; finished games go to the replay buffer."""
        args = self.args
        while len(self.games) < args.games_in_parallel:
            self.games.append(self._new_game())
        finished = {"games": 0, "plies": 0, "outcomes": [], "positions": 0}
        evaluations_before = self.mcts.network_evaluations
        for _ in range(moves):
            trees = [g["tree"] for g in self.games]
            self.mcts.search(trees)
            for index, game in enumerate(self.games):
                tree = game["tree"]
                state = tree.state
                actions, _ = tree.visit_counts()
                policy = self.mcts.improved_policy(tree)
                temperature = 1.0 if game["plies"] < args.temperature_plies else 0.0
                action = self.mcts.choose(tree, temperature)
                game["history"].append((state.observation(), actions, policy, state.current_player))
                tree.advance(action)
                game["plies"] += 1
                if tree.state.is_terminal() or game["plies"] >= args.max_plies:
                    returns = self._final_returns(tree.state)
                    self._store(game["history"], returns)
                    finished["games"] += 1
                    finished["plies"] += game["plies"]
                    finished["positions"] += len(game["history"])
                    finished["outcomes"].append(returns)
                    self.games[index] = self._new_game()
        self.counters["nn_evaluations"] += self.mcts.network_evaluations - evaluations_before
        self.counters["games"] += finished["games"]
        self.counters["positions"] += finished["positions"]
        return finished

    @staticmethod
    def _final_returns(state) -> np.ndarray:
        """The game's returns; a game stopped at ``max_plies`` is a draw, or scored by its
        standings where the game has them (four-player Free-For-All points)."""
        if state.is_terminal():
            return state.returns()
        return np.asarray(state.standings(), dtype=np.float32)

    def _store(self, history: list, returns: np.ndarray) -> None:
        for planes, actions, policy, player in history:
            if self.num_players == 2:
                value = np.array([returns[player]], dtype=np.float32)
            else:
                value = np.roll(returns, -player).astype(np.float32)
            self.replay.add(planes, actions, policy.astype(np.float32), value)

    # -- learning --------------------------------------------------------------------------

    def learn(self, steps: int) -> dict[str, float]:
        if len(self.replay) < self.args.min_replay:
            return {}
        self.network.train()
        totals = {"policy": 0.0, "value": 0.0}
        for _ in range(steps):
            planes, actions, probs, values = self.replay.sample(self.args.batch_size, self.rng)
            planes_t = torch.from_numpy(planes).to(self.device)
            actions_t = torch.from_numpy(actions).long().to(self.device)
            probs_t = torch.from_numpy(probs).to(self.device)
            values_t = torch.from_numpy(values).to(self.device)
            with torch.autocast(self.device.type, dtype=torch.float16, enabled=self.device.type == "cuda"):
                logits, predicted = self.network(planes_t)
            log_probs = F.log_softmax(logits.float(), dim=1)
            picked = torch.gather(log_probs, 1, actions_t.clamp(min=0)) * (actions_t >= 0)
            policy_loss = -(probs_t * picked).sum(dim=1).mean()
            value_loss = F.mse_loss(predicted.float(), values_t)
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
        self.mcts.cache.clear()  # its evaluations are of the weights before these steps
        return {key: value / steps for key, value in totals.items()}

    # -- evaluation ------------------------------------------------------------------------

    def evaluate(self) -> dict[str, float]:
        args = self.args
        agent = AlphaZeroAgent(
            args.game, sims=args.eval_simulations, device=str(self.device), network=self.network, seed=args.seed
        )
        agent.name = "alphazero"
        scores = {}
        for name, opponent in (("random", RandomAgent(seed=args.seed)), ("greedy", GreedyAgent(seed=args.seed))):
            total = 0.0
            for game in range(args.eval_games):
                seat = game % self.num_players  # the agent takes every seat in turn
                seats = [opponent] * self.num_players
                seats[seat] = agent
                start = new_state(args.game).to_text()
                record = play_game(args.game, seats, start, max_plies=args.max_plies)
                total += record.scores[seat]
            scores[f"eval/score_vs_{name}"] = total / args.eval_games
        return scores


def _log(writer: SummaryWriter, metrics_path: Path, step: int, values: dict[str, float]) -> None:
    for key, value in values.items():
        writer.add_scalar(key, value, step)
    with metrics_path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"learner_steps": step, **values}) + "\n")


def _train_on_ray(args: Args) -> Path:
    """The same run with self-play and learner as Ray actors (train/ray_backend.py)."""
    run_dir = Path(args.runs_dir) / args.run_name
    directory = run_dir / "checkpoints"
    if not args.resume and directory.is_dir() and any(directory.glob("*.pt")):
        fail(f"{run_dir} already holds a run; pass --resume or choose another --run-name")
    try:
        from train import ray_backend
    except ImportError:
        fail("--backend ray needs Ray: pip install -e '.[ray]'")
    prepare_run_dir(run_dir)
    remove_stale_temporaries(directory)
    write_text_atomic(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    return ray_backend.train(args)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, PRESETS, argv, description=__doc__.splitlines()[0])
    if args.backend == "ray":
        return _train_on_ray(args)
    trainer = Trainer(args)
    run_dir = trainer.run_dir
    started = bool(trainer.checkpoints())
    if started and not args.resume:
        fail(f"{run_dir} already holds a run; pass --resume or choose another --run-name")
    prepare_run_dir(run_dir)
    for stale in remove_stale_temporaries(run_dir / "checkpoints"):
        print(f"removed {stale.name}, left by a save that was interrupted")
    if started:
        try:
            path = trainer.restore()
        except CheckpointError as error:
            fail(f"cannot resume {run_dir}: {error}")
        print(
            f"resumed {run_dir} from {path.name} at learner step {trainer.counters['learner_steps']}, "
            f"iteration {trainer.counters['iteration']}, {trainer.counters['games']} games"
        )
    elif args.resume:
        print(f"{run_dir} has no checkpoint yet: starting the run")
    write_text_atomic(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    writer = SummaryWriter(str(run_dir))
    metrics_path = run_dir / "metrics.jsonl"
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    started = time.monotonic()
    seconds_before = trainer.counters["seconds"]
    bar = tqdm(desc="iterations", unit="it", disable=not args.progress, initial=trainer.counters["iteration"])
    try:
        while not stop["now"]:
            elapsed = time.monotonic() - started
            if args.minutes and elapsed >= args.minutes * 60:
                break
            if args.iterations and trainer.counters["iteration"] >= args.iterations:
                break
            tick = time.monotonic()
            evaluations = trainer.counters["nn_evaluations"]
            finished = trainer.self_play(args.moves_per_iteration)
            play_seconds = time.monotonic() - tick
            steps_before = trainer.counters["learner_steps"]
            losses = trainer.learn(args.steps_per_iteration)
            trainer.counters["iteration"] += 1
            trainer.counters["seconds"] = seconds_before + time.monotonic() - started
            if trainer.due_for_checkpoint(steps_before):
                trainer.save()
            values = {
                "charts/games_per_s": finished["games"] / play_seconds,
                "charts/positions_per_s": args.moves_per_iteration * args.games_in_parallel / play_seconds,
                "charts/nn_evals_per_s": (trainer.counters["nn_evaluations"] - evaluations) / play_seconds,
                "charts/replay_size": len(trainer.replay),
                "charts/learning_rate": trainer.scheduler.get_last_lr()[0],
                "charts/games": trainer.counters["games"],
            }
            if finished["games"]:
                outcomes = np.array(finished["outcomes"])
                values["charts/game_length"] = finished["plies"] / finished["games"]
                values["charts/draw_rate"] = float(np.mean(np.all(outcomes == 0, axis=1)))
                values["charts/first_player_win_rate"] = float(np.mean(outcomes[:, 0] > 0))
            if losses:
                values["losses/policy"], values["losses/value"] = losses["policy"], losses["value"]
            if args.eval_every and trainer.counters["iteration"] % args.eval_every == 0:
                values.update(trainer.evaluate())
            _log(writer, metrics_path, trainer.counters["learner_steps"], values)
            bar.update()
            bar.set_postfix(
                games=trainer.counters["games"],
                steps=trainer.counters["learner_steps"],
                **{k.split("/")[1]: round(v, 2) for k, v in values.items() if k.startswith("eval/")},
            )
    except KeyboardInterrupt:
        print("\ninterrupted: saving a checkpoint")
    finally:
        bar.close()
        path = trainer.save()
        writer.close()
    print(f"saved {path} ({trainer.counters['learner_steps']} learner steps, {trainer.counters['games']} games)")
    return path


if __name__ == "__main__":
    main()
