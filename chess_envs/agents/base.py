"""The Agent protocol and agent spec strings.

A spec string names an agent kind, an optional path and options, like a URL::

    random            greedy?seed=3          stockfish?skill=0&movetime=50
    fairy-stockfish?depth=1                  alphazero:runs/la/checkpoints/last.pt?sims=200

Kinds register a factory with :func:`~chess_envs.agents.register_agent`; :func:`~chess_envs.agents.make_agent`
builds one for a game.
Kinds that need heavy imports (torch) are listed in ``AGENT_KINDS`` and imported on first use.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from chess_envs.by_name import AGENT_KINDS
from chess_envs.core import GameState
from chess_envs.fields import from_text
from chess_envs.registry import get_game


@runtime_checkable
class Agent(Protocol):
    """Something that picks a move: ``select_action(state)`` returns a legal action index."""

    name: str

    def select_action(self, state: GameState) -> int:
        """A legal action of ``state`` (the agent may apply/undo on it but must restore it)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Forget anything carried from the previous game; with ``seed``, draw this game's random
        choices from it, so a game is the same whoever plays it when (tournaments pass one)."""
        ...

    def close(self) -> None:
        """End what the agent holds (an engine process); the agent is not used afterwards."""
        ...


@dataclass(frozen=True)
class SearchLimits:
    """How long a searching agent may think about one move; all None: its own default budget."""

    nodes: int | None = None
    """simulations (or the engine's nodes)"""
    seconds: float | None = None
    """wall-clock budget"""
    depth: int | None = None
    """stop once the principal variation is this long"""
    infinite: bool = False
    """until ``stop()`` says so (analysis, pondering)"""
    lines: int = 1
    """how many of the most searched moves to report with their scores and lines (UCI's MultiPV)"""
    moves: tuple[int, ...] | None = None
    """only these root moves are searched and chosen from (UCI's ``searchmoves``); None: all"""


@dataclass(frozen=True)
class Thought:
    """Where a search stands: its move, the mover's expected outcome and the line it expects."""

    action: int
    score: float
    """the mover's expected outcome in [-1, 1] after ``action``"""
    pv: tuple[int, ...]
    """the principal variation, as actions from the searched position (``action`` first)"""
    nodes: int
    """simulations so far"""
    seconds: float
    lines: tuple[tuple[int, float, tuple[int, ...]], ...] = ()
    """the most searched moves, best first, as (action, score, line): as many as ``SearchLimits.lines``"""
    shares: tuple[float, ...] = ()
    """the share of the search's visits each move of ``lines`` got"""


Stop = Callable[[], bool] | None
"""what a search asks between its chunks: True ends it (UCI's ``stop``); None: nothing stops it early"""
Report = Callable[[Thought], None] | None
"""what a search hands each :class:`Thought` as it goes (UCI's ``info`` lines); None: nobody listens"""


@runtime_checkable
class SearchingAgent(Protocol):
    """An agent whose moves come from a search it can report on and be stopped in (UCI's ``go``)."""

    def think(self, state: GameState, limits: SearchLimits, stop: Stop = None, report: Report = None) -> Thought:
        """Search ``state`` within ``limits`` (or until ``stop()``), calling ``report`` as the search
        goes; returns the last :class:`Thought`. ``state`` is left as it was given. Thinking again
        about the same position goes on from the tree already built (pondering, then playing)."""
        ...


@runtime_checkable
class TunableSearchingAgent(SearchingAgent, Protocol):
    """A searching agent whose evaluation cache and move temperature a front-end manages (UCI's
    ``Clear Hash``, ``hashfull`` and ``UCI_Elo``); engines that only search stay :class:`SearchingAgent`."""

    def clear_cache(self) -> None:
        """Forget the evaluations (network outputs) kept for positions seen before."""
        ...

    def cache_usage(self) -> float | None:
        """The share of the evaluation cache in use, in [0, 1]; None when the agent keeps none."""
        ...

    def set_temperature(self, temperature: float) -> None:
        """Choose moves at this temperature from now on (0: the best move; higher plays weaker)."""
        ...


class AgentBase:
    """The defaults of agents that hold nothing to end and need no warming up."""

    plays_only: Mapping[str, str] = MappingProxyType({})
    """the game options an agent plays under and no others (``{"mode": "teams"}``); empty: any"""

    def close(self) -> None:
        """Nothing to end."""

    def warm_up(self, state: GameState) -> None:
        """Get ready to move in ``state`` before a clock runs (a network is compiled on its first
        call, which would cost a timed move its budget). Nothing to do here."""


class AgentError(RuntimeError):
    """An agent could not produce a move (an engine died, a file was unreadable, ...)."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec string: ``kind[:path][?key=value&...]``."""

    kind: str
    path: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    text: str = ""

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"an agent spec must be a non-empty string, got {text!r}")
        body, _, query = text.strip().partition("?")
        kind, _, path = body.partition(":")
        options: dict[str, str] = {}
        for item in filter(None, query.split("&")):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise ValueError(f"bad option {item!r} in agent spec {text!r}: write key=value")
            options[key] = value
        return cls(kind=kind.strip().lower(), path=path or None, options=options, text=text.strip())


Factory = Callable[..., Agent]
Reader = type | Callable[[dict[str, str]], dict[str, Any]]
_FACTORIES: dict[str, tuple[Factory, Reader | None]] = {}


def register_agent(kind: str, options: Reader | None = None) -> Callable[[Factory], Factory]:
    """Class decorator: ``kind`` specs build agents with ``factory(game=..., path=..., **values)``, the
    spec's options read by ``options``: a dataclass (its fields declare each one's type, default and
    bounds: :func:`chess_envs.fields.arg`) or a function of their text giving the keyword values
    (AlphaZero's: its own options and the search table's rows); without one, the text itself."""

    def decorate(factory: Factory) -> Factory:
        _FACTORIES[kind] = (factory, options)
        return factory

    return decorate


def known_kinds() -> list[str]:
    """Every agent kind a spec may name: those registered and those imported on first use."""
    return sorted(set(_FACTORIES) | set(AGENT_KINDS))


def check_game_options(plays_only: Mapping[str, str], name: str, game: str, options: Mapping[str, Any]) -> None:
    """ValueError where an agent (``name``: its spec) plays only under the game options ``plays_only``
    (its :attr:`AgentBase.plays_only`) and ``options`` (the game's defaults filled in) differ: a Teams
    network or 4pchess in Free-For-All."""
    entry = get_game(game)
    chosen = {option.name: option.default for option in entry.options} | entry.check_options(options)
    for option, value in plays_only.items():
        if chosen.get(option) != value:
            raise ValueError(f"{name} plays only with {option}={value}, not {option}={chosen.get(option)}")


def make_agent(spec: str | AgentSpec, game: str) -> Agent:
    """Build the agent described by ``spec`` for ``game``; ValueError when the spec is wrong."""
    parsed = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if parsed.kind not in _FACTORIES and parsed.kind in AGENT_KINDS:
        try:
            importlib.import_module(AGENT_KINDS[parsed.kind])
        except ModuleNotFoundError as error:  # a base install: say which extra brings the missing library
            raise AgentError(
                f"agent {parsed.kind!r} needs the [agents] extra ({error.name} is not installed): "
                "pip install torch==2.13.0 && pip install 'chess-envs[agents]'"
            ) from error
    if parsed.kind not in _FACTORIES:
        raise ValueError(
            f"unknown agent {parsed.kind!r} in spec {parsed.text!r}; known agents: {', '.join(known_kinds())}"
        )
    factory, options = _FACTORIES[parsed.kind]
    try:  # checked before the call, so a TypeError or ValueError raised inside the factory stays its own
        if isinstance(options, type):
            values = dataclasses.asdict(from_text(options, parsed.options))
        else:
            values = parsed.options if options is None else options(dict(parsed.options))
        inspect.signature(factory).bind(game=game, path=parsed.path, **values)
    except (TypeError, ValueError) as error:
        raise ValueError(f"bad options in agent spec {parsed.text!r}: {error}") from None
    agent = factory(game=game, path=parsed.path, **values)
    agent.name = parsed.text
    return agent


def check_device(device: str) -> str:
    """Validate a torch device name: ``auto``, ``cpu``, ``cuda``, ``cuda:N`` or another device torch
    knows and has; a ValueError says what is wrong (torch is imported only here)."""
    import torch

    if device == "auto":
        return device
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"unknown device {device!r}: use auto, cpu or cuda[:N] ({error})") from None
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r} asked for, but this torch build sees no CUDA GPU; use cpu or auto")
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise ValueError(f"device {device!r}: only {torch.cuda.device_count()} CUDA device(s) here")
    elif parsed.type != "cpu":
        backend = getattr(torch.backends, parsed.type, None)
        if backend is None or not backend.is_available():
            raise ValueError(f"device {device!r} is not available in this torch build; use cpu or auto")
    return device


def move_time(left: float, increment: float, moves_to_go: int | None, overhead: float) -> float:
    """Seconds to think with ``left`` seconds on the clock: an even share of what the clock holds for
    the next ``moves_to_go`` moves (30 when none is given), the increments to come included, less the
    ``overhead`` each of them (and two more) costs beyond its search, as Stockfish reckons; never
    more than half of what is left after this move's overhead. A steady lag below the overhead (a
    busy machine, a slow pipe) then settles the clock well above zero instead of draining it."""
    horizon = max(1, moves_to_go or 30)
    ahead = left + increment * (horizon - 1) - overhead * (horizon + 2)
    usable = max(0.0, left - overhead)
    return max(0.005, min(ahead / horizon, 0.5 * usable))


def centipawns(q: float) -> int:
    """A value in [-1, 1] (the mover's expected outcome) as centipawns, Leela Chess Zero's mapping."""
    q = max(-0.999, min(0.999, q))
    return int(round(111.714640912 * math.tan(1.5620688421 * q)))


def expected_outcome(centipawns: float) -> float:
    """An engine's centipawns as the mover's expected outcome in [-1, 1], the inverse of
    :func:`centipawns`; mate scores come out near +-1."""
    return math.atan(centipawns / 111.714640912) / 1.5620688421
