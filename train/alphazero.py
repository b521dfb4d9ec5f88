"""AlphaZero self-play training, one readable script: self-play, learn, log, checkpoint.

    python -m train.alphazero --preset smoke                  # a minute, any game
    python -m train.alphazero --preset los_alamos --minutes 60
    python -m train.alphazero --preset los_alamos --resume    # continue runs/<run-name>

Two pieces do the work: :class:`~train.selfplay.SelfPlay` plays ``games_in_parallel`` games at
once (every move, the leaves of all their search trees go through the network in one batch, on
a GPU when there is one) and hands back finished games; :class:`~train.learner.Learner` stores
them, learns and saves. This script alternates the two; ``--backend ray`` runs the same two as
Ray actors (``train/ray_backend.py``). A run folder ``runs/<run_name>/`` holds ``args.json``,
``checkpoints/`` (``last.pt`` and numbered copies: weights, optimizer, schedule, counters, RNG
states), ``replay.npz`` (the replay buffer), TensorBoard events and ``metrics.jsonl``.
"""

from __future__ import annotations

import json
import signal
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents.alphazero.agent import NetworkEvaluator
from agents.alphazero.checkpoint import CheckpointError
from agents.alphazero.material import MaterialEvaluator
from chess_envs.files import remove_stale_temporaries, write_text_atomic
from train.alphazero_config import PRESETS, Args, self_play_search
from train.cli import fail, parse_args, prepare_run_dir
from train.learner import Learner
from train.selfplay import FinishedGame, SelfPlay


def new_self_play(args: Args, learner: Learner, seed: object) -> SelfPlay:
    """Self-play with the learner's network (one process: the same weights object), or while the
    run has played fewer than ``teacher_games`` games, with the material search as its teacher."""
    teacher = learner.counters["games"] < args.teacher_games
    return SelfPlay(
        args.game,
        MaterialEvaluator() if teacher else NetworkEvaluator(learner.network.eval(), learner.device),
        self_play_search(args, teacher),
        args.games_in_parallel,
        args.temperature_plies,
        args.max_plies,
        np.random.default_rng(seed),
        args.value_target_q,
    )


def with_teacher_values(games: list[FinishedGame], teacher: MaterialEvaluator, weight: float) -> list[FinishedGame]:
    """The teacher's games with value targets ``(1 - weight) * outcome + weight * its evaluation``:
    one game's final standings are a noisy label for each of its hundreds of positions; the
    material and points the teacher reads off each position are a steadier, if shallower, one."""
    for game in games:
        game.values = ((1 - weight) * game.values + weight * teacher.values(game.planes)).astype(np.float32)
    return games


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
    for folder in (run_dir, directory):
        remove_stale_temporaries(folder)
    write_text_atomic(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    return ray_backend.train(args)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, PRESETS, argv, description=__doc__.splitlines()[0])
    if args.backend == "ray":
        return _train_on_ray(args)
    learner = Learner(args)
    run_dir = learner.run_dir
    started = bool(learner.checkpoints())
    if started and not args.resume:
        fail(f"{run_dir} already holds a run; pass --resume or choose another --run-name")
    prepare_run_dir(run_dir)
    for folder in (run_dir, run_dir / "checkpoints"):
        for stale in remove_stale_temporaries(folder):
            print(f"removed {stale.name}, left by a save that was interrupted")
    if started:
        try:
            path = learner.restore()
        except CheckpointError as error:
            fail(f"cannot resume {run_dir}: {error}")
        counters = learner.counters
        print(
            f"resumed {run_dir} from {path.name} at learner step {counters['learner_steps']}, "
            f"iteration {counters['iteration']}, {counters['games']} games, {len(learner.replay):,} positions in replay"
        )
    elif args.resume:
        print(f"{run_dir} has no checkpoint yet: starting the run")
    write_text_atomic(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    self_play = new_self_play(args, learner, [args.seed, 0, learner.counters["iteration"]])
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    started_at = time.monotonic()
    seconds_before = learner.counters["seconds"]
    counters = learner.counters
    bar = tqdm(desc="iterations", unit="it", disable=not args.progress, initial=counters["iteration"])
    play_total = network_total = 0.0
    try:
        while not stop["now"]:
            if args.minutes and time.monotonic() - started_at >= args.minutes * 60:
                break
            if args.iterations and counters["iteration"] >= args.iterations:
                break
            if isinstance(self_play.search.evaluate, MaterialEvaluator) and counters["games"] >= args.teacher_games:
                print(f"the teacher played {counters['games']} games: the network plays from now on")
                self_play = new_self_play(args, learner, [args.seed, 1, counters["iteration"]])
            evaluator = self_play.search.evaluate
            tick = time.monotonic()
            evaluations = self_play.network_evaluations
            network_before = evaluator.seconds
            games = self_play.play(args.moves_per_iteration)
            if isinstance(evaluator, MaterialEvaluator) and args.teacher_value_weight:
                games = with_teacher_values(games, evaluator, args.teacher_value_weight)
            play_seconds = time.monotonic() - tick
            play_total += play_seconds
            network_total += evaluator.seconds - network_before
            learner.add_games(games, self_play.network_evaluations - evaluations)
            steps_before = counters["learner_steps"]
            losses = learner.learn(args.steps_per_iteration)
            if losses:
                self_play.forget_evaluations()  # they are of the weights before these steps
            counters["iteration"] += 1
            counters["seconds"] = seconds_before + time.monotonic() - started_at
            if learner.due_for_checkpoint(steps_before):
                learner.save()
            values = {
                "charts/games_per_s": len(games) / play_seconds,
                "charts/positions_per_s": args.moves_per_iteration * args.games_in_parallel / play_seconds,
                "charts/nn_evals_per_s": (self_play.network_evaluations - evaluations) / play_seconds,
                "charts/network_share_of_self_play": (evaluator.seconds - network_before) / play_seconds,
                "charts/replay_size": len(learner.replay),
                "charts/learning_rate": learner.scheduler.get_last_lr()[0],
                "charts/games": counters["games"],
                **game_metrics(games),
            }
            if losses:
                values["losses/policy"], values["losses/value"] = losses["policy"], losses["value"]
            if args.eval_every and counters["iteration"] % args.eval_every == 0:
                values.update(learner.evaluate())
            learner.log(values)
            bar.update()
            bar.set_postfix(
                games=counters["games"],
                steps=counters["learner_steps"],
                **{k.split("/")[1]: round(v, 2) for k, v in values.items() if k.startswith("eval/")},
            )
    except KeyboardInterrupt:
        print("\ninterrupted: saving a checkpoint")
    finally:
        bar.close()
        path = learner.save()
        learner.close()
    print(f"saved {path} ({counters['learner_steps']} learner steps, {counters['games']} games)")
    if play_total:
        print(
            f"self-play {play_total:.0f} s: network {network_total / play_total:.1%}, "
            f"search and game code {1 - network_total / play_total:.1%}"
        )
    return path


if __name__ == "__main__":
    main()
