"""A run's scalars: TensorBoard events and one JSON line each in ``metrics.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path

from torch.utils.tensorboard import SummaryWriter

from chess_envs.files import ctrl_c_deferred


class RunLog:
    """Opens the TensorBoard writer on first use, so a run that logs nothing leaves no events file."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._writer: SummaryWriter | None = None

    def write(self, step: int, values: dict[str, float]) -> None:
        """Scalars at ``step`` (learner steps) to both places (Ctrl-C waits: TensorBoard's writer
        queue would be left locked, ``metrics.jsonl`` with half a line)."""
        with ctrl_c_deferred():
            if self._writer is None:
                self._writer = SummaryWriter(str(self.run_dir))
            for key, value in values.items():
                self._writer.add_scalar(key, value, step)
            with (self.run_dir / "metrics.jsonl").open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"learner_steps": step, **values}) + "\n")

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
