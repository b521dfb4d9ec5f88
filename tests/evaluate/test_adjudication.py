"""Resign and draw adjudication by the scores the players report, as cutechess-cli does it."""

from __future__ import annotations

import pytest

from chess_envs.agents.base import SearchLimits, Thought, expected_outcome
from chess_envs.arena.game import Adjudication, play_game
from chess_envs.arena.report import pgn
from chess_envs.core import GameState
from chess_envs.registry import new_state

START = new_state("chess").to_text()


class Scripted:
    """A searching agent that plays the first legal move and reports a fixed score (centipawns)."""

    def __init__(self, name: str, centipawns: float) -> None:
        self.name, self.score = name, expected_outcome(centipawns)

    def reset(self, seed: int | None = None) -> None:
        pass

    def select_action(self, state: GameState) -> int:
        return int(state.legal_actions()[0])

    def think(self, state: GameState, limits: SearchLimits, stop=None, report=None) -> Thought:
        action = self.select_action(state)
        return Thought(action, self.score, (action,), 1, 0.0)

    def close(self) -> None:
        pass


def test_the_rules_need_their_move_counts_and_the_opponents_agreement():
    rule = Adjudication(resign_moves=3, resign_cp=600, draw_from=10, draw_moves=2, draw_cp=10)
    assert rule.verdict([[-700, -700], [700, 700]], mover=0, plies=4) is None  # two moves, three needed
    reason, loser = rule.verdict([[-700, -800, -650], [700, 700, 700]], mover=0, plies=5)
    assert loser == 0 and reason.startswith("resign")
    assert rule.verdict([[-700, -800, -650], [700, 700, 100]], mover=0, plies=5) is None  # the winner disagrees
    assert rule.verdict([[0, 5], [-3, 8]], mover=1, plies=18) is None  # before move 10
    reason, loser = rule.verdict([[0, 5], [-3, 8]], mover=1, plies=20)
    assert loser is None and reason.startswith("draw")
    assert rule.verdict([[0, 50], [-3, 8]], mover=1, plies=20) is None
    with pytest.raises(ValueError):
        Adjudication(resign_moves=-1)


def test_a_lost_game_is_resigned_and_the_pgn_says_why():
    rule = Adjudication(resign_moves=3, resign_cp=600)
    record = play_game("chess", [Scripted("hopeless", -900), Scripted("winning", 900)], START, adjudication=rule)
    assert record.termination == "adjudication" and record.scores == [0.0, 1.0] and len(record.moves) == 5
    assert "adjudication (resign" in pgn([record])


def test_a_dead_even_game_is_drawn_from_the_move_named():
    rule = Adjudication(draw_from=5, draw_moves=3, draw_cp=10)
    record = play_game("chess", [Scripted("a", 4), Scripted("b", -2)], START, adjudication=rule)
    assert record.termination == "adjudication" and record.scores == [0.5, 0.5] and len(record.moves) == 10


def test_adjudication_is_for_two_player_games():
    with pytest.raises(ValueError, match="two-player"):
        start = new_state("four_player").to_text()
        play_game(
            "four_player", [Scripted(str(i), 0) for i in range(4)], start, adjudication=Adjudication(resign_moves=2)
        )
