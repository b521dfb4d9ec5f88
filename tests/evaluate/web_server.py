"""A real uvicorn server of the web app on a free loopback port, and a tournament game being
played (its live file written as a tournament worker writes it), for the tests."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import uvicorn

from chess_envs.apps.web.server import create_app
from chess_envs.arena.game import GameRecord, random_openings
from chess_envs.arena.results import LiveGame, read_results
from chess_envs.arena.tournament import CONFIG_FILE, RESULTS_FILE, TournamentConfig, run_tournament


@contextlib.contextmanager
def serve(agents: list[str], **settings) -> Iterator[str]:
    """The page's URL while the server runs on a thread of this process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(agents, "127.0.0.1", port, **settings)
    running = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        running.should_exit = True
        thread.join(timeout=10)


def game_in_play(tmp_path: Path, agents: list[str]) -> tuple[Path, GameRecord, Callable[[int], None]]:
    """A tournament folder ``cup`` with one Los Alamos game of ``agents`` being played: its final
    record (played beforehand) and ``at(plies)``, which shows it after that many moves."""
    played = tmp_path / "played"
    openings = random_openings("los_alamos", 1, 4, seed=1)  # two games, one followed
    run_tournament(TournamentConfig("los_alamos", agents, 2, openings), played, progress=False)
    record = next(iter(read_results(played / RESULTS_FILE).values()))
    folder = tmp_path / "cup"
    folder.mkdir()
    (folder / CONFIG_FILE).write_text((played / CONFIG_FILE).read_text())

    def at(plies: int) -> None:
        LiveGame(folder, record.id).update(
            GameRecord(record.id, record.game, record.opening, record.players, record.moves[:plies])
        )

    at(2)
    return folder, record, at
