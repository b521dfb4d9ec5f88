"""The results file of a tournament: one JSON line per finished game, appended as games end.

A line is written with one ``write`` and flushed to disk, so a killed run leaves at most a
torn last line; reading skips such lines with a warning (their games are played again) and the
next append starts on a fresh line. Nothing valid is ever rewritten.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from evaluate.game import GameRecord


def read_results(path: Path) -> dict[str, GameRecord]:
    """Valid records of ``path`` by game id (the first of any duplicates); corrupt lines are skipped."""
    records: dict[str, GameRecord] = {}
    if not path.exists():
        return records
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = GameRecord.from_dict(json.loads(line))
            except (ValueError, TypeError) as error:
                warnings.warn(
                    f"{path}:{number}: corrupt result line skipped, its game will be replayed ({error})", stacklevel=2
                )
                continue
            records.setdefault(record.id, record)
    return records


class ResultsWriter:
    """Appends records to the results file, durable line by line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        needs_newline = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
        self._handle = path.open("a", encoding="utf-8")
        if needs_newline:
            self._handle.write("\n")

    def append(self, record: GameRecord) -> None:
        self._handle.write(json.dumps(record.to_dict()) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
