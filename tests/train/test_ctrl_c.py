"""Ctrl-C in a training run: a save in progress finishes whole (torch turns an interrupted write into
an unrelated RuntimeError), then the run stops and saves; an interrupt a library swallowed still
stops it; SIGTERM stops it at the end of the iteration."""

from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path
from typing import BinaryIO

import pytest

import chess_envs.agents.alphazero.checkpoint as checkpoint
from chess_envs.agents.alphazero.checkpoint import load_checkpoint
from chess_envs.files import ctrl_c_deferred, write_atomic
from chess_envs.train.alphazero import main, run
from chess_envs.train.alphazero.config import PRESETS, AlphaZeroConfig
from chess_envs.train.alphazero.replay import read_index
from chess_envs.train.config import parse_args
from chess_envs.train.run_folder import StopSignals

pytestmark = pytest.mark.usefixtures("ctrl_c")


def test_ctrl_c_during_an_atomic_write_waits_for_the_write(tmp_path):
    def write(handle: BinaryIO) -> None:
        handle.write(b"first half, ")
        signal.raise_signal(signal.SIGINT)
        handle.write(b"second half")

    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "kept", write)
    assert (tmp_path / "kept").read_bytes() == b"first half, second half"
    assert [path.name for path in tmp_path.iterdir()] == ["kept"]  # no temporary file left
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_deferred_blocks_nest_and_the_outermost_hands_ctrl_c_on_once():
    calls: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _: calls.append(number))
    try:
        with ctrl_c_deferred():
            with ctrl_c_deferred():
                signal.raise_signal(signal.SIGINT)
                signal.raise_signal(signal.SIGINT)
            assert calls == []
        assert calls == [signal.SIGINT]
        with ctrl_c_deferred():
            pass
        assert calls == [signal.SIGINT]  # nothing pending: nothing handed on
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_ignored_ctrl_c_and_other_threads_are_left_alone():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with ctrl_c_deferred(), StopSignals() as stop:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
        assert not stop.requested
    finally:
        signal.signal(signal.SIGINT, previous)
    seen = []

    def in_a_thread() -> None:
        with ctrl_c_deferred(), StopSignals():
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


def test_stop_signals_set_the_flag_raise_on_ctrl_c_only_and_put_the_handlers_back():
    before = signal.getsignal(signal.SIGTERM)
    with StopSignals() as stop:
        signal.raise_signal(signal.SIGTERM)
        assert stop.requested == "terminated"
    with StopSignals() as stop:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        assert stop.requested == "interrupted"
    assert signal.getsignal(signal.SIGTERM) == before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def train(tmp_path: Path, *flags: str) -> Path:
    return main(["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "r", "--iterations", "8",
                 "--eval-every", "0", "--progress", "false", *flags])  # fmt: skip


def assert_saved_whole(tmp_path: Path, iterations: int) -> None:
    """Every checkpoint loads, the last one after ``iterations`` iterations; no temporary file is
    left; and the run resumes from it (its replay store holds what the checkpoint counts)."""
    run_dir = tmp_path / "r"
    for path in (run_dir / "checkpoints").glob("*.pt"):
        load_checkpoint(path)
    last = load_checkpoint(run_dir / "checkpoints" / "last.pt")
    assert last["counters"]["iteration"] == iterations
    assert read_index(run_dir / "replay")["added"] >= last["replay_added"] > 0
    assert not list(run_dir.rglob(".*.tmp"))
    resumed = load_checkpoint(train(tmp_path, "--resume", "--iterations", str(iterations + 1)))
    assert resumed["counters"]["iteration"] == iterations + 1


def test_ctrl_c_inside_torch_save_finishes_that_checkpoint_then_stops_and_saves(tmp_path, monkeypatch, capsys):
    real = checkpoint.write_atomic
    interrupts: list[Path] = []

    def interrupted_once(path: Path, write) -> Path:  # Ctrl-C after the first bytes of the first checkpoint
        class Handle:
            def __init__(self, handle: BinaryIO) -> None:
                self.handle, self.writes = handle, 0

            def write(self, data: bytes) -> int:
                self.writes += 1
                if self.writes == 3 and not interrupts:
                    interrupts.append(path)
                    signal.raise_signal(signal.SIGINT)
                return self.handle.write(data)

            def flush(self) -> None:
                self.handle.flush()

        return real(path, lambda handle: write(Handle(handle)))

    monkeypatch.setattr(checkpoint, "write_atomic", interrupted_once)
    train(tmp_path)
    out = capsys.readouterr().out
    assert interrupts and "interrupted: saving a checkpoint" in out
    first = load_checkpoint(interrupts[0])
    assert_saved_whole(tmp_path, first["counters"]["iteration"])  # stopped at the save it was in


def test_an_interrupt_a_library_swallowed_still_stops_the_run_after_its_iteration(tmp_path, capsys):
    def swallowing(iteration: int, *_: object) -> None:
        if iteration == 2:
            with contextlib.suppress(KeyboardInterrupt):  # what a careless library does
                signal.raise_signal(signal.SIGINT)

    flags = ["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "r", "--iterations", "8"]
    run(parse_args(AlphaZeroConfig, PRESETS, [*flags, "--eval-every", "0", "--progress", "false"]), swallowing)
    assert "interrupted: saving a checkpoint" in capsys.readouterr().out
    assert_saved_whole(tmp_path, 2)


def test_sigterm_stops_the_run_at_the_end_of_its_iteration_and_saves(tmp_path, capsys):
    flags = ["--preset", "smoke", "--runs-dir", str(tmp_path), "--run-name", "r", "--iterations", "8"]
    config = parse_args(AlphaZeroConfig, PRESETS, [*flags, "--eval-every", "0", "--progress", "false"])
    run(config, lambda iteration, *_: signal.raise_signal(signal.SIGTERM) if iteration == 3 else None)
    assert "terminated: saving a checkpoint" in capsys.readouterr().out
    assert_saved_whole(tmp_path, 3)
