"""--backend ray on a real local Ray (2 CPUs): a smoke run to a checkpoint, surviving a killed actor."""

from __future__ import annotations

import json
import os
import signal

import pytest

if os.environ.get("CI"):
    import ray  # CI installs the dev extras, Ray included: never skip there
else:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install -e '.[ray]')")

from chess_envs.agents.alphazero.checkpoint import load_checkpoint  # noqa: E402
from chess_envs.registry import new_state  # noqa: E402
from chess_envs.train import alphazero  # noqa: E402
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig  # noqa: E402
from chess_envs.train.alphazero.replay import ReplayBuffer  # noqa: E402
from chess_envs.train.config import build  # noqa: E402


@pytest.fixture()
def local_ray():
    sigterm = signal.getsignal(signal.SIGTERM)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
    signal.signal(signal.SIGTERM, sigterm)  # Ray's driver leaves SIGTERM at the default


def test_smoke_run_survives_a_killed_self_play_actor(tmp_path, local_ray):
    """The same loop as a local run; the actors only play. One is killed after iteration 2: Ray
    restarts it, the run goes on and the restarted actor plays."""
    settings = {**PRESETS["smoke"], "runs_dir": str(tmp_path), "run_name": "r", "iterations": 5, "eval_every": 0}
    config = build(AlphaZeroConfig, **settings, progress=False, backend="ray", ray_workers=2)
    seen = {}

    def hook(iteration, players, learner):
        counters = {**learner.counters, "replay_size": len(learner.replay)}
        if iteration == 2:
            seen["before_kill"] = counters
            seen["pid"] = ray.get(players.actors[0].pid.remote())
            ray.kill(players.actors[0], no_restart=False)
        if iteration == 5:
            seen["after"] = counters
            seen["restarts"] = players.restarts
            weights = [ray.put(learner.weights())]
            seen["restarted_actor_plays"] = ray.get(players.actors[0].play.remote(weights, 1, 2))
            seen["new_pid"] = ray.get(players.actors[0].pid.remote())

    path = alphazero.run(config, on_iteration=hook)
    payload = load_checkpoint(path, "los_alamos")
    before, after = seen["before_kill"], seen["after"]
    assert after["learner_steps"] > before["learner_steps"] > 0
    assert after["games"] >= before["games"] and after["replay_size"] >= before["replay_size"]
    assert payload["counters"]["iteration"] == 5 and payload["counters"]["learner_steps"] == after["learner_steps"]
    delivery = seen["restarted_actor_plays"]
    assert isinstance(delivery.games, list) and delivery.evaluations > 0 and delivery.network_seconds > 0
    assert delivery.version == 1 and 0 < delivery.busy_seconds <= delivery.wall_seconds
    assert seen["new_pid"] != seen["pid"]  # a new process took the killed one's place
    assert (tmp_path / "r" / "metrics.jsonl").exists() and (tmp_path / "r" / "replay" / "index.json").exists()


def test_an_async_run_on_ray_goes_on_past_a_killed_actor(tmp_path, local_ray):
    """Actors play all the time; one is killed mid-run: its calls in flight are lost and counted,
    Ray restarts it, the learner keeps its steps and replay, and the restarted actor delivers again."""
    settings = {**PRESETS["smoke"], "runs_dir": str(tmp_path), "run_name": "a", "iterations": 30, "eval_every": 0}
    config = build(AlphaZeroConfig, **settings, progress=False, backend="ray", ray_workers=2, pipeline="async")
    seen: dict = {}

    def hook(iteration, pipeline, learner):
        if iteration == 3:
            seen["before"] = dict(learner.counters)
            seen["pid"] = pipeline.stream.pids[0]
            ray.kill(pipeline.stream.handles[0], no_restart=False)
        if iteration > 3 and "back" not in seen and pipeline.stream.pids[0] != seen["pid"]:
            seen["back"] = iteration, pipeline.stream.restarts  # the restarted actor delivered

    path = alphazero.run(config, on_iteration=hook)
    counters = load_checkpoint(path, "los_alamos")["counters"]
    assert counters["iteration"] == 30 and counters["games"] >= seen["before"]["games"]
    assert counters["learner_steps"] >= seen["before"]["learner_steps"]
    back, restarts = seen["back"]
    assert back < 30 and restarts >= 1
    rows = [json.loads(line) for line in (tmp_path / "a" / "metrics.jsonl").read_text().splitlines()]
    assert rows[-1]["pipeline/restarts"] >= 1


@pytest.mark.parametrize("pipeline", ["async", "lockstep"])
def test_the_four_player_teacher_plays_on_ray_actors_then_the_network(tmp_path, local_ray, pipeline):
    """The teacher's games on the actors, in either loop, until its share is played."""
    settings = {**PRESETS["smoke"], "runs_dir": str(tmp_path), "run_name": "t", "iterations": 8, "eval_every": 0}
    taught = {"game": "four_player", "teacher_games": 8, "teacher_simulations": 4, "pipeline": pipeline}
    config = build(AlphaZeroConfig, **settings, **taught, progress=False, backend="ray", ray_workers=2)
    path = alphazero.run(config)
    counters = load_checkpoint(path, "four_player")["counters"]
    replay = ReplayBuffer(2_000, new_state("four_player").observation_shape, 4)
    replay.load(tmp_path / "t" / "replay")
    versions = replay.versions[: replay.size]
    assert counters["games"] > 8 and counters["learner_steps"] > 0
    assert (versions == -1).sum() >= 8 * 30 and (versions >= 0).sum() > 0  # both actors taught, then the network
