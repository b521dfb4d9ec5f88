"""The native search against the Python reference: same visit counts, moves and policy targets.

Both run with the same evaluator and the same seeded generator (noise and sampling are drawn in
Python for both), so every difference is a difference of the algorithms.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from agents.alphazero.mcts_config import quantize_planes
from agents.alphazero.reference_mcts import ReferenceMCTS
from chess_envs.registry import new_state

PLAYERS = {"los_alamos": 2, "chess": 2, "four_player": 4}


def hashed(num_actions: int, value_size: int):
    """Outputs that depend on each position alone, as a fixed network's would."""

    def evaluate(planes: np.ndarray):
        logits = np.empty((len(planes), num_actions), np.float32)
        values = np.empty((len(planes), value_size), np.float32)
        for i, row in enumerate(planes):
            rng = np.random.default_rng(zlib.crc32(row.tobytes()))
            logits[i] = rng.normal(size=num_actions) * 2
            values[i] = rng.uniform(-0.9, 0.9, size=value_size)
        return logits, values

    return evaluate


def positions(game: str, count: int, seed: int) -> list[str]:
    """Start positions a few random plies into the game."""
    rng = random.Random(seed)
    texts = []
    while len(texts) < count:
        state = new_state(game)
        for _ in range(rng.randrange(0, 12)):
            state.apply(rng.choice(list(state.legal_actions())))
        if not state.is_terminal():
            texts.append(state.to_text())
    return texts


def reference_tree(game: str, text: str) -> SearchTree:
    tree = SearchTree(new_state(game, text))
    tree._native = None  # the same state, searched by the Python reference
    return tree


def play_both(game: str, config: MCTSConfig, texts: list[str], moves: int, temperature: float) -> None:
    players = PLAYERS[game]
    evaluate = hashed(new_state(game).num_actions, 1 if players == 2 else players)
    native = MCTS(evaluate, players, config, np.random.default_rng(7))
    reference = ReferenceMCTS(evaluate, players, config, np.random.default_rng(7))
    native_trees = [SearchTree(new_state(game, text)) for text in texts]
    reference_trees = [reference_tree(game, text) for text in texts]
    assert all(tree._native is not None for tree in native_trees)
    for move in range(moves):
        native.search(native_trees)
        reference.search(reference_trees)
        for a, b in zip(native_trees, reference_trees):
            if b.root.terminal:
                continue
            actions, visits = a.visit_counts()
            expected_actions, expected_visits = b.visit_counts()
            np.testing.assert_array_equal(actions, expected_actions)
            np.testing.assert_array_equal(visits, expected_visits, err_msg=f"move {move} of {a.state.to_text()}")
            np.testing.assert_allclose(native.improved_policy(a), reference.improved_policy(b), rtol=1e-9)
            assert a.root.n == b.root.n and np.allclose(a.root.values, b.root.values)
        for a, b in zip(native_trees, reference_trees):
            if b.state.is_terminal():
                continue
            action = native.choose(a, temperature)
            assert action == reference.choose(b, temperature)
            a.advance(action)
            b.advance(action)
    assert native.network_evaluations == reference.network_evaluations
    assert native.simulations_done == reference.simulations_done


CONFIGS = {
    "one leaf, no cache": MCTSConfig(simulations=96, leaves_per_tree=1, cache_mb=0),
    "eight leaves, cache": MCTSConfig(simulations=96, leaves_per_tree=8),
    "self-play noise": MCTSConfig(simulations=64, leaves_per_tree=4, dirichlet_fraction=0.25, dirichlet_alpha=0.5),
    "gumbel": MCTSConfig(simulations=48, leaves_per_tree=4, gumbel=True, gumbel_considered=8),
    "no root fpu, large virtual loss": MCTSConfig(simulations=64, leaves_per_tree=6, root_fpu=None, virtual_loss=3.0),
    "uint8 planes": MCTSConfig(simulations=64, leaves_per_tree=4, planes="uint8"),
    "two threads, cache": MCTSConfig(simulations=96, leaves_per_tree=8, threads=2),
    "three threads, uint8, no cache": MCTSConfig(
        simulations=64, leaves_per_tree=4, planes="uint8", cache_mb=0, threads=3
    ),
}


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("game", PLAYERS)
def test_native_search_matches_the_reference(game, config):
    count = 2 if game == "four_player" else 4
    play_both(game, config, positions(game, count, seed=len(game)), moves=3, temperature=1.0)


@pytest.mark.parametrize(
    "game, text",
    [
        ("los_alamos", "3k2/6/3K2/6/6/Q5 w - - 0 1"),  # mate in one
        ("los_alamos", "q5/6/6/3k2/6/3K2 b - - 0 1"),
        ("chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),  # back-rank mate
    ],
)
def test_solver_proofs_match_the_reference(game, text):
    play_both(game, MCTSConfig(simulations=400, fpu_reduction=0.0), [text], moves=2, temperature=0.0)
    tree = SearchTree(new_state(game, text))
    mcts = MCTS(hashed(new_state(game).num_actions, 1), 2, MCTSConfig(simulations=400, fpu_reduction=0.0))
    mcts.search([tree])
    assert tree.root.proven is not None and tree.root.proven[tree.root.player] == 1.0


@pytest.mark.parametrize("game", PLAYERS)
def test_uint8_planes_are_the_quantized_observations(game):
    seen = []
    state = new_state(game, positions(game, 1, seed=3)[0])
    players = PLAYERS[game]

    def evaluate(planes):
        seen.append(planes.copy())
        return hashed(state.num_actions, 1 if players == 2 else players)(planes)

    MCTS(evaluate, players, MCTSConfig(simulations=1, leaves_per_tree=1, planes="uint8")).search([SearchTree(state)])
    assert seen[0].dtype == np.uint8 and seen[0].shape == (1, *state.observation_shape)
    np.testing.assert_array_equal(seen[0][0], quantize_planes(state.observation()))


def test_tree_reuse_keeps_the_played_subtree():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions, 1), 2, MCTSConfig(simulations=200), np.random.default_rng(0))
    tree = SearchTree(state)
    mcts.search([tree])
    action = mcts.choose(tree)
    child = tree.root.children[list(tree.root.actions).index(action)]
    tree.advance(action)
    assert tree.root.visits.sum() == child.visits.sum() > 0
    assert tree._native.node_count < 200, "the tree is compacted to the kept subtree"


@pytest.mark.parametrize("bad", ["logits", "values", "rows"])
def test_evaluator_outputs_of_the_wrong_shape_are_refused(bad):
    state = new_state("los_alamos")

    def evaluate(planes):
        rows = len(planes) + (bad == "rows")
        return (
            np.zeros((rows, state.num_actions + (bad == "logits")), np.float32),
            np.zeros((rows, 0 if bad == "values" else 1), np.float32),
        )

    with pytest.raises(ValueError, match="evaluator"):
        MCTS(evaluate, 2, MCTSConfig(simulations=8)).search([SearchTree(state)])


def test_four_player_search_wants_a_value_per_seat():
    state = new_state("four_player")
    evaluate = hashed(state.num_actions, 1)
    with pytest.raises(ValueError, match="4 values"):
        MCTS(evaluate, 4, MCTSConfig(simulations=8)).search([SearchTree(state)])


def test_one_search_takes_one_game():
    trees = [SearchTree(new_state("los_alamos")), SearchTree(new_state("chess"))]
    with pytest.raises(ValueError, match="one game"):
        MCTS(hashed(10, 1), 2).search(trees)


def test_choose_before_search_says_so():
    mcts = MCTS(hashed(10, 1), 2)
    with pytest.raises(RuntimeError, match="search"):
        mcts.choose(SearchTree(new_state("los_alamos")))


@pytest.mark.parametrize("cache_mb", [0, 256])
def test_threads_give_the_single_threaded_trees(cache_mb):
    """Each tree is walked by one thread and queues its leaves in order, so threads change nothing
    but the speed; trees that share a game are searched one after the other."""
    game, texts = "four_player", positions("four_player", 6, seed=11)
    state = new_state(game)
    evaluate = hashed(state.num_actions, 4)

    def visits(threads: int, shared: bool) -> list[np.ndarray]:
        config = MCTSConfig(simulations=48, leaves_per_tree=8, cache_mb=cache_mb, threads=threads)
        if shared:
            shared_state = new_state(game, texts[0])
            trees = [SearchTree(shared_state) for _ in range(3)]
        else:
            trees = [SearchTree(new_state(game, text)) for text in texts]
        MCTS(evaluate, 4, config, np.random.default_rng(0)).search(trees)
        return [tree.visit_counts()[1] for tree in trees]

    for shared in (False, True):
        for a, b in zip(visits(1, shared), visits(2, shared)):
            np.testing.assert_array_equal(a, b)


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        MCTSConfig(threads=0)
