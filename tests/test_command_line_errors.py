"""Bad arguments and unwritable paths give one-line errors with exit code 2, never tracebacks,
and a finished game is never lost.

Most cases call the command's ``main(argv)`` in this interpreter (what ``python -m`` runs; a
fresh interpreter importing torch costs ~3 s a case); one case per trainer and the evaluate
command still run as a real subprocess, so what a user's terminal shows is checked end to end."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import chess_envs.train.alphazero
import chess_envs.train.dqn
from chess_envs.agents import make_agent
from chess_envs.apps import export as checkpoint_cli
from tests.agents.test_uci import ROOT, tiny_checkpoint


@pytest.fixture()
def blocked(tmp_path: Path) -> Path:
    """A folder nobody can create, not even root: its parent is a file."""
    (tmp_path / "file").write_text("not a folder")
    return tmp_path / "file" / "sub"


def test_a_bogus_device_in_an_agent_spec(tmp_path: Path) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "la.pt", "los_alamos")
    with pytest.raises(ValueError, match="unknown device 'bogus'"):
        make_agent(f"alphazero:{checkpoint}?device=bogus", "los_alamos")
    result = subprocess.run(
        [sys.executable, "-m", "chess_envs.apps.arena_cli", "tournament", "--game", "los_alamos", "--agents", "random",
         f"alphazero:{checkpoint}?device=bogus", "--games-per-pair", "2", "--out", str(tmp_path / "t")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "unknown device 'bogus'" in result.stderr


def _exit(main: Callable[[list[str]], object], argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    """``main(argv)`` run in this interpreter, which must exit: (exit code, what it wrote to stderr)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    return exited.value.code, capsys.readouterr().err  # type: ignore[return-value]


TRAINERS = {"alphazero": chess_envs.train.alphazero.main, "dqn": chess_envs.train.dqn.main}


def _train(trainer: str, capsys: pytest.CaptureFixture, *flags: str) -> tuple[int, str]:
    return _exit(TRAINERS[trainer], ["--preset", "smoke", "--progress", "false", *flags], capsys)


@pytest.mark.parametrize("trainer", ["alphazero", "dqn"])
def test_a_bad_training_argument_in_a_real_terminal(trainer: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", f"chess_envs.train.{trainer}", "--preset", "smoke", "--progress", "false",
         "--runs-dir", str(tmp_path), "--learning-rate", "nan"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "learning_rate must be a finite number" in result.stderr


@pytest.mark.parametrize("trainer", ["alphazero", "dqn"])
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--device", "tpu"], "device 'tpu'"),
        (["--learning-rate", "nan"], "learning_rate must be a finite number"),
        (["--learning-rate", "-1"], "learning_rate must be > 0"),
        (["--run-name", ".."], "run_name must be a folder name"),
        (["--run-name", "a/b"], "run_name must be a folder name"),
    ],
)
def test_bad_training_arguments(trainer: str, flags: list[str], message: str, tmp_path: Path, capsys) -> None:
    code, err = _train(trainer, capsys, "--runs-dir", str(tmp_path), *flags)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
@pytest.mark.parametrize("trainer", ["alphazero", "dqn"])
def test_cuda_on_a_cpu_only_torch(trainer: str, tmp_path: Path, capsys) -> None:
    code, err = _train(trainer, capsys, "--runs-dir", str(tmp_path), "--device", "cuda")
    assert code == 2 and "sees no CUDA GPU" in err and "Traceback" not in err


@pytest.mark.parametrize("trainer", ["alphazero", "dqn"])
def test_an_unwritable_runs_dir(trainer: str, blocked: Path, capsys) -> None:
    code, err = _train(trainer, capsys, "--runs-dir", str(blocked))
    assert code == 2 and "cannot use the run folder" in err and err.count("\n") == 1


def test_export_to_an_unwritable_path(tmp_path: Path, blocked: Path, capsys) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "la.pt", "los_alamos")
    code, err = _exit(checkpoint_cli.main, [str(checkpoint), str(blocked / "small.pt")], capsys)
    assert code == 2 and "cannot write" in err


def test_play_checks_the_pgn_path_before_the_first_move(blocked: Path, monkeypatch, capsys) -> None:
    import chess_envs.apps.arena_cli as cli

    monkeypatch.setattr("sys.stdin", io.StringIO("b2b3\nquit\n"))
    with pytest.raises(SystemExit) as exited:
        cli.main(["play", "--game", "los_alamos", "--agent", "greedy", "--pgn", str(blocked / "game.pgn")])
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and "cannot write" in err and "your move" not in out


def test_a_finished_game_is_kept_when_its_pgn_cannot_be_written(tmp_path: Path, monkeypatch, capsys) -> None:
    import chess_envs.apps.arena_cli as cli

    real_save = cli.save_pgn
    wanted = tmp_path / "game.pgn"

    def folder_gone(record, path):
        if Path(path) == wanted:
            raise OSError("No such file or directory")
        return real_save(record, path)

    monkeypatch.setattr(cli, "save_pgn", folder_gone)
    monkeypatch.setattr(cli.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("b2b3\nquit\n"))
    cli.main(["play", "--game", "los_alamos", "--agent", "greedy?seed=1", "--pgn", str(wanted)])
    err = capsys.readouterr().err
    kept = list(tmp_path.glob("chess-envs-game-*.pgn"))
    assert len(kept) == 1 and str(kept[0]) in err and "1. b2b3" in kept[0].read_text()


@pytest.mark.parametrize(
    ("trainer", "flags", "message"),
    [
        ("alphazero", ["--games-in-parallel", "1000000"], "games_in_parallel must be <= 4,096"),
        ("alphazero", ["--replay-size", "1000000000"], "would take"),
        ("dqn", ["--buffer-size", "1000000000"], "would take"),
        ("dqn", ["--envs", "100000"], "envs must be <= 256"),
    ],
)
def test_absurd_sizes_are_refused_before_allocating(
    trainer: str, flags: list[str], message: str, tmp_path: Path, capsys
) -> None:
    code, err = _train(trainer, capsys, "--runs-dir", str(tmp_path), *flags)
    assert code == 2 and message in err
