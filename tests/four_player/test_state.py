"""FourPlayerState: FEN4 input, encoding per seat, observation planes, outcomes and the envs."""

from __future__ import annotations

import random
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import chess_envs  # noqa: F401  (registers the Gymnasium ids)
from chess_envs.core import IllegalActionError, Termination
from chess_envs.four_player import START_FEN4, FourPlayerState, legal_moves, standings_returns
from chess_envs.four_player.notation import PROMOTED_QUEEN, SIZE, parse_square
from chess_envs.four_player.state import FROM_FRAME, NUM_ACTIONS, TO_FRAME
from chess_envs.pettingzoo import four_player_chess_v0

EMPTY_RANK = "14"
CORNER_RANK = "x,x,x,8,x,x,x"


def fen4(turn: str, rows: dict[int, str], head: str = "0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0") -> str:
    """A FEN4 from a few ranks (rank number -> row text); the others empty."""
    ranks = []
    for rank in range(14, 0, -1):
        default = CORNER_RANK if rank <= 3 or rank >= 12 else EMPTY_RANK
        ranks.append(rows.get(rank, default))
    return f"{turn}-{head}-" + "/".join(ranks)


KINGS = {14: "x,x,x,3,yK,4,x,x,x", 7: "bK,12,gK", 1: "x,x,x,4,rK,3,x,x,x"}


def random_states(count: int, seed: int, mode: str = "ffa") -> list[FourPlayerState]:
    rng = random.Random(seed)
    states: list[FourPlayerState] = []
    while len(states) < count:
        state = FourPlayerState(mode=mode, history=2)
        while not state.is_terminal() and len(states) < count:
            if rng.random() < 0.2:
                states.append(state.copy())
            state.apply(int(rng.choice(state.legal_actions())))
    return states


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (START_FEN4.replace("bR,bP,10,gP,gR/bN", "bR,bP,9,gP,gR/bN", 1), "accounts for 13 files"),
        (START_FEN4.replace("bR,bP,10,gP,gR/bN", "bR,bP,11,gP,gR/bN", 1), "more than 14 files|15 files"),
        (START_FEN4.replace("yN,yB,yK", "yN,yX,yK", 1), "unknown piece 'yX'"),
        (START_FEN4.replace("x,x,x,yR", "x,x,rP,yR", 1), "removed corner square"),
        (START_FEN4.replace("x,x,x,yR", "3,yR", 1).replace("x,x,x/x,x,x,yP", "3/x,x,x,yP", 1), None),
        (START_FEN4.replace("R-0,0,0,0-", "R-", 1), "7 fields"),
        (START_FEN4.replace("R-", "W-", 1), "R, B, Y or G"),
        (START_FEN4.replace("-0-x", "-a-x", 1), "halfmove clock"),
        (START_FEN4.replace("R-0,0,0,0", "R-0,0,0", 1), "eliminated flags"),
        (START_FEN4.replace("yK", "yQ", 1), "no Yellow king"),
        (START_FEN4.replace("/x,x,x,8,x,x,x/", "/", 1), "14 ranks"),
        (START_FEN4.replace("-0-x", "-0-{'enPassant':('z9:a1','','','')}-x", 1), "enPassant"),
    ],
)
def test_malformed_fen4_says_why(text, reason):
    if reason is None:  # corners counted in the empty runs are accepted (Wikibooks style)
        assert FourPlayerState(text).to_text() == START_FEN4
        return
    with pytest.raises(ValueError, match=reason):
        FourPlayerState(text)


def test_fen4_round_trips_with_extras_and_dead_pieces():
    text = (
        "Y-0,1,0,0-0,0,0,0-0,0,0,0-3,0,7,1-7-x,x,x,5,yR,2,x,x,x/"
        "x,x,x,1,yB,4,gQ,1,x,x,x/x,x,x,2,yK,5,x,x,x/14/4,gQ,9/2,dN,2,dP,dP,2,gR,yR,gP,2/1,dK,6,gN,gP,3,gK/"
        "5,rR,dB,gQ,6/dB,12,gR/5,rQ,gQ,2,gN,rN,gP,2/1,yQ,7,dR,4/x,x,x,5,rQ,2,x,x,x/x,x,x,1,rB,6,x,x,x/"
        "x,x,x,2,rR,2,rK,2,x,x,x"
    )
    state = FourPlayerState(text)
    assert state.eliminated == (False, True, False, False)
    assert state.points == (3, 0, 7, 1)
    assert state.to_text() == text
    start = FourPlayerState()
    start.apply_move("h2-h4")
    after = start.to_text()
    assert "-{'enPassant':('h3:h4','','','')}-" in after
    assert FourPlayerState(after).to_text() == after


def test_illegal_actions():
    state = FourPlayerState()
    with pytest.raises(IllegalActionError, match=r"\(h2-h5\) is not legal in R-"):
        state.apply(state.move_to_action("h2-h5"))
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(NUM_ACTIONS)
    with pytest.raises(TypeError):
        state.apply("h2-h4")
    with pytest.raises(ValueError, match="not one of the 160 playable squares"):
        state.move_to_action("a1-a2")
    with pytest.raises(ValueError, match="written 'h2-h4'"):
        state.move_to_action("h2h4")
    assert state.to_text() == START_FEN4


def test_frames_are_rotations_that_put_every_king_on_h1():
    for colour in range(4):
        assert sorted(TO_FRAME[colour]) == list(range(SIZE * SIZE))
        assert all(FROM_FRAME[colour][TO_FRAME[colour][sq]] == sq for sq in range(SIZE * SIZE))
    kings = [parse_square(name) for name in ("h1", "a7", "g14", "n8")]  # Red, Blue, Yellow, Green
    assert all(FourPlayerState().board_cells()[sq // SIZE][sq % SIZE] == ("K", c) for c, sq in enumerate(kings))
    assert [TO_FRAME[c][kings[c]] for c in range(4)] == [parse_square("h1")] * 4


def test_start_position_looks_the_same_from_every_seat():
    state = FourPlayerState()
    planes = [state.observation(c) for c in range(4)]
    c = 25 * state.history
    for colour in range(1, 4):
        np.testing.assert_array_equal(
            np.delete(planes[colour], range(c, c + 4), axis=0), np.delete(planes[0], range(c, c + 4), axis=0)
        )
    assert planes[2][c + 2].all() and not planes[2][c].any()
    # The player's pawns stand on frame rank 2 (row 12), the next seat's on the left edge's file b.
    assert planes[0][0, 12, 3:11].all() and planes[0][6 + 0, 3:11, 1].all()


def test_every_seat_plays_the_same_opening_actions():
    state = FourPlayerState()
    actions = []
    for _ in range(4):
        actions.append(sorted(state.legal_actions().tolist()))
        state.apply(int(actions[-1][0]))
    assert actions[0] == actions[1] == actions[2] == actions[3]


@pytest.mark.parametrize("mode", ["ffa", "teams"])
def test_actions_round_trip_for_every_seat(mode):
    states = random_states(400, seed=3, mode=mode)
    assert {s.current_player for s in states} == {0, 1, 2, 3}
    for state in states:
        actions = state.legal_actions()
        moves = [state.action_to_move(a) for a in actions]
        assert sorted(moves) == legal_moves(state.to_text(), mode)
        assert [state.move_to_action(m) for m in moves] == actions.tolist()
        under = actions[actions % 109 >= 100]
        assert mode == "teams" or under.size == 0


def test_teams_underpromotions_and_ffa_queen_only():
    text = fen4("R", {**KINGS, 10: "5,rP,8"})
    teams = FourPlayerState(text, mode="teams")
    assert {m for m in map(teams.action_to_move, teams.legal_actions()) if m.startswith("f10")} == {
        "f10-f11=Q",
        "f10-f11=R",
        "f10-f11=B",
        "f10-f11=N",
    }
    ffa = FourPlayerState(fen4("R", {**KINGS, 7: "bK,12,gK", 9: "5,rP,8"}))
    assert "f9-f10" in map(ffa.action_to_move, ffa.legal_actions())
    ffa = FourPlayerState(fen4("R", {**KINGS, 7: "bK,5,rP,6,gK"}))
    assert "g7-g8=Q" in map(ffa.action_to_move, ffa.legal_actions())
    ffa.apply_move("g7-g8=Q")
    assert ffa.to_text().split("/")[6] == "6,rQ,7"
    assert ffa._game.code_at(parse_square("g8")) == (0 << 3 | PROMOTED_QUEEN)  # Red's; worth 1 point


def test_dead_pieces_scores_and_eliminations_in_the_planes():
    text = (
        "Y-0,1,0,0-0,0,0,0-0,0,0,0-40,0,100,0-7-x,x,x,5,yR,2,x,x,x/x,x,x,1,yB,4,gQ,1,x,x,x/x,x,x,2,yK,5,x,x,x/"
        "14/4,gQ,9/2,dN,2,dP,dP,2,gR,yR,gP,2/1,dK,6,gN,gP,3,gK/5,rR,dB,gQ,6/dB,12,gR/5,rQ,gQ,2,gN,rN,gP,2/"
        "1,yQ,7,dR,4/x,x,x,5,rQ,2,x,x,x/x,x,x,1,rB,6,x,x,x/x,x,x,2,rR,2,rK,2,x,x,x"
    )
    state = FourPlayerState(text, history=1)
    obs = state.observation()
    assert obs[24].sum() == 7  # seven dead pieces
    c = 25
    assert obs[c + 2].all()  # Yellow's view
    # Seats relative to Yellow: 0 Yellow (100 points), 1 Green, 2 Red (40), 3 Blue (out).
    assert obs[c + 15, 0, 0] == pytest.approx(0.5) and obs[c + 17, 0, 0] == pytest.approx(0.2)
    assert obs[c + 22].all() and not obs[c + 19 : c + 22].any()


def test_standings_share_ties_and_sum_to_zero():
    assert standings_returns([10, 20, 30, 40]) == pytest.approx((-1, -1 / 3, 1 / 3, 1))
    assert standings_returns([5, 5, 5, 5]) == (0.0, 0.0, 0.0, 0.0)
    assert standings_returns([9, 9, 0, 1]) == pytest.approx((2 / 3, 2 / 3, -1, -1 / 3))


def test_ffa_checkmate_is_immediate_and_scores_20():
    # Red's rook mates Yellow (g14) before Yellow's turn; Yellow's king turns grey; Blue moves next.
    state = FourPlayerState(
        fen4("R", {**KINGS, 13: "x,x,x,rR,7,x,x,x", 12: "x,x,x,1,rR,6,x,x,x"}),
    )
    state.apply_move("e12-e14")
    assert state.eliminated == (False, False, True, False)
    assert state.points == (20, 0, 0, 0)
    assert state.current_player == 1
    assert state.board_cells()[0][6] == ("K", 4)  # a dead king stays on g14
    state.undo()
    assert state.eliminated == (False,) * 4 and state.points == (0,) * 4


def test_ffa_king_capture_eliminates_and_scores_20():
    state = FourPlayerState(
        "B-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,3,yK,4,x,x,x/x,x,x,8,x,x,x/x,x,x,2,bN,5,x,x,x/14/14/14/"
        "bK,12,gK/14/3,rQ,10/14/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x"
    )
    state.apply_move("f12-g14")
    assert state.eliminated == (False, False, True, False)
    assert state.points[1] == 20
    assert state.current_player == 3  # Yellow is skipped


def test_teams_checkmate_on_the_mated_players_turn_loses_for_the_team():
    state = FourPlayerState(
        "Y-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,bR,2,yK,4,x,x,x/x,x,x,bR,7,x,x,x/x,x,x,8,x,x,x/"
        "14/14/14/bK,12,gK/14/14/14/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x",
        mode="teams",
    )
    assert state.is_terminal() and state.outcome().termination is Termination.CHECKMATE
    assert tuple(state.returns()) == (-1.0, 1.0, -1.0, 1.0)


def test_claim_win_and_draw_points():
    text = fen4("R", {**KINGS, 7: "bK,13"}, head="0,0,0,1-0,0,0,0-0,0,0,0-30,9,0,0-0").replace("bK,13", "bK,12,dK")
    state = FourPlayerState(text.replace("x,x,x,3,yK,4,x,x,x", "x,x,x,3,dK,4,x,x,x").replace("0,0,0,1-", "0,0,1,1-", 1))
    assert state.outcome().termination is Termination.CLAIM_WIN
    assert state.final_points() == (30, 29, 0, 0)
    assert tuple(state.returns()) == pytest.approx((1, 1 / 3, -2 / 3, -2 / 3))
    kept = FourPlayerState(state.to_text(), claim_win=False)
    assert kept.outcome().termination is Termination.INSUFFICIENT_MATERIAL
    assert kept.final_points() == (40, 19, 0, 0)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"mode": "teams"}, {"opponent": "random"}, {"opponent": "random", "agent_seat": 2, "mode": "teams"}],
)
def test_check_env(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym.make("FourPlayerChess-v0", **kwargs).unwrapped)


def test_make_vec_async():
    envs = gym.make_vec("chess_envs:FourPlayerChess-v0", num_envs=2, vectorization_mode="async")
    try:
        obs, _ = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(30):
            actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]]
            obs, *_ = envs.step(np.array(actions))
        assert obs["observation"].shape == (2, 123, 14, 14)
    finally:
        envs.close()


def test_pettingzoo_api_and_seed():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(four_player_chess_v0.env(), num_cycles=1000)
        api_test(four_player_chess_v0.env(mode="teams"), num_cycles=300)
        seed_test(four_player_chess_v0.env, num_cycles=100)


def test_eliminated_agents_leave_the_aec_env():
    for seed in range(20):
        env = four_player_chess_v0.env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        eliminated = []
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                if info.get("termination") == "eliminated":
                    eliminated.append(agent)
                    assert len(env.agents) >= 2
                env.step(None)
                if eliminated and eliminated[-1] == agent:
                    assert agent not in env.agents
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if eliminated:
            return
    pytest.fail("no elimination in 20 random FFA games")


@pytest.mark.parametrize("mode", ["ansi", "svg", "rgb_array"])
def test_render(mode):
    env = gym.make("FourPlayerChess-v0", render_mode=mode)
    env.reset(seed=0)
    picture = env.render()
    if mode == "ansi":
        assert picture.splitlines()[0].split() == ["yR", "yN", "yB", "yK", "yQ", "yB", "yN", "yR"]
    elif mode == "svg":
        assert picture.startswith("<svg") and picture.count("<circle") == 64 and picture.count("<rect") == 160
    else:
        assert picture.shape == (14 * 48, 14 * 48, 3)
        assert tuple(picture[5, 5]) == (255, 255, 255)  # a removed corner
