"""The teacher's self-play in a worker process, one chunk of moves ahead of the learner.

While ``material-mcts`` plays self-play (four-player ``--teacher-games``) no network is needed to
play, so the teacher's games can go on beside the learner instead of taking turns with it: the
worker plays the next ``moves_per_iteration`` moves of its games while the learner learns from the
games the last chunk finished. On a 2-core CPU the search and the learner then have a core each.

    worker = TeacherWorker(config, seed=[0, 0, 0])
    worker.submit(8)          # the worker plays 8 moves in each of its games
    chunk = worker.result()   # its finished games (value targets blended, ``--teacher-value-weight``)
    worker.close()

The worker owns the games in flight; those it holds when the run stops or the network takes over
are lost, as they are when the teacher plays in the run's own process. It ignores Ctrl-C and
SIGTERM (the run saves and then closes it) and ends when the run's process does.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

import numpy as np

from chess_envs.agents.four_player.material import MaterialEvaluator
from chess_envs.train.alphazero.config import AlphaZeroConfig, configured_self_play
from chess_envs.train.alphazero.selfplay import FinishedGame, SelfPlay


@dataclass
class Chunk:
    """What the worker played in one chunk of moves."""

    games: list[FinishedGame]
    """the games that finished, value targets blended with the teacher's evaluation"""
    seconds: float
    """the worker's wall time for the chunk"""
    evaluator_seconds: float
    """of which in the material evaluator"""


def with_teacher_values(games: list[FinishedGame], teacher: MaterialEvaluator, weight: float) -> list[FinishedGame]:
    """The teacher's games with value targets ``(1 - weight) * outcome + weight * its evaluation``:
    one game's final standings are a noisy label for each of its hundreds of positions; the
    material and points the teacher reads off each position are a steadier, if shallower, one."""
    for game in games:
        game.values = ((1 - weight) * game.values + weight * teacher.values(game.planes)).astype(np.float32)
    return games


def new_teacher_self_play(config: AlphaZeroConfig, seed: Sequence[int]) -> SelfPlay:
    """Self-play with the material search as its teacher, at ``--teacher-simulations``."""
    return configured_self_play(config, MaterialEvaluator(), seed, teacher=True)


def play_chunk(self_play: SelfPlay, moves: int, weight: float) -> Chunk:
    """``moves`` moves of the teacher's games; the finished ones with the teacher's values blended in."""
    evaluator = self_play.search.evaluate
    assert isinstance(evaluator, MaterialEvaluator)
    tick, evaluator_before = time.monotonic(), evaluator.seconds
    games = self_play.play(moves)
    if weight:
        games = with_teacher_values(games, evaluator, weight)
    return Chunk(games, time.monotonic() - tick, evaluator.seconds - evaluator_before)


def _serve(connection: Connection, config: AlphaZeroConfig, seed: list[int]) -> None:
    """The worker: play a chunk for each number of moves it is sent, until the run's end of the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    self_play = new_teacher_self_play(config, seed)
    while True:
        try:
            moves = connection.recv()
        except (EOFError, OSError):
            return
        try:
            reply: Chunk | str = play_chunk(self_play, moves, config.teacher_value_weight)
        except Exception as error:  # handed to the run, which raises it
            reply = f"{type(error).__name__}: {error}"
        try:
            connection.send(reply)
        except (BrokenPipeError, OSError):
            return


class TeacherWorkerError(RuntimeError):
    """The teacher's worker failed or died."""


class TeacherWorker:
    """One worker process that plays the teacher's self-play games a chunk at a time."""

    def __init__(self, config: AlphaZeroConfig, seed: Sequence[int]) -> None:
        context = multiprocessing.get_context("spawn")  # the run's process holds torch's threads: no fork
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, config, list(seed)), name="teacher-self-play", daemon=True
        )
        self._process.start()
        child.close()
        self.busy = False
        """whether a chunk is being played (submitted, its result not yet taken)"""

    def submit(self, moves: int) -> None:
        """Start the next chunk: ``moves`` moves in every game the worker has in flight."""
        if self.busy:
            raise TeacherWorkerError("the teacher's worker is already playing a chunk: take its result first")
        try:
            self._connection.send(moves)
        except OSError as error:  # BrokenPipeError: the worker is gone
            raise self._died() from error
        self.busy = True

    def result(self) -> Chunk:
        """The chunk submitted last, once played (waits for it)."""
        if not self.busy:
            raise TeacherWorkerError("no chunk was submitted to the teacher's worker")
        try:
            reply = self._connection.recv()
        except (EOFError, OSError) as error:
            self.busy = False
            raise self._died() from error
        self.busy = False
        if isinstance(reply, str):
            raise TeacherWorkerError(f"the teacher's self-play failed: {reply}")
        return reply

    def _died(self) -> TeacherWorkerError:
        self._process.join(timeout=5)
        return TeacherWorkerError(f"the teacher's worker process died (exit code {self._process.exitcode})")

    def close(self) -> None:
        """Stop the worker; a chunk it is playing is dropped."""
        self._connection.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self.busy = False
