"""Positions loaded from FEN4 where the side to move cannot move are settled as play would settle them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from chess_envs.agents.simple import GreedyAgent, RandomAgent
from chess_envs.four_player import FourPlayerState
from chess_envs.four_player.notation import PLAYABLE, SIZE
from chess_envs.gym_env import GameEnv
from tests.four_player.board import Board

POSITIONS = 6_000


def structured_fen4(rng: random.Random) -> str:
    """A random position: kings and a few pieces per live colour, crowded into one region of the
    board so that checkmates and stalemates of the side to move are common."""
    live = [rng.random() < 0.8 for _ in range(4)]
    while sum(live) < 2:
        live[rng.randrange(4)] = True
    top, left = rng.randrange(0, SIZE - 5), rng.randrange(0, SIZE - 5)
    region = [
        row * SIZE + col for row in range(top, top + 6) for col in range(left, left + 6) if PLAYABLE[row * SIZE + col]
    ]
    rng.shuffle(region)
    cells = [""] * (SIZE * SIZE)
    for colour in range(4):
        if not live[colour]:
            continue
        for kind in "K" + "".join(rng.choice("QRRBNP") for _ in range(rng.randrange(4))):
            if region:
                cells[region.pop()] = "rbyg"[colour] + kind
    rows = []
    for row in range(SIZE):
        out, run = [], 0
        for col in range(SIZE):
            sq = row * SIZE + col
            cell = "x" if not PLAYABLE[sq] else cells[sq]
            if cell:
                if run:
                    out.append(str(run))
                out.append(cell)
                run = 0
            else:
                run += 1
        if run:
            out.append(str(run))
        rows.append(",".join(out))
    turn = rng.choice([c for c in range(4) if live[c]])
    dead = ",".join("0" if alive else "1" for alive in live)
    return f"{'RBYG'[turn]}-{dead}-0,0,0,0-0,0,0,0-0,0,0,0-0-{'/'.join(rows)}"


def _positions() -> list[str]:
    rng = random.Random(20261123)
    positions = []
    while len(positions) < POSITIONS:
        try:
            Board(fen := structured_fen4(rng))
        except ValueError:  # a king missing from a full region, and such
            continue
        positions.append(fen)
    return positions


def test_no_loaded_ffa_position_is_live_with_no_legal_action() -> None:
    stuck = 0
    for fen4 in _positions():
        board = Board(fen4)
        stuck += not board.legal_moves()
        state = FourPlayerState(fen4)
        if not state.is_terminal():
            assert state.legal_actions().size > 0, fen4
            assert state.legal_action_mask().any(), fen4
            assert not state.eliminated[state.current_player], fen4
    assert stuck >= 100, f"the generator made only {stuck} positions whose mover cannot move"


def test_stuck_positions_are_playable_by_env_and_baselines() -> None:
    stuck = [fen for fen in _positions() if not Board(fen).legal_moves()][:60]
    random_agent, greedy = RandomAgent(seed=1), GreedyAgent(seed=1)
    for fen4 in stuck:
        env = GameEnv("four_player")
        observation, _ = env.reset(options={"fen": fen4})
        state = env.unwrapped.state
        assert state.is_terminal() or observation["action_mask"].any(), fen4
        if not state.is_terminal():
            for agent in (random_agent, greedy):
                action = agent.select_action(state.copy())
                assert observation["action_mask"][action]
            env.step(int(np.flatnonzero(observation["action_mask"])[0]))


def test_stalemated_mover_scores_and_checkmated_mover_does_not() -> None:
    positions = _positions()
    for fen4 in positions:
        board = Board(fen4)
        if board.legal_moves():
            continue
        stalemated = not board.in_check()
        mover = board.turn
        state = FourPlayerState(fen4)
        assert state.eliminated[mover]
        assert state.points[mover] == (20 if stalemated else 0)


def test_settling_is_only_for_ffa() -> None:
    fen4 = next(f for f in _positions() if not Board(f, "teams").legal_moves())
    teams = FourPlayerState(fen4, mode="teams")
    assert teams.is_terminal()  # Teams: a mover with no move ends the game (checkmate or stalemate)
    with pytest.raises(ValueError):
        FourPlayerState("R-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-" + "x" * 2000)
