"""MCTS: mates found by search alone, value signs, batching, caching, tree reuse, Gumbel, max-n."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from chess_envs.core import GameBase, Outcome, Termination
from chess_envs.los_alamos.reference import ReferenceLosAlamosState
from chess_envs.native import core
from chess_envs.registry import new_state

PUZZLES = Path(__file__).resolve().parents[3] / "shared" / "reference" / "puzzles"


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
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is not beside this checkout")
        pytest.skip(f"{path} is not beside this checkout")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if row["category"] in categories]


@pytest.mark.parametrize("game", ["los_alamos", "chess"])
@pytest.mark.parametrize("category, simulations", [("mate1", 300), ("mate2", 8000)])
def test_uniform_network_finds_mates_for_both_sides(game, category, simulations):
    # With no value knowledge, first-play urgency below the root must not penalise unseen moves
    # (fpu_reduction=0): the search then finds mates from terminal values alone.
    cases = puzzles(game, (category,))
    assert {case["side"] for case in cases} == {"w", "b"}
    for case in cases:
        state = new_state(game, case["fen"])
        mcts = MCTS(uniform(state.num_actions), 2, MCTSConfig(simulations=simulations, fpu_reduction=0.0))
        tree = SearchTree(state)
        mcts.search([tree])
        move = state.action_to_move(mcts.choose(tree))
        assert move in case["solutions"], (case["id"], move)


@pytest.mark.parametrize("fen, winner", [("3k2/6/3K2/6/6/Q5 w - - 0 1", 0), ("q5/6/6/3k2/6/3K2 b - - 0 1", 1)])
def test_value_signs_are_right_for_both_sides(fen, winner):
    state = new_state("los_alamos", fen)
    mcts = MCTS(uniform(state.num_actions), 2, MCTSConfig(simulations=200, fpu_reduction=0.0))
    tree = SearchTree(state)
    mcts.search([tree])
    root = tree.root
    assert root.player == winner
    best = int(np.argmax(root.visits))
    assert root.values[best] / root.visits[best] == pytest.approx(1.0)  # a mate, from the mover's side
    assert root.proven is not None and root.proven[winner] == 1.0 and root.proven[1 - winner] == -1.0


def test_network_value_is_backed_up_from_each_movers_side():
    state = new_state("los_alamos")
    mcts = MCTS(uniform(state.num_actions, value=0.5), 2, MCTSConfig(simulations=1, leaves_per_tree=1))
    tree = SearchTree(state)
    mcts.search([tree])
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
    config = MCTSConfig(simulations=150, leaves_per_tree=1)
    num_actions = new_state("los_alamos").num_actions
    together = [SearchTree(new_state("los_alamos", fen)) for fen in openings]
    batched = MCTS(hashed(num_actions), 2, config, np.random.default_rng(0))
    batched.search(together)
    for fen, tree in zip(openings, together):
        alone = SearchTree(new_state("los_alamos", fen))
        MCTS(hashed(num_actions), 2, config, np.random.default_rng(0)).search([alone])
        np.testing.assert_array_equal(tree.visit_counts()[1], alone.visit_counts()[1])
    assert batched.network_evaluations <= 3 * 150 + 3, "at most one evaluation per simulation, plus the roots"


def test_many_leaves_per_tree_use_fewer_network_calls():
    num_actions = new_state("los_alamos").num_actions
    calls = []

    def counting(planes):
        calls.append(len(planes))
        return hashed(num_actions)(planes)

    trees = [SearchTree(new_state("los_alamos")) for _ in range(4)]
    MCTS(counting, 2, MCTSConfig(simulations=64, leaves_per_tree=8)).search(trees)
    assert max(calls) > 8 and len(calls) < 64
    assert all(tree.root.visits.sum() == 64 for tree in trees)


def test_evaluation_cache_and_tree_reuse():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(simulations=100))
    tree = SearchTree(state.copy())
    mcts.search([tree])
    first = mcts.network_evaluations
    again = SearchTree(state.copy())
    mcts.search([again])
    assert mcts.network_evaluations - first < first / 4, "positions seen before come from the cache"
    action = mcts.choose(tree)
    child_visits = tree.root.visits[list(tree.root.actions).index(action)]
    tree.advance(action)
    assert tree.root is not None and tree.root.visits.sum() == child_visits - 1
    assert tree.state.to_text() != state.to_text()


def test_dirichlet_noise_changes_only_the_root_priors():
    state = new_state("los_alamos")
    noisy = MCTS(
        uniform(state.num_actions), 2, MCTSConfig(simulations=30, dirichlet_fraction=0.25), np.random.default_rng(1)
    )
    tree = SearchTree(state)
    noisy.search([tree])
    assert tree.root.priors.std() > 0
    child = next(c for c in tree.root.children if c is not None and len(c.priors))
    assert child.priors.std() == pytest.approx(0.0)


def test_temperature_sampling_follows_visits():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(simulations=200), np.random.default_rng(0))
    tree = SearchTree(state)
    mcts.search([tree])
    greedy = mcts.choose(tree, temperature=0)
    assert greedy == tree.root.actions[np.argmax(tree.root.visits)]
    samples = {mcts.choose(tree, temperature=1.0) for _ in range(200)}
    assert len(samples) > 1 and samples <= set(tree.root.actions.tolist())


def test_gumbel_root_search_finds_a_mate_with_few_simulations():
    state = new_state("los_alamos", "3k2/6/3K2/6/6/Q5 w - - 0 1")
    legal = len(state.legal_actions())
    mcts = MCTS(
        uniform(state.num_actions),
        2,
        MCTSConfig(simulations=2 * legal, gumbel=True, gumbel_considered=legal),
        np.random.default_rng(0),
    )
    tree = SearchTree(state)
    mcts.search([tree])
    assert state.action_to_move(mcts.choose(tree)) in {"a1a6", "a1d4"} or tree.root.proven is not None
    policy = mcts.improved_policy(tree)
    assert policy.sum() == pytest.approx(1.0) and policy.argmax() == list(tree.root.actions).index(mcts.choose(tree))


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
    mcts = MCTS(
        lambda planes: (np.zeros((len(planes), 2), np.float32), np.zeros((len(planes), 3), np.float32)),
        3,
        MCTSConfig(simulations=200, fpu_reduction=0.0),
    )
    tree = SearchTree(ThreePlayerToy())
    mcts.search([tree])
    assert mcts.choose(tree) == 1
    assert tree.root.proven is not None and tree.root.proven.tolist() == [0.5, 0.5, -1.0]


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
    mcts = MCTS(uniform(state.num_actions, value_size=4), 4, MCTSConfig(simulations=400, fpu_reduction=0.0))
    tree = SearchTree(state)
    mcts.search([tree])
    assert state.action_to_move(mcts.choose(tree)) == winning_move


def search_six_moves_with_a_small_cache(state) -> MCTS:
    """Six searched moves with a 20 kB cache, checking the bound after each."""
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(simulations=64, cache_mb=0.02), np.random.default_rng(0))
    for _ in range(6):
        tree = SearchTree(state.copy())
        mcts.search([tree])
        state.apply(mcts.choose(tree))
        assert 0 < mcts.cache.bytes <= 20_000
    return mcts


def test_evaluation_cache_is_bounded_in_bytes_and_holds_no_planes():
    mcts = search_six_moves_with_a_small_cache(new_state("los_alamos"))
    # An entry is the float32 logits of the legal moves (< 60) and one value, nothing else.
    assert mcts.cache.bytes / len(mcts.cache) <= 4 * (60 + 1) + core.EvaluationCache.OVERHEAD


def test_reference_evaluation_cache_is_bounded_in_bytes_and_holds_no_planes():
    mcts = search_six_moves_with_a_small_cache(ReferenceLosAlamosState())
    entries = mcts.cache.reference._entries
    for logits, value in entries.values():  # priors of the legal moves and the value only
        assert logits.dtype == np.float32 and logits.size < 60 and value.size == 1
    assert len(next(iter(entries))) == 16


def test_cached_priors_follow_the_legal_moves_of_the_position():
    """The key covers the legal actions: planes alone do not fix them (en passant is not a plane)."""
    state = new_state("chess")
    mcts = MCTS(hashed(state.num_actions), 2, MCTSConfig(simulations=40), np.random.default_rng(0))
    tree = SearchTree(state.copy())
    mcts.search([tree])
    evaluations = mcts.network_evaluations
    again = SearchTree(state.copy())
    mcts.search([again])
    assert mcts.network_evaluations - evaluations < evaluations / 4, "the same positions come from the cache"
    assert np.allclose(again.root.priors, tree.root.priors)


def test_agent_reset_empties_the_cache_and_reseeds(tmp_path):
    from agents.alphazero.agent import AlphaZeroAgent
    from agents.alphazero.network import AlphaZeroNet, NetworkConfig

    state = new_state("los_alamos")
    network = AlphaZeroNet(NetworkConfig(*state.observation_shape, state.num_actions, filters=8, blocks=1))
    agent = AlphaZeroAgent("los_alamos", network=network, sims=16, temperature=1.0, cache_mb=1)
    agent.select_action(state.copy())
    assert agent.mcts.cache.bytes > 0
    agent.reset(seed=5)
    assert agent.mcts.cache.bytes == 0 and len(agent.mcts.cache) == 0
    first = [agent.select_action(state.copy()) for _ in range(5)]
    agent.reset(seed=5)
    assert [agent.select_action(state.copy()) for _ in range(5)] == first
    with pytest.raises(ValueError, match="cache_mb"):
        AlphaZeroAgent("los_alamos", network=network, cache_mb="-1")
    with pytest.raises(ValueError, match="sims"):
        AlphaZeroAgent("los_alamos", network=network, sims=10**9)


def test_agent_takes_a_mate_in_one_the_network_would_not_try_and_never_a_stalemate():
    from agents.alphazero.agent import AlphaZeroAgent, winning_action
    from agents.alphazero.network import AlphaZeroNet, NetworkConfig

    mate = new_state("chess", "r1q2rk1/pp1bn1pp/3p1p2/2b1p3/2P1P3/2N2BP1/P2P3K/R1B1q3 b - - 0 19")
    network = AlphaZeroNet(NetworkConfig(*mate.observation_shape, mate.num_actions, filters=8, blocks=1))
    agent = AlphaZeroAgent("chess", network=network, sims=4, cache_mb=0)
    assert mate.action_to_move(agent.select_action(mate)) == "e1g1"
    assert mate.to_text().startswith("r1q2rk1/") and not mate.is_terminal(), "the position is left as it was"
    stalemate_only = new_state("chess", "7k/8/6Q1/8/8/8/8/K7 w - - 0 1")  # Qf7 stalemates, nothing mates
    assert winning_action(stalemate_only) is None and winning_action(new_state("chess")) is None
