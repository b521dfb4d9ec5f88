"""Distillation: an AlphaZero network that first learns from an engine's labels, then self-play.

    python -m train.distill --game chess --teacher "stockfish?depth=8" --positions 200000 --steps 20000
    python -m train.distill --run-name NAME --resume          # continue whichever stage was cut off
    python -m train.alphazero --preset chess --init runs/NAME/checkpoints/last.pt

Two stages, both resumable. **Data**: ``--workers`` engine processes play games from varied
openings (a line of a small opening book and/or a few random plies, then the teacher's moves,
sampled from its soft policy for the first ``--sample-plies``); every position is labelled with
the teacher's multi-PV scores, turned into a soft policy (softmax of centipawns over
``--policy-temperature``) and a value (the best score as an expected result, mixed with the
game's result, by ``--result-weight`` when learning). Whole games go to
``data/shard_NNNNN.npz`` files (uint8 planes, sparse policy, the teacher's scores and the
results apart), each written atomically. **Learn**: the network trains on the shards (a held-out
share of the games scores it), with TensorBoard logs, progress, atomic checkpoints and
``--resume``. Its checkpoint is an ordinary AlphaZero one: agents play it and
``train.alphazero --init`` continues it by self-play.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import signal
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from agents.alphazero.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from agents.alphazero.mcts_config import quantize_planes
from agents.alphazero.network import LIMITS as NETWORK_LIMITS
from agents.alphazero.network import AlphaZeroNet, NetworkConfig, resolve_device
from agents.base import AgentError
from chess_envs.files import remove_stale_temporaries, write_atomic, write_text_atomic
from chess_envs.registry import get_game, new_state, registered_games
from train.cli import arg, check_args, fail, parse_args, prepare_run_dir
from train.learner import policy_value_loss
from train.run_log import RunLog
from train.teacher import Teacher, parse_teacher

BOOK = {
    "chess": (
        "e2e4 e7e5 g1f3 b8c6 f1b5",
        "e2e4 e7e5 g1f3 b8c6 f1c4",
        "e2e4 e7e5 g1f3 g8f6",
        "e2e4 c7c5 g1f3 d7d6 d2d4",
        "e2e4 c7c5 b1c3",
        "e2e4 c7c5 c2c3",
        "e2e4 e7e6 d2d4 d7d5",
        "e2e4 c7c6 d2d4 d7d5",
        "e2e4 d7d6 d2d4 g8f6",
        "e2e4 d7d5 e4d5",
        "d2d4 d7d5 c2c4 e7e6",
        "d2d4 d7d5 c2c4 c7c6",
        "d2d4 d7d5 c2c4 d5c4",
        "d2d4 g8f6 c2c4 e7e6 g1f3",
        "d2d4 g8f6 c2c4 g7g6 b1c3",
        "d2d4 g8f6 c2c4 c7c5 d4d5",
        "d2d4 f7f5",
        "d2d4 d7d5 c1f4",
        "c2c4 e7e5 b1c3",
        "c2c4 g8f6 g1f3",
        "g1f3 d7d5 g2g3",
        "g1f3 g8f6 c2c4",
        "b2b3 e7e5",
        "f2f4 d7d5",
    ),
}
"""Opening lines (UCI) a share of the chess games start from; the random plies vary them further."""


@dataclass
class Args:
    """Every setting of a distillation run (the command line's flags)."""

    game: str = arg("chess", "a game an engine plays (the registry's engines)")
    teacher: str = arg("stockfish?depth=8", "the engine that labels: stockfish (chess) or fairy-stockfish, a spec")
    run_name: str = arg("distill", "the run folder's name under runs_dir")
    runs_dir: str = arg("runs", "where run folders live")
    resume: bool = arg(False, "continue the run (data, then learning) from what it saved")
    stage: str = arg("all", "all, data (label positions only) or learn (train on the data there is)")
    seed: int = arg(0, "seed of every random number generator")
    device: str = arg("auto", "auto (CUDA when present), cpu or cuda")
    # data
    positions: int = arg(200_000, "positions to label in all")
    workers: int = arg(2, "teacher processes labelling in parallel")
    multipv: int = arg(4, "moves the teacher scores per position (the soft policy's support)")
    policy_temperature: float = arg(100.0, "centipawns: the policy target is softmax(score / this); 0: best move only")
    value_scale: float = arg(400.0, "centipawns per factor 10 of odds when a score becomes an expected result")
    result_weight: float = arg(0.1, "share of the game's result in the value target, the rest the teacher's score")
    book_share: float = arg(0.5, "share of games that start from a line of the opening book (chess)")
    random_plies: int = arg(6, "random plies at the start of each game, 0 to this many")
    sample_plies: int = arg(8, "plies after the opening where the teacher's move is sampled from its policy")
    max_plies: int = arg(300, "a game this long stops; the teacher's last score stands for its result")
    shard_size: int = arg(8192, "positions per data file (whole games)")
    # network
    filters: int = arg(64, "convolution filters")
    blocks: int = arg(6, "residual blocks")
    value_hidden: int = arg(128, "hidden units of the value head")
    activation: str = arg("relu", "relu or gelu")
    # learning
    steps: int = arg(20_000, "learner steps in all")
    batch_size: int = arg(256, "positions per learner step")
    learning_rate: float = arg(2e-3, "peak learning rate (AdamW, cosine to 1/20)")
    weight_decay: float = arg(0.03, "AdamW's decoupled weight decay")
    validation_share: float = arg(0.02, "share of the games held out to score the network")
    minutes: float = arg(0.0, "stop learning after this many minutes (0: no limit)")
    checkpoint_every: int = arg(1_000, "learner steps between checkpoints (one more at the end)")
    eval_every: int = arg(500, "learner steps between scores on the held-out games")
    progress: bool = arg(True, "show progress bars")

    def __post_init__(self) -> None:
        if not get_game(self.game).engines:
            taught = ", ".join(record.name for record in registered_games() if record.engines)
            raise ValueError(f"distillation needs a game an engine plays ({taught}), not {self.game!r}")
        if self.stage not in ("all", "data", "learn"):
            raise ValueError(f"stage must be all, data or learn, got {self.stage!r}")
        if self.activation not in ("gelu", "relu"):
            raise ValueError(f"activation must be gelu or relu, got {self.activation!r}")
        parse_teacher(self.teacher, self.game)
        for name in ("positions", "workers", "multipv", "max_plies", "shard_size", "steps", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("checkpoint_every", "eval_every", "filters", "blocks", "value_hidden"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("result_weight", "book_share", "validation_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.policy_temperature < 0 or self.value_scale <= 0:
            raise ValueError("policy_temperature must be >= 0 and value_scale > 0")
        check_args(self, {**{k: NETWORK_LIMITS[k] for k in ("filters", "blocks", "value_hidden")}, "workers": 64})


# -- data ---------------------------------------------------------------------------------


@dataclass
class LabelledGame:
    """One teacher game's positions: uint8 planes, the policy over the teacher's moves, and for the
    mover the teacher's score as an expected result and the game's result (mixed when learning)."""

    planes: np.ndarray
    actions: np.ndarray
    probs: np.ndarray
    scores: np.ndarray
    results: np.ndarray
    index: int


def play_and_label(args: Args, teacher: Teacher, index: int) -> LabelledGame:
    """Game ``index`` of the run (its own random generator): opening, then the teacher's moves."""
    rng = np.random.default_rng([args.seed, index])
    teacher.new_game()
    state = new_state(args.game)
    book = BOOK.get(args.game, ())
    if book and rng.random() < args.book_share:
        for move in book[int(rng.integers(len(book)))].split():
            state.apply(state.move_to_action(move))
    for _ in range(int(rng.integers(args.random_plies + 1))):
        if state.is_terminal():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    planes, actions, probs, scores, movers = [], [], [], [], []
    while not state.is_terminal() and len(planes) < args.max_plies:
        label = teacher.analyse(state.to_text())
        legal = [state.move_to_action(move) for move in label.moves]
        policy = label.policy(args.policy_temperature)
        planes.append(quantize_planes(state.observation()))
        actions.append(np.pad(legal, (0, args.multipv - len(legal)), constant_values=-1))
        probs.append(np.pad(policy, (0, args.multipv - len(policy))))
        scores.append(label.value(args.value_scale))
        movers.append(state.current_player)
        pick = int(rng.choice(len(legal), p=policy)) if len(planes) <= args.sample_plies else 0
        state.apply(legal[pick])
    if state.is_terminal():
        result = state.returns()
    else:  # stopped: the teacher's last score for its mover stands for the result
        result = np.zeros(2)
        result[movers[-1]], result[1 - movers[-1]] = scores[-1], -scores[-1]
    empty = (0, *state.observation_shape)
    return LabelledGame(
        np.array(planes, np.uint8) if planes else np.zeros(empty, np.uint8),
        np.array(actions, np.int32).reshape(-1, args.multipv),
        np.array(probs, np.float16).reshape(-1, args.multipv),
        np.array(scores, np.float32),
        np.array([result[mover] for mover in movers], np.float32),
        index,
    )


_WORKER: dict[str, object] = {}


def _start_worker(args: Args) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C and ends the pool
    _WORKER["args"], _WORKER["teacher"] = args, Teacher(args.teacher, args.game, args.multipv)


def _worker_game(index: int) -> LabelledGame:
    return play_and_label(_WORKER["args"], _WORKER["teacher"], index)  # type: ignore[arg-type]


def labelled_games(args: Args, first: int) -> Iterator[LabelledGame]:
    """Games ``first``, ``first + 1``, ... as they finish, from ``args.workers`` processes."""
    if args.workers == 1:
        with Teacher(args.teacher, args.game, args.multipv) as teacher:
            index = first
            while True:
                yield play_and_label(args, teacher, index)
                index += 1
    context = multiprocessing.get_context("spawn")  # no forked copies of torch's threads
    with context.Pool(args.workers, initializer=_start_worker, initargs=(args,)) as pool:
        in_flight = [pool.apply_async(_worker_game, (first + i,)) for i in range(2 * args.workers)]
        following = first + len(in_flight)
        while True:
            game = in_flight.pop(0).get()
            in_flight.append(pool.apply_async(_worker_game, (following,)))
            following += 1
            yield game


class Shards:
    """The run's labelled positions: ``data/shard_NNNNN.npz`` files of whole games."""

    ARRAYS = ("planes", "policy_actions", "policy_probs", "scores", "results", "game")

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.paths = sorted(folder.glob("shard_*.npz"))

    def counts(self) -> tuple[int, int]:
        """(positions stored, the index after the last game stored)."""
        positions, following = 0, 0
        for path in self.paths:
            games = self._read(path, ("game",))["game"]
            positions += len(games)
            following = max(following, int(games.max()) + 1 if len(games) else 0)
        return positions, following

    def write(self, games: list[LabelledGame]) -> Path:
        path = self.folder / f"shard_{len(self.paths):05d}.npz"
        arrays = {
            "planes": np.concatenate([g.planes for g in games]),
            "policy_actions": np.concatenate([g.actions for g in games]),
            "policy_probs": np.concatenate([g.probs for g in games]),
            "scores": np.concatenate([g.scores for g in games]),
            "results": np.concatenate([g.results for g in games]),
            "game": np.concatenate([np.full(len(g.scores), g.index, np.int64) for g in games]),
        }
        write_atomic(path, lambda handle: np.savez_compressed(handle, **arrays))
        self.paths.append(path)
        return path

    def load(self) -> dict[str, np.ndarray]:
        """Every shard, concatenated."""
        if not self.paths:
            raise ValueError(f"no labelled positions in {self.folder}: run the data stage first")
        parts = [self._read(path, self.ARRAYS) for path in self.paths]
        return {name: np.concatenate([part[name] for part in parts]) for name in self.ARRAYS}

    @staticmethod
    def _read(path: Path, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        try:
            with np.load(path, allow_pickle=False) as data:
                return {name: data[name] for name in names}
        except (OSError, KeyError, ValueError, EOFError) as error:
            raise ValueError(f"{path} is not a distillation data file ({error}); delete it to label again") from None


def generate(args: Args, shards: Shards) -> None:
    """Label positions until the run holds ``args.positions`` of them."""
    done, following = shards.counts()
    if done >= args.positions:
        return
    with Teacher(args.teacher, args.game, args.multipv):  # a missing or broken engine fails here, once
        pass
    if done:
        print(f"resuming the data stage: {done:,} positions in {len(shards.paths)} files")
    batch: list[LabelledGame] = []
    bar = tqdm(total=args.positions, initial=done, desc="labelled positions", unit="pos", disable=not args.progress)
    started = time.monotonic()
    try:
        for game in labelled_games(args, following):
            batch.append(game)
            done += len(game.scores)
            bar.update(len(game.scores))
            if sum(len(g.scores) for g in batch) >= args.shard_size or done >= args.positions:
                shards.write(batch)
                batch = []
            if done >= args.positions:
                break
    finally:
        bar.close()
    print(f"labelled {done:,} positions in {len(shards.paths)} files ({time.monotonic() - started:.0f} s this time)")


# -- learning -----------------------------------------------------------------------------


class Trainer:
    """The network, its optimizer and schedule, the held-out split, checkpoints and logs."""

    def __init__(self, args: Args, data: dict[str, np.ndarray], run_dir: Path) -> None:
        self.args, self.run_dir = args, run_dir
        self.device = resolve_device(args.device)
        torch.manual_seed(args.seed)
        random.seed(args.seed)
        self.rng = np.random.default_rng([args.seed, 2])
        prototype = new_state(args.game)
        self.network_config = NetworkConfig(
            *prototype.observation_shape,
            num_actions=prototype.num_actions,
            filters=args.filters,
            blocks=args.blocks,
            value_hidden=args.value_hidden,
            activation=args.activation,
        )
        self.network = AlphaZeroNet(self.network_config).to(self.device, memory_format=torch.channels_last)
        self.optimizer = torch.optim.AdamW(
            self.network.parameters(), args.learning_rate, weight_decay=args.weight_decay
        )
        self.counters = {"learner_steps": 0, "seconds": 0.0, "positions": len(data["scores"])}
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda _: self.learning_rate_factor())
        held_out = np.random.default_rng([args.seed, 3]).random(int(data["game"].max()) + 1) < args.validation_share
        mask = held_out[data["game"]]
        self.train_rows, self.validation_rows = np.flatnonzero(~mask), np.flatnonzero(mask)
        if not len(self.train_rows):
            raise ValueError("every game is held out: lower --validation-share or label more positions")
        self.data = data
        weight = args.result_weight
        self.values = ((1 - weight) * data["scores"] + weight * data["results"]).astype(np.float32)[:, None]
        self.run_log = RunLog(run_dir)

    def learning_rate_factor(self) -> float:
        """Cosine from 1 to 1/20 over the steps (or over ``--minutes``, when that comes sooner)."""
        progress = self.counters["learner_steps"] / self.args.steps
        if self.args.minutes:
            progress = max(progress, self.counters["seconds"] / (self.args.minutes * 60))
        return 1 / 20 + (1 - 1 / 20) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))

    def batch(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        d = self.data
        return (
            d["planes"][rows].astype(np.float32) / 255.0,
            d["policy_actions"][rows],
            d["policy_probs"][rows].astype(np.float32),
            self.values[rows],
        )

    def step(self) -> tuple[float, float]:
        self.network.train()
        rows = self.train_rows[self.rng.integers(len(self.train_rows), size=self.args.batch_size)]
        policy_loss, value_loss = policy_value_loss(self.network, self.batch(rows), self.device)
        self.optimizer.zero_grad(set_to_none=True)
        (policy_loss + value_loss).backward()
        self.optimizer.step()
        self.scheduler.step()
        self.counters["learner_steps"] += 1
        return policy_loss.item(), value_loss.item()

    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        """Losses and how often the network's top move is the teacher's, on the held-out games."""
        rows = self.validation_rows[:4096]
        if not len(rows):
            return {}
        self.network.eval()
        batch = self.batch(rows)
        policy_loss, value_loss = policy_value_loss(self.network, batch, self.device)
        planes = torch.from_numpy(batch[0]).to(self.device).contiguous(memory_format=torch.channels_last)
        logits, _ = self.network(planes)
        legal = torch.full_like(logits, -torch.inf)
        actions = torch.from_numpy(batch[1]).long().to(self.device)
        legal.scatter_(1, actions.clamp(min=0), logits.gather(1, actions.clamp(min=0)))
        top = legal.argmax(dim=1).cpu().numpy()
        return {
            "validation/policy_loss": policy_loss.item(),
            "validation/value_loss": value_loss.item(),
            "validation/teacher_move_agreement": float(np.mean(top == batch[1][:, 0])),
        }

    @property
    def last(self) -> Path:
        return self.run_dir / "checkpoints" / "last.pt"

    def save(self) -> Path:
        save_checkpoint(
            self.last,
            {
                "game": self.args.game,
                "args": asdict(self.args),
                "network": self.network_config.to_dict(),
                "model": self.network.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(),
                "counters": dict(self.counters),
                "distilled_from": self.args.teacher,
                "rng": {"numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state()},
            },
        )
        return self.last

    def restore(self) -> None:
        payload = load_checkpoint(self.last, self.args.game, map_location=self.device)
        if NetworkConfig.from_file(payload["network"]) != self.network_config:
            raise CheckpointError(f"{self.last} holds a network of another shape: {payload['network']}")
        try:
            self.network.load_state_dict(payload["model"])
            self.optimizer.load_state_dict(payload["optimizer"])
            self.scheduler.load_state_dict(payload["scheduler"])
        except (KeyError, ValueError, RuntimeError) as error:
            raise CheckpointError(f"{self.last}: its training state does not fit this run ({error})") from None
        self.counters.update({k: payload["counters"][k] for k in ("learner_steps", "seconds")})
        self.rng.bit_generator.state = payload["rng"]["numpy"]
        torch.set_rng_state(payload["rng"]["torch"])


def learn(args: Args, trainer: Trainer) -> Path:
    """Learner steps until ``args.steps`` (or ``args.minutes``), saving on the way and on Ctrl-C."""
    counters = trainer.counters
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    started, seconds_before = time.monotonic(), counters["seconds"]
    bar = tqdm(total=args.steps, initial=counters["learner_steps"], desc="learner steps", disable=not args.progress)
    totals, count = [0.0, 0.0], 0
    try:
        while counters["learner_steps"] < args.steps and not stop["now"]:
            if args.minutes and counters["seconds"] >= args.minutes * 60:
                break
            policy, value = trainer.step()
            totals[0] += policy
            totals[1] += value
            count += 1
            counters["seconds"] = seconds_before + time.monotonic() - started
            bar.update()
            step = counters["learner_steps"]
            if step % args.eval_every == 0 or step == args.steps:
                values = {"losses/policy": totals[0] / count, "losses/value": totals[1] / count}
                values["charts/learning_rate"] = trainer.scheduler.get_last_lr()[0]
                values.update(trainer.validate())
                trainer.run_log.write(counters["learner_steps"], values)
                bar.set_postfix({k.split("/")[1]: round(v, 3) for k, v in values.items() if "validation" in k})
                totals, count = [0.0, 0.0], 0
            if step % args.checkpoint_every == 0:
                trainer.save()
    except KeyboardInterrupt:
        print("\ninterrupted: saving a checkpoint")
    finally:
        bar.close()
        path = trainer.save()
        trainer.run_log.close()
    print(f"saved {path} ({counters['learner_steps']} learner steps on {counters['positions']:,} positions)")
    return path


def main(argv: list[str] | None = None) -> Path | None:
    args = parse_args(Args, {}, argv, description=__doc__.splitlines()[0])
    run_dir = Path(args.runs_dir) / args.run_name
    data_dir = run_dir / "data"
    if not args.resume and ((run_dir / "checkpoints" / "last.pt").exists() or any(data_dir.glob("shard_*.npz"))):
        fail(f"{run_dir} already holds a run; pass --resume or choose another --run-name")
    prepare_run_dir(run_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    for folder in (run_dir, data_dir, run_dir / "checkpoints"):
        remove_stale_temporaries(folder)
    write_text_atomic(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    shards = Shards(data_dir)
    try:
        if args.stage in ("all", "data"):
            generate(args, shards)
        if args.stage == "data":
            return None
        trainer = Trainer(args, shards.load(), run_dir)
        if trainer.last.exists():
            trainer.restore()
            print(f"resumed learning at step {trainer.counters['learner_steps']}")
    except (AgentError, ValueError, CheckpointError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        fail("interrupted: the labelled files written so far are kept; --resume continues")
    return learn(args, trainer)


if __name__ == "__main__":
    main()
