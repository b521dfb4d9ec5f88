"""A run's folder: starting or resuming it, its config file, and atomic checkpoints kept in turn.

runs/<run_name>/config.json          the run's config (nested sections; 0.2 wrote a flat args.json)
runs/<run_name>/checkpoints/         last.pt and numbered step_<steps>.pt, each written atomically
runs/<run_name>/metrics.jsonl, TensorBoard events, and what the trainer stores (replay/, data/)
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from chess_envs.files import CheckpointError, check_writable, remove_stale_temporaries, write_text_atomic
from chess_envs.train.config import Config, fail, to_dict

T = TypeVar("T")


class RunFolder:
    """The folder ``runs_dir/run_name`` of a config's run."""

    def __init__(self, config: Config, write: Callable[[Path, dict[str, Any]], None] | None = None) -> None:
        self.write = write
        """how the trainer writes a checkpoint file (atomically), for :meth:`save`"""
        self.path = Path(config.runs_dir) / config.run_name
        self.checkpoints = self.path / "checkpoints"

    def open(self, config: Config, started: bool, folders: tuple[str, ...] = ()) -> None:
        """Start or resume the run (a run already ``started`` needs ``--resume``), prove the folder
        writable, remove what interrupted saves left in it and in ``folders``, and write the config."""
        if started and not config.resume:
            fail(f"{self.path} already holds a run; pass --resume or choose another --run-name")
        if config.resume and not started:
            print(f"{self.path} has nothing saved yet: starting the run")
        try:
            check_writable(self.checkpoints / "last.pt")
        except OSError as error:
            fail(f"cannot use the run folder {self.path}: {error}")
        for folder in (self.path, self.checkpoints, *(self.path / name for name in folders)):
            for stale in remove_stale_temporaries(folder):
                print(f"removed {stale.name}, left by a save that was interrupted")
        write_text_atomic(self.path / "config.json", json.dumps(to_dict(config), indent=2))

    def checkpoint_files(self) -> list[Path]:
        """The checkpoints, newest first: numbered ones by step, then ``last.pt`` (written after the
        numbered copy of the same save, so never newer than it)."""
        last = [self.checkpoints / "last.pt"] if (self.checkpoints / "last.pt").exists() else []
        return [*sorted(self.checkpoints.glob("step_*.pt"), reverse=True), *last]

    def save(self, payload: dict[str, Any], step: int, keep: int) -> Path:
        """A numbered checkpoint of ``step`` and ``last.pt``; the oldest numbered ones past ``keep`` go."""
        if self.write is None:
            raise TypeError("this run folder was opened without a checkpoint writer")
        if keep:
            self.write(self.checkpoints / f"step_{step:08d}.pt", payload)
        self.write(self.checkpoints / "last.pt", payload)
        for old in sorted(self.checkpoints.glob("step_*.pt"))[:-keep] if keep else []:
            old.unlink()
        return self.checkpoints / "last.pt"

    def restore(self, load: Callable[[Path], T]) -> tuple[Path, T]:
        """``load`` the newest checkpoint that loads (saying why newer ones were skipped)."""
        problems = []
        for path in self.checkpoint_files():
            try:
                return path, load(path)
            except CheckpointError as error:
                problems.append(str(error))
                print(f"skipping {path.name}: {error}")
        raise CheckpointError("no checkpoint of the run loads: " + "; ".join(problems))


class StopSignals:
    """Ctrl-C and SIGTERM as a request to stop a training loop, which saves before it ends.

    The loop checks :attr:`requested` between steps; Ctrl-C also raises KeyboardInterrupt at once, to
    stop a long step (a save in progress finishes first: :func:`~chess_envs.files.ctrl_c_deferred`).
    The flag ends the loop even where a library swallowed the KeyboardInterrupt. Inside the ``with``
    block only, and in the main thread only (the one that receives signals).
    """

    def __init__(self) -> None:
        self.requested = ""
        """why the loop should stop: "interrupted" (Ctrl-C), "terminated" (SIGTERM), or "" """
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            self._previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._on_sigterm)
            if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a background job ignores Ctrl-C
                self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, *_: object) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    def interrupted(self) -> None:
        """Record a KeyboardInterrupt the loop caught (also one raised without the signal)."""
        self.requested = self.requested or "interrupted"

    def announce(self) -> None:
        """Say, if a signal stopped the loop, that it saves now."""
        if self.requested:
            print(f"\n{self.requested}: saving a checkpoint")

    def _on_sigint(self, *_: object) -> None:
        self.requested = "interrupted"
        raise KeyboardInterrupt

    def _on_sigterm(self, *_: object) -> None:
        self.requested = "terminated"
