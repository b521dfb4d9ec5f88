"""Round-robin tournaments with seat rotation from shared openings, resumable, in parallel.

Two-player games: every pair of agents (in a gauntlet, the first agent with each of the others)
plays ``games_per_pair`` games, for each opening one
game with each agent on each side. Games for more seats (four-player chess) are played at
tables: every group of ``num_players`` agents, or with fewer agents every pair seated
alternately (``a b a b``, partners opposite in Teams); each opening is played once per
rotation of the seats, so every agent sits in every seat equally often. Finished games are
appended to ``<out>/games.jsonl`` as they end, so a rerun with the same settings (and the same
networks: their SHA-256 is kept in ``<out>/agent_files.json``) plays only the missing games.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import MISSING, asdict, dataclass, field, fields
from itertools import combinations
from pathlib import Path
from typing import Any

from tqdm import tqdm

from chess_envs.agents.base import Agent, AgentSpec, check_game_options, make_agent
from chess_envs.agents.shipped import checkpoint_path
from chess_envs.arena.game import Adjudication, GameRecord, TimeControl, play_game
from chess_envs.arena.results import LiveGame, ResultsWriter, end_live, read_results
from chess_envs.files import write_text_atomic
from chess_envs.registry import GameRecord as GameEntry
from chess_envs.registry import get_game, register_game

RESULTS_FILE = "games.jsonl"
CONFIG_FILE = "tournament.json"
FILES_FILE = "agent_files.json"
"""the file of a tournament folder holding the path and SHA-256 of every file an agent spec names"""


@dataclass
class TournamentConfig:
    game: str
    agents: list[str]
    games_per_pair: int
    openings: list[str]
    max_plies: int = 400
    seed: int = 0
    """each game's agents are seeded from (seed, game id): the same games with any number of workers"""
    gauntlet: bool = False
    """only the first agent's games: it meets each other agent, who do not meet each other"""
    options: dict[str, Any] = field(default_factory=dict)
    """the game's options (registry), e.g. four-player ``{"mode": "teams"}``: pairs seated ``a b a b``
    are partners opposite each other"""
    time_control: str | None = None
    """``"10+0.1"``: a clock per seat (base+increment seconds), enforced for every agent"""
    adjudication: dict[str, int] | None = None
    """the fields of an :class:`~chess_envs.arena.game.Adjudication` (resign and draw by reported scores)"""
    time_margin: float = 0.0
    """seconds a clock may fall below zero before its side loses on time"""

    def __post_init__(self) -> None:
        if len(self.agents) < 2:
            raise ValueError("a tournament needs at least two agents")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agent specs must differ (add ?seed=N to tell copies apart): {self.agents}")
        self.options = get_game(self.game).check_options(self.options)
        if self.time_control is not None:
            self.time_control = str(TimeControl.parse(self.time_control, self.time_margin))
        elif self.time_margin:
            raise ValueError("a time margin needs a time control")
        if self.adjudication is not None:
            self.adjudication = asdict(Adjudication(**self.adjudication))
            if self.seats != 2:
                raise ValueError("adjudication is for two-player games")
        seats = self.seats
        if self.games_per_pair < seats or self.games_per_pair % seats:
            raise ValueError(
                f"games per pair must be a positive multiple of {seats} (one game per seat rotation), "
                f"got {self.games_per_pair}"
            )
        if len(self.openings) < self.games_per_pair // seats:
            raise ValueError(f"need {self.games_per_pair // seats} openings, got {len(self.openings)}")

    @property
    def seats(self) -> int:
        """Players per game."""
        return get_game(self.game).num_players


@dataclass(frozen=True)
class ScheduledGame:
    id: str
    players: tuple[str, ...]
    opening: str


def tables(agents: list[str], seats: int, gauntlet: bool = False) -> list[tuple[str, ...]]:
    """Who sits at each table: pairs for two seats; groups of ``seats`` agents, or pairs seated
    alternately when there are fewer agents than seats. In a gauntlet, only the pairs of the
    first agent with each other one (seated alternately)."""
    if gauntlet:
        pairs = [(agents[0], other) for other in agents[1:]]
    elif seats == 2 or len(agents) < seats:
        pairs = list(combinations(agents, 2))
    else:
        return list(combinations(agents, seats))
    return [tuple((a, b)[i % 2] for i in range(seats)) for a, b in pairs]


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """Every table plays every opening once per rotation of its seats."""
    seats = config.seats
    games = []
    for table in tables(config.agents, seats, config.gauntlet):
        name = " | ".join(dict.fromkeys(table))
        for k in range(config.games_per_pair // seats):
            opening = config.openings[k]
            for turn in range(seats):
                players = table[turn:] + table[:turn]
                suffix = "ab"[turn] if seats == 2 else str(turn)
                games.append(ScheduledGame(f"{name} | {k} | {suffix}", players, opening))
    return games


_worker_agents: dict[str, Agent] = {}


_worker_threads: dict[str, int] = {}


def _start_worker(parent: int, threads: int) -> None:
    """Worker initializer: a share of the cores for torch's thread pool once a network agent has
    loaded it (unless the user set OMP_NUM_THREADS: workers that each spin a pool as wide as the
    machine fight over the cores), and an end to this worker when the tournament's process is
    gone, even by SIGKILL (the kernel's parent-death signal on Linux, and a watch on the parent id
    everywhere)."""
    if "OMP_NUM_THREADS" not in os.environ:
        _worker_threads["torch"] = threads
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    # Close this worker's agents when it ends: an engine's python-chess thread would keep the
    # worker, and with it the pool's shutdown, waiting forever.
    multiprocessing.util.Finalize(None, _close_agents, exitpriority=10)


def _close_agents(specs: Iterable[str] | None = None) -> None:
    """Close and forget this worker's agents of ``specs`` (default: all of them)."""
    for spec in list(_worker_agents if specs is None else specs):
        with contextlib.suppress(Exception):  # a dead engine may fail to close; it is gone either way
            _worker_agents.pop(spec).close()


_PR_SET_PDEATHSIG = 1


def _play(entry: GameEntry, scheduled: ScheduledGame, config: TournamentConfig, out: Path) -> GameRecord:
    """Play one scheduled game of ``config`` with this process's agents (built once, rebuilt after a
    failure), shown move by move in ``out``'s live folder. ``entry`` is the game's registry record: a
    spawned worker registers it, so a game registered at run time (not only a built-in one) plays in
    workers too."""
    game = register_game(entry).name
    agents = []
    for spec in scheduled.players:
        if spec not in _worker_agents:
            _worker_agents[spec] = make_agent(spec, game)
        agents.append(_worker_agents[spec])
    if "torch" in sys.modules and "torch" in _worker_threads:
        sys.modules["torch"].set_num_threads(_worker_threads.pop("torch"))
    record = play_game(
        game,
        agents,
        scheduled.opening,
        game_id=scheduled.id,
        max_plies=config.max_plies,
        seed=config.seed,
        time_control=TimeControl.parse(config.time_control, config.time_margin) if config.time_control else None,
        adjudication=Adjudication(**config.adjudication) if config.adjudication else None,
        on_move=LiveGame(out, scheduled.id).update,
        **config.options,
    )
    if record.forfeit:
        _close_agents(dict.fromkeys(scheduled.players))  # an engine that failed is restarted for the next game
    return record


def _cancel_queued(running: set[Future[GameRecord]]) -> set[Future[GameRecord]]:
    """Cancel the games no worker has started; the games in flight."""
    for future in running:
        future.cancel()
    return {future for future in running if not future.cancelled()}


def _finish_in_flight(
    pool: ProcessPoolExecutor, running: set[Future[GameRecord]], keep: Callable[[GameRecord], None]
) -> None:
    """After a Ctrl-C: cancel the games no worker holds and keep the others as they end, so a stop
    costs no game a worker was playing (a terminal's Ctrl-C interrupts the workers too, and their
    games end at once); a second Ctrl-C stops the workers and drops those games."""
    try:
        in_flight = _cancel_queued(running)
        if not in_flight:
            return
        print(
            "\nstopping: the games the workers hold are kept when they end; Ctrl-C again to drop them", file=sys.stderr
        )
        for future in as_completed(in_flight):
            if future.exception() is None:
                keep(future.result())
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in multiprocessing.active_children():  # the pool's workers: their games are dropped
            worker.terminate()


def check_agents(config: TournamentConfig) -> None:
    """Build and close every agent once, so a bad spec, a missing engine or an agent that does not
    play under the game's options fails before any game."""
    for spec in config.agents:
        agent = make_agent(spec, config.game)
        try:
            check_game_options(getattr(agent, "plays_only", {}), spec, config.game, config.options)
        finally:
            agent.close()


def prepare_output(config: TournamentConfig, out: Path) -> None:
    """Create ``out`` with the config, or check that it holds this same tournament: the same
    settings, and the same contents of every file an agent names (:data:`FILES_FILE`)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / CONFIG_FILE
    wanted = asdict(config)
    if path.exists():
        # Settings added since the file was written take their defaults (what its games were played with).
        defaults = {f.name: f.default for f in fields(TournamentConfig) if f.default is not MISSING}
        stored = {**defaults, **json.loads(path.read_text(encoding="utf-8"))}
        if "options" not in stored:  # files of version 0.1 kept the four-player mode apart
            mode = stored.pop("mode", "ffa")
            stored["options"] = {} if mode == "ffa" else {"mode": mode}
        if stored != wanted:
            changed = sorted(k for k in {*wanted, *stored} if stored.get(k) != wanted.get(k))
            raise ValueError(
                f"{out} holds a different tournament (differs in {', '.join(changed)}); "
                f"choose another --out or rerun with the same settings to resume"
            )
    else:
        write_text_atomic(path, json.dumps(wanted, indent=2))
    files, files_path = agent_files(config.agents), out / FILES_FILE
    if files_path.exists():
        stored_files = json.loads(files_path.read_text(encoding="utf-8"))
        changed = [spec for spec, file in files.items() if stored_files.get(spec, file)["sha256"] != file["sha256"]]
        if changed:
            raise ValueError(
                f"{out} was played with other contents of {', '.join(files[spec]['path'] for spec in changed)} "
                f"(agents {', '.join(changed)}): its games are not these agents'; choose another --out, "
                "or put the files back to resume"
            )
    write_text_atomic(files_path, json.dumps(files, indent=2))


def agent_files(agents: list[str]) -> dict[str, dict[str, str]]:
    """The file each agent spec names (a checkpoint, an engine), with its SHA-256: a resumed
    tournament must go on with the same players, not a file rewritten under the same name."""
    files = {}
    for spec in agents:
        name = AgentSpec.parse(spec).path
        path = checkpoint_path(name) if name else None
        if path is not None and path.is_file():
            digest = hashlib.sha256()
            with path.open("rb") as file:
                for block in iter(lambda: file.read(1 << 20), b""):
                    digest.update(block)
            files[spec] = {"path": str(name), "sha256": digest.hexdigest()}
    return files


def run_tournament(
    config: TournamentConfig,
    out: Path,
    workers: int = 1,
    progress: bool = True,
    stop: Callable[[list[GameRecord]], bool] | None = None,
) -> list[GameRecord]:
    """Play every missing game of the tournament and return its records in schedule order;
    ``stop(records)`` (an SPRT) ends it early once it says so, checked after every game."""
    prepare_output(config, out)
    check_agents(config)
    entry = get_game(config.game)
    results_path = out / RESULTS_FILE
    done = read_results(results_path)
    games = schedule(config)
    pending = [g for g in games if g.id not in done]
    bar = tqdm(total=len(games), initial=len(games) - len(pending), desc="games", unit="game", disable=not progress)
    end_live(out)  # games shown as playing by a run that was killed
    with ResultsWriter(results_path) as writer, contextlib.ExitStack() as stack:
        stack.callback(end_live, out)

        def keep(record: GameRecord) -> None:
            writer.append(record)
            end_live(out, record.id)
            done[record.id] = record
            bar.update()

        if workers <= 1:
            for scheduled in pending:
                if stop is not None and stop(list(done.values())):
                    break
                keep(_play(entry, scheduled, config, out))
        else:
            # Spawned, not forked, workers: a fork of a process whose torch thread pools are
            # running (after loading a network) can deadlock in the child.
            with ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(), max(1, (os.cpu_count() or 1) // workers)),
            ) as pool:
                running = {pool.submit(_play, entry, g, config, out) for g in pending}
                try:
                    while running:
                        finished, running = wait(running, return_when=FIRST_COMPLETED)
                        for future in finished:
                            keep(future.result())
                        if stop is not None and stop(list(done.values())):
                            running = _cancel_queued(running)
                            wait(running)
                            for future in running:
                                keep(future.result())
                            break
                except KeyboardInterrupt:
                    _finish_in_flight(pool, running, keep)
                    raise
                except BaseException:
                    _cancel_queued(running)
                    raise
    bar.close()
    return [done[g.id] for g in games if g.id in done]
