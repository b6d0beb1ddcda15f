"""A finished game in the standings: how each seat did, and each counted player's record, written in the
transaction that finishes the game (``writes.record_round_end``: the one commit path of a move).

A seat counts in its player's standings when it was a person's (not a bot's, not a program's, not played
for practice) and one name held it all game (a seat handed to a bot for a while keeps its player's name and
still counts for them; a seat someone else took over does not count for either). Records are keyed by the
name's skeleton (``app.table.text.name_skeleton``), so look-alike names share one.

The same transaction rates the game (``app.store.rating``): the counted seats, when there are two or more,
each move their name's rating by how they finished among each other, and each such name gets a line of its
rating history. A game of one counted person (against bots, or people who do not count) rates nobody.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Table, bindparam, case, cast, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from app.table import FinalTotal, RecordMove

from .models import GamePlayerRow, PlayerStandingRow, RatingHistoryRow, RoundScoreRow
from .rating import NEW, Rating, rate_game

PLAYERS: Table = GamePlayerRow.__table__  # type: ignore[assignment]
SCORES: Table = RoundScoreRow.__table__  # type: ignore[assignment]
STANDINGS: Table = PlayerStandingRow.__table__  # type: ignore[assignment]
HISTORY: Table = RatingHistoryRow.__table__  # type: ignore[assignment]

_SEATS = select(
    PLAYERS.c.seat,
    PLAYERS.c.name,
    PLAYERS.c.skeleton,
    PLAYERS.c.is_bot,
    PLAYERS.c.is_program,
    PLAYERS.c.practice,
    PLAYERS.c.handed,
    PLAYERS.c.origin,
).where(PLAYERS.c.game_id == bindparam("b_id"))
_NAMES = select(SCORES.c.seat, SCORES.c.name).where(SCORES.c.game_id == bindparam("b_id")).distinct()
_SET_OUTCOME = (
    update(PLAYERS)
    .where(PLAYERS.c.game_id == bindparam("b_id"), PLAYERS.c.seat == bindparam("b_seat"))
    .values(
        total=bindparam("total"),
        won=bindparam("won"),
        win=bindparam("win"),
        place=bindparam("place"),
        rounds_out_first=bindparam("rounds_out_first"),
        perfect=bindparam("perfect"),
        counted=bindparam("counted"),
        padded=bindparam("padded"),
        finished_at=bindparam("finished_at"),
    )
)


def _upsert(dialect: str) -> Any:
    """Add one game to a player's record (or start it): one statement, safe against a concurrent game's
    end for the same player (the row is locked by the conflict, never read first)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(STANDINGS)
    new, old = statement.excluded, STANDINGS.c
    games = old.games + 1
    wins = old.wins + new.wins
    total_sum = old.total_sum + new.total_sum
    better, worse = new.best_total < old.best_total, new.worst_total > old.worst_total
    return statement.on_conflict_do_update(
        index_elements=[old.skeleton],
        set_={
            "games": games,
            "wins": wins,
            "win_rate": wins / cast(games, Float),
            "total_sum": total_sum,
            "average_total": cast(total_sum, Float) / cast(games, Float),
            "best_total": case((better, new.best_total), else_=old.best_total),
            "best_game_id": case((better, new.best_game_id), else_=old.best_game_id),
            "worst_total": case((worse, new.worst_total), else_=old.worst_total),
            "worst_game_id": case((worse, new.worst_game_id), else_=old.worst_game_id),
            "rounds_out_first": old.rounds_out_first + new.rounds_out_first,
            "perfect_games": old.perfect_games + new.perfect_games,
            "last_played": new.last_played,
        },
    )


_UPSERTS = {dialect: _upsert(dialect) for dialect in ("sqlite", "postgresql")}

_RATINGS = (
    select(STANDINGS.c.skeleton, STANDINGS.c.rating_mu, STANDINGS.c.rating_sigma)
    .where(STANDINGS.c.skeleton.in_(bindparam("b_skeletons", expanding=True)))
    .order_by(STANDINGS.c.skeleton)
)
# The rows read to be written back: locked on PostgreSQL (SQLite runs one writer at a time).
_RATINGS_LOCKED = {"postgresql": _RATINGS.with_for_update(), "sqlite": _RATINGS}
_SET_RATING = (
    update(STANDINGS)
    .where(STANDINGS.c.skeleton == bindparam("b_skeleton"))
    .values(
        rating=bindparam("rating"),
        rating_mu=bindparam("mu"),
        rating_sigma=bindparam("sigma"),
        rated_games=STANDINGS.c.rated_games + 1,
    )
)


def person_seats(seats: list[Any], names: list[Any]) -> dict[int, tuple[str, str | None]]:
    """seat -> (skeleton, origin) of the seats that are a person's game (one per skeleton: the lowest seat,
    should two ever share one): a person's seat (not a bot's or a program's, not played for practice, not
    handed to a bot by the host during the game), held by one name all game. A seat its person left of their
    own accord is theirs, and so are the turns the server played for them while they were away: leaving
    never escapes a bad score."""
    held: dict[int, set[str]] = {}
    for seat, name in names:
        held.setdefault(seat, set()).add(name)
    people: dict[int, tuple[str, str | None]] = {}
    for seat, name, skeleton, is_bot, is_program, practice, handed, origin in sorted(seats):
        person = not (is_bot or is_program or practice or handed)
        taken = {skeleton for skeleton, _ in people.values()}
        if person and skeleton and held.get(seat, {name}) == {name} and skeleton not in taken:
            people[seat] = (skeleton, origin)
    return people


def one_address(people: dict[int, tuple[str, str | None]], seats: list[Any]) -> set[int]:
    """The cheapest padding: the seats of ``people`` whose every other seat taken from an address (a person's,
    a program's or a practice seat: any seat but the server's bots) joined from the same address (the same
    ``origin``), as one person playing two tabs of their own under two names would, or one person beside a
    program of their own that plays to lose. A game against the server's bots alone is not one, nor is a seat
    of unknown origin (None)."""
    others = {seat: origin for seat, _, _, is_bot, *_, origin in seats if not is_bot}
    return {
        seat
        for seat, (_, origin) in people.items()
        if origin is not None
        and len(others) > 1
        and all(other == origin for at, other in others.items() if at != seat)
    }


def counted_seats(seats: list[Any], names: list[Any]) -> dict[int, str]:
    """seat -> skeleton of the seats that count in the public records and boards: a person's game
    (``person_seats``) that is not the cheapest padding (``one_address``). The padding still counts in its
    own table's series (``game_players.padded``): friends on one home network see their table's standings."""
    people = person_seats(seats, names)
    padded = one_address(people, seats)
    return {seat: skeleton for seat, (skeleton, _) in people.items() if seat not in padded}


async def record_game_end(conn: AsyncConnection, move: RecordMove, now: datetime) -> None:
    """Each seat's outcome on its game row, and each counted player's record, in the caller's transaction."""
    ids = {"b_id": move.game_id}
    seats = (await conn.execute(_SEATS, ids)).all()
    people = person_seats(list(seats), list((await conn.execute(_NAMES, ids)).all()))
    padded = one_address(people, list(seats))
    counted = {seat: skeleton for seat, (skeleton, _) in people.items() if seat not in padded}
    names = {seat: name for seat, name, *_ in seats}
    for final in move.final_totals:
        outcome = _outcome(final, final.seat in counted, now)
        await conn.execute(_SET_OUTCOME, {**ids, **outcome, "padded": final.seat in padded})
    records = [
        _record(counted[final.seat], names[final.seat], final, move.game_id, now)
        for final in move.final_totals
        if final.seat in counted
    ]
    # One player's row at a time, in one order: two games ending at once never wait on each other in a cycle.
    for record in sorted(records, key=lambda r: str(r["skeleton"])):
        await conn.execute(_UPSERTS[conn.dialect.name], record)
    totals = {counted[final.seat]: final.total for final in move.final_totals if final.seat in counted}
    if len(totals) >= 2:
        await _rate(conn, totals, move.game_id, now)


async def _rate(conn: AsyncConnection, totals: dict[str, int], game_id: int, now: datetime) -> None:
    """Move the ratings of the game's counted names (skeleton -> final total) and add a history line each.

    A read-modify-write: the upserts above hold each record's row lock (taken in skeleton order) until the
    commit, so a game that ends at the same moment for a shared player waits, then reads this game's rating;
    ``FOR UPDATE`` says so on PostgreSQL (SQLite runs one writer at a time)."""
    skeletons = sorted(totals)
    read = await conn.execute(_RATINGS_LOCKED[conn.dialect.name], {"b_skeletons": skeletons})
    before = {
        skeleton: Rating(mu, sigma) if mu is not None and sigma is not None else NEW
        for skeleton, mu, sigma in read.all()
    }
    after = rate_game([(before[skeleton], totals[skeleton]) for skeleton in skeletons])
    rated = [
        {"b_skeleton": skeleton, "rating": rating.ordinal, "mu": rating.mu, "sigma": rating.sigma}
        for skeleton, rating in zip(skeletons, after, strict=True)
    ]
    for row in rated:
        await conn.execute(_SET_RATING, row)
    await conn.execute(
        insert(HISTORY),
        [
            {
                "skeleton": row["b_skeleton"],
                "game_id": game_id,
                "finished_at": now,
                "mu": row["mu"],
                "sigma": row["sigma"],
                "rating": row["rating"],
            }
            for row in rated
        ],
    )


def _outcome(final: FinalTotal, counted: bool, now: datetime) -> dict[str, object]:
    return {
        "b_seat": final.seat,
        "total": final.total,
        "won": final.won,
        "win": final.win,
        "place": final.place,
        "rounds_out_first": final.rounds_out_first,
        "perfect": final.perfect,
        "counted": counted,
        "finished_at": now,
    }


def _record(skeleton: str, name: str, final: FinalTotal, game_id: int, now: datetime) -> dict[str, object]:
    """A player's record of this one game: what the upsert starts a record with, or adds."""
    return {
        "skeleton": skeleton,
        "name": name,
        "games": 1,
        "wins": final.win,
        "win_rate": final.win,
        "total_sum": final.total,
        "average_total": float(final.total),
        "best_total": final.total,
        "best_game_id": game_id,
        "worst_total": final.total,
        "worst_game_id": game_id,
        "rounds_out_first": final.rounds_out_first,
        "perfect_games": int(final.perfect),
        "first_played": now,
        "last_played": now,
    }
