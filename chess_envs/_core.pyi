"""
The native rules engines, encoders and vector environments of chess_envs.
"""

from collections.abc import Sequence
from typing import Annotated, Final, overload

import numpy
from numpy.typing import NDArray


class InUseError(RuntimeError):
    """
    Raised instead of using an object that another call is using: a vector env stepped by a second thread, a game or search tree held by a running search, an MCTS searching for another thread. A subclass of RuntimeError.
    """

TERMINATIONS: list = ...

class ActionTable:
    def __init__(self, squares: int, num_actions: int, table: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu')]) -> None: ...

    @property
    def num_actions(self) -> int: ...

class ChessGame:
    def __init__(self, fen: object, history: int, flag: bool, table: ActionTable) -> None:
        """
        A game from `fen`; `flag` is claim_draws (chess) or adjudicate_insufficient_material (Los Alamos).
        """

    def copy(self) -> ChessGame: ...

    def fen(self) -> str: ...

    def reset(self, fen: object) -> None: ...

    @property
    def side(self) -> int: ...

    @property
    def halfmove_clock(self) -> int: ...

    @property
    def fullmove_number(self) -> int: ...

    @property
    def castling(self) -> int: ...

    @property
    def plies(self) -> int: ...

    @property
    def num_planes(self) -> int: ...

    def repetitions(self) -> int: ...

    def in_check(self) -> bool: ...

    def termination(self) -> int: ...

    def winner(self) -> int: ...

    def apply(self, action: int) -> bool: ...

    def undo(self) -> None: ...

    @property
    def key(self) -> int:
        """
        The key of the game's line, every position since its start (a search tree's root identity).
        """

    def num_legal(self) -> int: ...

    def legal_actions(self) -> Annotated[NDArray[numpy.int64], dict(order='C', device='cpu')]: ...

    def legal_mask(self, arg: object, /) -> None: ...

    def legal_mask_bool(self, arg: object, /) -> None: ...

    def observation(self, arg0: int, arg1: object, /) -> None: ...

    def material(self, arg: object, /) -> None: ...

    def legal_moves(self) -> list[tuple[int, int, int, int]]: ...

    def squares(self) -> list[int]: ...

    def moves_played(self) -> list[tuple[int, int, int]]: ...

    def perft(self, depth: int) -> int: ...

class LosAlamosGame:
    def __init__(self, fen: object, history: int, flag: bool, table: ActionTable) -> None:
        """
        A game from `fen`; `flag` is claim_draws (chess) or adjudicate_insufficient_material (Los Alamos).
        """

    def copy(self) -> LosAlamosGame: ...

    def fen(self) -> str: ...

    def reset(self, fen: object) -> None: ...

    @property
    def side(self) -> int: ...

    @property
    def halfmove_clock(self) -> int: ...

    @property
    def fullmove_number(self) -> int: ...

    @property
    def castling(self) -> int: ...

    @property
    def plies(self) -> int: ...

    @property
    def num_planes(self) -> int: ...

    def repetitions(self) -> int: ...

    def in_check(self) -> bool: ...

    def termination(self) -> int: ...

    def winner(self) -> int: ...

    def apply(self, action: int) -> bool: ...

    def undo(self) -> None: ...

    @property
    def key(self) -> int:
        """
        The key of the game's line, every position since its start (a search tree's root identity).
        """

    def num_legal(self) -> int: ...

    def legal_actions(self) -> Annotated[NDArray[numpy.int64], dict(order='C', device='cpu')]: ...

    def legal_mask(self, arg: object, /) -> None: ...

    def legal_mask_bool(self, arg: object, /) -> None: ...

    def observation(self, arg0: int, arg1: object, /) -> None: ...

    def material(self, arg: object, /) -> None: ...

    def legal_moves(self) -> list[tuple[int, int, int, int]]: ...

    def squares(self) -> list[int]: ...

    def moves_played(self) -> list[tuple[int, int, int]]: ...

    def perft(self, depth: int) -> int: ...

class FourPlayerBoard:
    def __init__(self, squares: Sequence[int], turn: int, live: Sequence[bool], kingside: Sequence[bool], queenside: Sequence[bool], points: Sequence[int], halfmove_clock: int, en_passant: Sequence[int], teams: bool) -> None: ...

    @staticmethod
    def from_fen4(fen4: object, teams: bool) -> FourPlayerBoard:
        """The position of a FEN4 (stripped of surrounding whitespace)."""

    def settle(self) -> None: ...

    def legal_moves(self) -> list[int]: ...

    def push(self, move: int) -> None: ...

    def pop(self) -> None: ...

    def in_check(self, arg: int, /) -> bool: ...

    def perft(self, depth: int) -> int: ...

    def snapshot(self) -> tuple[list[int], int, list[bool], list[int], list[bool], list[bool], int, bool, int]: ...

class FourPlayerActionTable:
    def __init__(self, arg: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu')], /) -> None: ...

class FourPlayerGame:
    def __init__(self, board: FourPlayerBoard, history: int, claim_win: bool, table: FourPlayerActionTable) -> None: ...

    def copy(self) -> FourPlayerGame: ...

    @property
    def side(self) -> int: ...

    @property
    def plies(self) -> int: ...

    @property
    def num_planes(self) -> int: ...

    def repetitions(self) -> int: ...

    def termination(self) -> int: ...

    def winner_team(self) -> int: ...

    def final_points(self) -> list[int]: ...

    def apply(self, action: int) -> bool: ...

    def undo(self) -> None: ...

    @property
    def key(self) -> int:
        """
        The key of the game's line, every position since its start (a search tree's root identity).
        """

    def num_legal(self) -> int: ...

    def legal_actions(self) -> Annotated[NDArray[numpy.int64], dict(order='C', device='cpu')]: ...

    def legal_mask_bool(self, arg: object, /) -> None: ...

    def legal_moves(self) -> list[tuple[int, int]]: ...

    def observation(self, arg0: int, arg1: object, /) -> None: ...

    def snapshot(self) -> tuple[list[int], int, list[bool], list[int], list[bool], list[bool], int, bool, int, list[int]]: ...

    def moves_played(self) -> list[int]: ...

    def code_at(self, arg: int, /) -> int: ...

    def in_check(self, arg: int, /) -> bool: ...

class FourPlayerVector:
    def __init__(self, num_envs: int, prototype: FourPlayerGame, random_opponent: bool, agent_seat: int, max_plies: int, threads: int) -> None: ...

    def game(self, index: int) -> FourPlayerGame:
        """A copy of game `index`."""

    def reset(self, seed: int, seeded: bool, observation: object, mask: object) -> None: ...

    def step(self, actions: object, observation: object, mask: object, rewards: object, terminated: object, truncated: object, termination: object) -> None: ...

    def reset_done(self, arg0: object, arg1: object, /) -> int: ...

    def random_actions(self, arg: object, /) -> None: ...

    @property
    def num_envs(self) -> int: ...

class ChessVector:
    def __init__(self, num_envs: int, fen: object, history: int, flag: bool, table: ActionTable, random_opponent: bool, agent_seat: int, max_plies: int, threads: int) -> None: ...

    def fen(self, index: int) -> str: ...

    def reset(self, seed: int, seeded: bool, observation: object, mask: object) -> None: ...

    def step(self, actions: object, observation: object, mask: object, rewards: object, terminated: object, truncated: object, termination: object) -> None: ...

    def reset_done(self, arg0: object, arg1: object, /) -> int: ...

    def random_actions(self, arg: object, /) -> None: ...

    @property
    def num_envs(self) -> int: ...

class LosAlamosVector:
    def __init__(self, num_envs: int, fen: object, history: int, flag: bool, table: ActionTable, random_opponent: bool, agent_seat: int, max_plies: int, threads: int) -> None: ...

    def fen(self, index: int) -> str: ...

    def reset(self, seed: int, seeded: bool, observation: object, mask: object) -> None: ...

    def step(self, actions: object, observation: object, mask: object, rewards: object, terminated: object, truncated: object, termination: object) -> None: ...

    def reset_done(self, arg0: object, arg1: object, /) -> int: ...

    def random_actions(self, arg: object, /) -> None: ...

    @property
    def num_envs(self) -> int: ...

class EvaluationCache:
    """Network outputs of positions seen before, LRU, bounded in bytes."""

    def __init__(self, megabytes: float) -> None: ...

    @property
    def bytes(self) -> int: ...

    @property
    def capacity(self) -> int: ...

    def __len__(self) -> int: ...

    def clear(self) -> None: ...

    OVERHEAD: Final[int] = ...
    """(arg: object, /) -> int"""

MATE_PLAYS_PER_SIMULATION: int = 2000

def search_settings() -> dict:
    """
    The native search's settings as {name: (default, low, high)} (src/native/search.hpp, Config::settings).
    """

@overload
def forced_wins(game: ChessGame, moves: int, budget: int) -> tuple: ...

@overload
def forced_wins(game: LosAlamosGame, moves: int, budget: int) -> tuple:
    """
    (the actions that force a win within `moves` moves, moves played, whether the budget sufficed: False means some move may win unseen): the search's root mate probe, on its own.
    """

class ChessSearchTree:
    """
    One game's search tree; it keeps its game alive and walks it with apply/undo during a search.
    """

    def __init__(self, game: ChessGame) -> None: ...

    @property
    def root(self) -> int: ...

    @property
    def node_count(self) -> int: ...

    @property
    def root_size(self) -> int: ...

    @property
    def at_root(self) -> bool:
        """Whether the game is still at the tree's root position."""

    @property
    def forced(self) -> object:
        """
        The root's forced win the last search's mate probe found (its action), else None.
        """

    @property
    def forced_plies(self) -> int:
        """Plies to mate along `forced`."""

    @property
    def budget(self) -> int:
        """
        Simulations left to the tree in the search under way (after begin(): its budget less the probe's cost).
        """

    @property
    def in_search(self) -> bool:
        """Whether a search holds the tree."""

    def reroot(self, action: int) -> None:
        """
        After `action` was played on the game: keep its subtree as the tree if the game is there, else start afresh.
        """

    def clear(self) -> None: ...

    def node(self, index: int) -> tuple:
        """
        (player, terminal, proven, depth, n, value, proof, actions, priors, visits, values, children, has_logits)
        """

    def root_visits(self) -> tuple:
        """(legal actions, visit counts) at the root"""

class ChessSearch:
    """
    Batched PUCT search over trees of one game, a wave at a time. Not thread-safe: one search, its trees and their games serve one thread (another search is refused their trees: InUseError).
    """

    def __init__(self, num_players: int, cache: EvaluationCache, planes_size: int, num_actions: int, **settings) -> None:
        """
        A search of `num_players`; `settings` by name, as `Config::settings` lists them (chess_envs.search.settings declares each): those not given keep their defaults.
        """

    def expand_roots(self, trees: Sequence[ChessSearchTree], num_actions: int, planes: object) -> int:
        """
        Roots for trees without one (or whose game moved); returns the rows of planes to evaluate.
        """

    def begin(self, trees: Sequence[ChessSearchTree], budget: int) -> list[bool]:
        """Give the trees with a live root `budget` simulations."""

    def collect(self, planes: object) -> int:
        """
        One wave; returns the rows of planes to evaluate, or -1 when the search is over.
        """

    def receive(self, logits: Annotated[NDArray[numpy.float32], dict(shape=(None, None), order='C', device='cpu', writable=False)], values: Annotated[NDArray[numpy.float32], dict(shape=(None, None), order='C', device='cpu', writable=False)]) -> None: ...

    def abort(self) -> None:
        """
        Take back a wave still waiting for outputs and let every tree and game go.
        """

    def take_simulations(self) -> int: ...

    def mix_noise(self, tree: ChessSearchTree, noise: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], fraction: float) -> None: ...

    def start_gumbel(self, tree: ChessSearchTree, noise: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], budget: int, considered: int) -> None: ...

    def improved_policy(self, tree: ChessSearchTree, gumbel: bool) -> Annotated[NDArray[numpy.float64], dict(order='C', device='cpu')]: ...

    def choose(self, tree: ChessSearchTree, greedy: bool) -> int: ...

    def answers(self, trees: Sequence[ChessSearchTree], greedy: Sequence[bool], gumbel: bool) -> tuple:
        """
        What a search call answers for its trees, in one call, the trees' root edges end to end: (legal actions, visit counts, value sums for each root's mover, improved_policy(gumbel) as float32, offsets [trees + 1] where each tree's edges start, choose(greedy) per tree (-1: sample by visits), the root value per tree for its mover (float32; the network's before any visit), the chosen edge's mean value (float32; NaN where the choice is -1)).
        """

class LosAlamosSearchTree:
    """
    One game's search tree; it keeps its game alive and walks it with apply/undo during a search.
    """

    def __init__(self, game: LosAlamosGame) -> None: ...

    @property
    def root(self) -> int: ...

    @property
    def node_count(self) -> int: ...

    @property
    def root_size(self) -> int: ...

    @property
    def at_root(self) -> bool:
        """Whether the game is still at the tree's root position."""

    @property
    def forced(self) -> object:
        """
        The root's forced win the last search's mate probe found (its action), else None.
        """

    @property
    def forced_plies(self) -> int:
        """Plies to mate along `forced`."""

    @property
    def budget(self) -> int:
        """
        Simulations left to the tree in the search under way (after begin(): its budget less the probe's cost).
        """

    @property
    def in_search(self) -> bool:
        """Whether a search holds the tree."""

    def reroot(self, action: int) -> None:
        """
        After `action` was played on the game: keep its subtree as the tree if the game is there, else start afresh.
        """

    def clear(self) -> None: ...

    def node(self, index: int) -> tuple:
        """
        (player, terminal, proven, depth, n, value, proof, actions, priors, visits, values, children, has_logits)
        """

    def root_visits(self) -> tuple:
        """(legal actions, visit counts) at the root"""

class LosAlamosSearch:
    """
    Batched PUCT search over trees of one game, a wave at a time. Not thread-safe: one search, its trees and their games serve one thread (another search is refused their trees: InUseError).
    """

    def __init__(self, num_players: int, cache: EvaluationCache, planes_size: int, num_actions: int, **settings) -> None:
        """
        A search of `num_players`; `settings` by name, as `Config::settings` lists them (chess_envs.search.settings declares each): those not given keep their defaults.
        """

    def expand_roots(self, trees: Sequence[LosAlamosSearchTree], num_actions: int, planes: object) -> int:
        """
        Roots for trees without one (or whose game moved); returns the rows of planes to evaluate.
        """

    def begin(self, trees: Sequence[LosAlamosSearchTree], budget: int) -> list[bool]:
        """Give the trees with a live root `budget` simulations."""

    def collect(self, planes: object) -> int:
        """
        One wave; returns the rows of planes to evaluate, or -1 when the search is over.
        """

    def receive(self, logits: Annotated[NDArray[numpy.float32], dict(shape=(None, None), order='C', device='cpu', writable=False)], values: Annotated[NDArray[numpy.float32], dict(shape=(None, None), order='C', device='cpu', writable=False)]) -> None: ...

    def abort(self) -> None:
        """
        Take back a wave still waiting for outputs and let every tree and game go.
        """

    def take_simulations(self) -> int: ...

    def mix_noise(self, tree: LosAlamosSearchTree, noise: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], fraction: float) -> None: ...

    def start_gumbel(self, tree: LosAlamosSearchTree, noise: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], budget: int, considered: int) -> None: ...

    def improved_policy(self, tree: LosAlamosSearchTree, gumbel: bool) -> Annotated[NDArray[numpy.float64], dict(order='C', device='cpu')]: ...

    def choose(self, tree: LosAlamosSearchTree, greedy: bool) -> int: ...

    def answers(self, trees: Sequence[LosAlamosSearchTree], greedy: Sequence[bool], gumbel: bool) -> tuple:
        """
        What a search call answers for its trees, in one call, the trees' root edges end to end: (legal actions, visit counts, value sums for each root's mover, improved_policy(gumbel) as float32, offsets [trees + 1] where each tree's edges start, choose(greedy) per tree (-1: sample by visits), the root value per tree for its mover (float32; the network's before any visit), the chosen edge's mean value (float32; NaN where the choice is -1)).
        """

class FourPlayerSearchTree:
    """
    One game's search tree; it keeps its game alive and walks it with apply/undo during a search.
    """

    def __init__(self, game: FourPlayerGame) -> None: ...

    @property
    def root(self) -> int: ...

    @property
    def node_count(self) -> int: ...

    @property
    def root_size(self) -> int: ...

    @property
    def at_root(self) -> bool:
        """Whether the game is still at the tree's root position."""

    @property
    def forced(self) -> object:
        """
        The root's forced win the last search's mate probe found (its action), else None.
        """

    @property
    def forced_plies(self) -> int:
        """Plies to mate along `forced`."""

    @property
    def budget(self) -> int:
        """
        Simulations left to the tree in the search under way (after begin(): its budget less the probe's cost).
        """

    @property
    def in_search(self) -> bool:
        """Whether a search holds the tree."""

    def reroot(self, action: int) -> None:
        """
        After `action` was played on the game: keep its subtree as the tree if the game is there, else start afresh.
        """

    def clear(self) -> None: ...

    def node(self, index: int) -> tuple:
        """
        (player, terminal, proven, depth, n, value, proof, actions, priors, visits, values, children, has_logits)
        """

    def root_visits(self) -> tuple:
        """(legal actions, visit counts) at the root"""

class FourPlayerSearch:
    """
    Batched PUCT search over trees of one game, a wave at a time. Not thread-safe: one search, its trees and their games serve one thread (another search is refused their trees: InUseError).
    """

    def __init__(self, num_players: int, cache: EvaluationCache, planes_size: int, num_actions: int, **settings) -> None:
        """
        A search of `num_players`; `settings` by name, as `Config::settings` lists them (chess_envs.search.settings declares each): those not given keep their defaults.
        """

    def expand_roots(self, trees: Sequence[FourPlayerSearchTree], num_actions: int, planes: object) -> int:
        """
        Roots for trees without one (or whose game moved); returns the rows of planes to evaluate.
        """

    def begin(self, trees: Sequence[FourPlayerSearchTree], budget: int) -> list[bool]:
        """Give the trees with a live root `budget` simulations."""

    def collect(self, planes: object) -> int:
        """
        One wave; returns the rows of planes to evaluate, or -1 when the search is over.
        """

    def receive(self, logits: Annotated[NDArray[numpy.float32], dict(shape=(None, None), order='C', device='cpu', writable=False)], values: Annotated[NDArray[numpy.float32], dict(shape=(None, None), order='C', device='cpu', writable=False)]) -> None: ...

    def abort(self) -> None:
        """
        Take back a wave still waiting for outputs and let every tree and game go.
        """

    def take_simulations(self) -> int: ...

    def mix_noise(self, tree: FourPlayerSearchTree, noise: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], fraction: float) -> None: ...

    def start_gumbel(self, tree: FourPlayerSearchTree, noise: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], budget: int, considered: int) -> None: ...

    def improved_policy(self, tree: FourPlayerSearchTree, gumbel: bool) -> Annotated[NDArray[numpy.float64], dict(order='C', device='cpu')]: ...

    def choose(self, tree: FourPlayerSearchTree, greedy: bool) -> int: ...

    def answers(self, trees: Sequence[FourPlayerSearchTree], greedy: Sequence[bool], gumbel: bool) -> tuple:
        """
        What a search call answers for its trees, in one call, the trees' root edges end to end: (legal actions, visit counts, value sums for each root's mover, improved_policy(gumbel) as float32, offsets [trees + 1] where each tree's edges start, choose(greedy) per tree (-1: sample by visits), the root value per tree for its mover (float32; the network's before any visit), the chosen edge's mean value (float32; NaN where the choice is -1)).
        """
