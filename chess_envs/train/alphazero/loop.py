"""AlphaZero self-play training, one readable script: self-play, learn, log, checkpoint.

    python -m chess_envs.train.alphazero --preset smoke                  # a minute, any game
    python -m chess_envs.train.alphazero --preset los_alamos --minutes 60
    python -m chess_envs.train.alphazero --preset los_alamos --resume    # continue runs/<run-name>

Two pieces do the work: self-play (:mod:`chess_envs.train.alphazero.players`: ``games_in_parallel`` games at once,
the leaves of all their search trees through the network in one batch, on a GPU when there is
one) hands back finished games; :class:`~chess_envs.train.alphazero.learner.Learner` stores them, learns and saves.
This script alternates the two (``--pipeline lockstep``, the default), or runs them side by side
(``--pipeline async``, :mod:`chess_envs.train.alphazero.pipeline`: self-play in a worker process or on Ray
actors, the learner at ``--replay-ratio``); ``--backend ray`` plays on Ray actors
(:mod:`chess_envs.train.alphazero.ray_backend`), through the same loop. A run folder ``runs/<run_name>/`` holds
``config.json``, ``checkpoints/`` (``last.pt`` and numbered copies: weights, optimizer, schedule,
counters, RNG states), ``replay/`` (the replay store), TensorBoard events and ``metrics.jsonl``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm

from chess_envs.agents.alphazero.checkpoint import CheckpointError
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.learner import REPLAY, Learner
from chess_envs.train.alphazero.pipeline import LocalStream, Pipeline
from chess_envs.train.alphazero.players import LocalSelfPlay, Played, Players, teaching
from chess_envs.train.alphazero.sections import take_init_shape
from chess_envs.train.alphazero.selfplay import FinishedGame
from chess_envs.train.config import fail, make_parser, parse_args
from chess_envs.train.run_folder import StopSignals

PROGRESS = (
    "pipeline/actor_busy_share",
    "pipeline/learner_busy_share",
    "pipeline/replay_ratio",
    "pipeline/staleness_max",
)
"""The asynchronous pipeline's charts that the progress line shows too."""


def game_metrics(games: list[FinishedGame]) -> dict[str, float]:
    """Length, draw rate and first-player win rate of the games that finished."""
    if not games:
        return {}
    outcomes = np.array([game.returns for game in games])
    return {
        "charts/game_length": float(np.mean([game.plies for game in games])),
        "charts/draw_rate": float(np.mean(np.all(outcomes == 0, axis=1))),
        "charts/first_player_win_rate": float(np.mean(outcomes[:, 0] > 0)),
    }


def run(
    config: AlphaZeroConfig, on_iteration: Callable[[int, Players | Pipeline, Learner], None] | None = None
) -> Path:
    """Start or resume the run of ``config`` and train until its limits; returns the last checkpoint."""
    try:
        config = take_init_shape(config)
    except (CheckpointError, ValueError) as error:
        fail(f"--init: {error}")
    learner = Learner(config)
    started = bool(learner.folder.checkpoint_files())
    learner.folder.open(config, started, folders=(REPLAY,))
    counters = learner.counters
    if started:
        try:
            path = learner.restore()
        except CheckpointError as error:
            fail(f"cannot resume {learner.run_dir}: {error}")
        print(
            f"resumed {learner.run_dir} from {path.name} at learner step {counters['learner_steps']}, "
            f"iteration {counters['iteration']}, {counters['games']} games, {len(learner.replay):,} positions in replay"
        )
    players: Players | Pipeline
    if config.backend == "ray":
        try:
            from chess_envs.train.alphazero.ray_backend import RaySelfPlay, RayStream
        except ImportError:
            fail("--backend ray needs Ray: pip install -e '.[ray]'")
        if config.pipeline == "async":
            players = Pipeline(config, learner, RayStream(config, learner))
        else:
            players = RaySelfPlay(config, learner)
    elif config.pipeline == "async":
        players = Pipeline(config, learner, LocalStream(config, learner))
    else:
        players = LocalSelfPlay(config, learner)
    started_at, seconds_before = time.monotonic(), counters["seconds"]
    bar = tqdm(desc="iterations", unit="it", disable=not config.progress, initial=counters["iteration"])
    totals = Played([], 0, 0.0, 0.0, 0)
    with StopSignals() as stop:
        try:
            while not stop.requested:
                trained = seconds_before + time.monotonic() - started_at
                if any(limit and trained >= limit * 60 for limit in (config.minutes, config.pause_at)):
                    break
                if config.iterations and counters["iteration"] >= config.iterations:
                    break
                steps_before = counters["learner_steps"]
                if isinstance(players, Pipeline):
                    window, losses = players.iteration()
                    played = Played(
                        window.games,
                        window.evaluations,
                        time.monotonic() - window.started,
                        window.network_seconds,
                        window.positions,
                        players.stream.restarts,
                    )
                    pipeline_charts = players.charts(window)
                else:
                    played = players.play(config.moves_per_iteration)
                    staleness = learner.add_games(played.games, played.evaluations)
                    tick = time.monotonic()
                    losses = learner.learn(config.steps_per_iteration)
                    learned = time.monotonic() - tick
                    pipeline_charts = {
                        "pipeline/learner_busy_share": learned / max(learned + played.seconds, 1e-9),
                        "pipeline/positions_in_per_s": played.positions / max(learned + played.seconds, 1e-9),
                        "pipeline/staleness_mean": float(staleness.mean()) if len(staleness) else 0.0,
                        "pipeline/staleness_max": float(staleness.max()) if len(staleness) else 0.0,
                    }
                    if played.worker_seconds:  # Ray actors: their wall since their last call's end holds the learning
                        pipeline_charts["pipeline/actor_busy_share"] = played.busy_seconds / played.worker_seconds
                        rate = played.positions / config.ray_workers / max(learned + played.seconds, 1e-9)
                        pipeline_charts["pipeline/slowest_actor_positions_per_s"] = rate  # the slowest gates all
                        pipeline_charts["pipeline/fastest_actor_positions_per_s"] = rate
                totals.seconds += played.seconds
                totals.network_seconds += played.network_seconds
                counters["iteration"] += 1
                counters["seconds"] = seconds_before + time.monotonic() - started_at
                if learner.due_for_checkpoint(steps_before):
                    learner.save()
                seconds = max(played.seconds, 1e-9)
                values = {
                    "charts/games_per_s": len(played.games) / seconds,
                    "charts/positions_per_s": played.positions / seconds,
                    "charts/nn_evals_per_s": played.evaluations / seconds,
                    "charts/network_share_of_self_play": played.network_seconds / seconds,
                    "charts/replay_size": len(learner.replay),
                    "charts/learning_rate": learner.optimization.learning_rate,
                    "charts/games": counters["games"],
                    "charts/worker_restarts": played.restarts,
                    **game_metrics(played.games),
                    **pipeline_charts,
                }
                if losses:
                    values["losses/policy"], values["losses/value"] = losses["policy"], losses["value"]
                if config.eval_every and counters["iteration"] % config.eval_every == 0:
                    values.update(learner.evaluate())
                    if config.teacher_handover and teaching(config, counters):
                        values["eval/score_vs_teacher"] = score = learner.score_against_teacher()
                        counters["handed_over"] = int(score >= config.teacher_handover)
                learner.log(values)
                bar.update()
                evals = {k.split("/")[1]: round(v, 2) for k, v in values.items() if k.startswith("eval/")}
                shown = {k.split("/")[1]: round(v, 2) for k, v in pipeline_charts.items() if k in PROGRESS}
                bar.set_postfix(games=counters["games"], steps=counters["learner_steps"], **shown, **evals)
                if on_iteration is not None:
                    on_iteration(counters["iteration"], players, learner)
        except KeyboardInterrupt:
            stop.interrupted()
        finally:
            bar.close()
            stop.announce()
            counters["seconds"] = seconds_before + time.monotonic() - started_at
            try:
                path = learner.save()  # before the players go: a Ctrl-C while they close loses nothing
            finally:
                players.close()
                learner.close()
    print(f"saved {path} ({counters['learner_steps']} learner steps, {counters['games']} games)")
    if totals.seconds and config.backend == "local":
        share = totals.network_seconds / totals.seconds
        print(f"self-play {totals.seconds:.0f} s: network {share:.1%}, search and game code {1 - share:.1%}")
    return path


def parser() -> argparse.ArgumentParser:
    """``chess-envs train``'s command line: a flag per setting, by section."""
    return make_parser(AlphaZeroConfig, PRESETS, __doc__.splitlines()[0], "chess-envs train")


def main(argv: list[str] | None = None) -> Path:
    """Train by self-play from the command line ``argv`` (``chess-envs train``); returns the run folder."""
    return run(parse_args(AlphaZeroConfig, PRESETS, argv, parser()))
