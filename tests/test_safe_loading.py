"""No file the project loads can run code, and sizes read from files are capped before allocating.

A crafted stable-baselines3 zip and a crafted replay file hold an object whose ``__reduce__``
creates a marker file when unpickled; every entry point must refuse them with a clear error and
leave no marker.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from chess_envs.agents import make_agent
from chess_envs.agents.alphazero.checkpoint import CheckpointError, load_network, save_checkpoint
from chess_envs.agents.alphazero.network import NetworkConfig
from chess_envs.agents.base import AgentError
from chess_envs.agents.dqn import FORMAT, DQNCheckpointError, read_checkpoint
from chess_envs.registry import new_state

ROOT = Path(__file__).resolve().parents[1]


class Touch:
    """Unpickling this creates ``marker``: the stand-in for arbitrary code."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def crafted_sb3_zip(path: Path, marker: Path, game: str = "los_alamos") -> Path:
    payload = base64.b64encode(pickle.dumps(Touch(marker))).decode()
    data = {"game": game, "policy_class": {":type:": "<class 'type'>", ":serialized:": payload}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", b"")
        archive.writestr("pytorch_variables.pth", b"")
        archive.writestr("_stable_baselines3_version", "2.3.0")
    return path


@pytest.fixture()
def evil(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "MARKER"
    return crafted_sb3_zip(tmp_path / "evil.zip", marker), marker


@pytest.mark.parametrize("game", ["los_alamos", "chess"])
def test_make_agent_refuses_a_crafted_zip_without_unpickling(evil, game: str) -> None:
    path, marker = evil
    with pytest.raises(AgentError, match="stable-baselines3 zip"):
        make_agent(f"dqn:{path}", game)
    assert not marker.exists()


def test_uci_answers_and_never_unpickles(evil) -> None:
    path, marker = evil
    result = subprocess.run(
        [sys.executable, "-m", "chess_envs.apps.uci", "--agent", f"dqn:{path}"],
        input=b"uci\nisready\nposition startpos\ngo nodes 1\nquit\n",
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    out = result.stdout.decode()
    assert result.returncode == 0 and "bestmove" in out and "stable-baselines3 zip" in out
    assert not marker.exists()


def test_tournament_refuses_the_crafted_zip(evil, tmp_path: Path, capsys) -> None:
    from chess_envs.apps.arena_cli import main

    path, marker = evil
    argv = ["tournament", "--game", "los_alamos", "--agents", "random", f"dqn:{path}", "--games-per-pair", "2"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(tmp_path / "t"), "--workers", "1", "--quiet"])
    assert exit_info.value.code == 2 and "stable-baselines3 zip" in capsys.readouterr().err
    assert not marker.exists()


def test_play_refuses_the_crafted_zip(evil, capsys, monkeypatch) -> None:
    from chess_envs.apps.arena_cli import main

    path, marker = evil
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # never read: the agent is refused first
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--game", "chess", "--agent", f"dqn:{path}"])
    assert exit_info.value.code == 2 and "stable-baselines3 zip" in capsys.readouterr().err
    assert not marker.exists()


def _train(tmp_path: Path, *flags: str) -> Path:
    from chess_envs.train.dqn import main

    base = ["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "r", "--progress", "false"]
    return main([*base, "--eval-every", "0", *flags])


def test_resume_never_unpickles_old_format_files(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "r" / "checkpoints"
    folder.mkdir(parents=True)
    marker = tmp_path / "MARKER"
    crafted_sb3_zip(folder / "last.zip", marker)
    (folder / "replay.pkl").write_bytes(pickle.dumps(Touch(marker)))
    with pytest.raises(SystemExit) as exit_info:
        _train(tmp_path, "--total-steps", "600", "--resume")
    assert exit_info.value.code == 2 and "old pickled SB3 format" in capsys.readouterr().err
    assert not marker.exists()


def test_resume_refuses_a_replay_holding_objects(tmp_path: Path, capsys) -> None:
    _train(tmp_path, "--total-steps", "600")
    folder = tmp_path / "r" / "checkpoints"
    replay = folder / json.loads((folder / "manifest.json").read_text())["replay"]
    marker = tmp_path / "MARKER"
    with open(replay, "wb") as handle:
        np.savez(handle, observation=np.array([Touch(marker)], dtype=object))
    with pytest.raises(SystemExit) as exit_info:
        _train(tmp_path, "--total-steps", "700", "--resume")
    assert exit_info.value.code == 2 and "not a readable replay file" in capsys.readouterr().err
    assert not marker.exists()


def test_an_absurd_alphazero_network_is_refused_before_allocating(tmp_path: Path) -> None:
    state = new_state("los_alamos")
    config = NetworkConfig(*state.observation_shape, state.num_actions, filters=30_000).to_dict()
    save_checkpoint(tmp_path / "big.pt", {"game": "los_alamos", "network": config, "model": {}})
    with pytest.raises(CheckpointError, match="filters=30000 is outside"):
        load_network(tmp_path / "big.pt", "los_alamos")
    within_each_limit = {**config, "filters": 1024, "blocks": 64}
    save_checkpoint(tmp_path / "deep.pt", {"game": "los_alamos", "network": within_each_limit, "model": {}})
    with pytest.raises(CheckpointError, match="parameters"):
        load_network(tmp_path / "deep.pt", "los_alamos")
    wrong_shape = {**config, "filters": 8, "in_channels": 7}
    save_checkpoint(tmp_path / "shape.pt", {"game": "los_alamos", "network": wrong_shape, "model": {}})
    with pytest.raises(CheckpointError, match="does not fit los_alamos"):
        load_network(tmp_path / "shape.pt", "los_alamos")


def test_an_absurd_dqn_network_is_refused_before_allocating(tmp_path: Path) -> None:
    state = new_state("los_alamos")
    meta = {
        "game": "los_alamos",
        "observation_shape": list(state.observation_shape),
        "num_actions": state.num_actions,
        "step": 0,
        "filters": 30_000,
        "layers": 3,
        "hidden": 256,
    }
    torch.save({"format": FORMAT, "meta": json.dumps(meta), "policy": {}}, tmp_path / "big.pt")
    with pytest.raises(DQNCheckpointError, match="filters=30000 is outside"):
        read_checkpoint(tmp_path / "big.pt", "los_alamos")
