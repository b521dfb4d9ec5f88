"""MCTS: mates found by search alone, value signs, batching, caching, tree reuse, Gumbel, max-n;
the one search call (``policy``) and its PolicyOutput; SearchAgent's ``think``. The root's mate
probe is off here (``mate_depth=0``), so every simulation is a visit; its own tests are in
test_native_search.py."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from chess_envs.agents.base import SearchingAgent, SearchLimits
from chess_envs.agents.search_agent import SearchAgent
from chess_envs.core import GameBase, Outcome, Termination
from chess_envs.native import core
from chess_envs.registry import new_state
from chess_envs.search.mcts import MCTS, SearchTree
from chess_envs.search.protocol import PolicyOutput
from chess_envs.search.python_mcts import PythonMCTS, PythonSearchTree
from chess_envs.search.settings import MCTSConfig
from tests.los_alamos.reference import ReferenceLosAlamosState

PUZZLES = Path(__file__).resolve().parents[1] / "data" / "reference" / "puzzles"


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def uniform(num_actions: int, value: float = 0.0, value_size: int = 1):
    """A network that knows nothing: equal logits, a constant value for the mover (per seat
    with ``value_size`` > 1, as for games of more than two players)."""

    def evaluate(planes: np.ndarray):
        return np.zeros((len(planes), num_actions), np.float32), np.full((len(planes), value_size), value, np.float32)

    return evaluate


def hashed(num_actions: int):
    """A deterministic network whose outputs depend on each position alone (exact in any batch)."""

    def evaluate(planes: np.ndarray):
        logits, values = [], []
        for row in planes:
            rng = np.random.default_rng(zlib.crc32(row.tobytes()))
            logits.append(rng.normal(size=num_actions).astype(np.float32))
            values.append([rng.uniform(-0.5, 0.5)])
        return np.array(logits), np.array(values, np.float32)

    return evaluate


def puzzles(game: str, categories: tuple[str, ...]) -> list[dict]:
    path = PUZZLES / f"{'chess' if game == 'chess' else 'los_alamos'}_public.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if row["category"] in categories]


@pytest.mark.parametrize("game", ["los_alamos", "chess"])
@pytest.mark.parametrize("category, simulations", [("mate1", 300), ("mate2", 8000)])
def test_uniform_network_finds_mates_for_both_sides(game, category, simulations):
    # With no value knowledge, first-play urgency below the root must not penalise unseen moves
    # (fpu_reduction=0): the search then finds mates from terminal values alone (the simulations
    # themselves: the root's mate probe is off).
    cases = puzzles(game, (category,))
    assert {case["side"] for case in cases} == {"w", "b"}
    for case in cases:
        state = new_state(game, case["fen"])
        config = MCTSConfig(simulations=simulations, fpu_reduction=0.0, mate_depth=0)
        mcts = MCTS(uniform(state.num_actions), 2, config)
        tree = SearchTree(state)
        move = state.action_to_move(int(mcts.policy([tree], rng()).action[0]))
        assert move in case["solutions"], (case["id"], move)


@pytest.mark.parametrize("fen, winner", [("3k2/6/3K2/6/6/Q5 w - - 0 1", 0), ("q5/6/6/3k2/6/3K2 b - - 0 1", 1)])
def test_value_signs_are_right_for_both_sides(fen, winner):
    state = new_state("los_alamos", fen)
    mcts = MCTS(uniform(state.num_actions), 2, MCTSConfig(simulations=200, fpu_reduction=0.0, mate_depth=0))
    tree = SearchTree(state)
    output = mcts.policy([tree], rng())
    root = tree.root
    assert root.player == winner
    best = int(np.argmax(root.visits))
    assert root.values[best] / root.visits[best] == pytest.approx(1.0)  # a mate, from the mover's side
    assert root.proven is not None and root.proven[winner] == 1.0 and root.proven[1 - winner] == -1.0
    assert output.score[0] == pytest.approx(1.0)  # the chosen move mates: the mover's sure win


def test_network_value_is_backed_up_from_each_movers_side():
    state = new_state("los_alamos")
    mcts = MCTS(uniform(state.num_actions, value=0.5), 2, MCTSConfig(mate_depth=0, simulations=1, leaves_per_tree=1))
    tree = SearchTree(state)
    mcts.policy([tree], rng())
    root = tree.root
    assert root.value.tolist() == [0.5, -0.5]  # white to move thinks it is better
    visited = int(np.flatnonzero(root.visits)[0])
    # The child is black to move and also "better for the mover": bad for white at the root.
    assert root.values[visited] == pytest.approx(-0.5)


def test_batched_and_one_leaf_search_agree_without_noise():
    openings = [
        "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1",
        "r1qknr/pppppp/2n3/2N3/PPPPPP/R1QKNR w - - 2 2",
        "rnqknr/1ppppp/p5/6/PPPPP1/RNQKNR b - - 0 1",
    ]
    config = MCTSConfig(mate_depth=0, simulations=150, leaves_per_tree=1)
    num_actions = new_state("los_alamos").num_actions
    together = [SearchTree(new_state("los_alamos", fen)) for fen in openings]
    batched = MCTS(hashed(num_actions), 2, config)
    output = batched.policy(together, rng())
    for i, fen in enumerate(openings):
        alone = MCTS(hashed(num_actions), 2, config).policy([SearchTree(new_state("los_alamos", fen))], rng())
        np.testing.assert_array_equal(output.legal_actions[i], alone.legal_actions[0])
        np.testing.assert_array_equal(output.visit_counts[i], alone.visit_counts[0])
        assert output.action[i] == alone.action[0]
    assert batched.network_evaluations <= 3 * 150 + 3, "at most one evaluation per simulation, plus the roots"


def test_many_leaves_per_tree_use_fewer_network_calls():
    num_actions = new_state("los_alamos").num_actions
    calls = []

    def counting(planes):
        calls.append(len(planes))
        return hashed(num_actions)(planes)

    trees = [SearchTree(new_state("los_alamos")) for _ in range(4)]
    MCTS(counting, 2, MCTSConfig(mate_depth=0, simulations=64, leaves_per_tree=8)).policy(trees, rng())
    assert max(calls) > 8 and len(calls) < 64
    assert all(tree.root.visits.sum() == 64 for tree in trees)


def test_evaluation_cache_and_tree_reuse():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=100))
    tree = SearchTree(state.copy())
    action = int(mcts.policy([tree], rng()).action[0])
    first = mcts.network_evaluations
    mcts.policy([SearchTree(state.copy())], rng())
    assert mcts.network_evaluations - first < first / 4, "positions seen before come from the cache"
    child_visits = tree.root.visits[list(tree.root.actions).index(action)]
    tree.advance(action)
    assert tree.root is not None and tree.root.visits.sum() == child_visits - 1
    assert tree.state.to_text() != state.to_text()


def test_dirichlet_noise_changes_only_the_root_priors():
    state = new_state("los_alamos")
    noisy = MCTS(uniform(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=30, dirichlet_fraction=0.25))
    tree = SearchTree(state)
    noisy.policy([tree], rng(1))
    assert tree.root.priors.std() > 0
    child = next(c for c in tree.root.children if c is not None and len(c.priors))
    assert child.priors.std() == pytest.approx(0.0)


def test_temperature_sampling_follows_visits():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=200))
    tree = SearchTree(state)
    generator = rng()
    greedy = mcts.policy([tree], generator, temperature=0).action[0]
    assert greedy == tree.root.actions[np.argmax(tree.root.visits)]
    # No more simulations: each call chooses again from the same visit counts.
    samples = {int(mcts.policy([tree], generator, temperature=1.0, simulations=0).action[0]) for _ in range(200)}
    assert len(samples) > 1 and samples <= set(tree.root.actions.tolist())
    assert tree.root.visits.sum() == 200


def test_gumbel_root_search_finds_a_mate_with_few_simulations():
    state = new_state("los_alamos", "3k2/6/3K2/6/6/Q5 w - - 0 1")
    legal = len(state.legal_actions())
    config = MCTSConfig(mate_depth=0, simulations=2 * legal, gumbel=True, gumbel_considered=legal)
    mcts = MCTS(uniform(state.num_actions), 2, config)
    tree = SearchTree(state)
    output = mcts.policy([tree], rng())
    action = int(output.action[0])
    assert state.action_to_move(action) in {"a1a6", "a1d4"} or tree.root.proven is not None
    policy = output.action_weights[0]
    assert policy.sum() == pytest.approx(1.0) and policy.argmax() == list(output.legal_actions[0]).index(action)


class ThreePlayerToy(GameBase):
    """Seat 0 picks a branch, then seat 1 picks a leaf; each leaf pays a value per seat.

    Seat 1 maximises its own value (max-n), so seat 0 should prefer branch 1 (where seat 1's
    best leaf also pays seat 0 well) over branch 0 (whose best leaf for seat 0 seat 1 avoids).
    """

    num_players = 3
    num_actions = 2
    observation_shape = (1, 1, 2)
    PAYOFFS = {(0, 0): (1.0, -1.0, 0.0), (0, 1): (-1.0, 1.0, 0.0), (1, 0): (0.5, 0.5, -1.0), (1, 1): (0.0, 0.0, 0.0)}

    def __init__(self, moves=()):
        self.moves = list(moves)

    @property
    def current_player(self):
        return len(self.moves) % 3

    def legal_actions(self):
        return np.zeros(0, np.int64) if self.is_terminal() else np.arange(2)

    def apply(self, action):
        self.moves.append(int(action))

    def undo(self):
        self.moves.pop()

    def copy(self):
        return ThreePlayerToy(self.moves)

    def is_terminal(self):
        return len(self.moves) == 2

    def outcome(self):
        return Outcome(Termination.CHECKMATE, self.PAYOFFS[tuple(self.moves)]) if self.is_terminal() else None

    def returns(self):
        return np.array(self.outcome().returns if self.is_terminal() else (0, 0, 0), np.float32)

    def observation(self, player=None):
        return np.array([[[len(self.moves), self.moves[0] if self.moves else -1]]], np.float32)


def test_max_n_backup_with_three_players():
    # A game in Python alone: the Python search, which the native one does not take.
    mcts = PythonMCTS(
        lambda planes: (np.zeros((len(planes), 2), np.float32), np.zeros((len(planes), 3), np.float32)),
        3,
        MCTSConfig(mate_depth=0, simulations=200, fpu_reduction=0.0),
    )
    tree = PythonSearchTree(ThreePlayerToy())
    assert mcts.policy([tree], rng()).action.tolist() == [1]
    assert tree.root.proven is not None and tree.root.proven.tolist() == [0.5, 0.5, -1.0]
    with pytest.raises(ValueError, match="no native search"):
        SearchTree(ThreePlayerToy())


@pytest.mark.parametrize(
    ("fen4", "winning_move"),
    [
        # Red to move takes Blue's king: the last opponent is out and Red wins on points.
        (
            "R-0,0,1,1-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/14/14/14/14/"
            "bK,2,rQ,10/14/14/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x",
            "d7-a7",
        ),
        # Blue, in its rotated frame, takes Red's king.
        (
            "B-0,0,1,1-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/14/14/14/14/"
            "bK,13/14/14/7,bQ,6/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x",
            "h4-h1",
        ),
    ],
)
def test_four_player_search_finds_the_winning_king_capture(fen4, winning_move):
    state = new_state("four_player", fen4)
    config = MCTSConfig(mate_depth=0, simulations=400, fpu_reduction=0.0)
    mcts = MCTS(uniform(state.num_actions, value_size=4), 4, config)
    tree = SearchTree(state)
    assert state.action_to_move(int(mcts.policy([tree], rng()).action[0])) == winning_move


def search_six_moves_with_a_small_cache(state, search=MCTS):
    """Six searched moves with a 20 kB cache, checking the bound after each."""
    mcts = search(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=64, cache_mb=0.02))
    generator = rng()
    for _ in range(6):
        output = mcts.policy([mcts.new_tree(state.copy())], generator)
        state.apply(int(output.action[0]))
        assert 0 < mcts.cache.bytes <= 20_000
    return mcts


def test_evaluation_cache_is_bounded_in_bytes_and_holds_no_planes():
    mcts = search_six_moves_with_a_small_cache(new_state("los_alamos"))
    # An entry is the float32 logits of the legal moves (< 60) and one value, nothing else.
    assert mcts.cache.bytes / len(mcts.cache) <= 4 * (60 + 1) + core.EvaluationCache.OVERHEAD


def test_python_evaluation_cache_is_bounded_in_bytes_and_holds_no_planes():
    mcts = search_six_moves_with_a_small_cache(ReferenceLosAlamosState(), PythonMCTS)
    entries = mcts.cache._entries
    for logits, value in entries.values():  # priors of the legal moves and the value only
        assert logits.dtype == np.float32 and logits.size < 60 and value.size == 1
    assert len(next(iter(entries))) == 16


def test_cached_priors_follow_the_legal_moves_of_the_position():
    """The key covers the legal actions: planes alone do not fix them (en passant is not a plane)."""
    state = new_state("chess")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=40))
    tree = SearchTree(state.copy())
    mcts.policy([tree], rng())
    evaluations = mcts.network_evaluations
    again = SearchTree(state.copy())
    mcts.policy([again], rng())
    assert mcts.network_evaluations - evaluations < evaluations / 4, "the same positions come from the cache"
    assert np.allclose(again.root.priors, tree.root.priors)


def test_agent_reset_empties_the_cache_and_reseeds(tmp_path):
    from chess_envs.agents.alphazero.agent import AlphaZeroAgent
    from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig

    state = new_state("los_alamos")
    network = AlphaZeroNet(NetworkConfig(*state.observation_shape, state.num_actions, filters=8, blocks=1))
    agent = AlphaZeroAgent.from_spec("los_alamos", network=network, sims=16, temperature=1.0, cache_mb=1)
    agent.select_action(state.copy())
    assert agent.search.cache.bytes > 0
    agent.reset(seed=5)
    assert agent.search.cache.bytes == 0 and len(agent.search.cache) == 0
    first = [agent.select_action(state.copy()) for _ in range(5)]
    agent.reset(seed=5)
    assert [agent.select_action(state.copy()) for _ in range(5)] == first
    with pytest.raises(ValueError, match="cache_mb"):
        AlphaZeroAgent.from_spec("los_alamos", network=network, cache_mb="-1")
    with pytest.raises(ValueError, match="sims"):
        AlphaZeroAgent.from_spec("los_alamos", network=network, sims=10**9)


def test_agent_takes_a_mate_in_one_the_network_would_not_try_and_never_a_stalemate():
    from chess_envs.agents.alphazero.agent import AlphaZeroAgent
    from chess_envs.agents.alphazero.network import AlphaZeroNet, NetworkConfig
    from chess_envs.agents.search_agent import winning_action

    mate = new_state("chess", "r1q2rk1/pp1bn1pp/3p1p2/2b1p3/2P1P3/2N2BP1/P2P3K/R1B1q3 b - - 0 19")
    network = AlphaZeroNet(NetworkConfig(*mate.observation_shape, mate.num_actions, filters=8, blocks=1))
    agent = AlphaZeroAgent.from_spec("chess", network=network, sims=4, cache_mb=0)
    assert mate.action_to_move(agent.select_action(mate)) == "e1g1"
    assert mate.to_text().startswith("r1q2rk1/") and not mate.is_terminal(), "the position is left as it was"
    stalemate_only = new_state("chess", "7k/8/6Q1/8/8/8/8/K7 w - - 0 1")  # Qf7 stalemates, nothing mates
    assert winning_action(stalemate_only) is None and winning_action(new_state("chess")) is None


# -- the one search call: policy() and its PolicyOutput ---------------------------------------

SEARCHES = {"native": MCTS, "python": PythonMCTS}
OPENINGS = (
    "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1",
    "r1qknr/pppppp/2n3/2N3/PPPPPP/R1QKNR w - - 2 2",
    "rnqknr/1ppppp/p5/6/PPPPP1/RNQKNR b - - 0 1",
)


@pytest.mark.parametrize("search", SEARCHES.values(), ids=SEARCHES.keys())
def test_policy_output_has_one_entry_per_tree_with_the_documented_types(search):
    states = [new_state("los_alamos", text) for text in OPENINGS]
    mcts = search(hashed(states[0].num_actions), 2, MCTSConfig(mate_depth=0, simulations=24, leaves_per_tree=4))
    trees = [mcts.new_tree(state) for state in states]
    output = mcts.policy(trees, rng())
    assert isinstance(output, PolicyOutput) and output.trees == tuple(trees)
    assert output.action.shape == (3,) and output.action.dtype == np.int64
    assert output.root_value.shape == output.score.shape == (3,)
    assert output.root_value.dtype == output.score.dtype == np.float32
    for per_tree in (output.legal_actions, output.action_weights, output.visit_counts):
        assert isinstance(per_tree, tuple) and len(per_tree) == 3
    for i, (tree, state, text) in enumerate(zip(trees, states, OPENINGS)):
        assert state.to_text() == text, "the search leaves each game where it was"
        legal, weights, visits = output.legal_actions[i], output.action_weights[i], output.visit_counts[i]
        assert legal.dtype == np.int64 and sorted(legal.tolist()) == sorted(state.legal_actions().tolist())
        assert weights.dtype == np.float32 and weights.shape == legal.shape
        assert visits.dtype == np.float64 and visits.shape == legal.shape
        assert visits.sum() == 24
        np.testing.assert_allclose(weights, visits / 24, rtol=1e-6)  # PUCT: the visit shares
        assert output.action[i] == legal[np.argmax(visits)]  # temperature 0: the most visited
        root = tree.root
        np.testing.assert_array_equal(root.actions, legal)
        np.testing.assert_array_equal(root.visits, visits)
        chosen = int(np.flatnonzero(legal == output.action[i])[0])
        assert output.root_value[i] == pytest.approx(root.values.sum() / 24, abs=1e-6)
        assert output.score[i] == pytest.approx(root.values[chosen] / root.visits[chosen], abs=1e-6)
        assert -1 <= output.score[i] <= 1


@pytest.mark.parametrize("search", SEARCHES.values(), ids=SEARCHES.keys())
def test_temperatures_one_per_tree(search):
    state = new_state("los_alamos")
    mcts = search(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=100))
    trees = [mcts.new_tree(state.copy()) for _ in range(3)]
    temperatures = [0.0, 1.0, 0.0]
    first = mcts.policy(trees, rng(), temperature=temperatures)
    greedy = [int(first.legal_actions[i][np.argmax(first.visit_counts[i])]) for i in range(3)]
    seen: list[set[int]] = [set(), set(), set()]
    for seed in range(60):
        output = mcts.policy(trees, rng(seed), temperature=np.array(temperatures), simulations=0)
        for chosen, action in zip(seen, output.action.tolist()):
            chosen.add(action)
        # Only the tree at temperature 1 draws a number: alone, from a generator seeded alike, it samples the same.
        alone = mcts.policy([trees[1]], rng(seed), temperature=1.0, simulations=0)
        assert alone.action[0] == output.action[1]
    assert seen[0] == {greedy[0]} and seen[2] == {greedy[2]}
    assert len(seen[1]) > 1 and seen[1] <= set(first.legal_actions[1].tolist())
    assert all(tree.root.visits.sum() == 100 for tree in trees), "simulations=0 searched nothing more"


@pytest.mark.parametrize("temperature", [-0.5, float("nan"), [0.0, -1.0], [1.0], [1.0, 1.0, 1.0], [[1.0, 1.0]]])
@pytest.mark.parametrize("search", SEARCHES.values(), ids=SEARCHES.keys())
def test_bad_temperatures_are_a_value_error_before_any_search(search, temperature):
    state = new_state("los_alamos")
    mcts = search(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=8))
    trees = [mcts.new_tree(state.copy()) for _ in range(2)]
    with pytest.raises(ValueError, match="temperature"):
        mcts.policy(trees, rng(), temperature=temperature)
    assert all(tree.root is None for tree in trees) and mcts.network_evaluations == 0


@pytest.mark.parametrize("search", SEARCHES.values(), ids=SEARCHES.keys())
def test_an_empty_batch_is_a_value_error(search):
    mcts = search(hashed(10), 2, MCTSConfig(mate_depth=0, simulations=8))
    with pytest.raises(ValueError, match="at least one tree"):
        mcts.policy([], rng())


def test_each_search_takes_only_its_own_trees():
    state = new_state("los_alamos")
    native = MCTS(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=8))
    python = PythonMCTS(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=8))
    with pytest.raises(TypeError, match="takes the SearchTrees of its search's new_tree"):
        native.policy([PythonSearchTree(state.copy())], rng())
    with pytest.raises(TypeError, match="takes the SearchTrees of its search's new_tree"):
        native.policy([native.new_tree(state.copy()), python.new_tree(state.copy())], rng())
    with pytest.raises(TypeError, match="PythonSearchTrees"):
        python.policy([SearchTree(state.copy())], rng())
    assert native.network_evaluations == python.network_evaluations == 0


@pytest.mark.parametrize("search", SEARCHES.values(), ids=SEARCHES.keys())
def test_a_finished_game_is_a_value_error_and_nothing_is_searched(search):
    over = new_state("los_alamos", "3k2/6/3K2/6/6/Q5 w - - 0 1")
    over.apply(over.move_to_action("a1a6"))
    assert over.is_terminal()
    mcts = search(hashed(over.num_actions), 2, MCTSConfig(mate_depth=0, simulations=8))
    live = mcts.new_tree(new_state("los_alamos"))
    with pytest.raises(ValueError, match="game is over"):
        mcts.policy([live, mcts.new_tree(over)], rng())
    assert live.root is None and mcts.network_evaluations == 0
    assert mcts.policy([live], rng()).action[0] in live.state.legal_actions()


def test_a_game_moved_outside_advance_is_searched_again_from_where_it_is():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(mate_depth=0, simulations=32))
    tree = SearchTree(state)
    generator = rng()
    mcts.policy([tree], generator)
    state.apply(state.move_to_action("b2b3"))  # on the game, not through the tree
    output = mcts.policy([tree], generator)
    assert sorted(output.legal_actions[0].tolist()) == sorted(state.legal_actions().tolist())
    assert output.visit_counts[0].sum() == 32, "a new root: nothing kept from the other position"
    assert tree.root.player == 1 and output.action[0] in state.legal_actions()


# -- SearchAgent: thinking within limits -------------------------------------------------------


def search_agent(game: str, simulations: int = 32) -> SearchAgent:
    if game == "tic_tac_toe":
        from tests import toy_game

        toy_game.register()
    config = MCTSConfig(mate_depth=0, simulations=simulations)
    return SearchAgent(game, hashed(new_state(game).num_actions), config, 0.0, 0)


THINKING_GAMES = ["los_alamos", "tic_tac_toe"]  # the native search and the Python one


@pytest.mark.parametrize("game", THINKING_GAMES)
def test_think_within_a_node_limit_reports_each_chunk(game):
    agent = search_agent(game)
    assert isinstance(agent, SearchingAgent)
    assert isinstance(agent.search, MCTS if game == "los_alamos" else PythonMCTS)
    state = new_state(game)
    before = state.to_text()
    reports = []
    thought = agent.think(state, SearchLimits(nodes=40), report=reports.append)
    nodes = [0, *(r.nodes for r in reports)]
    chunks = [b - a for a, b in zip(nodes, nodes[1:])]
    assert chunks[0] == 16 and nodes[-1] == 40 and thought == reports[-1], nodes
    assert all(0 < b <= 2 * a for a, b in zip(chunks, chunks[1:])), "a chunk at most doubles the one before"
    assert state.to_text() == before, "the state is left as it was given"
    assert state.legal_action_mask()[thought.action] and -1 <= thought.score <= 1
    assert thought.pv and thought.pv[0] == thought.action
    line = state.copy()
    for action in thought.pv:  # the principal variation is a line of legal moves
        assert line.legal_action_mask()[action]
        line.apply(action)
    assert agent.think(new_state(game, before), SearchLimits()).nodes == 40 + 32, "default: the config's budget"


@pytest.mark.parametrize("game", THINKING_GAMES)
def test_thinking_twice_about_one_position_goes_on_with_the_same_tree(game):
    agent = search_agent(game)
    state = new_state(game)
    first = agent.think(state, SearchLimits(nodes=32))
    second = agent.think(state.copy(), SearchLimits(nodes=32))
    assert (first.nodes, second.nodes) == (32, 64), "the visits grow"
    moved = state.copy()
    moved.apply(first.action)
    assert agent.think(moved, SearchLimits(nodes=32)).nodes == 32, "another position: another tree"
    agent.select_action(moved)  # a move played forgets the tree
    assert agent.think(moved, SearchLimits(nodes=16)).nodes == 16


def test_think_until_stop_or_for_a_time_or_to_a_depth():
    agent = search_agent("los_alamos", simulations=400)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) == 3

    thought = agent.think(new_state("los_alamos"), SearchLimits(infinite=True), stop=stop)
    assert 48 <= thought.nodes <= 16 + 32 + 64 and len(asked) == 3, "three chunks, each at most double"
    assert agent.think(new_state("los_alamos", OPENINGS[1]), SearchLimits(nodes=1000), stop=lambda: True).nodes == 16
    timed = agent.think(new_state("los_alamos", OPENINGS[2]), SearchLimits(seconds=0.2))
    assert 0.2 <= timed.seconds < 10 and timed.nodes >= 16
    deep = search_agent("los_alamos", simulations=400).think(new_state("los_alamos"), SearchLimits(depth=3))
    assert len(deep.pv) >= 3 and deep.nodes < 400
    shallow = search_agent("los_alamos").think(new_state("los_alamos"), SearchLimits(depth=60))
    assert shallow.nodes == 32 and len(shallow.pv) < 60, "a depth not reached stops at the default budget"
