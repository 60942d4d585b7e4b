"""Glicko-2 ratings for Sputo, from the matches' results in force.

**A rating period is one match.** Each rated match updates its two players once, with the
games of the match as the period's results (a 2-1 win is two wins and a loss against the
same opponent); byes, walkovers, double forfeits and awarded matches have no games and are
not rated; a retirement is rated on the games completed before it. One ``RatingChange``
row per player and rated match keeps the history, ``sequence`` numbering the club's rated
matches in the order they are rated: by when each match's result first came into force
(``decided_at``; a correction keeps the match in its place), then by id.

The computation is a pure function of that ordered list, so recomputing from any match on
(the task, after a confirmation or a correction), in any order of arrival, or from
scratch (``manage.py sputo_ratings``) gives the same numbers.

The library is ``glicko2`` (PyPI, MIT licence). Its volatility step uses the rating where
Glickman's paper (step 5.1, the function f) uses the rating deviation; :class:`Glicko2`
below fixes that one function. The symptom: ratings shifted by a constant do not give
results shifted by that constant (``tests/test_sputo_ratings.py`` shows it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import glicko2

START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
PROVISIONAL_BELOW = 5  # rated matches


class Glicko2(glicko2.Player):
    def _f(self, x, delta, v, a):
        # Glickman (2013), step 5.1: f(x) = e^x (delta^2 - phi^2 - v - e^x) /
        # (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2, phi being the rating deviation.
        phi = self._Player__rd
        ex = math.exp(x)
        return (ex * (delta**2 - phi**2 - v - ex)) / (2 * (phi**2 + v + ex) ** 2) - (
            x - a
        ) / self._tau**2


@dataclass(frozen=True)
class Rating:
    mu: float = START_RATING
    sigma: float = START_RD
    volatility: float = START_VOLATILITY
    games: int = 0  # rated matches

    @property
    def display(self) -> float:
        return self.mu - 2 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_BELOW

    def figures(self) -> dict[str, float]:
        """The figures a rating row keeps (``RatingChange``, ``PlayerRating``)."""
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "volatility": self.volatility,
            "display": self.display,
        }


@dataclass(frozen=True)
class RatedMatch:
    """One rated match: its outcome in force, when, and the games' winners."""

    match: int
    outcome: int
    at: object
    a: int
    b: int
    wins: tuple[int, ...]  # the winner's player id of each game


def rate(ratings: dict[int, Rating], match: RatedMatch) -> tuple[Rating, Rating]:
    """The two players' ratings after ``match`` (a rating period of its own)."""
    ra, rb = ratings.get(match.a, Rating()), ratings.get(match.b, Rating())
    new = []
    for me, other, mine in ((ra, rb, match.a), (rb, ra, match.b)):
        player = Glicko2(rating=me.mu, rd=me.sigma, vol=me.volatility)
        scores = [1 if w == mine else 0 for w in match.wins]
        player.update_player([other.mu] * len(scores), [other.sigma] * len(scores), scores)
        new.append(Rating(player.rating, player.rd, player.vol, me.games + 1))
    return new[0], new[1]
