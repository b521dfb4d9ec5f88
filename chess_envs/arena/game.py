"""One game between agents, every move validated through the game state."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from chess_envs.agents.base import Agent, AgentError, SearchingAgent, SearchLimits, centipawns, move_time
from chess_envs.core import IllegalActionError
from chess_envs.registry import get_game, new_state


@dataclass
class GameRecord:
    """A finished game as stored in a tournament's results file (one JSON line)."""

    id: str
    game: str
    opening: str
    players: list[str]
    moves: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    termination: str = ""
    forfeit: str | None = None
    clocks: list[float] = field(default_factory=list)
    """with a time control: the mover's clock in seconds after each move"""
    adjudication: str | None = None
    """why the game was adjudicated (resign or draw by the engines' scores), None when played out"""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict, finished: bool = True) -> GameRecord:
        """The record ``data`` holds (ValueError or TypeError when it is none); a ``finished`` game
        has one score per player, one being played (``termination`` "playing") none yet."""
        record = cls(**data)
        if not record.id or (finished and len(record.scores) != len(record.players)):
            raise ValueError("a game record needs an id and one score per player")
        if not finished and record.termination != "playing":
            raise ValueError("a game being played has the termination 'playing'")
        return record


@dataclass(frozen=True)
class TimeControl:
    """A clock per seat: ``base`` seconds, ``increment`` seconds added after each move (``"10+0.1"``),
    or with ``per_move`` ``base`` seconds for every move, unused time not carried (``"0.5/move"``,
    cutechess-cli's ``st``); ``overhead`` seconds are kept back from every move's budget for the
    time the game itself takes; a clock loses once it is ``margin`` seconds below zero (cutechess-cli's
    ``timemargin``: a busy machine's hiccup is not a loss on time)."""

    base: float
    increment: float = 0.0
    overhead: float = 0.05
    per_move: bool = False
    margin: float = 0.0

    def __post_init__(self) -> None:
        if not (0 <= self.margin < 60):
            raise ValueError(f"a time margin is 0 to 60 seconds, got {self.margin}")
        if not (0 < self.base < 1e6 and 0 <= self.increment < 1e4 and 0 <= self.overhead < 60):
            raise ValueError(f"a time control needs base > 0 and increment >= 0 seconds, got {self}")
        if self.per_move and self.increment:
            raise ValueError("a time control per move has no increment")

    @classmethod
    def parse(cls, text: str, margin: float = 0.0) -> TimeControl:
        """``"10+0.1"`` (base+increment seconds), ``"60"``, or ``"0.5/move"`` (seconds per move)."""
        per_move = text.endswith("/move")
        base, _, increment = text.removesuffix("/move").partition("+")
        try:
            seconds, added = float(base), float(increment or 0)
        except ValueError:
            raise ValueError(
                f"a time control is BASE+INCREMENT in seconds, like 10+0.1, or SECONDS/move; got {text!r}"
            ) from None
        return cls(seconds, added, per_move=per_move, margin=margin)

    def budget(self, left: float) -> float:
        """Seconds a searching agent is given for its move with ``left`` on its clock."""
        if self.per_move:
            return max(0.005, self.base - self.overhead)
        return move_time(left, self.increment, None, self.overhead)

    def __str__(self) -> str:
        return f"{self.base:g}/move" if self.per_move else f"{self.base:g}+{self.increment:g}"


@dataclass(frozen=True)
class Adjudication:
    """Ending two-player games early by the scores the players report, as cutechess-cli does.

    Resign: a side whose score is at most ``-resign_cp`` centipawns for ``resign_moves`` moves in a
    row loses, when its opponent's last score agrees (at least ``+resign_cp``). Draw: from move
    ``draw_from`` (full moves), when both sides' last ``draw_moves`` scores are within
    ``draw_cp``. 0 moves turns a rule off. Only agents that search report scores; a game with one
    that does not is never adjudicated."""

    resign_moves: int = 0
    resign_cp: int = 600
    draw_from: int = 40
    draw_moves: int = 0
    draw_cp: int = 10

    def __post_init__(self) -> None:
        values = (self.resign_moves, self.resign_cp, self.draw_from, self.draw_moves, self.draw_cp)
        if min(values) < 0 or self.resign_cp == 0:
            raise ValueError(f"adjudication needs moves >= 0 and a resign score > 0 centipawns, got {self}")

    @property
    def active(self) -> bool:
        return self.resign_moves > 0 or self.draw_moves > 0

    def verdict(self, scores: list[list[int]], mover: int, plies: int) -> tuple[str, int | None] | None:
        """(reason, loser seat or None for a draw) after seat ``mover`` made the game's ``plies``-th
        ply, given each seat's reported scores in centipawns (its own point of view, oldest first);
        None: play on."""
        own, other = scores[mover], scores[1 - mover]
        resigns = self.resign_moves > 0 and len(own) >= self.resign_moves and len(other) > 0
        if resigns and max(own[-self.resign_moves :]) <= -self.resign_cp and other[-1] >= self.resign_cp:
            return f"resign: {self.resign_moves} scores <= -{self.resign_cp} cp, the opponent's agreeing", mover
        if self.draw_moves and plies >= 2 * self.draw_from and min(len(own), len(other)) >= self.draw_moves:
            recent = own[-self.draw_moves :] + other[-self.draw_moves :]
            if max(abs(score) for score in recent) <= self.draw_cp:
                return f"draw: both scores within {self.draw_cp} cp for {self.draw_moves} moves", None
        return None


def seat_seed(seed: int, game_id: str, seat: int) -> int:
    """The seed of one seat in one game: a hash of the tournament seed, the game and the seat, so a
    game's random choices do not depend on which worker plays it, or when."""
    digest = hashlib.blake2b(f"{seed}|{game_id}|{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def play_game(
    game: str,
    agents: list[Agent],
    opening: str,
    *,
    game_id: str = "",
    max_plies: int = 400,
    seed: int | None = None,
    time_control: TimeControl | None = None,
    adjudication: Adjudication | None = None,
    on_move: Callable[[GameRecord], None] | None = None,
    **game_options: str,
) -> GameRecord:
    """Play ``agents`` (one per seat, seat 0 first) from the FEN ``opening`` (``game_options``:
    the game's own from the registry, e.g. ``mode="teams"`` in four-player chess).

    Every agent is reset first; with ``seed``, each seat's agent gets :func:`seat_seed` of it,
    so the same ``seed`` and ``game_id`` replay the same game move for move.

    An agent that fails (its engine died, it returned an illegal or malformed action) forfeits:
    it scores 0, the others 1, and ``forfeit`` says why. A game reaching ``max_plies`` is a draw,
    or, in a game with standings (four-player Free-For-All), scored by its points so far.

    With ``time_control`` every seat has a clock: an agent that searches (``think``) is given a
    share of its time (:meth:`TimeControl.budget`), any other is timed as it moves (each agent's
    ``warm_up(state)``, where it has one, runs before the clocks start); whoever's
    clock falls below zero loses on time (``termination`` "time"). Clocks are in ``clocks``.

    With an active ``adjudication`` (two players), agents that search report a score each move and
    the game ends once the scores settle it (``termination`` "adjudication", the reason in
    ``adjudication``).

    ``on_move(record)``, when given, sees the record before the first move and after each move.
    """
    state = new_state(game, opening, **game_options)
    record = GameRecord(id=game_id, game=game, opening=opening, players=[a.name for a in agents])
    for seat, agent in enumerate(agents):
        agent.reset(seed=None if seed is None else seat_seed(seed, game_id, seat))
    if time_control is not None:
        for agent in {id(a): a for a in agents}.values():  # a network compiles before its clock runs
            warm_up = getattr(agent, "warm_up", None)
            if callable(warm_up):
                warm_up(state.copy())
    plies = 0
    clocks = [time_control.base] * len(agents) if time_control is not None else []
    judge = adjudication if adjudication is not None and adjudication.active else None
    if judge is not None and len(agents) != 2:
        raise ValueError(f"adjudication is for two-player games; {game} has {len(agents)} seats")
    reported: list[list[int]] = [[] for _ in agents]
    if on_move is not None:
        on_move(record)
    with frozen_heap() if time_control is not None else contextlib.nullcontext():
        while not state.is_terminal() and plies < max_plies:
            seat = state.current_player
            started = time.monotonic()
            try:
                agent = agents[seat]
                if isinstance(agent, SearchingAgent) and (time_control is not None or judge is not None):
                    budget = time_control.budget(clocks[seat]) if time_control is not None else None
                    thought = agent.think(state.copy(), SearchLimits(seconds=budget))
                    action = thought.action
                    reported[seat].append(centipawns(thought.score))
                else:
                    action = agent.select_action(state.copy())
                move = state.action_to_move(action)
                state.apply(action)
            except (AgentError, IllegalActionError, ValueError, TypeError) as error:
                return forfeited(record, seat, f"{agents[seat].name} (seat {seat}): {error}", "forfeit")
            if time_control is not None:
                clocks[seat] -= time.monotonic() - started
                if clocks[seat] < -time_control.margin:
                    record.clocks.append(0.0)
                    record.moves.append(move)
                    return forfeited(record, seat, f"{agents[seat].name} (seat {seat}) lost on time", "time")
                clocks[seat] += time_control.increment
                record.clocks.append(round(clocks[seat], 3))
                if time_control.per_move:
                    clocks[seat] = time_control.base
            record.moves.append(move)
            plies += 1
            if on_move is not None:
                on_move(record)
            verdict = judge.verdict(reported, seat, plies) if judge is not None and not state.is_terminal() else None
            if verdict is not None:
                record.adjudication, loser = verdict
                record.termination = "adjudication"
                record.scores = [0.5, 0.5] if loser is None else [0.0 if s == loser else 1.0 for s in range(2)]
                return record
    outcome = state.outcome()
    record.termination = "max_plies" if outcome is None else outcome.termination.value
    record.scores = [(value + 1.0) / 2.0 for value in (state.standings() if outcome is None else outcome.returns)]
    return record


def forfeited(record: GameRecord, seat: int, reason: str, termination: str) -> GameRecord:
    """``record`` ended by ``seat`` forfeiting (an error or its clock): every other seat scores 1."""
    record.forfeit, record.termination = reason, termination
    record.scores = [0.0 if s == seat else 1.0 for s in range(len(record.players))]
    return record


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Objects alive now are set aside from Python's full garbage collections until the block ends
    (``gc.freeze``): with a network loaded one scans ~190,000 objects for ~0.1 s and, landing in a
    timed move, lost games on time. The block starts with a collection, outside any clock."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


MAX_OPENING_PLIES = 200
"""Random opening plies allowed: past this, random games end before the opening does."""


def random_openings(game: str, count: int, plies: int, seed: int, **game_options: str) -> list[str]:
    """``count`` positions reached by ``plies`` seeded random moves from the start (none finished).

    Random games that end before ``plies`` are drawn again, a bounded number of times: a
    ValueError says when too few of them last that long.
    """
    if not 0 <= plies <= MAX_OPENING_PLIES:
        raise ValueError(f"opening plies must be between 0 and {MAX_OPENING_PLIES}, got {plies}")
    rng = random.Random(seed)
    openings: list[str] = []
    attempts = 20 * count + 100
    for _ in range(attempts):
        if len(openings) == count:
            break
        state = new_state(game, **game_options)
        for _ in range(plies):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(list(state.legal_actions()))))
        if not state.is_terminal():
            openings.append(state.to_text())
    if len(openings) < count:
        raise ValueError(
            f"only {len(openings)} of {attempts} random {game} games lasted {plies} plies ({count} openings "
            f"needed): use fewer --openings-plies"
        )
    return openings


BOOKS = Path(__file__).resolve().parent / "books"
"""the shipped balanced books, ``<game>.epd`` or ``<game>.fen4`` (how each was made is in its header)"""


def shipped_book(game: str) -> Path:
    """The shipped balanced book of ``game`` (``tools/make_book.py`` made it); ValueError if none."""
    found = sorted(BOOKS.glob(f"{game}.*"))
    if not found:
        raise ValueError(f"no opening book is shipped for {game!r}; give a book file")
    return found[0]


def read_openings(path: str, game: str) -> list[str]:
    """Openings from a book file, validated: ``@<game>`` (the shipped balanced book), ``.pgn``
    (chess: the position each game's moves reach, read by python-chess), ``.epd`` (one EPD per
    line: its position, the operations dropped, move counters added), or any other file of one FEN
    (FEN4 for four-player) per line; blank lines and ``#`` comments skipped."""
    if path.startswith("@"):
        path = str(shipped_book(path[1:]))
    if path.lower().endswith(".pgn"):
        fens = _pgn_positions(path, game)
    else:
        with open(path, encoding="utf-8") as handle:
            lines = [line.strip() for line in handle if line.strip() and not line.lstrip().startswith("#")]
        fens = [" ".join(line.split()[:4]) + " 0 1" for line in lines] if path.lower().endswith(".epd") else lines
    if not fens:
        raise ValueError(f"{path} holds no openings")
    for number, fen in enumerate(fens, start=1):
        try:
            new_state(game, fen)
        except ValueError as error:
            raise ValueError(f"{path}, opening {number}: {error}") from None
    return fens


def _pgn_positions(path: str, game: str) -> list[str]:
    """The position at the end of each game of a PGN book (standard chess: python-chess reads it)."""
    import chess.pgn

    if get_game(game).uci_variant != "chess":
        raise ValueError(f"PGN books are for standard chess; give {game} openings as one FEN per line")
    fens: list[str] = []
    with open(path, encoding="utf-8") as handle:
        while (book_game := chess.pgn.read_game(handle)) is not None:
            if book_game.errors:
                raise ValueError(f"{path}, game {len(fens) + 1}: {book_game.errors[0]}")
            fens.append(book_game.end().board().fen())
    return fens
