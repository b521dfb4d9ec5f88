"""The asynchronous pipeline on a real multi-node Ray cluster: a head and two self-play nodes (their own
raylets on this machine, started by Ray's ``Cluster``, each with a ``selfplay`` resource the head lacks).
Training joins with ``--ray-address`` and places its actors on those nodes; one node's raylet is
killed mid-run, the run goes on with the other, and uses the node again once it is started again."""

from __future__ import annotations

import os
import signal
import time

import pytest

if os.environ.get("CI"):
    import ray  # CI installs the dev extras, Ray included: never skip there
    from ray.cluster_utils import Cluster
else:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install -e '.[ray]')")
    from ray.cluster_utils import Cluster

from chess_envs.agents.alphazero.checkpoint import load_checkpoint  # noqa: E402
from chess_envs.registry import new_state  # noqa: E402
from chess_envs.train import alphazero  # noqa: E402
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig  # noqa: E402
from chess_envs.train.alphazero.replay import ReplayBuffer  # noqa: E402
from chess_envs.train.config import build  # noqa: E402

pytestmark = pytest.mark.slow
SELF_PLAY_NODE = {"num_cpus": 1, "resources": {"selfplay": 1}}
BOUND = 120.0
"""seconds within which each step of the story must happen"""


@pytest.fixture()
def cluster():
    sigterm = signal.getsignal(signal.SIGTERM)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    nodes = [cluster.add_node(**SELF_PLAY_NODE) for _ in range(2)]
    yield cluster, nodes
    ray.shutdown()
    cluster.shutdown()  # only the raylets and services this fixture started
    signal.signal(signal.SIGTERM, sigterm)


def test_a_killed_self_play_node_costs_only_its_games_and_is_used_again(tmp_path, cluster):
    cluster, nodes = cluster
    settings = {**PRESETS["smoke"], "runs_dir": str(tmp_path), "run_name": "c", "iterations": 10_000, "eval_every": 0}
    config = build(
        AlphaZeroConfig,
        **settings,
        progress=False,
        backend="ray",
        ray_address=cluster.address,
        ray_workers=2,
        ray_resources="selfplay=1",
        pipeline="async",
    )
    story: dict = {}

    def hook(iteration, pipeline, learner):
        stream, now = pipeline.stream, time.monotonic()
        if "placed" not in story and len(stream.pids) == 2:
            head = ray.get_runtime_context().get_node_id()
            placed = {ray.get(h.node.remote()) for h in stream.handles}
            story["placed"] = placed, head
            story["killed_at"], story["before"] = now, dict(learner.counters)
            story["killed_pid"] = stream.pids[0]
            cluster.remove_node(next(n for n in nodes if n.node_id == ray.get(stream.handles[0].node.remote())),
                                allow_graceful=False)  # fmt: skip
            story["steps_at_kill"] = learner.counters["learner_steps"]
        elif "killed_at" in story and "went_on" not in story:
            if learner.counters["learner_steps"] > story["steps_at_kill"] + 5:  # learning on the other node
                story["went_on"] = now - story["killed_at"]
                nodes.append(cluster.add_node(**SELF_PLAY_NODE))
                story["restarted_at"] = now
        elif "restarted_at" in story and stream.pids.get(0) != story["killed_pid"]:
            story["back"] = now - story["restarted_at"]  # the actor delivers from the new node
            story["back_on"], story["new_node"] = ray.get(stream.handles[0].node.remote()), nodes[-1].node_id
            story["after"] = dict(learner.counters)
            raise KeyboardInterrupt  # the run stops as at Ctrl-C: it saves
        for name in ("killed_at", "restarted_at"):
            if name in story and now - story[name] > BOUND and name.replace("_at", "") not in story:
                pytest.fail(f"{name}: nothing after {BOUND:.0f} s")

    path = alphazero.run(config, on_iteration=hook)
    placed, head = story["placed"]
    assert head not in placed and len(placed) == 2  # each actor on its own self-play node
    assert story["went_on"] < BOUND and story["back"] < BOUND
    assert story["back_on"] == story["new_node"]  # the restarted actor runs on the node started again
    counters = load_checkpoint(path, "los_alamos")["counters"]
    before, after = story["before"], story["after"]
    assert counters["games"] >= after["games"] > before["games"]
    assert counters["learner_steps"] >= after["learner_steps"] > before["learner_steps"]
    replay = ReplayBuffer(2_000, new_state("los_alamos").observation_shape, 1)
    replay.load(tmp_path / "c" / "replay")
    assert replay.added == counters["positions"]  # every stored game is in the store
