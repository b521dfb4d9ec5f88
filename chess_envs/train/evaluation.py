"""A learner's scores: against the random and greedy baselines taking every seat in turn, and
against another agent (its teacher) from the shipped book's openings; with game ``options``
(four-player ``mode="teams"``) under them, the learner then playing its seat's whole team."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chess_envs.agents.base import Agent
from chess_envs.agents.simple import GreedyAgent, RandomAgent
from chess_envs.arena.game import play_game, read_openings
from chess_envs.arena.report import pairwise_results
from chess_envs.registry import new_state


def baseline_scores(
    game: str, agent: Agent, games: int, max_plies: int, seed: int, options: Mapping[str, Any] | None = None
) -> dict[str, float]:
    """``{"eval/score_vs_random": s, "eval/score_vs_greedy": s}``: ``agent``'s mean score (win 1,
    draw 1/2 in two-player games; the game's scores otherwise) over ``games`` games against each,
    taking each seat in turn (and its partners', where seats play as teams)."""
    options = dict(options or {})
    start = new_state(game, **options)
    seats_count, teams = start.num_players, start.teams or tuple(range(start.num_players))
    scores = {}
    for name, opponent in (("random", RandomAgent(seed=seed)), ("greedy", GreedyAgent(seed=seed))):
        total = 0.0
        for index in range(games):
            seat = index % seats_count
            seats: list[Agent] = [agent if teams[s] == teams[seat] else opponent for s in range(seats_count)]
            record = play_game(game, seats, start.to_text(), max_plies=max_plies, **options)
            total += record.scores[seat]
        scores[f"eval/score_vs_{name}"] = total / games
    return scores


def score_against(
    game: str, agent: Agent, opponent: Agent, games: int, max_plies: int, options: Mapping[str, Any] | None = None
) -> float:
    """``agent``'s pairwise placement score against ``opponent`` (1 above it, 1/2 level, 0 below, for
    each pair of their seats) over ``games`` games from the shipped book, seated a b a b and b a b a
    in turn (a b and b a for two players); the agents' names must differ."""
    openings = read_openings(f"@{game}", game)
    seats_count = new_state(game).num_players
    points = pairs = 0.0
    for index in range(games):
        seats = [agent if (seat + index) % 2 == 0 else opponent for seat in range(seats_count)]
        record = play_game(game, seats, openings[index // 2 % len(openings)], max_plies=max_plies, **(options or {}))
        for result in pairwise_results([record]):
            points += result.score if result.first == agent.name else 1.0 - result.score
            pairs += 1
    return points / pairs
