"""Round-robin tournaments: colour-swapped pairs from shared openings, resumable, in parallel.

Every pair of agents plays ``games_per_pair`` games: for each opening, one game with each
agent on each side. Finished games are appended to ``<out>/games.jsonl`` as they end, so a
rerun with the same settings plays only the missing games.
"""

from __future__ import annotations

import contextlib
import json
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path

from tqdm import tqdm

from agents.base import Agent, make_agent
from evaluate.game import GameRecord, play_game
from evaluate.results import ResultsWriter, read_results, write_atomic

RESULTS_FILE = "games.jsonl"
CONFIG_FILE = "tournament.json"


@dataclass
class TournamentConfig:
    game: str
    agents: list[str]
    games_per_pair: int
    openings: list[str]
    max_plies: int = 400

    def __post_init__(self) -> None:
        if len(self.agents) < 2:
            raise ValueError("a tournament needs at least two agents")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agent specs must differ (add ?seed=N to tell copies apart): {self.agents}")
        if self.games_per_pair < 2 or self.games_per_pair % 2:
            raise ValueError(
                f"games per pair must be a positive even number (colour-swapped pairs), got {self.games_per_pair}"
            )
        if len(self.openings) < self.games_per_pair // 2:
            raise ValueError(f"need {self.games_per_pair // 2} openings, got {len(self.openings)}")


@dataclass(frozen=True)
class ScheduledGame:
    id: str
    players: tuple[str, ...]
    opening: str


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    games = []
    for first, second in combinations(config.agents, 2):
        for k in range(config.games_per_pair // 2):
            opening = config.openings[k]
            games.append(ScheduledGame(f"{first} | {second} | {k} | a", (first, second), opening))
            games.append(ScheduledGame(f"{first} | {second} | {k} | b", (second, first), opening))
    return games


_worker_agents: dict[str, Agent] = {}


def _play(game: str, scheduled: ScheduledGame, max_plies: int) -> GameRecord:
    """Play one scheduled game with this process's agents (built once, rebuilt after a failure)."""
    agents = []
    for spec in scheduled.players:
        if spec not in _worker_agents:
            _worker_agents[spec] = make_agent(spec, game)
        agents.append(_worker_agents[spec])
    record = play_game(game, agents, scheduled.opening, game_id=scheduled.id, max_plies=max_plies)
    if record.forfeit:
        for spec in scheduled.players:  # an engine that failed is restarted for the next game
            agent = _worker_agents.pop(spec)
            close = getattr(agent, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):  # a dead engine may fail to close; it is gone either way
                    close()
    return record


def check_agents(config: TournamentConfig) -> None:
    """Build and close every agent once, so a bad spec or a missing engine fails before any game."""
    for spec in config.agents:
        agent = make_agent(spec, config.game)
        close = getattr(agent, "close", None)
        if close is not None:
            close()


def prepare_output(config: TournamentConfig, out: Path) -> None:
    """Create ``out`` with the config, or check that it holds this same tournament."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / CONFIG_FILE
    wanted = asdict(config)
    if path.exists():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored != wanted:
            changed = sorted(k for k in wanted if stored.get(k) != wanted[k])
            raise ValueError(
                f"{out} holds a different tournament (differs in {', '.join(changed)}); "
                f"choose another --out or rerun with the same settings to resume"
            )
    else:
        write_atomic(path, json.dumps(wanted, indent=2))


def run_tournament(config: TournamentConfig, out: Path, workers: int = 1, progress: bool = True) -> list[GameRecord]:
    """Play every missing game of the tournament and return all its records in schedule order."""
    prepare_output(config, out)
    check_agents(config)
    results_path = out / RESULTS_FILE
    done = read_results(results_path)
    games = schedule(config)
    pending = [g for g in games if g.id not in done]
    bar = tqdm(total=len(games), initial=len(games) - len(pending), desc="games", unit="game", disable=not progress)
    with ResultsWriter(results_path) as writer:
        if workers <= 1:
            for scheduled in pending:
                record = _play(config.game, scheduled, config.max_plies)
                writer.append(record)
                done[record.id] = record
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                running = {pool.submit(_play, config.game, g, config.max_plies) for g in pending}
                try:
                    while running:
                        finished, running = wait(running, return_when=FIRST_COMPLETED)
                        for future in finished:
                            record = future.result()
                            writer.append(record)
                            done[record.id] = record
                            bar.update()
                except BaseException:
                    for future in running:
                        future.cancel()
                    raise
    bar.close()
    return [done[g.id] for g in games]
