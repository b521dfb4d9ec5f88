"""LosAlamosState: encoding round trips, observation planes, end rules, bad input, envs."""

from __future__ import annotations

import random
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from chess_envs import IllegalActionError
from chess_envs.los_alamos import NUM_ACTIONS, LosAlamosState, legal_moves
from chess_envs.los_alamos.encoding import parse_square, square_name
from chess_envs.pettingzoo import los_alamos_v0


def random_states(count: int, seed: int) -> list[LosAlamosState]:
    """States from seeded random games, preferring promotions so that all of them occur."""
    rng = random.Random(seed)
    states: list[LosAlamosState] = []
    while len(states) < count:
        state = LosAlamosState()
        while not state.is_terminal() and len(states) < count:
            states.append(state.copy())
            moves = legal_moves(state.to_text())
            promotions = [m for m in moves if len(m) == 5]
            cells = state.board_cells()  # rank 6 first
            pawn_moves = [m for m in moves if cells[6 - int(m[1])]["abcdef".index(m[0])][0] == "P"]
            if promotions and rng.random() < 0.8:
                moves = promotions
            elif pawn_moves and rng.random() < 0.4:
                moves = pawn_moves
            state.apply_move(rng.choice(moves))
    return states


@pytest.fixture(scope="module")
def states() -> list[LosAlamosState]:
    return random_states(2500, seed=11)


def test_sample_covers_both_colours_and_every_promotion(states):
    kinds = set()
    for state in states:
        for move in legal_moves(state.to_text()):
            if len(move) == 5:
                kinds.add((state.current_player, move[4], ord(move[2]) - ord(move[0])))
    assert kinds == {(c, p, d) for c in (0, 1) for p in "qrn" for d in (-1, 0, 1)}


def test_mask_equals_legal_moves_and_actions_round_trip(states):
    for state in states:
        moves = legal_moves(state.to_text())
        actions = {state.move_to_action(m) for m in moves}
        assert len(actions) == len(moves)
        if not state.is_terminal():
            assert set(np.flatnonzero(state.legal_action_mask())) == actions
        for move in moves:
            assert state.action_to_move(state.move_to_action(move)) == move


def test_black_moves_are_mirrored():
    state = LosAlamosState()
    white = state.move_to_action("b1c3")
    state.apply(white)
    assert state.move_to_action("b6c4") == white
    assert state.num_actions == NUM_ACTIONS == 1944


def test_underpromotion_layout():
    white = LosAlamosState("1n1n2/2P3/6/k5/6/3K2 w - - 0 1")
    c5 = parse_square("c5")
    assert white.move_to_action("c5b6n") == c5 * 54 + 48 + 0
    assert white.move_to_action("c5c6r") == c5 * 54 + 48 + 2 + 1
    assert white.move_to_action("c5d6q") == c5 * 54 + 1 * 5  # NE, distance 1
    black = LosAlamosState("3k2/6/K5/6/2p3/1N1N2 b - - 0 1")
    assert black.move_to_action("c2b1n") == white.move_to_action("c5b6n")
    assert black.action_to_move(black.move_to_action("c2d1q")) == "c2d1q"


def test_observation_planes():
    state = LosAlamosState()
    obs = state.observation()
    assert obs.shape == (51, 6, 6) and obs.dtype == np.float32
    assert obs[0, 1].all() and obs[0].sum() == 6  # white pawns on rank 2
    assert obs[4, 0, 3] == 1  # white king d1
    assert obs[5, 4].all()  # black pawns on rank 5
    assert not obs[12:48].any()
    state.apply_move("b1c3")
    obs = state.observation()  # black to move: mirrored, black first
    assert obs[0, 1].all() and obs[4, 0, 3] == 1  # black's pawns on its second row, king d6 -> row 0
    assert obs[6, 3, 2] == 1  # white knight c3 seen from black: rank 3 -> row 2
    assert obs[48].all() and obs[49, 0, 0] == pytest.approx(1 / 512) and obs[50, 0, 0] == pytest.approx(1 / 100)
    assert obs[12 + 6, 5, 1] == 1  # previous step: white knight still on b1 (row 5 from black)


def test_repetition_planes():
    state = LosAlamosState()
    for move in ("b1a3", "b6a4", "a3b1", "a4b6"):
        state.apply_move(move)
    obs = state.observation()
    assert obs[10].all() and not obs[11].any() and not obs[12 + 10].any()


def test_undo_restores_everything(states):
    for state in states[::50]:
        fen, obs = state.to_text(), state.observation()
        for action in state.legal_actions()[:4]:
            state.apply(action)
            state.undo()
            assert state.to_text() == fen
            np.testing.assert_array_equal(state.observation(), obs)


def test_insufficient_material_is_adjudicated_only_on_request():
    fen = "3k2/6/6/6/6/2NK2 w - - 0 1"
    assert not LosAlamosState(fen).is_terminal()
    adjudicated = LosAlamosState(fen, adjudicate_insufficient_material=True)
    assert adjudicated.outcome().termination.value == "insufficient_material"
    assert not LosAlamosState("3k2/6/6/6/6/1NNK2 w - - 0 1", adjudicate_insufficient_material=True).is_terminal()


def test_mate_beats_the_fifty_move_rule_and_rewards():
    state = LosAlamosState("3k2/R5/1R4/6/6/3K2 w - - 99 60")
    state.apply_move("b4b6")
    assert state.outcome().termination.value == "checkmate"
    np.testing.assert_array_equal(state.returns(), [1.0, -1.0])


@pytest.mark.parametrize(
    "fen, reason",
    [
        ("rnqknr/ppppp/6/6/PPPPPP/RNQKNR w - - 0 1", "rank 5 .* has 5 files"),
        ("rnqknr/ppppppp/6/6/PPPPPP/RNQKNR w - - 0 1", "more than 6 files"),
        ("rnqkbr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1", "no bishops"),
        ("rnqqnr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1", "0 black kings"),
        ("rnqknr/pppppp/6/6/PPPPPP/RNKKNR w - - 0 1", "2 white kings"),
        ("rnqknP/pppppp/6/6/PPPPP1/RNQKNR w - - 0 1", "pawn on f6"),
        ("rnqknr/pppppp/6/6/PPPPPP/RNQKNR x - - 0 1", "side to move"),
        ("rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - a 1", "bad move clocks"),
        ("rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 0", "bad move clocks"),
        ("rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - -", "6 fields"),
        ("rnqknr/pppppp/6/6/PPPPPP w - - 0 1", "6 ranks"),
        ("3k2/6/6/6/3R2/3K2 w - - 0 1", "side not to move is in check"),
    ],
)
def test_malformed_fen_says_why(fen, reason):
    with pytest.raises(ValueError, match=reason):
        LosAlamosState(fen)


def test_illegal_actions():
    state = LosAlamosState()
    with pytest.raises(IllegalActionError, match=r"\(a2a4\) is not legal in rnqknr"):
        state.apply(state.move_to_action("a2a4"))
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(1944)
    with pytest.raises(TypeError):
        state.apply(2.0)
    with pytest.raises(ValueError, match="not a Los Alamos square"):
        state.move_to_action("g1g2")
    with pytest.raises(ValueError, match="promotion must be q, r or n"):
        state.move_to_action("a5a6b")
    assert state.to_text() == "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1"
    assert square_name(parse_square("f6")) == "f6"


@pytest.mark.parametrize("kwargs", [{}, {"opponent": "random"}, {"opponent": "random", "agent_seat": 1}])
def test_check_env(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym.make("LosAlamos-v0", **kwargs).unwrapped)


def test_make_vec_async():
    envs = gym.make_vec("chess_envs:LosAlamos-v0", num_envs=3, vectorization_mode="async")
    try:
        obs, _ = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(50):
            actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]]
            obs, *_ = envs.step(np.array(actions))
        assert obs["observation"].shape == (3, 51, 6, 6)
    finally:
        envs.close()


def test_pettingzoo_api_and_seed():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(los_alamos_v0.env(), num_cycles=300)
        seed_test(los_alamos_v0.env, num_cycles=100)


@pytest.mark.parametrize("mode", ["ansi", "svg", "rgb_array"])
def test_render(mode):
    env = gym.make("LosAlamos-v0", render_mode=mode)
    env.reset(seed=0)
    picture = env.render()
    if mode == "ansi":
        assert picture.splitlines()[0] == "r n q k n r"
    elif mode == "svg":
        assert picture.startswith("<svg") and picture.count("<circle") == 24
    else:
        assert picture.shape == (6 * 48, 6 * 48, 3)
