"""Elo fits against hand-computed cases, bootstrap intervals, likelihood of superiority."""

from __future__ import annotations

import math
import warnings

import pytest

from chess_envs.arena.ratings import Rating, Result, fit_elo, likelihood_of_superiority, rate
from chess_envs.arena.report import plot_ratings, wrapped_spec


def games(first: str, second: str, wins: int, draws: int, losses: int) -> list[Result]:
    return (
        [Result(first, second, 1.0)] * wins
        + [Result(first, second, 0.5)] * draws
        + [Result(first, second, 0.0)] * losses
    )


def test_two_players_with_known_scores():
    # 75%: Elo difference 400 * log10(0.75 / 0.25).
    elo = fit_elo(games("a", "b", 3, 0, 1), ["a", "b"], anchor="b", prior_draws=0)
    assert elo[0] == pytest.approx(400 * math.log10(3), abs=1e-6) and elo[1] == 0
    # Draws are half points: 2 wins, 2 draws, 0 losses is 3/4 as well.
    assert fit_elo(games("a", "b", 2, 2, 0) + games("b", "a", 0, 0, 0), ["a", "b"], "b", 0)[0] == pytest.approx(elo[0])
    # 50% is equal strength; colours do not matter.
    assert fit_elo(games("a", "b", 1, 0, 0) + games("b", "a", 1, 0, 0), ["a", "b"], "b", 0)[0] == pytest.approx(0)


def test_three_player_cycle_is_level():
    results = games("a", "b", 2, 0, 1) + games("b", "c", 2, 0, 1) + games("c", "a", 2, 0, 1)
    assert fit_elo(results, ["a", "b", "c"], prior_draws=0) == pytest.approx([0, 0, 0], abs=1e-9)


def test_three_players_in_a_line():
    # a beats b 3:1 and b beats c 3:1 (no a-c games): differences of 190.85 each.
    results = games("a", "b", 3, 0, 1) + games("b", "c", 3, 0, 1)
    elo = fit_elo(results, ["a", "b", "c"], anchor="c", prior_draws=0)
    step = 400 * math.log10(3)
    assert elo == pytest.approx([2 * step, step, 0], abs=1e-6)


def test_perfect_scores_need_the_prior():
    with pytest.raises(ValueError, match="infinite"):
        fit_elo(games("a", "b", 4, 0, 0), ["a", "b"], prior_draws=0)
    # One virtual draw: 4.5 / 0.5 -> 400 * log10(9).
    assert fit_elo(games("a", "b", 4, 0, 0), ["a", "b"], "b", prior_draws=1)[0] == pytest.approx(400 * math.log10(9))


def test_disconnected_players_are_reported():
    with pytest.raises(ValueError, match="connected"):
        fit_elo(games("a", "b", 2, 0, 1) + games("c", "d", 2, 0, 1), ["a", "b", "c", "d"], prior_draws=0)


def test_intervals_shrink_as_games_are_added():
    few = rate(games("a", "b", 6, 2, 2), anchor="b", bootstrap=400)
    many = rate(games("a", "b", 60, 20, 20), anchor="b", bootstrap=400)
    width = {r.player: r.high - r.low for r in few}["a"]
    assert {r.player: r.high - r.low for r in many}["a"] < width / 2
    top = many[0]
    assert top.player == "a" and (top.wins, top.draws, top.losses, top.games) == (60, 20, 20, 100)
    assert top.low < top.elo < top.high


def test_likelihood_of_superiority():
    results = games("a", "b", 5, 3, 5)
    assert likelihood_of_superiority(results, "a", "b") == pytest.approx(0.5)
    assert likelihood_of_superiority(games("a", "b", 8, 0, 2), "a", "b") == pytest.approx(
        0.5 * (1 + math.erf(6 / math.sqrt(20)))
    )
    assert likelihood_of_superiority(games("a", "b", 8, 0, 2), "b", "a") < 0.05


def four_seat_games(wins: int, losses: int) -> list[Result]:
    """Games of four seats, a b a b: each gives four a-b results, all alike (a placed above b or below)."""
    results = []
    for number in range(wins + losses):
        score = 1.0 if number < wins else 0.0
        results += [Result("a", "b", score, f"game-{number}")] * 4
    return results


def test_intervals_resample_whole_games():
    grouped = four_seat_games(25, 15)
    apart = [Result(r.first, r.second, r.score) for r in grouped]  # the same results as if from 160 games
    [a_grouped] = [r for r in rate(grouped, anchor="b", bootstrap=2000) if r.player == "a"]
    [a_apart] = [r for r in rate(apart, anchor="b", bootstrap=2000) if r.player == "a"]
    assert a_grouped.elo == pytest.approx(a_apart.elo) and a_grouped.score == a_apart.score == 0.625
    # four perfectly correlated results are one game's worth: the interval is about twice as wide
    ratio = (a_grouped.score_high - a_grouped.score_low) / (a_apart.score_high - a_apart.score_low)
    assert 1.6 < ratio < 2.5
    assert (a_grouped.high - a_grouped.low) / (a_apart.high - a_apart.low) > 1.6
    # two players: a game per result, so tagging changes nothing
    two = games("a", "b", 6, 2, 2)
    tagged = [Result(r.first, r.second, r.score, f"game-{n}") for n, r in enumerate(two)]
    assert rate(tagged, anchor="b", bootstrap=300) == rate(two, anchor="b", bootstrap=300)


def test_score_interval_matches_the_binomial_spread():
    [top, _] = rate(games("a", "b", 60, 20, 20), anchor="b", bootstrap=4000)
    # per game: mean 0.7, variance 0.65 - 0.49 = 0.16, so a standard error of 0.04 over 100 games
    assert top.score == pytest.approx(0.7)
    assert top.score_low == pytest.approx(0.7 - 1.96 * 0.04, abs=0.015)
    assert top.score_high == pytest.approx(0.7 + 1.96 * 0.04, abs=0.015)


def test_likelihood_of_superiority_counts_a_game_once():
    per_game = [r for n, r in enumerate(four_seat_games(25, 15)) if n % 4 == 0]
    assert likelihood_of_superiority(four_seat_games(25, 15), "a", "b") == pytest.approx(
        likelihood_of_superiority([Result(r.first, r.second, r.score) for r in per_game], "a", "b")
    )
    # a game a and b split (a above b in one pair, below in the other) is a draw between them
    split = [Result("a", "b", 1.0, "g"), Result("b", "a", 1.0, "g")]
    assert likelihood_of_superiority(split, "a", "b") == 0.5


def test_plot_takes_an_interval_that_misses_its_estimate(tmp_path):
    # with a handful of games the bootstrap's percentiles can lie wholly above the estimate
    inside = Rating("a", 120.0, 40.0, 200.0, 12, 7, 2, 3)
    missed = Rating("b", 60.0, 75.0, 140.0, 12, 5, 3, 4)
    plot_ratings([inside, missed, Rating("random", 0.0, 0.0, 0.0, 12, 0, 1, 11)], tmp_path / "r.png", "t")
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_fits_long_specs_on_its_figure(tmp_path):
    spec = "alphazero:benchmarks/networks/chess_continued.pt?sims=200&leaves=4&fpu=0&root_fpu=none"
    assert wrapped_spec(spec).split("\n") == [
        "alphazero:benchmarks/networks/",
        "chess_continued.pt?sims=200&",
        "leaves=4&fpu=0&root_fpu=none",
    ]
    assert wrapped_spec("greedy") == "greedy" and wrapped_spec(spec).replace("\n", "") == spec
    ratings = [
        Rating(spec, 20.0, -5.0, 45.0, 200, 90, 20, 90),
        Rating("stockfish?elo=1600&movetime=100", 0.0, -1, 1, 9, 1, 1, 1),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns when tight_layout cannot fit the labels
        plot_ratings(ratings, tmp_path / "r.png", "chess")
