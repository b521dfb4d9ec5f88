"""How many self-play actors one learner can feed, measured in parts for each game's preset:

- an actor's positions per second on one core (a real actor, the preset's network and search);
- the learner side's ingestion limit: fake actors replay recorded games (random legal play, real
  planes) into the asynchronous pipeline at rising rates until it saturates, that is until it no
  longer holds its replay ratio (the lock-step loop's at the preset with 2 actors) within 10%; and
  the store-and-sample rate alone (no learning);
- a weight version's bytes, and the time to publish one to Ray's object store and have two actors
  on this machine fetch it.

    python benchmarks/pipeline_scale.py [--presets los_alamos chess four_player] [--seconds 4]

It prints the parts and the projection (actors = ingestion limit / actor rate, and with learner
steps that cost nothing, as on a fast GPU, store-and-sample rate / actor rate; the network bound =
a link's bytes per second / (version bytes x versions per second), one fetch per node); the
figures and their reading are in docs/training.md (Ray) and the experiment log.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import tempfile
import time

import numpy as np
import ray
import torch

from chess_envs.registry import new_state
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.pipeline import Actor, Delivery, Pipeline, Window, lockstep_replay_ratio
from chess_envs.train.alphazero.selfplay import FinishedGame
from chess_envs.train.config import build

ACTORS = 2
"""the actors the replay ratio is the lock-step loop's for (as benchmarks/pipeline_busy.py runs)"""
START = 16
"""the first offered rate is an actor's rate / START; each next one STEP times the last"""
STEP = 1.5
LINK = 125e6
"""bytes per second of the link the projection assumes between the learner and a node (1 Gbit/s)"""


def recorded_games(game: str, count: int, max_plies: int, rng: np.random.Generator) -> list[FinishedGame]:
    """``count`` games of random legal moves: real planes and legal actions, uniform policies."""
    games = []
    for _ in range(count):
        state, planes, actions = new_state(game), [], []
        while not state.is_terminal() and len(planes) < max_plies:
            legal = np.asarray(state.legal_actions())
            planes.append(state.observation())
            actions.append(legal)
            state.apply(int(rng.choice(legal)))
        policies = [np.full(len(a), 1 / len(a), np.float32) for a in actions]
        width = 1 if state.num_players == 2 else state.num_players
        values = np.zeros((len(planes), width), np.float32)
        versions = np.zeros(len(planes), np.int64)
        games.append(FinishedGame(np.stack(planes), actions, policies, values, np.zeros(width, np.float32), versions))
    return games


class FakeStream:
    """Actors that replay recorded games at ``rate`` positions per second in all; a delivery is
    pickled when made and unpickled at the poll, as Ray hands one over."""

    def __init__(self, games: list[FinishedGame], rate: float) -> None:
        self.actors, self.restarts = ACTORS, 0
        self.games, self.rate = [pickle.dumps(game) for game in games], rate
        self.plies = [game.plies for game in games]
        self.started = time.monotonic()
        self.sent = self.next = 0
        self.version = 0

    def publish(self, weights: dict, version: int, teach: bool) -> None:
        self.version = version

    def poll(self, timeout: float) -> list[Delivery]:
        due = self.rate * (time.monotonic() - self.started)
        if self.sent >= due and timeout:
            time.sleep(min(timeout, (self.sent - due) / self.rate + 1e-4))
            due = self.rate * (time.monotonic() - self.started)
        deliveries = []
        while self.sent + self.plies[self.next % len(self.games)] <= due:  # a game arrives once it is played
            index = self.next % len(self.games)
            game: FinishedGame = pickle.loads(self.games[index])
            game.versions[:] = self.version
            plies = self.plies[index]
            deliveries.append(Delivery(self.next % ACTORS, [game], self.version, 0, 0.0, plies, 1.0, 1.0, self.version))
            self.sent += plies
            self.next += 1
        return deliveries

    def close(self) -> None:
        pass


def preset(game: str, folder: str, **changes: object) -> AlphaZeroConfig:
    """``game``'s preset as the async pipeline on ``ACTORS`` Ray actors would run it, with ``changes``."""
    settings = {**PRESETS[game], "teacher_games": 0, "eval_every": 0, "progress": False, **changes}
    return build(AlphaZeroConfig, **settings, runs_dir=folder, run_name=game, pipeline="async", ray_workers=ACTORS)


def actor_rate(config: AlphaZeroConfig, seconds: float) -> float:
    """A real actor's positions per second on one thread (the preset's network and search)."""
    actor = Actor(config, 1, [0])
    weights = {k: v.clone() for k, v in actor.network.state_dict().items()}
    actor.play(weights, 0, 1)  # the first move builds the trees
    positions, start = 0, time.monotonic()
    while time.monotonic() - start < seconds:
        positions += actor.play(None, 0, 1).positions
    return positions / (time.monotonic() - start)


def filled(game: str, folder: str, games: list[FinishedGame]) -> Learner:
    """A learner of ``game``'s preset whose replay already holds ``min_replay`` positions; its
    iterations end at every delivery (the preset's ratio kept), so the measurement's clock is read
    between deliveries, not once per thousand positions."""
    ratio = lockstep_replay_ratio(preset(game, folder), ACTORS)
    learner = Learner(preset(game, folder, moves_per_iteration=1, games_in_parallel=1, replay_ratio=ratio))
    while len(learner.replay) < learner.config.min_replay:
        learner.add_games(games)
    return learner


def held(game: str, games: list[FinishedGame], rate: float, seconds: float) -> tuple[float, float]:
    """(positions stored per second, replay ratio achieved / target) with fake actors offering ``rate``."""
    with tempfile.TemporaryDirectory() as folder:
        learner = filled(game, folder, games)
        config = learner.config
        stream = FakeStream(games, rate)
        pipeline = Pipeline(config, learner, stream)
        start, window = time.monotonic(), Window()
        while time.monotonic() - start < seconds:
            part, _ = pipeline.iteration()
            window.positions += part.positions
        learner.close()
        owed = pipeline.ratio * pipeline.learnable / config.batch_size
        held = min(1.0, (pipeline.steps + 1) / max(owed, 1e-9))  # one step behind is the step in progress
        return window.positions / (time.monotonic() - start), held


def store_and_sample(game: str, games: list[FinishedGame], seconds: float) -> float:
    """Positions per second stored, with a batch sampled per ``batch_size / ratio`` positions, no learning."""
    with tempfile.TemporaryDirectory() as folder:
        learner = filled(game, folder, games)
        config = learner.config
        ratio, rng = lockstep_replay_ratio(config, ACTORS), np.random.default_rng(0)
        stored, start, owed = 0, time.monotonic(), 0.0
        while time.monotonic() - start < seconds:
            for game in games:
                learner.add_games([game])
                stored += game.plies
                owed += game.plies * ratio / config.batch_size
                while owed >= 1 and len(learner.replay) >= config.batch_size:
                    learner.replay.sample(config.batch_size, rng)
                    owed -= 1
        learner.close()
        return stored / (time.monotonic() - start)


@ray.remote(num_cpus=0)
class Fetcher:
    def fetch(self, box: list) -> int:
        return sum(t.numel() * t.element_size() for t in ray.get(box[0]).values())


def broadcast(weights: dict[str, torch.Tensor], fetchers: list, repetitions: int = 10) -> float:
    """Median seconds to put a version in the object store and have every fetcher hold it."""
    times = []
    for _ in range(repetitions):
        start = time.monotonic()
        ref = ray.put(weights)
        ray.get([f.fetch.remote([ref]) for f in fetchers])
        times.append(time.monotonic() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["los_alamos", "chess", "four_player"])
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds a measurement")
    args = parser.parse_args()
    torch.set_num_threads(1)  # the learner on one core, as each actor: the projection scales by cores
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    fetchers = [Fetcher.remote() for _ in range(ACTORS)]
    rows = {}
    for game in args.presets:
        with tempfile.TemporaryDirectory() as folder:
            config = preset(game, folder)
            games = recorded_games(config.game, 40, min(config.max_plies, 120), np.random.default_rng(0))
            per_actor = actor_rate(config, args.seconds)
            learner = Learner(config)
            weights = learner.weights()
            learner.close()
        version_bytes = sum(t.numel() * t.element_size() for t in weights.values())
        seconds = broadcast(weights, fetchers)
        offered, limit = per_actor / START, 0.0
        while True:
            stored, share = held(game, games, offered, args.seconds)
            print(
                f"{game}: offered {offered:,.1f} positions/s, stored {stored:,.1f}, replay ratio {share:.0%} of target",
                flush=True,
            )
            if share < 0.9:  # the fake actors never fall behind: the learner's steps do
                break
            limit, offered = stored, offered * STEP
        if not limit:
            raise SystemExit(f"{game}: the learner saturates below {offered:,.1f} positions/s; lower START")
        sampled = store_and_sample(game, games, args.seconds)
        ratio = lockstep_replay_ratio(config, ACTORS)
        steps_per_s = limit * ratio / config.batch_size
        versions_per_s = steps_per_s / config.publish_every
        rows[game] = {
            "actor positions/s (1 core)": per_actor,
            "replay ratio (lock-step's, 2 actors)": ratio,
            "ingestion limit, learning (positions/s)": limit,
            "store and sample alone (positions/s)": sampled,
            "learner steps/s at the limit": steps_per_s,
            "weight version (MB)": version_bytes / 1e6,
            "publish + 2 actors fetch (ms)": seconds * 1e3,
            "actors one learner core feeds": limit / per_actor,
            "actors the store alone feeds (free steps)": sampled / per_actor,
            "nodes a 1 Gbit/s link feeds (versions)": LINK / (version_bytes * versions_per_s),
        }
        for key, value in rows[game].items():  # as measured: a run stopped early keeps each game's parts
            print(f"{game}: {key} {value:,.2f}", flush=True)
    ray.shutdown()
    print(f"\n{'figure':<42}" + "".join(f"{game:>14}" for game in rows))
    for key in next(iter(rows.values())):
        print(f"{key:<42}" + "".join(f"{row[key]:>14,.2f}" for row in rows.values()))


if __name__ == "__main__":
    main()
