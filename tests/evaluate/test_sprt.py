"""SPRT over game pairs: its error rates hold on simulated matches, and the statistics are right."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chess_envs.arena.game import GameRecord
from chess_envs.arena.sprt import NELO_SCALE, SPRT, Pentanomial, pentanomial


def pair_probabilities(nelo: float, draw: float = 0.4) -> np.ndarray:
    """A pentanomial distribution with the given normalised Elo: games drawn with probability
    ``draw``, the rest won or lost, the two games of a pair independent, the mean shifted until
    the nElo is right."""

    def distribution(p_win: float) -> np.ndarray:
        game = np.array([1 - draw - p_win, draw, p_win])  # loss, draw, win
        return np.convolve(game, game)  # pair scores 0, 1/2, 1, 3/2, 2

    low, high = 1e-6, 1 - draw - 1e-6
    for _ in range(100):
        middle = (low + high) / 2
        probabilities = distribution(middle)
        scores = np.arange(5) / 4
        mean = probabilities @ scores
        sigma = math.sqrt(probabilities @ (scores - mean) ** 2)
        if (mean - 0.5) / (math.sqrt(2) * sigma) * NELO_SCALE < nelo:
            low = middle
        else:
            high = middle
    return distribution((low + high) / 2)


def run(test: SPRT, nelo: float, rng: np.random.Generator, limit: int = 20_000) -> str:
    """Play simulated pairs until ``test`` decides (pairs drawn 512 at a time: one draw a pair
    costs more than the decision)."""
    probabilities = pair_probabilities(nelo)
    counts = [0, 0, 0, 0, 0]
    for _ in range(0, limit, 512):
        for outcome in rng.choice(5, size=512, p=probabilities).tolist():
            counts[outcome] += 1
            decided = test.decision(Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4])))
            if decided:
                return decided
    return "undecided"


@pytest.mark.slow
def test_the_error_rates_hold_on_simulated_matches() -> None:
    """At nElo = elo0 the test accepts H1 about alpha of the time; at elo1, H0 about beta of it.
    (nElo 0 against 20: a quarter of the pairs 0 against 10 would need, and the same error rates.)"""
    test, rng, runs = SPRT(0.0, 20.0, 0.05, 0.05), np.random.default_rng(1), 300
    false_h1 = sum(run(test, 0.0, rng) == "H1" for _ in range(runs)) / runs
    false_h0 = sum(run(test, 20.0, rng) == "H0" for _ in range(runs)) / runs
    assert false_h1 < 0.05 + 0.04 and false_h0 < 0.05 + 0.04, (false_h1, false_h0)
    assert sum(run(test, 80.0, rng) == "H1" for _ in range(50)) == 50  # far above elo1: always H1


def test_pentanomial_counts_pair_games_by_opening_with_colours_swapped() -> None:
    def game(id_: str, white: str, black: str, white_score: float) -> GameRecord:
        return GameRecord(id_, "chess", "startpos", [white, black], scores=[white_score, 1 - white_score])

    records = [
        game("a | b | 0 | a", "a", "b", 1.0), game("a | b | 0 | b", "b", "a", 0.0),  # a wins both: 2
        game("a | b | 1 | a", "a", "b", 0.5), game("a | b | 1 | b", "b", "a", 1.0),  # a draws and loses: 1/2
        game("a | b | 2 | a", "a", "b", 1.0), game("a | b | 2 | b", "b", "a", 1.0),  # one win each: 1
        game("a | b | 3 | a", "a", "b", 0.5),  # half a pair: not counted yet
    ]  # fmt: skip
    assert pentanomial(records, "a", "b").counts == (0, 1, 1, 0, 1)
    assert pentanomial(records, "b", "a").counts == (1, 0, 1, 1, 0)


def test_normalised_elo_is_zero_for_even_matches_and_bounds_are_wald_s() -> None:
    nelo, half = Pentanomial((10, 20, 40, 20, 10)).normalized_elo()
    assert abs(nelo) < 1e-9 and half > 0
    assert Pentanomial((0, 10, 40, 30, 20)).normalized_elo()[0] > 0
    lower, upper = SPRT(0, 5, 0.05, 0.05).bounds
    assert math.isclose(lower, math.log(0.05 / 0.95)) and math.isclose(upper, math.log(0.95 / 0.05))
    with pytest.raises(ValueError, match="elo0 < elo1"):
        SPRT(5, 0)


def test_a_tournament_with_sprt_stops_once_it_decides(tmp_path, capsys) -> None:
    from chess_envs.apps.arena_cli import main

    out = tmp_path / "match"
    main(["tournament", "--game", "los_alamos", "--agents", "greedy?seed=1", "random?seed=2", "--games-per-pair", "400",
          "--out", str(out), "--workers", "1", "--quiet", "--sprt", "0", "50", "0.05", "0.05"])  # fmt: skip
    played = (out / "games.jsonl").read_text().splitlines()
    assert 2 <= len(played) < 400 and len(played) % 2 == 0, "stopped early, on a whole pair"
    verdict = (out / "sprt.txt").read_text()
    assert "H1 accepted" in verdict and "pentanomial" in verdict and "H1 accepted" in capsys.readouterr().out


def test_the_verdict_is_the_one_that_stopped_the_match_not_what_games_in_flight_did_after() -> None:
    from chess_envs.apps.arena_cli import _sprt_stop

    def pair(k: int, first_scores: tuple[float, float]) -> list[GameRecord]:
        a, b = first_scores
        return [GameRecord(f"a | b | {k} | a", "chess", "x", ["a", "b"], scores=[a, 1 - a]),
                GameRecord(f"a | b | {k} | b", "chess", "x", ["b", "a"], scores=[1 - b, b])]  # fmt: skip

    sprt, decided = SPRT(0, 50), []
    stop = _sprt_stop(sprt, "a", "b", decided)
    records: list[GameRecord] = []
    k = 0
    while not stop(records):
        records += pair(k, (1.0, 1.0) if k % 4 else (0.5, 0.5))
        k += 1
    assert len(decided) == 1 and sprt.decision(decided[0]) == "H1" and decided[0].pairs == k
    late = records + pair(k, (0.0, 0.0)) + pair(k + 1, (0.0, 0.0))  # two pairs still in flight, both lost
    assert sprt.decision(pentanomial(late, "a", "b")) is None  # what a recount would (wrongly) report
