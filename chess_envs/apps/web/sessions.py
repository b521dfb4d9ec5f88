"""The games the web app holds, framework-free: the agents the server was started with (built per
game, one search at a time each, and copied once more for each search that runs at the same time)
and one session per browser game.

A session is a game between seats that are either ``"human"`` or an offered agent's name. The
browser names agents only by those names; nothing it sends becomes a spec, a path or a program.
"""

from __future__ import annotations

import contextlib
import queue
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from chess_envs.agents.base import Agent, SearchingAgent, SearchLimits, Thought, make_agent
from chess_envs.apps.play import play_line, san_moves
from chess_envs.arena.game import GameRecord, TimeControl
from chess_envs.arena.report import pgn
from chess_envs.core import GameState
from chess_envs.registry import new_state

HUMAN = "human"
SQUARE = re.compile(r"([a-n])(1[0-4]|[1-9])")


class OfferedAgent:
    """An agent offered to the browser, by its name (the spec the server was started with): per
    game, its copies (agents are not thread-safe: one search each at a time), built as searches
    need them, up to ``copies`` of them."""

    def __init__(self, spec: str, copies: int) -> None:
        self.spec, self.copies = spec, copies
        self.built: dict[str, list[Agent]] = {}
        """every copy built, by game (the first built at start: a spec a game refuses is not offered there)"""
        self._idle: dict[str, queue.SimpleQueue[Agent]] = {}
        self._lock = threading.Lock()

    def offer(self, game: str) -> bool:
        """Build the first copy for ``game``; False where the spec does not play it."""
        try:
            agent = make_agent(self.spec, game)
        except Exception:  # not for this game (an engine of another variant, a network of another game)
            return False
        self.built[game], self._idle[game] = [agent], queue.SimpleQueue()
        self._idle[game].put(agent)
        return True

    @contextlib.contextmanager
    def copy(self, game: str) -> Iterator[Agent]:
        """An idle copy for ``game``, a new one while fewer than ``copies`` exist, else the first to
        come back; it goes back idle when the block ends."""
        with self._lock:
            try:
                agent = self._idle[game].get_nowait()
            except queue.Empty:
                agent = None
                if len(self.built[game]) < self.copies:
                    agent = make_agent(self.spec, game)
                    self.built[game].append(agent)
        if agent is None:
            agent = self._idle[game].get()
        try:
            yield agent
        finally:
            self._idle[game].put(agent)


class AgentPool:
    """The agents the server offers, by name, each built per game it plays; up to ``copies`` of
    each search at once (the server's search slots)."""

    def __init__(self, specs: list[str], games: list[str], copies: int = 1) -> None:
        if copies < 1:
            raise ValueError(f"an agent needs at least one copy, got {copies}")
        self.agents: dict[str, OfferedAgent] = {}
        self.playable: dict[str, list[str]] = {game: [] for game in games}
        self.plays_only: dict[str, dict[str, dict[str, str]]] = {game: {} for game in games}
        """by game, the offered agents that play under some game options only, and those options"""
        for spec in specs:
            offered = OfferedAgent(spec, copies)
            for game in games:
                if offered.offer(game):
                    self.playable[game].append(spec)
                    if only := dict(getattr(offered.built[game][0], "plays_only", {})):
                        self.plays_only[game][spec] = only
            if offered.built:
                self.agents[spec] = offered

    def searches(self, name: str, game: str) -> bool:
        """Whether ``name`` searches in ``game`` (its moves take a search slot; a greedy move does not)."""
        return isinstance(self.agents[name].built[game][0], SearchingAgent)

    def move(
        self, name: str, state: GameState, stop: Callable[[], bool], seconds: float | None = None
    ) -> tuple[int, Thought | None]:
        """The agent's move in ``state`` (and its search's thought, for the analysis), on a copy no
        other search is using, within ``seconds`` under a clock; ``stop()`` ends a search early
        (takeback, new game, disconnect)."""
        with self.agents[name].copy(state.game_name) as agent:
            if isinstance(agent, SearchingAgent):
                thought = agent.think(state.copy(), SearchLimits(seconds=seconds, lines=3), stop=stop)
                return thought.action, thought
            return agent.select_action(state.copy()), None

    def close(self) -> None:
        for offered in self.agents.values():
            for agent in (copy for copies in offered.built.values() for copy in copies):
                with contextlib.suppress(Exception):  # a dead engine may fail to close; it is gone either way
                    agent.close()


@dataclass
class Session:
    """One browser game: the state, who sits where, the moves so far and the last analysis."""

    id: str
    game: str
    seats: list[str]
    options: dict[str, Any]
    opening: str
    state: GameState
    actions: list[int] = field(default_factory=list)
    notation: list[str] = field(default_factory=list)
    analysis: dict[str, Any] | None = None
    generation: int = 0
    """bumped by every change a search in flight must not outlive (takeback, new game, close)"""
    touched: float = field(default_factory=time.monotonic)
    clock: TimeControl | None = None
    clocks: list[float] = field(default_factory=list)
    """seconds left per seat, as of ``turn_started`` for the seat to move"""
    turn_started: float = field(default_factory=time.monotonic)
    flagged: int | None = None
    """the seat that lost on time"""
    replay: bool = False
    """a tournament game shown move by move: nobody moves in it"""
    live: bool = False
    """a tournament game being played, followed as it goes"""
    final: dict[str, Any] | None = None
    """a replayed game's recorded result (time, adjudication, ...) once its last move is shown"""

    def __post_init__(self) -> None:
        if self.clock is not None:
            self.clocks = [self.clock.base] * len(self.seats)

    def over(self) -> bool:
        return self.flagged is not None or self.state.is_terminal()

    def human_to_move(self) -> bool:
        return not self.over() and not self.replay and self.seats[self.state.current_player] == HUMAN

    def agent_to_move(self) -> str | None:
        if self.over() or self.replay:
            return None
        seat = self.seats[self.state.current_player]
        return None if seat == HUMAN else seat

    def left(self, seat: int) -> float:
        """Seconds on ``seat``'s clock now (its turn's time so far taken off)."""
        running = seat == self.state.current_player and not self.over()
        return self.clocks[seat] - (time.monotonic() - self.turn_started if running else 0.0)

    def budget(self) -> float | None:
        """Seconds for the agent to move under the clock, None without one."""
        return None if self.clock is None else self.clock.budget(self.left(self.state.current_player))

    def play(self, action: int) -> None:
        """Play a legal ``action`` (ValueError otherwise) and note it in the game's notation; under
        a clock, a move that comes after the mover's time ran out loses on time instead."""
        mask = self.state.legal_action_mask()
        if not 0 <= action < len(mask) or not mask[action]:
            raise ValueError(f"action {action} is not a legal move here")
        mover = self.state.current_player
        if self.clock is not None:
            self.clocks[mover] = self.left(mover)
            if self.clocks[mover] < 0:
                self.clocks[mover], self.flagged = 0.0, mover
                return
            self.clocks[mover] += self.clock.increment
        names = {a: n for n, a in san_moves(self.state).items()}
        self.notation.append(names.get(action, self.state.action_to_move(action)))
        self.state.apply(action)
        self.actions.append(action)
        self.turn_started = time.monotonic()

    def result(self) -> dict[str, Any] | None:
        """How the game ended (termination and a score per seat), None while it goes on."""
        if self.final is not None:
            return self.final
        if self.flagged is not None:
            return {
                "termination": "time",
                "scores": [0.0 if s == self.flagged else 1.0 for s in range(len(self.seats))],
            }
        outcome = self.state.outcome()
        if outcome is None:
            return None
        return {"termination": outcome.termination.value, "scores": [(v + 1) / 2 for v in outcome.returns]}

    def catch_up(self, record: GameRecord) -> bool:
        """Play the moves ``record`` (this replayed game, further on) has beyond ours, and its result
        once it has one; whether anything changed."""
        before = len(self.actions)
        for move in record.moves[before:]:
            self.play(self.state.move_to_action(move))
        if record.termination != "playing" and record.scores:
            self.final, self.live = {"termination": record.termination, "scores": record.scores}, False
            return True
        return len(self.actions) > before

    def takeback(self) -> None:
        """Undo moves back to the last position where a human was to move before the last human move."""
        self.generation += 1
        if HUMAN not in self.seats:
            return
        undone = False
        while self.actions and not (undone and self.human_to_move()):
            self.state.undo()
            self.actions.pop()
            self.notation.pop()
            undone = undone or self.human_to_move()
        self.analysis = None

    def record(self) -> GameRecord:
        result = self.result() or {"termination": "unfinished", "scores": [0.5] * len(self.seats)}
        moves, _ = play_line(new_state(self.game, self.opening, **self.options), self.actions)
        return GameRecord(
            self.id[:8], self.game, self.opening, list(self.seats), moves, result["scores"], result["termination"]
        )

    def pgn(self) -> str:
        return pgn([self.record()])

    def view(self, pool: AgentPool) -> dict[str, Any]:
        """What the browser draws: board cells, legal moves as squares, the move list, the result."""
        state = self.state
        cells = [[list(c) if isinstance(c, tuple) else c for c in row] for row in state.board_cells()]
        height = len(cells)
        legal = []
        if self.human_to_move():
            for action in state.legal_actions():
                text = state.action_to_move(int(action))
                squares = _from_to(text, height)
                if squares is not None:
                    promotion = text.split("=")[-1] if "=" in text else text[4:] if len(text) == 5 else ""
                    legal.append({"action": int(action), **squares, "promotion": promotion.upper()})
        result = self.result()
        return {
            "type": "state",
            "session": self.id,
            "game": self.game,
            "options": self.options,
            "seats": self.seats,
            "cells": cells,
            "to_move": None if result is not None else state.current_player,
            "human_to_move": self.human_to_move(),
            "legal": legal,
            "moves": self.notation,
            "ply": len(self.actions),
            "result": result,
            "clocks": [round(self.left(seat), 2) for seat in range(len(self.seats))] if self.clock else None,
            "eliminated": list(state.eliminated),
            "standings": [round(v, 3) for v in state.standings()] if state.num_players > 2 else None,
            "analysis": self.analysis,
            "fen": state.to_text(),
            "replay": self.replay,
            "live": self.live,
        }


def _from_to(move: str, height: int) -> dict[str, list[int]] | None:
    """The first two squares ``move`` names as the browser's ``from`` and ``to`` [row, column] on a
    board ``height`` rows high; None when it names fewer."""
    squares = SQUARE.findall(move)
    if len(squares) < 2:
        return None
    (f0, r0), (f1, r1) = squares[:2]
    return {"from": [height - int(r0), ord(f0) - 97], "to": [height - int(r1), ord(f1) - 97]}


def analysis_of(state: GameState, thought: Thought) -> dict[str, Any]:
    """The search's view of ``state`` for the browser: the mover's value in [-1, 1], the most
    searched moves as from/to squares with their scores, and the principal variation as text."""
    height = len(state.board_cells())
    arrows = []
    lines = thought.lines or ((thought.action, thought.score, thought.pv),)
    shares = thought.shares or (1.0,) * len(lines)
    for (action, score, _), share in zip(lines, shares):
        squares = _from_to(state.action_to_move(action), height)
        if squares is not None:
            arrows.append({**squares, "score": round(score, 3), "share": round(share, 3)})
    line, _ = play_line(state, thought.pv[:12])
    return {"mover": state.current_player, "value": round(thought.score, 3), "arrows": arrows, "pv": line,
            "nodes": thought.nodes}  # fmt: skip


class Sessions:
    """Every live session by its id (a 128-bit random token: knowing it is owning the game),
    expired after ``idle_seconds`` without a message, at most ``limit`` at once."""

    def __init__(self, idle_seconds: float = 1800.0, limit: int = 1000) -> None:
        self.by_id: dict[str, Session] = {}
        self.idle_seconds, self.limit = idle_seconds, limit

    def new(
        self, game: str, seats: list[str], options: dict[str, Any], fen: str | None, clock: TimeControl | None = None
    ) -> Session:
        self.expire()
        if len(self.by_id) >= self.limit:
            raise ValueError("the server holds as many games as it may; try again later")
        state = new_state(game, fen, **options)  # the options checked
        session = Session(secrets.token_hex(16), game, seats, options, state.to_text(), state, clock=clock)
        self.by_id[session.id] = session
        return session

    def replay(self, record: GameRecord, options: dict[str, Any], plies: int, live: bool = False) -> Session:
        """A session showing ``record``, a tournament game, after its first ``plies`` plies (``live``:
        all of them, the game being played on, :meth:`Session.catch_up` following it)."""
        self.expire()
        state = new_state(record.game, record.opening, **options)
        session = Session(secrets.token_hex(16), record.game, list(record.players), options, record.opening, state,
                          replay=True, live=live)  # fmt: skip
        if live or plies >= len(record.moves):
            session.catch_up(record)
        else:
            for move in record.moves[:plies]:
                session.play(state.move_to_action(move))
        self.by_id[session.id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        self.expire()
        session = self.by_id.get(session_id)
        if session is not None:
            session.touched = time.monotonic()
        return session

    def drop(self, session: Session) -> None:
        session.generation += 1  # a search in flight for it is stopped
        self.by_id.pop(session.id, None)

    def expire(self) -> None:
        now = time.monotonic()
        for session in [s for s in self.by_id.values() if now - s.touched > self.idle_seconds]:
            self.drop(session)
