"""The results file of a tournament: one JSON line per finished game, appended as games end.

A line is written with one ``write`` and flushed to disk, so a killed run leaves at most a
torn last line; reading skips such lines with a warning (their games are played again) and the
next append starts on a fresh line. Nothing valid is ever rewritten.

Games being played are shown in ``<out>/live/<hash>.json`` (:func:`live_path`: a game id holds
agent specs, and a spec's path must not become the file's): the record so far (termination
"playing"), rewritten atomically at most every :data:`LIVE_INTERVAL` seconds by the worker that
plays it and removed once its line is in the results file, so a watcher (``chess-envs serve
--tournament``) can follow a game move by move.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
import warnings
from pathlib import Path

from chess_envs.arena.game import GameRecord
from chess_envs.files import write_text_atomic

LIVE_DIR = "live"
LIVE_INTERVAL = 0.25
"""seconds between two writes of one live game (its last moves may show that much later)"""


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


def live_path(folder: Path, game_id: str) -> Path:
    """The live file of ``game_id`` in ``folder``: named by a hash of the id, since an id holds the
    players' specs, whose paths (``alphazero:../nets/a.pt``) would nest the file or lead it out."""
    return folder / LIVE_DIR / f"{hashlib.sha256(game_id.encode()).hexdigest()[:32]}.json"


class LiveGame:
    """The live file of one game: ``update(record)`` after each move writes the record so far,
    at most every :data:`LIVE_INTERVAL` seconds (the first call always)."""

    def __init__(self, folder: Path, game_id: str) -> None:
        self.path = live_path(folder, game_id)
        self.written = -float("inf")

    def update(self, record: GameRecord) -> None:
        now = time.monotonic()
        if now - self.written >= LIVE_INTERVAL:
            self.written = now
            write_text_atomic(self.path, json.dumps({**record.to_dict(), "termination": "playing"}))


def read_live(folder: Path) -> dict[str, GameRecord]:
    """The games of ``folder`` being played now, by id (a file torn or gone while read is skipped)."""
    live = folder / LIVE_DIR
    if not live.is_dir():
        return {}
    records = (_read_live_file(path) for path in sorted(live.glob("*.json")))
    return {record.id: record for record in records if record is not None}


def read_live_game(folder: Path, game_id: str) -> GameRecord | None:
    """The game ``game_id`` of ``folder`` as played so far; None once it is no longer being played
    (or its file is torn). Reads that one file."""
    record = _read_live_file(live_path(folder, game_id))
    return record if record is not None and record.id == game_id else None


def _read_live_file(path: Path) -> GameRecord | None:
    """One live file's record; None where it is torn or gone while read."""
    with contextlib.suppress(OSError, ValueError, TypeError):
        return GameRecord.from_dict(json.loads(path.read_text(encoding="utf-8")), finished=False)
    return None


def end_live(folder: Path, game_id: str | None = None) -> None:
    """Remove the live file of ``game_id`` (its result is written), or all of them (no game runs)."""
    if game_id is None:
        shutil.rmtree(folder / LIVE_DIR, ignore_errors=True)
    else:
        live_path(folder, game_id).unlink(missing_ok=True)
