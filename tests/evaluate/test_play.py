"""chess-envs play: a person's moves from scripted input, illegal ones refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chess_envs.agents import make_agent
from chess_envs.agents.shipped import shipped_agent
from chess_envs.apps.play import parse_move, play_human
from chess_envs.registry import new_state

ROOT = Path(__file__).resolve().parents[2]


def test_a_scripted_game_through_the_command_line(tmp_path):
    script = "b2b3\nzz9\na1a5\nNc3\nmoves\nquit\n"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "chess_envs.apps.arena_cli",
            "play",
            "--game",
            "los_alamos",
            "--agent",
            "greedy?seed=1",
            "--pgn",
            str(tmp_path / "game.pgn"),
        ],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "illegal: cannot read 'zz9' as a move" in out
    assert "illegal: a1a5 is not legal here" in out
    assert out.count("R N Q K N R") >= 5  # the board is drawn again after each refusal
    assert "legal moves: " in out
    text = (tmp_path / "game.pgn").read_text()
    assert text.startswith("[Event") and "1. b2b3" in text and "b1c3" in text and '[Termination "abandoned"]' in text


def test_san_and_uci_in_chess_and_from_to_in_four_player():
    chess_state = new_state("chess")
    assert chess_state.action_to_move(parse_move(chess_state, "Nf3")) == "g1f3"
    assert chess_state.action_to_move(parse_move(chess_state, "e2e4")) == "e2e4"
    four = new_state("four_player")
    assert four.action_to_move(parse_move(four, "h2-h4")) == "h2-h4"
    lines = []
    moves = iter(["e2-e5", "h2-h4", "quit"])
    record = play_human("four_player", make_agent("random?seed=2", "four_player"), read=moves, write=lines.append)
    assert record.moves[0] == "h2-h4" and len(record.moves) == 4  # ours, then the three agents
    assert any(line.startswith("illegal: e2-e5 is not legal here") for line in lines)


def test_the_game_ends_and_is_scored():
    lines = []
    # Los Alamos: white mates in one with Qa5-d5 (SAN Qad5: the d6 queen reaches d5 too).
    state_fen = "3Q2/Q5/4k1/6/3K2/6 w - - 0 60"
    record = play_human(
        "los_alamos", make_agent("random", "los_alamos"), fen=state_fen, read=iter(["Qd5", "Qad5"]), write=lines.append
    )
    assert record.termination == "checkmate" and record.scores == [1.0, 0.0]
    assert lines[-1].startswith("game over: checkmate")
    assert any(line.startswith("illegal: cannot read 'Qd5'") for line in lines)


@pytest.mark.parametrize("game", ["los_alamos", "four_player"])
def test_without_an_agent_the_shipped_network_plays(game):
    result = subprocess.run(
        [sys.executable, "-m", "chess_envs.apps.arena_cli", "play", "--game", game, "--seat", "1"],
        input="quit\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"{shipped_agent(game)} plays" in result.stdout
