"""Distillation's data: games from varied openings played and labelled by an engine, stored as shards.

Each game opens with a line of a small opening book and/or a few random plies, then the
teacher plays, its move sampled from its soft policy for the first ``sample_plies`` (or, in a
``student_share`` of the games, a student agent plays one side: the network's own positions, the
DAgger way); every position is labelled with the teacher's multi-PV scores, turned into a soft
policy (softmax of centipawns over ``policy_temperature``) and a value (the best score as an
expected result; the game's result is kept apart, mixed in when learning). Whole games go to
``data/shard_NNNNN.npz`` files (uint8 planes, sparse policy, scores and results), each written
atomically, so the data stage resumes where it stopped.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from chess_envs.agents.base import Agent, AgentError, make_agent
from chess_envs.agents.four_player.engine import IllegalAnswer
from chess_envs.files import write_atomic
from chess_envs.registry import new_state
from chess_envs.search.protocol import quantize_planes
from chess_envs.train.alphazero.sections import game_options
from chess_envs.train.distill.config import DistillConfig
from chess_envs.train.distill.labels import Labeller, open_teacher
from chess_envs.train.run_folder import StopSignals

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
class LabelledGame:
    """One teacher game's positions: uint8 planes, the policy over the teacher's moves, and for the
    mover the teacher's score as an expected result and the game's result (mixed when learning)."""

    planes: np.ndarray
    actions: np.ndarray
    probs: np.ndarray
    scores: np.ndarray
    results: np.ndarray
    index: int


def play_and_label(args: DistillConfig, teacher: Labeller, index: int, student: Agent | None = None) -> LabelledGame:
    """Game ``index`` of the run (its own random generator): opening, then the teacher's moves, or
    in a ``student_share`` of the games with a ``student``, the student's on one side (seats of one
    parity: a colour, or a four-player team), every position labelled by the teacher. A move the
    teacher answers that is not legal here (4pchess's rules differ a little) ends the game where it
    stands, as ``max_plies`` does."""
    rng = np.random.default_rng([args.seed, index])
    teacher.new_game()
    student_side = -1  # the parity of the student's seats; -1: the teacher plays every seat
    if student is not None and rng.random() < args.student_share:
        student_side = int(rng.integers(2))
        student.reset(seed=index)
    state = new_state(args.game, **game_options(args))
    book = BOOK.get(args.game, ())
    if book and rng.random() < args.book_share:
        for move in book[int(rng.integers(len(book)))].split():
            state.apply(state.move_to_action(move))
    for _ in range(int(rng.integers(args.fewest_random_plies, max(args.fewest_random_plies, args.random_plies) + 1))):
        if state.is_terminal():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    planes: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    probs: list[np.ndarray] = []
    scores: list[float] = []
    movers: list[int] = []
    while not state.is_terminal() and len(planes) < args.max_plies:
        try:
            label = teacher.analyse(state)
        except IllegalAnswer:
            break
        legal = [state.move_to_action(move) for move in label.moves]
        policy = label.policy(args.policy_temperature)
        planes.append(quantize_planes(state.observation()))
        actions.append(np.pad(legal, (0, args.multipv - len(legal)), constant_values=-1))
        probs.append(np.pad(policy, (0, args.multipv - len(policy))))
        scores.append(label.value(args.value_scale))
        movers.append(state.current_player)
        if student is not None and state.current_player % 2 == student_side:
            state.apply(student.select_action(state))
            continue
        pick = int(rng.choice(len(legal), p=policy)) if len(planes) <= args.sample_plies else 0
        state.apply(legal[pick])
    if state.is_terminal():
        result = state.returns()
    else:  # stopped: the teacher's last score for its mover's side stands for the result (two sides)
        result = np.zeros(state.num_players)
        if movers:
            sides = [1.0 if (seat - movers[-1]) % 2 == 0 else -1.0 for seat in range(state.num_players)]
            result = np.array(sides) * scores[-1]
    empty = (0, *state.observation_shape)
    return LabelledGame(
        np.array(planes, np.uint8) if planes else np.zeros(empty, np.uint8),
        np.array(actions, np.int32).reshape(-1, args.multipv),
        np.array(probs, np.float16).reshape(-1, args.multipv),
        np.array(scores, np.float32),
        np.array([result[mover] for mover in movers], np.float32),
        index,
    )


EMPTY_GAMES = 20
"""games in a row without a labelled position (each cut at its first answer) that stop the data stage"""

_WORKER: dict[str, object] = {}


def open_student(args: DistillConfig, threads: int) -> Agent | None:
    """The run's student agent (None without one), its torch pool ``threads`` wide: one process of
    ``args.workers`` shares the cores with the others."""
    if not args.student:
        return None
    student = make_agent(args.student, args.game)
    if "torch" in sys.modules and "OMP_NUM_THREADS" not in os.environ:
        sys.modules["torch"].set_num_threads(threads)
    return student


def _start_worker(args: DistillConfig) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C and ends the pool
    _WORKER["args"], _WORKER["teacher"] = args, open_teacher(args.teacher, args.game, args.multipv)
    _WORKER["student"] = open_student(args, max(1, (os.cpu_count() or 1) // args.workers))


def _worker_game(index: int) -> LabelledGame:
    return play_and_label(_WORKER["args"], _WORKER["teacher"], index, _WORKER["student"])  # type: ignore[arg-type]


def labelled_games(
    args: DistillConfig, first: int, stopping: Callable[[], bool]
) -> Generator[LabelledGame, None, None]:
    """Games ``first``, ``first + 1``, ... in order as they finish, from ``args.workers`` processes,
    until ``stopping()`` (checked between games, and every second while a pool waits)."""
    if args.workers == 1:
        teacher = open_teacher(args.teacher, args.game, args.multipv)
        student = open_student(args, os.cpu_count() or 1)
        try:
            index = first
            while not stopping():
                yield play_and_label(args, teacher, index, student)
                index += 1
        finally:
            teacher.close()
            if student is not None:
                student.close()
        return
    context = multiprocessing.get_context("spawn")  # no forked copies of torch's threads
    with context.Pool(args.workers, initializer=_start_worker, initargs=(args,)) as pool:  # exit: workers end
        in_flight = [pool.apply_async(_worker_game, (first + i,)) for i in range(2 * args.workers)]
        following = first + len(in_flight)
        while not stopping():
            in_flight[0].wait(1.0)  # a worker killed with the process group never answers: look again
            if not in_flight[0].ready():
                continue
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
        write_atomic(path, lambda handle: np.savez_compressed(handle, **arrays))  # type: ignore[arg-type]
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


def generate(args: DistillConfig, shards: Shards) -> str:
    """Label positions until the run holds ``args.positions`` of them. Ctrl-C or SIGTERM stop it
    between games, the finished games stored: returns why it stopped early ("interrupted",
    "terminated"), or "" once the run holds them all."""
    done, following = shards.counts()
    if done >= args.positions:
        return ""
    open_teacher(args.teacher, args.game, args.multipv).close()  # a missing or broken engine fails here, once
    if args.workers > 1 and (student := open_student(args, 1)) is not None:  # and a student that cannot play
        student.close()
    if done:
        print(f"resuming the data stage: {done:,} positions in {len(shards.paths)} files")
    batch: list[LabelledGame] = []
    bar = tqdm(total=args.positions, initial=done, desc="labelled positions", unit="pos", disable=not args.progress)
    started = time.monotonic()
    with StopSignals() as stop:
        try:
            with closing(labelled_games(args, following, lambda: bool(stop.requested))) as games:
                empty = 0
                for game in games:
                    empty = 0 if len(game.scores) else empty + 1
                    if empty == EMPTY_GAMES:
                        raise AgentError(f"{args.teacher} labelled no position in {EMPTY_GAMES} games in a row")
                    batch.append(game)
                    done += len(game.scores)
                    bar.update(len(game.scores))
                    if sum(len(g.scores) for g in batch) >= args.shard_size or done >= args.positions:
                        full, batch = batch, []  # emptied first: a Ctrl-C during the write never stores it twice
                        shards.write(full)
                    if done >= args.positions:
                        break
        except KeyboardInterrupt:
            stop.interrupted()
        finally:
            bar.close()
            if batch:  # whole games, finished before the stop: kept
                shards.write(batch)
    print(f"labelled {done:,} positions in {len(shards.paths)} files ({time.monotonic() - started:.0f} s this time)")
    if stop.requested:
        print(f"{stop.requested}: the labelled files are kept; --resume continues")
    return stop.requested
