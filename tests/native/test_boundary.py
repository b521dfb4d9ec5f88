"""The native boundary holds: no call from Python crashes the interpreter or corrupts a game.

One test per defect found by probing the public API and ``chess_envs._core`` (with an
AddressSanitizer build) as a careful user and as an attacker would. Each probe runs in a
subprocess, so a crash fails its test instead of the test run; under
``tests/native/sanitizers.sh`` the same probes run against the sanitizer build.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = '''
import gc, re, sys, threading, time
import numpy as np
from chess_envs.native import core
from chess_envs.registry import new_state
InUseError = getattr(core, "InUseError", RuntimeError)

def expect(error, pattern, call, *args, **kwargs):
    """call(*args) must raise `error` with a message matching `pattern`."""
    try:
        call(*args, **kwargs)
    except error as caught:
        assert re.search(pattern, str(caught)), f"{type(caught).__name__}: {caught}"
        return
    raise AssertionError(f"no {error.__name__} from {call}")

SEARCHES = {core.ChessGame: core.ChessSearch, core.LosAlamosGame: core.LosAlamosSearch,
            core.FourPlayerGame: core.FourPlayerSearch}
TREES = {core.ChessGame: core.ChessSearchTree, core.LosAlamosGame: core.LosAlamosSearchTree,
         core.FourPlayerGame: core.FourPlayerSearchTree}

def raw_search(state, threads=1, leaves=8, cache_mb=0.0):
    """The native search of a state's game, with AlphaZero's settings."""
    return SEARCHES[type(state._game)](
        num_players=state.num_players, cache=core.EvaluationCache(cache_mb),
        planes_size=int(np.prod(state.observation_shape)), num_actions=state.num_actions,
        leaves_per_tree=leaves, threads=threads, mate_depth=0)

def raw_tree(state):
    return TREES[type(state._game)](state._game)

def outputs(state, rows):
    """A flat evaluator's outputs for `rows` positions."""
    values = 1 if state.num_players == 2 else state.num_players
    return np.zeros((rows, state.num_actions), np.float32), np.zeros((rows, values), np.float32)

def planes(state, rows):
    return np.zeros((rows, *state.observation_shape), np.float32)

def flat(planes):
    n = len(planes)
    return np.zeros((n, EVAL_ACTIONS), np.float32), np.zeros((n, EVAL_VALUES), np.float32)

FOOLS_MATE = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
'''


def run_probe(code: str) -> str:
    """Run ``code`` after the prelude in a fresh interpreter; it must exit cleanly and print OK."""
    result = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code) + "\nprint('OK')"],
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, f"the probe died with exit code {result.returncode}:\n{result.stderr[-3000:]}"
    assert result.stdout.rstrip().endswith("OK"), result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout


# -- the search, through the public API ------------------------------------------------------


@pytest.mark.parametrize("gumbel", [False, True])
def test_choosing_on_a_finished_game_is_a_clear_error(gumbel):
    run_probe(
        f"""
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        from chess_envs import FourPlayerState
        for state in (new_state("chess", FOOLS_MATE), new_state("chess", STALEMATE)):
            EVAL_ACTIONS, EVAL_VALUES = state.num_actions, 1
            mcts = MCTS(flat, 2, MCTSConfig(simulations=8, gumbel={gumbel}))
            tree = SearchTree(state)
            expect(ValueError, "game is over", mcts.policy, [tree], np.random.default_rng(0))
            live = SearchTree(new_state("chess"))         # one finished game refuses the whole batch
            expect(ValueError, "game is over", mcts.policy, [live, tree], np.random.default_rng(0))
            assert live.root is None and mcts.network_evaluations == 0
        four = FourPlayerState()
        while not four.is_terminal():
            four.apply(int(four.legal_actions()[0]))
        EVAL_ACTIONS, EVAL_VALUES = four.num_actions, 4
        mcts = MCTS(flat, 4, MCTSConfig(simulations=8, gumbel={gumbel}))
        tree = SearchTree(four)
        expect(ValueError, "game is over", mcts.policy, [tree], np.random.default_rng(0), temperature=1.0)
        """
    )


def test_the_native_search_refuses_a_terminal_root():
    run_probe(
        """
        state = new_state("chess", FOOLS_MATE)
        search, tree = raw_search(state), raw_tree(state)
        assert search.expand_roots([tree], state.num_actions, planes(state, 4)) == 0
        assert search.begin([tree], 8) == [False]
        assert search.collect(planes(state, 8)) == -1
        expect(ValueError, "game is over", search.choose, tree, True)
        expect(ValueError, "game is over", search.improved_policy, tree, True)
        expect(ValueError, "game is over", search.answers, [tree], [True], False)
        expect(ValueError, "game is over", search.start_gumbel, tree, np.zeros(0), 8, 16)
        expect(ValueError, "game is over", search.mix_noise, tree, np.zeros(0), 0.25)
        """
    )


def test_a_game_moved_under_its_tree_is_searched_from_where_it_is():
    run_probe(
        """
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        state = new_state("los_alamos")
        EVAL_ACTIONS, EVAL_VALUES = state.num_actions, 1
        mcts = MCTS(flat, 2, MCTSConfig(simulations=64, mate_depth=0))
        rng = np.random.default_rng(0)
        tree = SearchTree(state)
        mcts.policy([tree], rng)
        for move in ("b2b3", "e5e4", "a2a3"):          # played on the state, not through the tree
            state.apply(state.move_to_action(move))
        before = state.to_text()
        out = mcts.policy([tree], rng)                   # rebuilt from the game's position
        assert state.to_text() == before
        assert set(out.legal_actions[0].tolist()) == set(state.legal_actions().tolist())
        assert out.visit_counts[0].sum() == 64, "nothing kept from the position searched before"
        assert out.action[0] in state.legal_actions()
        for _ in range(3):                               # undo and play other moves, then search
            state.undo()
        state.apply(state.move_to_action("c2c3"))
        out = mcts.policy([tree], rng)
        assert set(out.legal_actions[0].tolist()) == set(state.legal_actions().tolist())
        assert out.visit_counts[0].sum() == 64 and out.action[0] in state.legal_actions()
        # The tree advanced after the game was moved keeps nothing it cannot vouch for.
        tree.advance(int(out.action[0]))
        state.apply(int(state.legal_actions()[0]))
        out = mcts.policy([tree], rng)
        assert set(out.legal_actions[0].tolist()) == set(state.legal_actions().tolist())
        assert out.visit_counts[0].sum() == 64
        """
    )


def test_a_search_holds_its_trees_and_games_while_the_evaluator_runs():
    """A second call on a tree, its game or the MCTS, from the evaluator or another thread, while
    a search waits for the network: refused with InUseError, every time."""
    run_probe(
        """
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        state = new_state("chess")
        other = SearchTree(state.copy())
        calls = []

        def evaluator(planes):
            if not calls:
                calls.append(1)
                expect(InUseError, "in use", state.apply, int(state.legal_actions()[0]))
                expect(InUseError, "in use", state.undo)
                expect(InUseError, "in use", tree.advance, int(state.legal_actions()[0]))
                expect(InUseError, "in use", mcts.policy, [other], np.random.default_rng(1))
                expect(InUseError, "in use", MCTS(flat, 2).policy, [tree], np.random.default_rng(1))
                worker = threading.Thread(
                    target=lambda: calls.append(catch(lambda: mcts.policy([other], np.random.default_rng(1))))
                )
                worker.start(); worker.join()
            return np.zeros((len(planes), state.num_actions), np.float32), np.zeros((len(planes), 1), np.float32)

        def catch(call):
            try:
                call()
            except InUseError as error:
                return "in use"
            return "ran"

        EVAL_ACTIONS, EVAL_VALUES = state.num_actions, 1
        mcts = MCTS(evaluator, 2, MCTSConfig(simulations=32))
        tree = SearchTree(state)
        before = state.to_text()
        out = mcts.policy([tree], np.random.default_rng(0))
        assert calls == [1, "in use"], calls
        assert state.to_text() == before and state._game.plies == 0
        tree.advance(int(out.action[0]))                 # free again once the search is over
        """
    )


def test_a_failing_evaluator_leaves_trees_and_games_as_they_were():
    run_probe(
        """
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        state = new_state("chess")
        EVAL_ACTIONS, EVAL_VALUES = state.num_actions, 1
        tree = SearchTree(state)
        MCTS(flat, 2, MCTSConfig(simulations=16)).policy([tree], np.random.default_rng(0))
        waves = []
        def failing(planes):
            waves.append(1)
            if len(waves) == 3:
                raise KeyError("the network broke")
            return flat(planes)
        failing_mcts = MCTS(failing, 2, MCTSConfig(simulations=64))
        expect(KeyError, "network broke", failing_mcts.policy, [tree], np.random.default_rng(0))
        assert not tree._native.in_search and state._game.plies == 0
        state.apply(int(state.legal_actions()[0]))       # the game is free again
        state.undo()
        root = tree._native.node(tree._native.root)
        visits = root[9]
        assert (visits == np.round(visits)).all(), visits  # no virtual loss left behind
        """
    )


def test_search_threads_are_bounded():
    run_probe(
        """
        from chess_envs.search.settings import MCTSConfig
        expect(ValueError, "threads", MCTSConfig, threads=100000)
        state = new_state("chess")
        expect(ValueError, "threads", raw_search, state, threads=100000)
        expect(ValueError, "leaves_per_tree", raw_search, state, leaves=0)
        """
    )


# -- the search, through chess_envs._core ----------------------------------------------------


def test_deleting_trees_mid_search_is_safe():
    run_probe(
        """
        for stage in ("after begin", "after collect"):
            state = new_state("chess")
            search, tree = raw_search(state), raw_tree(state)
            buffer = planes(state, 8)
            rows = search.expand_roots([tree], state.num_actions, buffer)
            search.receive(*outputs(state, rows))
            search.begin([tree], 64)
            if stage == "after collect":
                rows = search.collect(buffer)
            del tree
            gc.collect()
            if stage == "after collect":
                search.receive(*outputs(state, rows))
            while (rows := search.collect(buffer)) >= 0:
                if rows:
                    search.receive(*outputs(state, rows))
            assert state._game.plies == 0 and state.to_text() == new_state("chess").to_text()
            state.apply(int(state.legal_actions()[0]))   # released when the search ended
            # A search deleted mid-wave lets its trees and games go as well.
            search, tree = raw_search(state), raw_tree(state)
            rows = search.expand_roots([tree], state.num_actions, buffer)
            search.receive(*outputs(state, rows))
            search.begin([tree], 64)
            search.collect(buffer)
            del search
            gc.collect()
            assert not tree.in_search
            state.undo()
        """
    )


def test_a_wave_refused_for_a_small_buffer_changes_nothing():
    run_probe(
        """
        state = new_state("chess")
        search, tree = raw_search(state, leaves=8), raw_tree(state)
        rows = search.expand_roots([tree], state.num_actions, planes(state, 1))
        search.receive(*outputs(state, rows))
        search.begin([tree], 32)
        before = tree.node(tree.root)
        expect(ValueError, "planes buffer has 2 rows", search.collect, planes(state, 2))
        after = tree.node(tree.root)
        assert all(np.array_equal(a, b) for a, b in zip(before, after)), "virtual loss left behind"
        assert state._game.plies == 0
        while (rows := search.collect(planes(state, 8))) >= 0:  # the search goes on with a buffer that fits
            if rows:
                search.receive(*outputs(state, rows))
        assert tree.root_visits()[1].sum() == 32
        """
    )


def test_calls_out_of_order_or_on_a_tree_without_root_are_clear_errors():
    run_probe(
        """
        state = new_state("chess")
        search, tree = raw_search(state), raw_tree(state)
        expect(ValueError, "None", search.begin, [None], 8)
        expect(ValueError, "None", search.expand_roots, [None], state.num_actions, planes(state, 1))
        expect(ValueError, "no root", search.begin, [tree], 8)
        expect(RuntimeError, "has not run", search.choose, tree, True)
        expect(RuntimeError, "has not run", search.improved_policy, tree, False)
        expect(RuntimeError, "has not run", search.answers, [tree], [False], False)
        expect(ValueError, "None", search.answers, [None], [False], False)
        expect(ValueError, "one greedy flag per tree", search.answers, [tree], [False, True], False)
        expect(RuntimeError, "has not run", search.mix_noise, tree, np.ones(20) / 20, 0.25)
        expect(RuntimeError, "has not run", search.start_gumbel, tree, np.zeros(20), 8, 4)
        expect(RuntimeError, "no wave", search.receive, *outputs(state, 1))
        expect(ValueError, "twice", search.expand_roots, [tree, tree], state.num_actions, planes(state, 2))
        rows = search.expand_roots([tree], state.num_actions, planes(state, 1))
        expect(RuntimeError, "receive", search.begin, [tree], 8)
        expect(RuntimeError, "receive", search.collect, planes(state, 8))
        expect(InUseError, "in use", tree.reroot, 0)
        expect(InUseError, "in use", tree.clear)
        logits, values = outputs(state, rows)
        logits[0, :] = np.nan
        expect(ValueError, "not finite", search.receive, logits, values)
        search.receive(*outputs(state, rows))
        expect(ValueError, "finite", search.mix_noise, tree, np.full(20, np.nan), 0.25)
        expect(ValueError, "finite", search.start_gumbel, tree, np.full(20, np.inf), 8, 4)
        """
    )


# -- games, boards and the vector envs ---------------------------------------------------------


def test_output_buffers_of_the_wrong_dtype_or_layout_are_refused():
    """The core never writes into a converted copy that the caller does not see."""
    run_probe(
        """
        state = new_state("chess")
        game, shape = state._game, state.observation_shape
        expect(TypeError, "float32", game.observation, 0, np.zeros(shape, np.float64))
        expect(TypeError, "C-contiguous", game.observation, 0, np.zeros((shape[0], 8, 16), np.float32)[:, :, ::2])
        read_only = np.zeros(shape, np.float32)
        read_only.setflags(write=False)
        expect(TypeError, "writable", game.observation, 0, read_only)
        expect(TypeError, "bool", game.legal_mask_bool, np.zeros(4672, np.uint8))
        expect(TypeError, "uint8", game.legal_mask, np.zeros(4672, np.int8))
        expect(TypeError, "float32", game.material, np.zeros(2, np.float64))
        four = new_state("four_player")
        expect(TypeError, "float32", four._game.observation, 0, np.zeros(four.observation_shape, np.float64))
        expect(TypeError, "bool", four._game.legal_mask_bool, np.zeros(four.num_actions, np.int8))
        from chess_envs.vector_env import GameVectorEnv
        env = GameVectorEnv(2, "chess")
        obs, mask = np.zeros((2, *shape), np.float32), np.zeros((2, 4672), np.uint8)
        expect(TypeError, "float32", env._batch.reset, 0, True, obs.astype(np.float64), mask)
        expect(TypeError, "uint8", env._batch.reset, 0, True, obs, mask.view(np.int8))
        search, tree = raw_search(state), raw_tree(state)
        expect(TypeError, "float32 or uint8", search.expand_roots, [tree], 4672, np.zeros((1, *shape), np.float64))
        """
    )


def test_two_threads_on_one_vector_env_are_refused_not_raced():
    """The first call held open inside step (its actions arrive through a blocking __array__ or
    __dlpack__): a second call from another thread raises InUseError, every time."""
    run_probe(
        """
        from chess_envs.vector_env import GameVectorEnv
        entered, release = threading.Event(), threading.Event()

        class SlowActions:
            def __init__(self, actions):
                self.actions = actions
            def __array__(self, dtype=None, copy=None):
                entered.set(); release.wait(10)
                return self.actions
            def __dlpack__(self, stream=None, **kwargs):
                entered.set(); release.wait(10)
                return self.actions.__dlpack__()
            def __dlpack_device__(self):
                return self.actions.__dlpack_device__()

        env = GameVectorEnv(8, "chess", threads=2)
        env.reset(seed=1)
        native = env._batch
        buffers = (np.zeros((8, *env._obs.shape[1:]), np.float32), np.zeros((8, 4672), np.uint8),
                   np.zeros(8, np.float32), np.zeros(8, bool), np.zeros(8, bool), np.zeros(8, np.int8))
        for holder, second in (
            (lambda: env.step(SlowActions(env.random_actions())), lambda: env.step(env.random_actions())),
            (
                lambda: native.step(SlowActions(env.random_actions()), *buffers),
                lambda: native.step(np.zeros(8, np.int64), *buffers),
            ),
        ):
            for attempt in range(20):
                entered.clear(); release.clear()
                first = threading.Thread(target=holder)
                first.start()
                assert entered.wait(10)
                expect(InUseError, "in use", second)
                release.set(); first.join()
                second()                                 # free again
        """
    )


def test_two_threads_hammering_one_vector_env_never_crash():
    run_probe(
        """
        from chess_envs.vector_env import GameVectorEnv
        for game in ("chess", "four_player"):
            env = GameVectorEnv(16, game, threads=2, opponent="random", max_plies=30)
            env.reset(seed=0)
            counts = {"ran": 0, "in use": 0}
            def hammer(seed):
                rng = np.random.default_rng(seed)
                for _ in range(300):
                    try:
                        if rng.random() < 0.1:
                            env.reset(seed=int(rng.integers(100)))
                        else:
                            env.step(env.random_actions())
                        counts["ran"] += 1
                    except InUseError:
                        counts["in use"] += 1
            threads = [threading.Thread(target=hammer, args=(s,)) for s in range(2)]
            for t in threads: t.start()
            for t in threads: t.join()
            assert counts["ran"] > 0, counts
            env.step(env.random_actions())
        """
    )


def test_exceptions_inside_threaded_vector_steps_reach_python():
    """A game error raised on an OpenMP thread (here: an action table without the moves) is a
    Python exception, not std::terminate."""
    run_probe(
        """
        table = core.ActionTable(64, 4672, np.full(2 * 64 * 64 * 5, -1, np.int32))
        fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        vector = core.ChessVector(4, fen, 8, True, table, False, 0, 0, 2)
        expect(RuntimeError, "no action for a legal move", vector.reset, 0, True,
               np.zeros((4, 119, 8, 8), np.float32), np.zeros((4, 4672), np.uint8))
        """
    )


def test_random_opponents_finish_their_turns_before_the_agent_moves():
    """Four-player against random opponents with agent_seat=3 and max_plies=1: the agent is to
    move at every live observation, in the vector env and in the single env."""
    run_probe(
        """
        import gymnasium as gym
        import chess_envs
        from chess_envs.vector_env import GameVectorEnv
        env = GameVectorEnv(4, "four_player", opponent="random", agent_seat=3, max_plies=1)
        env.reset(seed=3)
        for i in range(4):
            assert env._batch.game(i).side == 3
        obs, reward, terminated, truncated, info = env.step(env.random_actions())
        assert truncated.all()
        single = gym.make("FourPlayerChess-v0", opponent="random", agent_seat=3, max_plies=1)
        obs, info = single.reset(seed=3)
        assert info["current_player"] == 3
        """
    )


def test_four_player_perft_leaves_the_callers_board_alone():
    run_probe(
        """
        from chess_envs.four_player.native import parse_board
        from chess_envs.four_player.state import START_FEN4
        board = parse_board(START_FEN4)
        before = board.snapshot()
        worker = threading.Thread(target=board.perft, args=(3,))
        worker.start()
        seen = set()
        while worker.is_alive():
            seen.add(repr(board.snapshot()))
        worker.join()
        assert seen <= {repr(before)}, "the board was walked in place"
        assert board.perft(2) == parse_board(START_FEN4).perft(2)
        """
    )


def test_fens_with_more_pieces_than_a_side_can_have_are_refused():
    """More than 16 pieces a side (python-chess's validity rule) could overflow a move list; a
    position the reader accepts has at most 415 moves, well inside the 512 a list holds."""
    run_probe(
        """
        from chess_envs.standard.state import _native_table
        from chess_envs.standard.encoding import get_encoding
        crowded = "k7/pp6/8/QQQQQQ2/QQQQQQ2/QQQQQQ2/8/7K w - - 0 1"
        expect(ValueError, "at most 16", core.ChessGame, crowded, 8, True, _native_table(get_encoding("alphazero")))
        expect(ValueError, "too many white pieces", new_state, "chess", crowded)
        """
    )


def test_four_player_boards_refuse_half_en_passant_and_unsettled_games():
    run_probe(
        """
        from chess_envs.four_player.state import _native_table
        empty = [0] * 196
        def board(en_passant, squares=None):
            return core.FourPlayerBoard(squares or empty, 0, [True] * 4, [False] * 4, [False] * 4, [0] * 4, 0,
                                        en_passant, False)
        expect(ValueError, "en passant", board, [-1, 185] + [-1] * 6)
        expect(ValueError, "en passant", board, [185, -1] + [-1] * 6)
        expect(ValueError, "en passant", board, [0, 185] + [-1] * 6)   # a corner square is not on the board
        # Red (to move) is stalemated: king d1, e-file and d2 covered by Yellow's rook e14 and bishop f4.
        squares = list(empty)
        squares[185], squares[4], squares[145] = 6, 2 << 3 | 4, 2 << 3 | 3
        squares[98], squares[7], squares[111] = 1 << 3 | 6, 2 << 3 | 6, 3 << 3 | 6
        stuck = board([-1] * 8, squares)
        assert stuck.legal_moves() == []
        expect(ValueError, "not settled", core.FourPlayerGame, stuck, 4, True, _native_table())
        stuck.settle()
        game = core.FourPlayerGame(stuck, 4, True, _native_table())
        assert game.side != 0 and game.num_legal() > 0
        """
    )


def test_a_game_refuses_an_action_table_for_another_board():
    run_probe(
        """
        from chess_envs.los_alamos.state import _native_table
        fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        expect(ValueError, "36 squares", core.ChessGame, fen, 8, True, _native_table())
        expect(TypeError, "incompatible", core.ChessGame, fen, 8, True, None)
        """
    )


# -- game ends as python-chess labels them -------------------------------------------------------


def test_game_ends_are_labelled_as_python_chess_labels_them():
    run_probe(
        """
        import chess
        from chess_envs import Termination
        stalemate_on_bare_material = "7k/5K2/5N2/8/8/8/8/8 b - - 0 1"
        assert chess.Board(stalemate_on_bare_material).outcome().termination == chess.Termination.INSUFFICIENT_MATERIAL
        assert new_state("chess", stalemate_on_bare_material).outcome().termination is Termination.INSUFFICIENT_MATERIAL
        # Fifty moves and threefold repetition at once: python-chess claims fifty moves first.
        claims = "4k3/8/8/8/8/8/P7/4K1N1 w - - 92 60"
        state, board = new_state("chess", claims), chess.Board(claims)
        for move in ["g1f3", "e8d8", "f3g1", "d8e8"] * 2:
            state.apply_move(move)
            board.push_uci(move)
        assert board.halfmove_clock == 100 and board.is_repetition(3)
        assert board.outcome(claim_draw=True).termination == chess.Termination.FIFTY_MOVES
        assert state.outcome().termination is Termination.FIFTY_MOVES
        """
    )


def test_two_threads_hammering_one_search_never_crash():
    """Two threads share one MCTS and its trees: searching, choosing, advancing and moving the
    games by hand. Each call runs or is refused (InUseError); no crash, no game left changed."""
    run_probe(
        """
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        states = [new_state("los_alamos") for _ in range(3)]
        trees = [SearchTree(state) for state in states]
        EVAL_ACTIONS, EVAL_VALUES = states[0].num_actions, 1
        mcts = MCTS(flat, 2, MCTSConfig(simulations=16, threads=2))

        def hammer(seed):
            # Each thread goes on until 250 of its own calls ran, however often the other refused it.
            rng = np.random.default_rng(seed)
            ran = 0
            for _ in range(20_000):
                if ran == 250:
                    break
                tree = trees[int(rng.integers(3))]
                try:
                    roll = rng.random()
                    if roll < 0.4:
                        batch = [tree] + ([trees[(trees.index(tree) + 1) % 3]] if roll < 0.2 else [])
                        out = mcts.policy(batch, rng, temperature=float(rng.integers(2)))
                        assert all(a in legal for a, legal in zip(out.action, out.legal_actions)), out
                    elif roll < 0.6 and not tree.state.is_terminal():
                        tree.advance(int(rng.choice(tree.state.legal_actions())))
                    elif roll < 0.8 and not tree.state.is_terminal():
                        tree.state.apply(int(rng.choice(tree.state.legal_actions())))
                    elif tree.state._game.plies:
                        tree.state.undo()
                    ran += 1
                except InUseError:
                    refused[seed] += 1
                except (ValueError, RuntimeError) as error:  # the other thread moved the game first
                    if not re.search("not legal|no move to take back|game is over", str(error)):
                        errors.append(repr(error))
                except Exception as error:
                    errors.append(repr(error))
            done[seed] = ran

        errors, done, refused = [], [0, 0], [0, 0]
        workers = [threading.Thread(target=hammer, args=(seed,)) for seed in range(2)]
        for worker in workers: worker.start()
        for worker in workers: worker.join()
        assert not errors, errors
        assert done == [250, 250], (done, refused)
        for tree in trees:
            if not tree.state.is_terminal():
                assert mcts.policy([tree], np.random.default_rng(0)).action[0] in tree.state.legal_actions()
        """
    )


def test_a_search_refuses_trees_of_other_shapes_and_keeps_shared_caches_apart():
    run_probe(
        """
        state = new_state("chess")
        search, tree = raw_search(state), raw_tree(state)
        rows = search.expand_roots([tree], state.num_actions, planes(state, 1))
        search.receive(*outputs(state, rows))
        small = core.ChessSearch(num_players=2, cache=core.EvaluationCache(0), planes_size=1, num_actions=1)
        expect(ValueError, "another observation shape", small.begin, [tree], 10)
        expect(ValueError, "num_actions", small.expand_roots, [tree], 4672, np.zeros((8, 1), np.float32))
        # Two searches of different seat counts on one cache: the 4-seat one never reads a 1-value entry.
        cache = core.EvaluationCache(16)
        two, four = (core.ChessSearch(num_players=n, cache=cache, planes_size=int(np.prod(state.observation_shape)),
                                      num_actions=4672, mate_depth=0) for n in (2, 4))
        first, second = raw_tree(state), raw_tree(new_state("chess"))
        rows = two.expand_roots([first], 4672, planes(state, 1))
        two.receive(np.zeros((rows, 4672), np.float32), np.zeros((rows, 1), np.float32))
        assert four.expand_roots([second], 4672, planes(state, 1)) == 1
        four.receive(np.zeros((1, 4672), np.float32), np.zeros((1, 4), np.float32))
        """
    )


def test_a_transposition_along_another_line_is_another_root():
    run_probe(
        """
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        state = new_state("chess")
        EVAL_ACTIONS, EVAL_VALUES = state.num_actions, 1
        mcts = MCTS(flat, 2, MCTSConfig(simulations=16, mate_depth=0))  # every simulation a visit
        for move in ("g1f3", "g8f6", "f3g1", "f6g8"):
            state.apply_move(move)
        tree = SearchTree(state)
        mcts.policy([tree], np.random.default_rng(0))
        for _ in range(4):
            state.undo()
        for move in ("b1c3", "b8c6", "c3b1", "c6b8"):   # the same position and ply count, another line
            state.apply_move(move)
        out = mcts.policy([tree], np.random.default_rng(0))
        assert out.visit_counts[0].sum() == 16, "searched again from a new root, not the other line's"
        """
    )


def test_a_puct_search_after_a_gumbel_one_is_plain_puct():
    run_probe(
        """
        from chess_envs.search.mcts import MCTS, SearchTree
        from chess_envs.search.settings import MCTSConfig
        state = new_state("chess")
        EVAL_ACTIONS, EVAL_VALUES = state.num_actions, 1
        tree = SearchTree(state)
        gumbel = MCTS(flat, 2, MCTSConfig(simulations=32, gumbel=True, gumbel_considered=4))
        gumbel.policy([tree], np.random.default_rng(0))
        puct = MCTS(flat, 2, MCTSConfig(simulations=200))
        out = puct.policy([tree], np.random.default_rng(0))
        actions, visits = out.legal_actions[0], out.visit_counts[0]
        assert (visits > 0).sum() > 4, visits             # not confined to the Gumbel candidates
        assert out.action[0] == actions[int(np.argmax(visits))]
        np.testing.assert_allclose(out.action_weights[0], visits / visits.sum(), rtol=1e-6)  # the visit shares
        """
    )
