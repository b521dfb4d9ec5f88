"""The asynchronous pipeline: the replay ratio and the staleness bound against a scripted stream,
then a real local run (a worker process beside the learner) to a checkpoint and its resume, and the
four-player teacher's games through the same pipeline until the network takes over."""

from __future__ import annotations

import json

import numpy as np
import pytest

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.registry import new_state
from chess_envs.train import alphazero
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.pipeline import Actor, Delivery, Pipeline
from chess_envs.train.alphazero.replay import ReplayBuffer
from chess_envs.train.alphazero.selfplay import FinishedGame
from chess_envs.train.config import build

SMOKE = {**PRESETS["smoke"], "eval_every": 0, "progress": False}


def game(plies: int, version: int) -> FinishedGame:
    """A finished Los Alamos game of ``plies`` start positions, all played with ``version``."""
    planes = np.stack([new_state("los_alamos").observation()] * plies)
    values = np.zeros((plies, 1), np.float32)
    policy = [np.array([0])] * plies, [np.array([1.0])] * plies
    return FinishedGame(planes, *policy, values, np.zeros(2, np.float32), np.full(plies, version, np.int64))


class ScriptedStream:
    """Two actors that each deliver one 10-position game when the learner waits for them (a learner
    faster than its actors); actor 1 keeps the version it was first given when ``stuck`` (a
    straggler that never takes new weights), or takes new weights but has a game in flight since
    version 0 when ``in_flight``."""

    actors, restarts = 2, 0

    def __init__(self, stuck: bool = False, in_flight: bool = False) -> None:
        self.stuck, self.in_flight, self.published, self.versions = stuck, in_flight, [], [0, 0]

    def publish(self, weights, version: int, teach: bool) -> None:
        self.published.append(version)
        self.versions = [version, self.versions[1] if self.stuck and self.published[1:] else version]

    def poll(self, timeout: float) -> list[Delivery]:
        if not timeout:
            return []
        oldest = [self.versions[0], 0 if self.in_flight else self.versions[1]]
        return [Delivery(i, [game(10, v)], v, 10, 0.0, 10, 1.0, 1.0, oldest[i]) for i, v in enumerate(self.versions)]

    def close(self) -> None:
        pass


def config(tmp_path, **settings) -> AlphaZeroConfig:
    base = {**SMOKE, "runs_dir": str(tmp_path), "run_name": "p", "min_replay": 40, "batch_size": 8}
    return build(AlphaZeroConfig, **{**base, **settings})


def test_the_learner_holds_the_replay_ratio_and_publishes_every_k_steps(tmp_path):
    settings = config(tmp_path, replay_ratio=2.0, publish_every=3, moves_per_iteration=25, games_in_parallel=1)
    learner, stream = Learner(settings), ScriptedStream()
    pipeline = Pipeline(settings, learner, stream)
    for _ in range(20):
        window, losses = pipeline.iteration()
        assert window.positions >= 50 and losses
    steps, learnable = learner.counters["learner_steps"], pipeline.learnable
    assert steps == pipeline.steps and learnable > 900
    assert 0 <= int(2.0 * learnable / 8) - steps <= 10  # behind by at most the last poll's positions
    assert pipeline.charts(window)["pipeline/replay_ratio"] == pytest.approx(2.0, rel=0.1)
    assert stream.published == list(range(0, steps + 1, 3))[: len(stream.published)]
    assert stream.published[-1] > steps - 3
    stored = learner.replay.versions[: len(learner.replay)]
    assert set(stored.tolist()) <= set(stream.published) and stored.max() > 0


def test_the_learner_waits_for_an_actor_beyond_the_staleness_bound(tmp_path):
    settings = config(tmp_path, replay_ratio=50.0, publish_every=1, max_staleness=5, games_in_parallel=1)
    learner, stream = Learner(settings), ScriptedStream(stuck=True)
    pipeline = Pipeline(settings, learner, stream)
    for _ in range(6):
        window, _ = pipeline.iteration()
        charts = pipeline.charts(window)
        assert charts["pipeline/actor_lag"] <= 5
    # the ratio alone would allow hundreds of steps; the straggler at version 0 holds the learner at 5
    assert learner.counters["learner_steps"] == 5 and stream.versions == [5, 0]
    assert charts["pipeline/staleness_max"] == 5


def test_a_game_in_flight_since_an_old_version_holds_the_learner(tmp_path):
    settings = config(tmp_path, replay_ratio=50.0, publish_every=1, max_staleness=5, games_in_parallel=1)
    learner, stream = Learner(settings), ScriptedStream(in_flight=True)
    pipeline = Pipeline(settings, learner, stream)
    for _ in range(6):
        pipeline.iteration()
    # actor 1 plays with the newest weights, but the first positions of its unfinished game are version 0's
    assert learner.counters["learner_steps"] == 5 and stream.versions == [5, 5]


def test_a_silent_actor_no_longer_holds_the_learner_and_its_stale_games_are_dropped(tmp_path):
    settings = config(tmp_path, replay_ratio=50.0, publish_every=1, max_staleness=5, games_in_parallel=1)
    learner, stream = Learner(settings), ScriptedStream(stuck=True)
    pipeline = Pipeline(settings, learner, stream)
    pipeline.LOST_AFTER = 0.0  # every actor counts as lost at once
    for _ in range(6):
        window, _ = pipeline.iteration()
    charts = pipeline.charts(window)
    assert learner.counters["learner_steps"] > 5 and charts["pipeline/stale_games_dropped"] > 0
    stored = learner.replay.versions[: len(learner.replay)]
    assert charts["pipeline/staleness_max"] <= 5 and (stored == 0).sum() < len(stored)


def test_the_default_ratio_is_the_lock_step_loops(tmp_path):
    # 4 steps of 8 samples after 5 moves in 2 games on each of 2 actors: 32 samples per 20 positions
    settings = config(tmp_path, replay_ratio=0.0, steps_per_iteration=4, moves_per_iteration=5, games_in_parallel=2)
    assert Pipeline(settings, Learner(settings), ScriptedStream()).ratio == pytest.approx(1.6)


def test_a_local_async_run_learns_beside_its_worker_and_resumes(tmp_path):
    settings = {**SMOKE, "runs_dir": str(tmp_path), "run_name": "a", "iterations": 4, "pipeline": "async"}
    path = alphazero.run(build(AlphaZeroConfig, **settings))
    counters = load_checkpoint(path, "los_alamos")["counters"]
    assert counters["iteration"] == 4 and counters["learner_steps"] > 0 and counters["games"] > 0
    rows = [json.loads(line) for line in (tmp_path / "a" / "metrics.jsonl").read_text().splitlines()]
    charts = rows[-1]
    for name in ("actor_busy_share", "learner_busy_share", "replay_ratio", "staleness_max", "weight_version"):
        assert f"pipeline/{name}" in charts
    # the default bound: a 30-ply game spans 2 iterations of 2 steps, plus 16 steps a version's age
    assert charts["pipeline/staleness_bound"] == 2 * 2 + 16 and charts["pipeline/actor_lag"] <= 20
    assert 0 < charts["pipeline/actor_busy_share"] <= 1
    replay = ReplayBuffer(2_000, new_state("los_alamos").observation_shape, 1)
    replay.load(tmp_path / "a" / "replay")
    assert replay.added == counters["positions"] and (replay.versions[: replay.size] >= 0).all()
    resumed = alphazero.run(build(AlphaZeroConfig, **{**settings, "iterations": 6, "resume": True}))
    again = load_checkpoint(resumed, "los_alamos")["counters"]
    assert again["iteration"] == 6 and again["learner_steps"] >= counters["learner_steps"]
    assert again["games"] >= counters["games"]


TAUGHT = {"game": "four_player", "teacher_games": 4, "teacher_simulations": 4, "pipeline": "async"}


def test_an_actor_plays_the_teachers_games_while_told_then_the_networks(tmp_path):
    settings = config(tmp_path, **TAUGHT, games_in_parallel=2)
    actor = Actor(settings, 0, [3])
    weights = {k: v.clone() for k, v in actor.network.state_dict().items()}
    taught = actor.play(weights, 7, 30, teach=True)  # 30 plies: the smoke preset's games end
    assert len(taught.games) == 2 and taught.evaluations == 0 and taught.network_seconds > 0
    assert all((game.versions == -1).all() for game in taught.games)  # no network played them
    assert taught.version == taught.oldest == 7  # the teacher's games hold no weights back
    played = actor.play(None, 7, 30)
    assert actor.teacher is None and played.evaluations > 0
    assert all((game.versions == 7).all() for game in played.games) and played.oldest == 7


def test_the_teacher_plays_through_the_local_pipeline_then_hands_over(tmp_path, capsys):
    settings = {**SMOKE, **TAUGHT, "runs_dir": str(tmp_path), "run_name": "t", "iterations": 8, "max_staleness": 4}
    path = alphazero.run(build(AlphaZeroConfig, **settings))
    counters = load_checkpoint(path, "four_player")["counters"]
    assert "the teacher played 4 games: the network plays from now on" in capsys.readouterr().out
    replay = ReplayBuffer(2_000, new_state("four_player").observation_shape, 4)
    replay.load(tmp_path / "t" / "replay")
    versions = replay.versions[: replay.size]
    assert replay.added == counters["positions"] and counters["games"] > 4
    # the teacher's games (4, and any it finished before the word reached it) are all stored, however
    # far the learner ran past the staleness bound since; then the network's
    taught = int((versions == -1).sum())
    assert taught >= 4 * 30 and taught % 30 == 0 and (versions >= 0).sum() > 0
