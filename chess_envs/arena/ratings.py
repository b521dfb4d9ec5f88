"""Elo ratings by maximum likelihood (Bradley-Terry, draws as half points), with bootstrap intervals.

A game of more than two players gives several two-player results (one per pair of seats held by
different agents), and they are not independent: the intervals resample whole games, never the
results of one game apart, so four-player intervals are as wide as their games warrant.
With ``prior_draws > 0`` every pair that met gets that many virtual draws, which keeps the
ratings finite when a player won or lost every game (as BayesElo's prior does). Ratings are
anchored so that the anchor player (the random agent) is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)


def elo_of_score(score: float) -> float:
    """The Elo difference a score against one opponent stands for (Elo's logistic curve), kept
    finite for a clean sweep: 0.1% and 99.9% are the ends (about -1200 and +1200)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score is a share of the points, from 0 to 1, got {score}")
    score = min(max(score, 0.001), 0.999)
    return ELO_SCALE * math.log(score / (1.0 - score))


@dataclass(frozen=True)
class Result:
    """One two-player result: ``score`` is what ``first`` scored (1, 0.5 or 0); ``game`` names the
    game it came from (results of one game are resampled together; empty: a game of its own)."""

    first: str
    second: str
    score: float
    game: str = ""


@dataclass
class Rating:
    player: str
    elo: float
    low: float
    high: float
    games: int
    wins: int
    draws: int
    losses: int
    score_low: float = 0.0
    """95% bootstrap interval of ``score`` (games resampled)"""
    score_high: float = 1.0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def _matrices(results: list[Result], players: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Results met and points scored between each pair of ``players`` (``[P, P]`` each, in their order)."""
    index = {p: i for i, p in enumerate(players)}
    size = len(players)
    games = np.zeros((size, size))
    points = np.zeros((size, size))  # points[i, j]: what i scored against j
    for r in results:
        i, j = index[r.first], index[r.second]
        games[i, j] += 1
        games[j, i] += 1
        points[i, j] += r.score
        points[j, i] += 1.0 - r.score
    return games, points


def fit_elo(
    results: list[Result],
    players: list[str],
    anchor: str | None = None,
    prior_draws: float = 1.0,
    iterations: int = 100,
    tolerance: float = 1e-9,
) -> np.ndarray:
    """Maximum-likelihood Elo of ``players`` (array in that order), anchor at 0 (else mean 0).

    Newton's method on the Bradley-Terry log-likelihood in natural-log strengths ``theta``,
    where ``P(i beats j) = sigmoid(theta_i - theta_j)`` and Elo = 400 / ln(10) * theta.
    """
    return _fit(*_matrices(results, players), players, anchor, prior_draws, iterations, tolerance)


def _fit(
    games: np.ndarray,
    points: np.ndarray,
    players: list[str],
    anchor: str | None,
    prior_draws: float,
    iterations: int = 100,
    tolerance: float = 1e-9,
) -> np.ndarray:
    """:func:`fit_elo` from the results' :func:`_matrices`, ``prior_draws`` added between every pair that met."""
    met = games > 0
    games = games + prior_draws * met
    points = points + 0.5 * prior_draws * met
    wins = points.sum(axis=1)
    if np.any(wins <= 0) or np.any(wins >= games.sum(axis=1)):
        raise ValueError("some player won or lost every game: ratings are infinite; use prior_draws > 0")
    theta = np.zeros(len(players))
    for _ in range(iterations):
        expected = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        gradient = wins - (games * expected).sum(axis=1)
        weights = games * expected * (1.0 - expected)
        hessian = weights - np.diag(weights.sum(axis=1))
        try:  # theta[0] stays 0: the likelihood only sees differences
            step = np.linalg.solve(hessian[1:, 1:], -gradient[1:])
        except np.linalg.LinAlgError:
            raise ValueError("the players do not form one connected group of games") from None
        theta[1:] += np.clip(step, -5.0, 5.0)
        if np.max(np.abs(step)) < tolerance:
            break
    elo = ELO_SCALE * theta
    offset = elo[players.index(anchor)] if anchor in players else elo.mean()
    return elo - offset


def by_game(results: list[Result]) -> list[list[Result]]:
    """``results`` grouped by ``Result.game``, in order of first appearance (an empty id: alone)."""
    groups: dict[str, list[Result]] = {}
    alone = []
    for r in results:
        if r.game:
            groups.setdefault(r.game, []).append(r)
        else:
            alone.append([r])
    return list(groups.values()) + alone


def rate(
    results: list[Result],
    players: list[str] | None = None,
    anchor: str | None = None,
    prior_draws: float = 1.0,
    bootstrap: int = 1000,
    seed: int = 0,
) -> list[Rating]:
    """Ratings and scores with 95% bootstrap intervals (whole games resampled with replacement), best first."""
    if players is None:
        players = sorted({r.first for r in results} | {r.second for r in results})
    elo = fit_elo(results, players, anchor, prior_draws)
    games = by_game(results)
    # each game's matrices once ([G, P, P]); a resample sums the picked games' rows
    per_game = [_matrices(game, players) for game in games]
    met_by_game = np.array([m[0] for m in per_game]).reshape(len(games), len(players), len(players))
    points_by_game = np.array([m[1] for m in per_game]).reshape(met_by_game.shape)
    rng = np.random.default_rng(seed)
    samples, shares = [], []
    for _ in range(bootstrap if games else 0):
        picked = rng.integers(len(games), size=len(games))
        met, points = met_by_game[picked].sum(axis=0), points_by_game[picked].sum(axis=0)
        counts = met.sum(axis=1)
        if np.any(counts == 0):
            continue
        try:
            samples.append(_fit(met, points, players, anchor, prior_draws))
        except ValueError:
            continue
        shares.append(points.sum(axis=1) / counts)
    if samples:
        low, high = np.percentile(np.array(samples), [2.5, 97.5], axis=0)
        score_low, score_high = np.percentile(np.array(shares), [2.5, 97.5], axis=0)
    else:
        low, high = np.full(len(players), -np.inf), np.full(len(players), np.inf)
        score_low, score_high = np.zeros(len(players)), np.ones(len(players))
    ratings = []
    for i, player in enumerate(players):
        mine = [r for r in results if player in (r.first, r.second)]
        own_scores = [r.score if r.first == player else 1.0 - r.score for r in mine]
        ratings.append(
            Rating(
                player,
                float(elo[i]),
                float(low[i]),
                float(high[i]),
                len(mine),
                sum(s == 1.0 for s in own_scores),
                sum(s == 0.5 for s in own_scores),
                sum(s == 0.0 for s in own_scores),
                float(score_low[i]),
                float(score_high[i]),
            )
        )
    return sorted(ratings, key=lambda r: -r.elo)


def likelihood_of_superiority(results: list[Result], a: str, b: str) -> float:
    """P(a is stronger than b) from their games against each other (drawn games ignored). A game
    is a win for whoever took more of the points between the two in it, so the several results
    of a four-player game count once."""
    wins = losses = 0
    for game in by_game(results):
        margin = sum(r.score - 0.5 if r.first == a else 0.5 - r.score for r in game if {r.first, r.second} == {a, b})
        wins += margin > 0
        losses += margin < 0
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))
