"""Run folders written by 0.2 (tests/data/runs_0.2.0, see its README) resume with today's trainers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.train import alphazero, distill, dqn
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.learner import Learner
from chess_envs.train.alphazero.replay import ReplayBuffer
from chess_envs.train.config import build, from_dict

OLD = Path(__file__).resolve().parents[1] / "data" / "runs_0.2.0"
AZ_FLAGS = ["--preset", "smoke", "--run-name", "alphazero", "--replay-size", "120", "--min-replay", "16"]


def old_run(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(OLD / name, tmp_path / name))


def alphazero_settings(tmp_path: Path) -> dict:
    return {
        **PRESETS["smoke"],
        "runs_dir": str(tmp_path),
        "run_name": "alphazero",
        "replay_size": 120,
        "min_replay": 16,
    }


def test_an_alphazero_run_of_0_2_resumes_with_its_replay_buffer(tmp_path, capsys) -> None:
    folder = old_run("alphazero", tmp_path)
    before = load_checkpoint(folder / "checkpoints" / "last.pt")
    with np.load(folder / "replay.npz") as data:
        old_planes, (position, added) = data["planes"].copy(), data["counters"]
    assert added == before["replay_added"] > len(old_planes) == 120  # a full ring, wrapped

    # The learner restores the 0.2 ring position by position, oldest first.
    learner = Learner(build(AlphaZeroConfig, **alphazero_settings(tmp_path)))
    learner.restore()
    assert learner.counters == {**before["counters"], "handed_over": 0}  # a counter newer than 0.2, at its start
    assert learner.replay.added == added
    order = (np.arange(120) + position) % 120  # the old ring from its oldest row
    new_rows = np.arange(added - 120, added) % 120
    assert np.array_equal(learner.replay.planes[new_rows], old_planes[order])

    path = alphazero.main(
        [*AZ_FLAGS, "--runs-dir", str(tmp_path), "--resume", "--iterations", "5", "--progress", "false"]
    )
    assert (
        f"resumed {folder} from last.pt at learner step {before['counters']['learner_steps']}"
        in capsys.readouterr().out
    )
    after = load_checkpoint(path)
    assert (
        after["counters"]["iteration"] == 5 and after["counters"]["learner_steps"] > before["counters"]["learner_steps"]
    )
    assert after["replay_added"] > added
    assert not (folder / "replay.npz").exists(), "the old file's positions went into the store at the first save"
    index = json.loads((folder / "replay" / "index.json").read_text())
    assert index["added"] == after["replay_added"]
    # The store now holds the ring: a fresh buffer reads back what the run had.
    ring = ReplayBuffer(120, learner.replay.planes.shape[1:], 1)
    ring.load(folder / "replay")
    assert ring.added == after["replay_added"] and len(ring) == 120
    # Its config.json is the sections of today; the 0.2 args.json (flat) still reads as a config.
    assert json.loads((folder / "config.json").read_text())["search"]["simulations"] == 8
    old_args = json.loads((folder / "args.json").read_text())
    assert from_dict(AlphaZeroConfig, old_args).simulations == old_args["simulations"]


NEW = Path(__file__).resolve().parents[1] / "data" / "runs_0.3.0"


def test_an_alphazero_run_of_0_3_resumes_with_its_search_settings(tmp_path, capsys) -> None:
    """0.3 kept the self-play search in the selfplay section (``search_threads`` for ``threads``)."""
    folder = Path(shutil.copytree(NEW / "alphazero", tmp_path / "alphazero"))
    old_config = json.loads((folder / "config.json").read_text())
    assert "search" not in old_config and old_config["selfplay"]["search_threads"] == 1
    before = load_checkpoint(folder / "checkpoints" / "last.pt")
    path = alphazero.main(
        [*AZ_FLAGS, "--runs-dir", str(tmp_path), "--resume", "--iterations", "5", "--progress", "false"]
    )
    out = capsys.readouterr().out
    assert f"resumed {folder} from last.pt at learner step {before['counters']['learner_steps']}" in out
    after = load_checkpoint(path)
    assert after["counters"]["learner_steps"] > before["counters"]["learner_steps"]
    assert after["replay_added"] > before["replay_added"]
    config = from_dict(AlphaZeroConfig, old_config)
    assert (config.simulations, config.threads, config.mate_depth) == (8, 1, 2)
    assert json.loads((folder / "config.json").read_text())["search"]["simulations"] == 8


@pytest.mark.parametrize("data", [OLD, NEW], ids=["0.2", "0.3"])
def test_a_dqn_run_resumes_from_its_manifest(data: Path, tmp_path, capsys) -> None:
    folder = Path(shutil.copytree(data / "dqn", tmp_path / "dqn"))
    manifest = json.loads((folder / "checkpoints" / "manifest.json").read_text())
    flags = ["--preset", "smoke", "--run-name", "dqn", "--runs-dir", str(tmp_path), "--buffer-size", "60",
             "--learning-starts", "40", "--batch-size", "8", "--filters", "4", "--layers", "1", "--hidden", "8",
             "--checkpoint-every", "300", "--eval-every", "0", "--progress", "false"]  # fmt: skip
    dqn.main([*flags, "--resume", "--total-steps", "600"])
    assert f"resumed {folder} at step {manifest['step']}" in capsys.readouterr().out
    after = json.loads((folder / "checkpoints" / "manifest.json").read_text())
    assert after["step"] >= 600 and (folder / "checkpoints" / after["replay"]).exists()


def test_a_distillation_run_of_0_3_resumes_learning_from_its_shards(tmp_path, capsys) -> None:
    folder = Path(shutil.copytree(NEW / "distill", tmp_path / "distill"))
    before = load_checkpoint(folder / "checkpoints" / "last.pt")
    flags = ["--runs-dir", str(tmp_path), "--run-name", "distill", "--filters", "8", "--blocks", "1",
             "--value-hidden", "16", "--batch-size", "32", "--progress", "false", "--game", "los_alamos",
             "--teacher", "fairy-stockfish?depth=1", "--positions", "200", "--shard-size", "100",
             "--eval-every", "20", "--validation-share", "0.3", "--stage", "learn"]  # fmt: skip
    distill.main([*flags, "--resume", "--total-steps", "30"])
    after = load_checkpoint(folder / "checkpoints" / "last.pt")
    assert before["counters"]["learner_steps"] == 20 < after["counters"]["learner_steps"] == 30
