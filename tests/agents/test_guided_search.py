"""The guided native search: a cheap evaluator reads every leaf, the guide (a network) reads the
roots and every node ``guide_visits`` simulations have passed through, and its priors replace the
leaf evaluator's there (AlphaGo's expansion threshold)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.alphazero.mcts import MCTS, MCTSConfig, NodeView
from chess_envs.registry import new_state
from tests.agents.test_native_search import hashed, positions


def uniform(num_actions: int, value_size: int):
    """Equal logits for every move and values from the position, as the material evaluator gives."""
    values = hashed(num_actions, value_size)

    def evaluate(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(planes), num_actions), np.float32), values(planes)[1]

    return evaluate


class Guide:
    """Logits that favour high action numbers (the priors tell a guided node at a glance); counts rows."""

    def __init__(self, num_actions: int, value_size: int, fail_on_call: int | None = None) -> None:
        self.logits = np.linspace(0.0, 3.0, num_actions, dtype=np.float32)
        self.value_size, self.rows, self.calls, self.fail_on_call = value_size, 0, 0, fail_on_call

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise RuntimeError("the guide failed")
        self.rows += len(planes)
        return np.tile(self.logits, (len(planes), 1)), np.zeros((len(planes), self.value_size), np.float32)

    def priors(self, actions: np.ndarray) -> np.ndarray:
        x = np.exp(self.logits[actions] - self.logits[actions].max())
        return x / x.sum()


def nodes(root: NodeView) -> list[NodeView]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(child for child in node.children if child is not None)
    return found


@pytest.mark.parametrize("game", ["four_player", "los_alamos"])
def test_nodes_visited_often_enough_take_the_guides_priors_and_no_others(game):
    state = new_state(game, positions(game, 1, seed=3)[0])
    width = 4 if game == "four_player" else 1
    guide = Guide(state.num_actions, width)
    config = MCTSConfig(simulations=600, guide_visits=12, mate_depth=0, cache_mb=0.0)
    mcts = MCTS(uniform(state.num_actions, width), state.num_players, config, root_evaluator=guide)
    tree = mcts.new_tree(state)
    mcts.policy([tree], np.random.default_rng(0))
    guided = 0
    for node in nodes(tree.root):
        if node.terminal or len(node.actions) < 2:
            continue
        if np.allclose(node.priors, guide.priors(node.actions)):
            guided += 1
            assert node.n >= config.guide_visits, "a node was guided before its visits"
        else:
            assert np.allclose(node.priors, 1 / len(node.actions)), "a node's priors are the leaf evaluator's"
            assert node.n <= config.guide_visits + config.leaves_per_tree, "a node visited that often was not guided"
    assert np.allclose(tree.root.priors, guide.priors(tree.root.actions)), "the guide reads the root"
    assert guided > 3 and guide.rows >= guided  # every guided node was one row for the guide
    assert guide.rows <= guided + sum(1 for n in nodes(tree.root) if len(n.actions) < 2)


def test_a_guide_that_agrees_with_the_leaf_evaluator_leaves_the_search_as_it_was():
    state = new_state("four_player", positions("four_player", 1, seed=5)[0])
    evaluate = hashed(state.num_actions, 4)
    outputs = []
    for guide_visits in (0, 3):
        config = MCTSConfig(simulations=300, guide_visits=guide_visits, cache_mb=0.0)
        mcts = MCTS(evaluate, 4, config, root_evaluator=lambda planes: evaluate(planes))
        outputs.append(mcts.policy([mcts.new_tree(state.copy())], np.random.default_rng(0)))
    assert np.array_equal(outputs[0].visit_counts[0], outputs[1].visit_counts[0])
    assert outputs[0].action[0] == outputs[1].action[0]


def test_a_failing_guide_leaves_the_tree_and_game_as_they_were_and_the_search_goes_on():
    state = new_state("four_player")
    text = state.to_text()
    config = MCTSConfig(simulations=400, guide_visits=4, cache_mb=0.0)
    failing = Guide(state.num_actions, 4, fail_on_call=3)
    mcts = MCTS(uniform(state.num_actions, 4), 4, config, root_evaluator=failing)
    tree = mcts.new_tree(state)
    with pytest.raises(RuntimeError, match="the guide failed"):
        mcts.policy([tree], np.random.default_rng(0))
    assert state.to_text() == text
    output = mcts.policy([tree], np.random.default_rng(0))  # the node that waited is guided later
    assert output.action[0] in state.legal_actions()
    stuck = [n for n in nodes(tree.root) if n.n > 4 + 8 and len(n.actions) > 1 and n.priors.std() == 0]
    assert not stuck, "a node left waiting for the failed guide was never guided"


def test_guide_visits_must_not_be_negative():
    with pytest.raises(ValueError, match="guide_visits"):
        MCTSConfig(guide_visits=-1)
