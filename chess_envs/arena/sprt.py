"""Match statistics over game pairs, as engine testers run them: pentanomial counts, normalised Elo
and a sequential probability ratio test (SPRT) that stops a match once its answer is known.

A pair is two games on one opening with the colours swapped; the first agent's pair score is 0,
1/2, 1, 3/2 or 2 (the pentanomial counts). Scores within a pair are correlated (an opening that
favours one colour favours both games' first mover), so the pair, not the game, is the unit: the
variance per pair is measured, not assumed, as fishtest and fastchess do.

**Model**: normalised Elo (nElo): ``(mu - 1/2) / (sqrt(2) * sigma) * 800 / ln 10``, with ``mu`` the
mean pair score over 2 (in [0, 1]) and ``sigma`` its standard deviation per pair; nElo measures
the difference in the units of its own noise, so its SPRT bounds mean the same at every draw
rate. **Test**: the generalised SPRT of fishtest and fastchess in its normal approximation,
``LLR = N (mu1 - mu0)(2 mu - mu0 - mu1) / (2 sigma^2)`` over ``N`` pairs, where ``mu_i = 1/2 +
sqrt(2) sigma nElo_i ln 10 / 800``; H1 (``elo1``) is accepted above ``ln((1 - beta) / alpha)``,
H0 (``elo0``) below ``ln(beta / (1 - alpha))``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from chess_envs.arena.game import GameRecord

NELO_SCALE = 800 / math.log(10)
"""nElo per unit of (mu - 1/2) / (sqrt(2) sigma)"""


@dataclass(frozen=True)
class Pentanomial:
    """Pairs by the first agent's pair score: counts of 0, 1/2, 1, 3/2 and 2 points."""

    counts: tuple[int, int, int, int, int]

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def mean_and_variance(self) -> tuple[float, float]:
        """(mean pair score in [0, 1], its variance per pair); a tiny prior keeps the variance
        above zero when every pair so far ended alike."""
        prior = 1e-3
        weights = [count + prior for count in self.counts]
        total = sum(weights)
        scores = [k / 4 for k in range(5)]
        mean = sum(w * s for w, s in zip(weights, scores)) / total
        variance = sum(w * (s - mean) ** 2 for w, s in zip(weights, scores)) / total
        return mean, variance

    def normalized_elo(self) -> tuple[float, float]:
        """(nElo, the half-width of its 95% interval)."""
        mean, variance = self.mean_and_variance()
        sigma = math.sqrt(variance)
        nelo = (mean - 0.5) / (math.sqrt(2) * sigma) * NELO_SCALE
        half = 1.959964 * NELO_SCALE / math.sqrt(2) / math.sqrt(max(self.pairs, 1))
        return nelo, half


def pentanomial(records: Iterable[GameRecord], first: str, second: str) -> Pentanomial:
    """The pentanomial counts of ``first`` against ``second`` from a tournament's records: games
    paired by their schedule id (``table | opening | a`` and ``... | b``), complete pairs only."""
    halves: dict[str, list[float]] = {}
    for record in records:
        if sorted(record.players) != sorted((first, second)):
            continue
        key = record.id.rsplit(" | ", 1)[0]
        halves.setdefault(key, []).append(record.scores[record.players.index(first)])
    counts = [0, 0, 0, 0, 0]
    for scores in halves.values():
        if len(scores) == 2:
            counts[int(round(sum(scores) * 2))] += 1  # each game's score is 0, 1/2 or 1
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


@dataclass(frozen=True)
class SPRT:
    """H0: nElo = ``elo0`` against H1: nElo = ``elo1``, with error rates ``alpha`` and ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError(f"SPRT error rates must be in (0, 0.5), got alpha {self.alpha}, beta {self.beta}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds of the log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Pentanomial) -> float:
        """The log-likelihood ratio of H1 against H0 after ``counts``."""
        if counts.pairs == 0:
            return 0.0
        mean, variance = counts.mean_and_variance()
        sigma = math.sqrt(variance)
        mu0, mu1 = (0.5 + math.sqrt(2) * sigma * elo / NELO_SCALE for elo in (self.elo0, self.elo1))
        return counts.pairs * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * variance)

    def decision(self, counts: Pentanomial) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or None (play on)."""
        llr = self.llr(counts)
        lower, upper = self.bounds
        return "H1" if llr >= upper else "H0" if llr <= lower else None

    def report(self, counts: Pentanomial) -> str:
        """One paragraph: counts, nElo with its interval, LLR with its bounds, and the decision."""
        nelo, half = counts.normalized_elo()
        lower, upper = self.bounds
        decided = self.decision(counts)
        verdict = {"H1": f"H1 accepted (nElo {self.elo1:g})", "H0": f"H0 accepted (nElo {self.elo0:g})"}
        return (
            f"pentanomial [0, 1/2, 1, 3/2, 2] = {list(counts.counts)} over {counts.pairs} pairs; "
            f"nElo {nelo:+.1f} +/- {half:.1f}; LLR {self.llr(counts):.2f} in [{lower:.2f}, {upper:.2f}] "
            f"(SPRT nElo {self.elo0:g} vs {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}): "
            + verdict.get(decided or "", "no decision yet")
        )
