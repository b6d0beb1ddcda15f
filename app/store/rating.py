"""The rating of a name: openskill's Plackett-Luce model over each counted finished game's people, ranked by
their final totals (the lowest first, equal totals tied). Pure: the writes (``standings_writes``) and the
migration that rated the games from before ratings (0014) call the same ``rate_game``."""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
PROVISIONAL = 5  # a rating from fewer rated games is shown as provisional
HISTORY = 30  # a record's chart shows this many of the latest rated games


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: ``mu`` and its uncertainty ``sigma``; ``ordinal`` = mu - 3 sigma, the conservative
    figure shown and ranked by (a new name's is 0: it rises as games show skill and sigma narrows)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


NEW = Rating(MODEL.mu, MODEL.sigma)


def rate_game(players: list[tuple[Rating, int]]) -> list[Rating]:
    """Each player's rating after one game, from their ratings before it and their final totals (lower is
    better; equal totals tie), in the order given. A game needs two players to say anything: with fewer,
    the ratings come back unchanged (the caller rates nobody then)."""
    if len(players) < 2:
        return [rating for rating, _ in players]
    totals = [total for _, total in players]
    ranks = [1 + sum(other < total for other in totals) for total in totals]
    teams = [[MODEL.create_rating([rating.mu, rating.sigma])] for rating, _ in players]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Rating(team[0].mu, team[0].sigma) for team in rated]
