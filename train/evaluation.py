"""A learner's scores against the random and greedy baselines, taking every seat in turn."""

from __future__ import annotations

from agents.base import Agent
from agents.simple import GreedyAgent, RandomAgent
from chess_envs.registry import new_state
from evaluate.game import play_game


def baseline_scores(game: str, agent: Agent, games: int, max_plies: int, seed: int) -> dict[str, float]:
    """``{"eval/score_vs_random": s, "eval/score_vs_greedy": s}``: ``agent``'s mean score (win 1,
    draw 1/2 in two-player games; the game's scores otherwise) over ``games`` games against each."""
    seats_count = new_state(game).num_players
    scores = {}
    for name, opponent in (("random", RandomAgent(seed=seed)), ("greedy", GreedyAgent(seed=seed))):
        total = 0.0
        for index in range(games):
            seat = index % seats_count
            seats: list[Agent] = [opponent] * seats_count
            seats[seat] = agent
            record = play_game(game, seats, new_state(game).to_text(), max_plies=max_plies)
            total += record.scores[seat]
        scores[f"eval/score_vs_{name}"] = total / games
    return scores
