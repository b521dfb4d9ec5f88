"""A UCI front-end for our agents, so chess GUIs and match runners can play them.

    python -m chess_envs.apps.uci                                               # the shipped network
    python -m chess_envs.apps.uci --checkpoint runs/la/checkpoints/last.pt      # another AlphaZero network
    python -m chess_envs.apps.uci --agent greedy                                # any agent spec
    chess-envs-uci --checkpoint PATH                                   # the same, as a console script

Standard chess by default; ``setoption name UCI_Variant value losalamos`` switches to Los Alamos
chess as Fairy-Stockfish does (the checkpoint must be for that game). With neither a checkpoint
nor an agent it plays the network shipped for the variant (``alphazero:@chess``,
``alphazero:@los_alamos``, package data). Supported: ``uci``,
``isready``, ``ucinewgame``, ``position startpos|fen ... [moves ...]``, ``go`` with ``nodes``,
``movetime``, ``wtime``/``btime``/``winc``/``binc``/``movestogo``, ``depth``, ``ponder`` and
``infinite``, ``stop``, ``ponderhit``, ``setoption`` and ``quit``; the options are :data:`OPTIONS`.
An AlphaZero search runs in a thread
in chunks of simulations and reports ``info depth seldepth [multipv] score cp [wdl] nodes nps
hashfull time pv`` after each; ``stop`` ends it at the next chunk; ``go ponder`` searches until
``ponderhit`` (the same tree goes on under the move's own limits) or ``stop``; ``bestmove``
names the reply to ponder on; ``searchmoves`` limits the search and the choice to the moves named.
``UCI_LimitStrength`` with ``UCI_Elo`` (the shipped network of a variant with a calibration,
``chess_envs/agents/networks/<game>.elo.json``) plays the simulations and temperature measured to play at that
Elo. Anything malformed is answered with an ``info string`` and ignored.

The engine always answers ``go`` with a ``bestmove``: when the agent cannot be loaded or fails
(a missing checkpoint, a dead engine child), it says why in an ``info string`` and plays a
random legal move, and the agent is built again for the next ``go``. Input is read as bytes and
decoded leniently; end of input is ``quit``, after which the search is stopped and joined and
the process exits with code 0.
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, TextIO

import numpy as np

from chess_envs.agents.base import (
    Agent,
    AgentError,
    SearchingAgent,
    SearchLimits,
    Thought,
    TunableSearchingAgent,
    centipawns,
    make_agent,
    move_time,
)
from chess_envs.agents.shipped import shipped_agent
from chess_envs.agents.strength import Level, level_for, load_levels
from chess_envs.apps.play import play_line
from chess_envs.core import GameState, Termination
from chess_envs.registry import new_state, registered_games

VARIANTS = {record.uci_variant: record.name for record in registered_games() if record.uci_variant}
"""UCI_Variant value -> game name, from the registry (the first is the variant at start)"""
_CHUNK = 16  # the agent's own simulations: every search is given its limits


@dataclass(frozen=True)
class Option:
    """A row of :data:`OPTIONS`: a UCI option's ``name``, ``type`` (spin, check, combo, button or
    string), ``help`` (what it does, for the docs), the :class:`UCIEngine` ``attribute`` holding its
    value (None: a button) and ``default`` (a spin's None: its min); a spin's ``bounds`` or the
    function of the engine giving them, a combo's ``values``; ``when``: offered (advertised and
    accepted) only while it is true; ``reload``: a change stops any search and drops the agent first;
    ``then(engine, old)``: called after each accepted value."""

    name: str
    type: str
    help: str
    attribute: str | None = None
    default: int | bool | str | None = None
    bounds: tuple[int, int] | Callable[[UCIEngine], tuple[int, int]] = (0, 0)
    values: tuple[str, ...] = ()
    when: Callable[[UCIEngine], object] | None = None
    reload: bool = False
    then: Callable[[UCIEngine, Any], None] | None = None
    setting: str | None = None
    """the search setting (chess_envs.search.settings) its value becomes, if it is one"""

    def offered(self, engine: UCIEngine) -> bool:
        return self.when is None or bool(self.when(engine))

    def range(self, engine: UCIEngine) -> tuple[int, int]:
        return self.bounds(engine) if callable(self.bounds) else self.bounds

    def line(self, engine: UCIEngine) -> str:
        """The row's ``option name ...`` line of ``uci``."""
        text = f"option name {self.name} type {self.type}"
        if self.type == "spin":
            low, high = self.range(engine)
            return f"{text} default {low if self.default is None else self.default} min {low} max {high}"
        default = str(self.default).lower() if isinstance(self.default, bool) else self.default
        choices = "".join(f" var {value}" for value in self.values)
        return text if self.type == "button" else f"{text} default {default}{choices}"

    def parse(self, value: str, engine: UCIEngine) -> int | bool | str:
        """``setoption``'s value if the row accepts it, else ValueError saying what it accepts."""
        if self.type == "spin":
            return _spin(value, self.name, *self.range(engine))
        if self.type == "check":
            return _check(value, self.name)
        if self.type == "combo":
            for choice in self.values:
                if choice.lower() == value.lower():
                    return choice
            raise ValueError(f"{self.name} must be one of {list(self.values)}, got {value!r}")
        return value


# fmt: off
OPTIONS = (
    Option("UCI_Variant", "combo", "the game: chess, or losalamos (Los Alamos chess, as Fairy-Stockfish names it)",
           "variant", next(iter(VARIANTS)), values=tuple(VARIANTS), reload=True,
           then=lambda engine, old: engine._new_game([]) if engine.variant != old else None),
    Option("Simulations", "spin", "simulations a move when go gives no limit", "simulations", 800, (1, 1_000_000),
           setting="simulations"),
    Option("Threads", "spin", "torch's threads for the network (the search walks a move's one tree on one thread)",
           "threads", 1, (1, 256), then=lambda engine, _: _set_torch_threads(engine.threads)),
    Option("Hash", "spin", "MB of the evaluation cache", "hash_mb", 256, (1, 65_536), reload=True,
           setting="cache_mb"),
    Option("Clear Hash", "button", "empty the evaluation cache", then=lambda engine, _: engine._clear_hash()),
    Option("MultiPV", "spin", "the most searched moves reported, each with its score and line", "multipv", 1,
           (1, 500)),
    Option("Move Overhead", "spin", "ms kept back from every move's time (the GUI's and the network's lag)",
           "overhead_ms", 30, (0, 5_000)),
    Option("Ponder", "check", "the GUI may send go ponder (searching on the opponent's time)", "ponder", False),
    Option("UCI_ShowWDL", "check", "info lines add wdl: the value's expected score, draws (1 - |q|) / 2",
           "show_wdl", False),
    Option("UCI_LimitStrength", "check", "play at UCI_Elo (a shipped network with UCI_Elo levels)",
           "limit_strength", False, when=lambda engine: engine._levels()),
    Option("UCI_Elo", "spin", "the Elo to play at, over the calibrated levels' range", "elo", None,
           lambda engine: engine._elo_range(), when=lambda engine: engine._levels()),
)
# fmt: on
"""The UCI options, advertised by ``uci`` in this order and parsed by ``setoption`` (names in any
case) from the same row, as Stockfish's ``OptionsMap`` does: Threads are torch's (the network's),
Hash is the evaluation cache in MB, Move Overhead ms, UCI_ShowWDL :func:`win_draw_loss`; UCI_Elo
is offered over the calibrated levels' range, UCI_LimitStrength with it."""
_BY_NAME = {option.name.lower(): option for option in OPTIONS}


class UCIEngine:
    """The protocol state machine; ``handle(line)`` processes one command. The attributes below hold
    the options' values (:data:`OPTIONS`)."""

    variant: str
    simulations: int
    threads: int
    hash_mb: int
    multipv: int
    overhead_ms: int
    ponder: bool
    show_wdl: bool
    limit_strength: bool
    elo: int | None

    def __init__(self, checkpoint: str | None = None, agent_spec: str | None = None, out: TextIO = sys.stdout) -> None:
        if checkpoint is not None and agent_spec is not None:
            raise ValueError("give a checkpoint or an agent spec, not both (neither: the shipped network)")
        self.checkpoint = checkpoint
        self.agent_spec = agent_spec
        self.out = out
        for option in OPTIONS:
            if option.attribute is not None:
                setattr(self, option.attribute, option.default)
        self._searchmoves: tuple[int, ...] | None = None
        self.agent: Agent | None = None
        self.state = new_state(VARIANTS[self.variant])
        self._search: threading.Thread | None = None
        self._stop = threading.Event()
        self._ponderhit = threading.Event()
        self._ponderhit_at = 0.0
        """when ``ponderhit`` arrived (time.monotonic()): the move's clock runs from there"""
        self._lock = threading.Lock()
        self._rng = np.random.default_rng(0)

    # -- output ----------------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def complain(self, message: str) -> None:
        self.send(f"info string {message}")

    # -- commands --------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Process one line; False after ``quit``."""
        words = line.strip().split()
        if not words:
            return True
        command, args = words[0], words[1:]
        handlers: dict[str, Callable[[list[str]], None]] = {
            "uci": self._uci,
            "isready": lambda _: self._when_loaded(lambda: self.send("readyok")),
            "ucinewgame": self._new_game,
            "position": self._position,
            "go": self._go,
            "stop": lambda _: self._finish_search(),
            "setoption": self._setoption,
            "debug": lambda _: None,
            "register": lambda _: None,
            "ponderhit": self._on_ponderhit,
            "bench": self._bench,
        }
        if command == "quit":
            self._finish_search()
            return False
        handler = handlers.get(command)
        if handler is None:
            self.complain(f"unknown command {command!r} ignored")
            return True
        try:
            handler(args)
        except Exception as error:  # a GUI waits for answers: report everything, die of nothing
            self.complain(f"{line.strip()!r} ignored: {error}")
        return True

    def _uci(self, _: list[str]) -> None:
        who = self.agent_spec or f"alphazero {self.checkpoint or 'shipped network'}"
        self.send(f"id name chess-envs {who}")
        self.send("id author chess-envs")
        for option in OPTIONS:
            if option.offered(self):
                self.send(option.line(self))
        self.send("uciok")

    def _bench(self, args: list[str]) -> None:
        """``bench [nodes]``: search a fixed set of positions of the variant (the start and three
        reached by always playing the first legal move) and print the nodes and nodes per second,
        as Stockfish's ``bench`` does."""
        nodes = _spin(args[0], "bench nodes", 1, 10_000_000) if args else 800
        self._finish_search()
        self._load()
        agent = self.agent
        if not isinstance(agent, SearchingAgent):
            raise ValueError("bench needs an agent that searches")
        total, started = 0, time.monotonic()
        for plies in (0, 6, 12, 18):
            state = new_state(VARIANTS[self.variant])
            for _ in range(plies):
                if not state.is_terminal():
                    state.apply(int(state.legal_actions()[0]))
            if state.is_terminal():
                continue
            agent.reset()
            total += agent.think(state, SearchLimits(nodes=nodes)).nodes
        seconds = max(time.monotonic() - started, 1e-9)
        self.send("===========================")
        self.send(f"Total time (ms) : {int(seconds * 1000)}")
        self.send(f"Nodes searched  : {total}")
        self.send(f"Nodes/second    : {int(total / seconds)}")

    def _when_loaded(self, then: Callable[[], None]) -> None:
        if self._search is None:  # a running search owns the agent
            try:
                self._load()
            except Exception as error:  # reported; the next go falls back to a legal move
                self.complain(f"cannot load the agent: {error}")
        then()

    def _load(self) -> None:
        if self.agent is None:
            game = VARIANTS[self.variant]
            if self.agent_spec:
                self.agent = make_agent(self.agent_spec, game)
            elif self.checkpoint:  # the AlphaZero agent of --checkpoint, with the Hash option's cache
                self.agent = make_agent(f"alphazero:{self.checkpoint}?cache_mb={self.hash_mb}&sims={_CHUNK}", game)
            else:  # the network shipped for the variant
                self.agent = make_agent(shipped_agent(game, cache_mb=self.hash_mb, sims=_CHUNK), game)
            # A full garbage collection of the objects alive now (the network's: ~0.1 s) would land
            # in some timed search: they are set aside from those collections while the agent lives.
            gc.collect()
            gc.freeze()

    def _new_game(self, _: list[str]) -> None:
        self._finish_search()
        self.state = new_state(VARIANTS[self.variant])
        if self.agent is not None:
            self.agent.reset()

    def _drop_agent(self) -> None:
        """Close and forget the agent, so the next ``go`` builds a fresh one."""
        agent, self.agent = self.agent, None
        if agent is None:
            return
        gc.unfreeze()  # the agent's objects may be collected again
        try:
            agent.close()
        except Exception as error:  # a dead engine may fail to close; it is gone either way
            self.complain(f"closing the agent failed: {error}")

    def shutdown(self) -> None:
        """Stop and join any search, then close the agent (``quit`` and end of input)."""
        self._finish_search()
        self._drop_agent()

    def _setoption(self, args: list[str]) -> None:
        if "name" not in args:
            raise ValueError("write setoption name NAME value VALUE")
        rest = args[args.index("name") + 1 :]
        value = " ".join(rest[rest.index("value") + 1 :]) if "value" in rest else ""
        name = " ".join(rest[: rest.index("value")] if "value" in rest else rest)
        option = _BY_NAME.get(name.lower())
        if option is None or not option.offered(self):
            raise ValueError(f"no option {name!r}" + (" with this agent and variant" if option else ""))
        new = option.parse(value, self)
        old = None if option.attribute is None else getattr(self, option.attribute)
        if option.reload and new != old:  # the agent is built again at the next isready or go
            self._finish_search()
            self._drop_agent()
        if option.attribute is not None:
            setattr(self, option.attribute, new)
        if option.then is not None:
            option.then(self, old)

    def _levels(self) -> list[Level]:
        """The calibrated levels of the variant's shipped network; [] with another agent."""
        return [] if self.checkpoint or self.agent_spec else load_levels(VARIANTS[self.variant])

    def _elo_range(self) -> tuple[int, int]:
        """UCI_Elo's min and max: the calibrated levels' Elo."""
        levels = self._levels()
        return round(levels[0].elo), round(levels[-1].elo)

    def _clear_hash(self) -> None:
        if isinstance(self.agent, TunableSearchingAgent):
            self.agent.clear_cache()

    def _strength(self) -> tuple[int, float] | None:
        """(simulations, temperature) of the UCI_Elo asked for, None at full strength."""
        if not self.limit_strength:
            return None
        levels = self._levels()
        if not levels:
            self.complain(f"no UCI_Elo calibration for {self.variant} with this agent: full strength")
            return None
        return level_for(self.elo if self.elo is not None else levels[0].elo, levels)

    def _position(self, args: list[str]) -> None:
        if not args:
            raise ValueError("write position startpos|fen FEN [moves ...]")
        if args[0] not in ("startpos", "fen"):
            raise ValueError("expected startpos or fen")
        end = args.index("moves") if "moves" in args else len(args)
        state = new_state(VARIANTS[self.variant], " ".join(args[1:end]) if args[0] == "fen" else None)
        for move in args[end + 1 :]:
            state.apply(_legal_action(state, move))
        self._finish_search()
        self.state = state

    def _go(self, args: list[str]) -> None:
        received = time.monotonic()  # the GUI's clock runs from here, not from when the search starts
        self._finish_search()
        limits, searchmoves = _parse_go(args)
        state = self.state.copy()
        if state.is_terminal() or not len(state.legal_actions()):
            self.send("bestmove 0000")
            return
        self._searchmoves = tuple(_legal_action(state, move) for move in searchmoves) or None
        self._stop.clear()
        self._ponderhit.clear()
        self._search = threading.Thread(target=self._think, args=(state, limits, received), daemon=True)
        self._search.start()

    def _on_ponderhit(self, _: list[str]) -> None:
        self._ponderhit_at = time.monotonic()
        self._ponderhit.set()

    def _finish_search(self) -> None:
        if self._search is not None:
            self._stop.set()
            self._search.join()
            self._search = None

    # -- searching -------------------------------------------------------------------------

    def _budget(self, state: GameState, limits: dict[str, int], since: float) -> SearchLimits:
        """The limits of this move's search (no limit given: the Simulations option); its time runs
        from ``since`` (time.monotonic() when ``go`` or ``ponderhit`` arrived)."""
        if "infinite" in limits:
            return SearchLimits(infinite=True, lines=self.multipv)
        nodes = limits.get("nodes")
        overhead = self.overhead_ms / 1000
        seconds = max(0.005, limits["movetime"] / 1000 - overhead) if "movetime" in limits else None
        side = "wb"[state.current_player]  # the mover's clock: wtime and winc, or btime and binc
        clock, increment = limits.get(f"{side}time"), limits.get(f"{side}inc", 0)
        if clock is not None and seconds is None:
            seconds = move_time(clock / 1000, increment / 1000, limits.get("movestogo"), overhead)
        if seconds is not None:
            seconds = max(0.005, seconds - (time.monotonic() - since))
        if nodes is None and seconds is None:
            nodes = self.simulations
        strength = self._strength()
        if strength is not None:  # the level's simulations at most: more time does not make it stronger
            nodes = min(nodes or strength[0], strength[0])
        return SearchLimits(
            nodes=nodes, seconds=seconds, depth=limits.get("depth"), lines=self.multipv, moves=self._searchmoves
        )

    def _think(self, state: GameState, limits: dict[str, int], received: float) -> None:
        """The search thread: always ends by sending ``bestmove``."""
        try:
            self._load()
            move, ponder = self._best_move(state, limits, received)
        except Exception as error:  # a GUI waits for bestmove: fall back to a legal move
            self.complain(f"the agent failed ({type(error).__name__}: {error}); playing a random legal move")
            self._drop_agent()
            move, ponder = state.action_to_move(int(self._rng.choice(state.legal_actions()))), None
            if "ponder" in limits:
                self._wait_for_ponder_end()
        if "infinite" in limits:
            self._stop.wait()
        self.send(f"bestmove {move}" + (f" ponder {ponder}" if ponder else ""))

    def _wait_for_ponder_end(self) -> None:
        while not (self._stop.is_set() or self._ponderhit.wait(0.02)):
            pass

    def _best_move(self, state: GameState, limits: dict[str, int], received: float) -> tuple[str, str | None]:
        """The move to play and the reply to ponder on (None when the search has no line past it)."""
        agent = self.agent
        if agent is None:
            raise AgentError("no agent is loaded")
        if not isinstance(agent, SearchingAgent):  # a plain agent: one answer, no search to report
            if "ponder" in limits:
                self._wait_for_ponder_end()
            return state.action_to_move(agent.select_action(state.copy())), None
        report = functools.partial(self._info, state)
        if isinstance(agent, TunableSearchingAgent) and not self.agent_spec:  # the network: UCI_Elo's temperature
            strength = self._strength()
            agent.set_temperature(0.0 if strength is None else strength[1])
        if "ponder" in limits:  # search on the opponent's time until told how it went
            thought = agent.think(
                state,
                SearchLimits(infinite=True, lines=self.multipv, moves=self._searchmoves),
                lambda: self._stop.is_set() or self._ponderhit.is_set(),
                report,
            )
            if self._stop.is_set():
                return self._answer(state, thought)
            proven = thought.nodes == 0 and thought.score >= 1.0
            found = "the proven win found" if proven else f"the {thought.nodes} nodes searched"
            self.complain(f"ponderhit: the search goes on from {found} while pondering")
            received = self._ponderhit_at
        thought = agent.think(state, self._budget(state, limits, received), self._stop.is_set, report)
        return self._answer(state, thought)

    @staticmethod
    def _answer(state: GameState, thought: Thought) -> tuple[str, str | None]:
        if len(thought.pv) < 2 or thought.pv[0] != thought.action:
            return state.action_to_move(thought.action), None
        move, reply = play_line(state, thought.pv[:2])[0]
        return move, reply

    def _info(self, state: GameState, thought: Thought) -> None:
        """Send the info lines of a search (one per MultiPV line): depth is the line's length."""
        nps = int(thought.nodes / thought.seconds) if thought.seconds > 0 else 0
        usage = self.agent.cache_usage() if isinstance(self.agent, TunableSearchingAgent) else None
        hashfull = f" hashfull {int(1000 * usage)}" if usage is not None else ""
        lines = thought.lines or ((thought.action, thought.score, thought.pv),)
        for rank, (_, score, line) in enumerate(lines, start=1):
            moves, board = play_line(state, line)
            multipv = f" multipv {rank}" if thought.lines else ""
            wdl = " wdl {} {} {}".format(*win_draw_loss(score)) if self.show_wdl else ""
            outcome = board.outcome() if abs(score) > 0.99 else None
            if outcome is not None and outcome.termination is Termination.CHECKMATE:  # a mate the search proved
                value = f"mate {(len(moves) + 1) // 2 if len(moves) % 2 else -(len(moves) // 2)}"
            else:
                value = f"cp {centipawns(score)}"
            self.send(
                f"info depth {len(moves)} seldepth {len(moves)}{multipv} score {value}{wdl} "
                f"nodes {thought.nodes} nps {nps}{hashfull} time {int(thought.seconds * 1000)} pv {' '.join(moves)}"
            )


def win_draw_loss(q: float) -> tuple[int, int, int]:
    """The value head's one scalar as UCI's ``wdl`` in permille: expected score ``(q + 1) / 2``,
    draws ``(1 - |q|) / 2`` (our networks have no draw head: a documented mapping, not a model)."""
    q = max(-1.0, min(1.0, q))
    draw = 0.5 * (1 - abs(q))
    win = round(1000 * ((q + 1) / 2 - draw / 2))
    loss = round(1000 * ((1 - q) / 2 - draw / 2))
    return win, 1000 - win - loss, loss


def _spin(value: str, name: str, low: int, high: int) -> int:
    number = int(value)
    if not low <= number <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {number}")
    return number


def _check(value: str, name: str) -> bool:
    if value.lower() not in ("true", "false"):
        raise ValueError(f"{name} is true or false, got {value!r}")
    return value.lower() == "true"


def _set_torch_threads(count: int) -> None:
    """Threads: the network's (torch's intra-op) threads; the native search walks a move's single
    tree on one thread, so this is where a second core helps a UCI game."""
    try:
        import torch
    except ImportError:  # an agent without torch: nothing to set
        return
    torch.set_num_threads(count)


def _legal_action(state: GameState, move: str) -> int:
    """The action of ``move`` where it is legal (``position ... moves`` and ``go searchmoves``);
    ValueError naming it otherwise."""
    action = state.move_to_action(move)
    if not state.legal_action_mask()[action]:
        raise ValueError(f"{move} is not legal here")
    return action


def _parse_go(args: list[str]) -> tuple[dict[str, int], list[str]]:
    """``go``'s limits by name, and the moves of ``searchmoves`` (unchecked yet)."""
    limits: dict[str, int] = {}
    searchmoves: list[str] = []
    numeric = {"nodes", "movetime", "wtime", "btime", "winc", "binc", "depth", "movestogo", "mate"}
    i = 0
    while i < len(args):
        word = args[i]
        if word == "searchmoves":
            i += 1
            while i < len(args) and args[i] not in numeric | {"infinite", "ponder", "searchmoves"}:
                searchmoves.append(args[i])
                i += 1
        elif word == "infinite" or word == "ponder":
            limits[word] = 1
            i += 1
        elif word in numeric:
            if i + 1 >= len(args):
                raise ValueError(f"go {word} needs a number")
            value = int(args[i + 1])
            if value < 0 or (word in ("nodes", "depth") and value < 1):
                raise ValueError(f"go {word} must be positive, got {value}")
            limits[word] = value
            i += 2
        else:
            raise ValueError(f"unknown go parameter {word!r}")
    return limits, searchmoves


def parser() -> argparse.ArgumentParser:
    """``chess-envs uci``'s command line."""
    line = argparse.ArgumentParser(prog="chess-envs uci", description="A UCI engine over our agents.")
    who = line.add_mutually_exclusive_group()
    who.add_argument(
        "--checkpoint", help="an AlphaZero checkpoint of the variant's game; default: the variant's shipped one"
    )
    who.add_argument("--agent", help="any agent spec instead, e.g. greedy or dqn:PATH")
    line.add_argument("--variant", choices=sorted(VARIANTS), default=next(iter(VARIANTS)), help="the variant at start")
    return line


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    engine = UCIEngine(args.checkpoint, args.agent)
    engine.handle(f"setoption name UCI_Variant value {args.variant}")
    serve(engine, sys.stdin.buffer)


def serve(engine: UCIEngine, stdin: BinaryIO) -> None:
    """Feed ``engine`` the lines of ``stdin`` (bytes, decoded leniently) until ``quit`` or end of input."""
    try:
        for raw in iter(stdin.readline, b""):
            if not engine.handle(raw.decode("utf-8", errors="replace")):
                break
    except KeyboardInterrupt:
        pass
    finally:
        engine.shutdown()


if __name__ == "__main__":
    main()
