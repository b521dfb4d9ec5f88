"""The native search against the Python one: same visit counts, moves and policy targets.

Both run with the same evaluator and two generators seeded alike (noise and sampling are drawn in
Python for both, in the same order), and are compared through the PolicyOutput of one call, so
every difference is a difference of the algorithms.
"""

from __future__ import annotations

import json
import os
import random
import zlib
from pathlib import Path

import numpy as np
import pytest

from chess_envs.native import core
from chess_envs.registry import new_state
from chess_envs.search.mate_probe import PLAYS_PER_SIMULATION, MateProbe, probe_root
from chess_envs.search.mcts import MCTS, SearchTree
from chess_envs.search.protocol import PolicyOutput, quantize_planes
from chess_envs.search.python_mcts import PythonMCTS, PythonSearchTree
from chess_envs.search.settings import MCTSConfig

forced_wins = core.forced_wins
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "puzzles"
MATE_SETS = Path(__file__).resolve().parents[1] / "data" / "mates"

PLAYERS = {"los_alamos": 2, "chess": 2, "four_player": 4}
SANITIZER_BUILD = "CHESS_ENVS_CORE" in os.environ
"""tests/native/sanitizers.sh points the core at its ASan/UBSan build: Python-only oracles are left out there"""


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


def assert_same_output(native: PolicyOutput, python: PolicyOutput, what: str) -> None:
    """The two searches' answers for one batch: the same, to the last visit and the last move."""
    np.testing.assert_array_equal(native.action, python.action, err_msg=what)
    assert native.action.dtype == python.action.dtype == np.int64
    for a, b in zip(native.trees, python.trees):
        assert a.root.n == b.root.n and np.allclose(a.root.values, b.root.values), what
    for i in range(len(native.action)):
        np.testing.assert_array_equal(native.legal_actions[i], python.legal_actions[i], err_msg=what)
        np.testing.assert_array_equal(native.visit_counts[i], python.visit_counts[i], err_msg=what)
        assert native.action_weights[i].dtype == python.action_weights[i].dtype == np.float32
        np.testing.assert_array_equal(native.action_weights[i], python.action_weights[i], err_msg=what)
    np.testing.assert_array_equal(native.root_value, python.root_value, err_msg=what)
    np.testing.assert_array_equal(native.score, python.score, err_msg=what)


def play_both(
    game: str,
    config: MCTSConfig,
    texts: list[str],
    moves: int,
    temperature: float | list[float],
    restrict: int = 0,
) -> None:
    """``moves`` moves of every game, each chosen by one policy() call of each search (games that
    end drop out of the batch); ``temperature`` is one for all or one per game; ``restrict`` > 0
    limits each search to that many of the legal moves (UCI's ``searchmoves``), none visited outside."""
    players = PLAYERS[game]
    evaluate = hashed(new_state(game).num_actions, 1 if players == 2 else players)
    native = MCTS(evaluate, players, config)
    python = PythonMCTS(evaluate, players, config)
    native_rng, python_rng = np.random.default_rng(7), np.random.default_rng(7)
    native_trees = [SearchTree(new_state(game, text)) for text in texts]
    python_trees = [PythonSearchTree(new_state(game, text)) for text in texts]
    temperatures = temperature if isinstance(temperature, list) else [temperature] * len(texts)
    for move in range(moves):
        live = [i for i, tree in enumerate(python_trees) if not tree.state.is_terminal()]
        if not live:
            break
        temps = [temperatures[i] for i in live]
        for i in live:
            if restrict:
                legal = np.asarray(python_trees[i].state.legal_actions(), dtype=np.int64)
                only = np.sort(np.random.default_rng(move * 31 + i).permutation(legal)[:restrict])
                native_trees[i].only, python_trees[i].only = only, only.copy()
        a = native.policy([native_trees[i] for i in live], native_rng, temperature=temps)
        b = python.policy([python_trees[i] for i in live], python_rng, temperature=temps)
        assert_same_output(a, b, f"move {move} of {[python_trees[i].state.to_text() for i in live]}")
        if restrict:
            for k, i in enumerate(live):
                outside = ~np.isin(a.legal_actions[k], native_trees[i].only)  # the tree started afresh
                assert a.action[k] in native_trees[i].only and not a.visit_counts[k][outside].any()
        for i, action in zip(live, a.action.tolist()):
            native_trees[i].advance(action)
            python_trees[i].advance(action)
    assert native.network_evaluations == python.network_evaluations
    assert native.simulations_done == python.simulations_done
    assert native_rng.random() == python_rng.random(), "both drew as many random numbers"


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
def test_native_search_matches_the_python_search(game, config):
    count = 2 if game == "four_player" else 4
    play_both(game, config, positions(game, count, seed=len(game)), moves=3, temperature=1.0)


RESTRICTED = ["one leaf, no cache", "self-play noise", "gumbel", "no root fpu, large virtual loss"]


@pytest.mark.parametrize("config", [CONFIGS[name] for name in RESTRICTED], ids=RESTRICTED)
@pytest.mark.parametrize("game", ["los_alamos", "chess"])
def test_a_restricted_root_is_searched_alike_and_nothing_else_is_visited(game, config):
    # the default root first-play urgency (1.0) once tried every left-out move; now none is searched
    play_both(game, config, positions(game, 3, seed=11), moves=3, temperature=0.0, restrict=3)


@pytest.mark.parametrize("config", [CONFIGS["eight leaves, cache"], CONFIGS["gumbel"]], ids=["puct", "gumbel"])
def test_per_tree_temperatures_match_the_python_search(config):
    texts = positions("los_alamos", 4, seed=9)
    play_both("los_alamos", config, texts, moves=4, temperature=[1.0, 0.0, 0.5, 0.0])


@pytest.mark.parametrize(
    "game, text",
    [
        ("los_alamos", "3k2/6/3K2/6/6/Q5 w - - 0 1"),  # mate in one
        ("los_alamos", "q5/6/6/3k2/6/3K2 b - - 0 1"),
        ("chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),  # back-rank mate
    ],
)
def test_solver_proofs_match_the_python_search(game, text):
    config = MCTSConfig(simulations=400, fpu_reduction=0.0, mate_depth=0)  # the MCTS-solver's proof, not the probe's
    play_both(game, config, [text], moves=2, temperature=0.0)
    tree = SearchTree(new_state(game, text))
    mcts = MCTS(hashed(new_state(game).num_actions, 1), 2, config)
    output = mcts.policy([tree], np.random.default_rng(0))
    assert tree.root.proven is not None and tree.root.proven[tree.root.player] == 1.0
    assert output.score[0] == 1.0, "the chosen move is the proven win"


MATES = {
    game: [json.loads(line) for line in (REFERENCE / f"{game}_public.jsonl").read_text().splitlines()
           if '"category": "mate' in line]
    for game in ("chess", "los_alamos")
}  # fmt: skip


@pytest.mark.parametrize("game", MATES)
def test_the_mate_probe_finds_every_mating_move_and_matches_the_python_probe(game):
    """Every first move that forces mate within N (N = 1, 2, 3): the engine-verified puzzles, and
    the short-mate sets of real games solved exactly over python-chess / pyffish
    (``tools/make_mates.py``). The native probe finds exactly those moves and no shorter mate;
    the Python probe agrees move for move, to the count of moves played (on every fifth position:
    it is slower; not on the sanitizer build, where it would be three quarters of the test and
    checks the Python probe rather than the native code)."""
    real = [json.loads(line) for line in (MATE_SETS / f"{game}.jsonl").read_text().splitlines()]
    assert sum(p["mate_in"] == 2 for p in real) >= 200 and sum(p["mate_in"] == 3 for p in real) >= 100
    for index, puzzle in enumerate(MATES[game] + real):
        state = new_state(game, puzzle["fen"])
        wins, plays, complete = forced_wins(state._game, puzzle["mate_in"], 10**8)
        assert complete and state.to_text() == puzzle["fen"], "the probe finished and the game is back"
        assert sorted(state.action_to_move(a) for a in wins) == sorted(puzzle["solutions"]), puzzle["id"]
        if puzzle["mate_in"] > 1:  # and no shorter mate: the probe does not see one either
            assert forced_wins(state._game, puzzle["mate_in"] - 1, 10**8)[0] == []
        if index % 5 == 0 and not SANITIZER_BUILD:
            probe = MateProbe(state, 10**8)
            assert [int(a) for a in state.legal_actions() if probe.wins_with(int(a), puzzle["mate_in"])] == wins
            assert probe.plays == plays


def test_the_mate_probe_stops_at_its_budget_and_then_claims_nothing():
    puzzle = next(p for p in MATES["chess"] if p["mate_in"] == 3)
    state = new_state("chess", puzzle["fen"])
    full = forced_wins(state._game, 3, 10**7)[1]
    wins, plays, complete = forced_wins(state._game, 3, full // 2)
    assert plays == full // 2 and not complete and set(wins) <= set(forced_wins(state._game, 3, 10**7)[0])
    with pytest.raises(ValueError, match="moves must be in"):
        forced_wins(state._game, 0, 100)


@pytest.mark.parametrize("game", MATES)
def test_a_probed_mate_is_played_at_once_and_is_the_whole_policy_target(game):
    """A mate in 2 or 3 found by the root's probe: no simulation is spent, the move is the proven
    win, the training target is all on it and the score is a win; the Python search agrees."""
    puzzles = [p for p in MATES[game] if p["mate_in"] > 1]
    config = MCTSConfig(simulations=200, leaves_per_tree=4)
    play_both(game, config, [p["fen"] for p in puzzles[:6]], moves=1, temperature=1.0)
    evaluate = hashed(new_state(game).num_actions, 1)
    found = []
    for puzzle in puzzles:
        state = new_state(game, puzzle["fen"])
        actions = np.array(state.legal_actions())
        expected = probe_root(state.copy(), actions, np.ones(len(actions)), 3, 200)[0]  # within its cap or not
        mcts, tree = MCTS(evaluate, 2, config), SearchTree(state)
        output = mcts.policy([tree], np.random.default_rng(0), temperature=1.0)
        assert tree.forced == expected, puzzle["id"]
        if expected is None:
            continue
        found.append(puzzle["mate_in"])
        assert tree.state.action_to_move(int(output.action[0])) in puzzle["solutions"] and output.action[0] == expected
        assert mcts.simulations_done == 0 and mcts.network_evaluations == 1 and output.score[0] == 1.0
        assert output.action_weights[0][output.legal_actions[0] == output.action[0]] == 1.0
        assert output.action_weights[0].sum() == 1.0
    assert found.count(2) == sum(p["mate_in"] == 2 for p in puzzles) and found.count(3) >= 4


def test_without_a_mate_the_probe_costs_simulations_as_the_python_search_counts_them():
    """No forced win within 3 moves: what the probe played comes off the budget, in both searches."""
    config = MCTSConfig(simulations=48, leaves_per_tree=4)
    text = positions("chess", 1, seed=5)[0]
    state = new_state("chess", text)
    played = forced_wins(state._game, 1, 10**7)[1] + forced_wins(state._game, 2, 10**7)[1]
    cap = 48 * PLAYS_PER_SIMULATION // 4
    assert played < cap < played + forced_wins(state._game, 3, 10**7)[1], "the probe runs into its cap at 3 moves"
    mcts = MCTS(hashed(state.num_actions, 1), 2, config)
    mcts.policy([SearchTree(state)], np.random.default_rng(0))
    assert mcts.simulations_done == 48 - cap // PLAYS_PER_SIMULATION
    play_both("chess", config, [text], moves=1, temperature=0.0)


@pytest.mark.parametrize("game", PLAYERS)
def test_uint8_planes_are_the_quantized_observations(game):
    seen = []
    state = new_state(game, positions(game, 1, seed=3)[0])
    players = PLAYERS[game]

    def evaluate(planes):
        seen.append(planes.copy())
        return hashed(state.num_actions, 1 if players == 2 else players)(planes)

    config = MCTSConfig(simulations=1, leaves_per_tree=1, planes="uint8")
    MCTS(evaluate, players, config).policy([SearchTree(state)], np.random.default_rng(0))
    assert seen[0].dtype == np.uint8 and seen[0].shape == (1, *state.observation_shape)
    np.testing.assert_array_equal(seen[0][0], quantize_planes(state.observation()))


def test_tree_reuse_keeps_the_played_subtree():
    state = new_state("los_alamos")
    mcts = MCTS(hashed(state.num_actions, 1), 2, MCTSConfig(simulations=200))
    tree = SearchTree(state)
    action = int(mcts.policy([tree], np.random.default_rng(0)).action[0])
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
        MCTS(evaluate, 2, MCTSConfig(simulations=8)).policy([SearchTree(state)], np.random.default_rng(0))


@pytest.mark.parametrize("search", [MCTS, PythonMCTS])
def test_four_player_search_wants_a_value_per_seat(search):
    state = new_state("four_player")
    mcts = search(hashed(state.num_actions, 1), 4, MCTSConfig(simulations=8))
    with pytest.raises(ValueError, match="4 values"):
        mcts.policy([mcts.new_tree(state)], np.random.default_rng(0))


def test_one_search_takes_one_game():
    trees = [SearchTree(new_state("los_alamos")), SearchTree(new_state("chess"))]
    with pytest.raises(ValueError, match="one game"):
        MCTS(hashed(10, 1), 2).policy(trees, np.random.default_rng(0))
    assert all(tree.root is None for tree in trees)


@pytest.mark.parametrize("gumbel", [False, True])
@pytest.mark.parametrize("game", PLAYERS)
def test_no_simulations_on_a_new_tree_expand_the_root_and_choose_alike(game, gumbel):
    """There is no asking for a move before a search any more: a call with no simulations expands
    the root and answers from it (no visits: uniform targets, the first action; Gumbel: its pick
    from the priors), the same in both searches."""
    players = PLAYERS[game]
    texts = positions(game, 2, seed=5)
    evaluate = hashed(new_state(game).num_actions, 1 if players == 2 else players)
    config = MCTSConfig(simulations=32, gumbel=gumbel, gumbel_considered=4)
    outputs = []
    for search, tree in ((MCTS, SearchTree), (PythonMCTS, PythonSearchTree)):
        mcts = search(evaluate, players, config)
        trees = [tree(new_state(game, text)) for text in texts]
        outputs.append(mcts.policy(trees, np.random.default_rng(3), temperature=[0.0, 1.0], simulations=0))
        assert mcts.simulations_done == 0 and mcts.network_evaluations == 2
    native, python = outputs
    assert_same_output(native, python, "no simulations")
    for i, legal in enumerate(native.legal_actions):
        assert not native.visit_counts[i].any()
        if not gumbel:
            np.testing.assert_allclose(native.action_weights[i], 1 / len(legal))
        assert native.action[i] in legal


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
        return list(MCTS(evaluate, 4, config).policy(trees, np.random.default_rng(0)).visit_counts)

    for shared in (False, True):
        for a, b in zip(visits(1, shared), visits(2, shared)):
            np.testing.assert_array_equal(a, b)


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        MCTSConfig(threads=0)
