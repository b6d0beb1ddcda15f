"""Ratings in the store, on SQLite and PostgreSQL (issue 36, part 2): the transaction that finishes a game
rates its counted seats (two or more) as openskill's Plackett-Luce does, writes each one's history line, and
the record and the ``rating`` board read them back; a game that ends at the same moment for a shared player
in another connection loses neither update."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import cast

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import insert, select

from app.store import Store, run_migrations
from app.store.models import GamePlayerRow, GameRow, PlayerStandingRow, RatingHistoryRow, RoomRow
from app.store.standings import PlayerOrder, Standings
from app.store.standings_writes import record_game_end
from app.table import FinalTotal, RecordMove
from app.table.text import name_skeleton

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
Seat = tuple[str, int, str]  # (name, final total, kind: "person" | "bot" | "practice" | origin for padding)


async def room_at(url: str) -> Store:
    store = Store(url)
    async with store.engine.begin() as conn:
        await conn.execute(
            insert(RoomRow).values(
                code="RATE2345", created_at=T0, status="finished", options={}, seat_count=4, host_seat=0
            )
        )
    return store


@pytest.fixture
async def store(migrated_url: str) -> AsyncIterator[Store]:
    store = await room_at(migrated_url)
    yield store
    await store.close()


async def add_game(store: Store, game_id: int, seats: list[Seat]) -> RecordMove:
    """A game's rows as they stand before its last move, and that move's part the standings read."""
    async with store.engine.begin() as conn:
        await conn.execute(
            insert(GameRow).values(
                id=game_id,
                public_id=f"rate{game_id:08d}",
                room_code="RATE2345",
                number=game_id,
                options={},
                seed=game_id,
                players=[],
                status="finished",
                version=9,
                state={},
                created_at=T0,
                finished_at=T0 + timedelta(minutes=game_id),
            )
        )
        for seat, (name, _, kind) in enumerate(seats):
            await conn.execute(
                insert(GamePlayerRow).values(
                    game_id=game_id,
                    seat=seat,
                    name=name,
                    name_key=name.casefold(),
                    skeleton=name_skeleton(name),
                    is_bot=kind == "bot",
                    practice=kind == "practice",
                    origin=kind if kind.startswith("home") else None,
                )
            )
    totals = [total for _, total, _ in seats]
    finals = tuple(
        FinalTotal(seat, total, total == min(totals), place=1 + sum(t < total for t in totals))
        for seat, total in enumerate(totals)
    )
    return cast(RecordMove, SimpleNamespace(game_id=game_id, final_totals=finals))


async def finish(store: Store, move: RecordMove, game_id: int) -> None:
    async with store.engine.begin() as conn:
        await record_game_end(conn, move, T0 + timedelta(minutes=game_id))


class Direct:
    """openskill's own Plackett-Luce, game by game, over the seats that count (the expected answer)."""

    def __init__(self) -> None:
        self.model = PlackettLuce()
        self.ratings: dict[str, tuple[float, float]] = {}
        self.history: dict[str, list[int]] = {}

    def game(self, game_id: int, people: list[tuple[str, int]]) -> None:
        people = sorted((name_skeleton(name), total) for name, total in people)
        teams = [[self.model.rating(*self.ratings.get(key, (25.0, 25 / 3)))] for key, _ in people]
        ranks = [1 + sum(other < total for _, other in people) for _, total in people]
        for (key, _), [after] in zip(people, self.model.rate(teams, ranks=ranks), strict=True):
            self.ratings[key] = (after.mu, after.sigma)
            self.history.setdefault(key, []).append(game_id)


GAMES: list[list[Seat]] = [
    [("Sara", 40, "person"), ("Omid", 90, "person"), ("Bot 3", 10, "bot")],
    [("Omid", 20, "person"), ("Nika", 20, "person"), ("Sara", 70, "person")],  # a tie for first
    [("Sara", 15, "person"), ("Bot 2", 99, "bot")],  # one counted person: rates nobody
    [("Nika", 30, "person"), ("Sara", 60, "practice"), ("Omid", 80, "person")],  # Sara: practice
    [("Sara", 1, "home-a"), ("Nika", 200, "home-a")],  # padding (one address): rates nobody
    [("SARA", 25, "person"), ("Omid", 35, "person")],  # a look-alike spelling: Sara's record
    [("Sara", 50, "person"), ("Nika", 45, "person"), ("Omid", 45, "person")],
]


async def test_a_finished_game_rates_its_counted_people_as_openskill_does(store: Store) -> None:
    direct = Direct()
    for game_id, seats in enumerate(GAMES, start=1):
        await finish(store, await add_game(store, game_id, seats), game_id)
        people = [(name, total) for name, total, kind in seats if kind == "person"]
        if len(people) >= 2:
            direct.game(game_id, people)
    async with store.engine.connect() as conn:
        rows = (
            await conn.execute(
                select(
                    PlayerStandingRow.skeleton,
                    PlayerStandingRow.rating_mu,
                    PlayerStandingRow.rating_sigma,
                    PlayerStandingRow.rating,
                    PlayerStandingRow.rated_games,
                )
            )
        ).all()
        lines = (
            await conn.execute(
                select(RatingHistoryRow.skeleton, RatingHistoryRow.game_id).order_by(RatingHistoryRow.game_id)
            )
        ).all()
    assert {key: (mu, sigma, rating, games) for key, mu, sigma, rating, games in rows} == {
        key: (
            pytest.approx(mu),
            pytest.approx(sigma),
            pytest.approx(mu - 3 * sigma),
            len(direct.history[key]),
        )
        for key, (mu, sigma) in direct.ratings.items()
    }
    assert {key: [g for k, g in lines if k == key] for key in direct.history} == direct.history
    assert direct.history[name_skeleton("Sara")] == [1, 2, 6, 7]  # not 3 (bots), 4 (practice), 5 (padding)

    standings = Standings(store)
    sara = await standings.player("sara")
    assert sara is not None and sara.summary.rating is not None
    mu, sigma = direct.ratings[name_skeleton("Sara")]
    assert (sara.summary.rating.mu, sara.summary.rating.sigma) == (round(mu, 2), round(sigma, 2))
    assert sara.summary.rating.ordinal == round(mu - 3 * sigma, 2)
    assert (sara.summary.rating.games, sara.summary.rating.provisional) == (4, True)
    assert [p.game for p in sara.rating_history] == [
        "rate00000007",
        "rate00000006",
        "rate00000002",
        "rate00000001",
    ]
    assert sara.rating_history[0].ordinal == sara.summary.rating.ordinal

    board = await standings.players(PlayerOrder.RATING, min_games=1, limit=10, offset=0)
    ordinals = {key: mu - 3 * sigma for key, (mu, sigma) in direct.ratings.items()}
    assert [name_skeleton(p.name) for p in board.items] == sorted(ordinals, key=lambda k: -ordinals[k])
    assert board.total == 3
    table = await standings.table("RATE2345", limit=10, offset=0)
    assert all(p.rating is None for p in table.items)  # a table's own series has no rating


async def test_the_fifth_rated_game_ends_provisional_and_unrated_names_stay_off_the_rating_board(
    store: Store,
) -> None:
    await finish(store, await add_game(store, 1, [("Lone", 10, "person"), ("Bot 2", 5, "bot")]), 1)
    standings = Standings(store)
    lone = await standings.player("Lone")
    assert lone is not None and lone.summary.rating is None and lone.rating_history == []
    assert (await standings.players(PlayerOrder.RATING, min_games=1, limit=10, offset=0)).total == 0
    assert (await standings.players(PlayerOrder.WINS, min_games=1, limit=10, offset=0)).total == 1
    for game_id in range(2, 7):
        await finish(
            store, await add_game(store, game_id, [("Ana", 10, "person"), ("Bea", 20, "person")]), game_id
        )
        ana = await standings.player("Ana")
        assert ana is not None and ana.summary.rating is not None
        assert ana.summary.rating.provisional is (game_id - 1 < 5), game_id
    board = await standings.players(PlayerOrder.RATING, min_games=1, limit=10, offset=0)
    assert [p.name for p in board.items] == ["Ana", "Bea"] and board.total == 2
    assert board.items[0].rating is not None and board.items[0].rating.games == 5


@pytest.mark.postgres
async def test_two_games_of_one_player_ending_at_once_lose_neither_update(pg_url: str) -> None:
    """Two connections (as two processes would) finish a game each with Sara in both; the first holds its
    transaction open while the second runs: the second waits for the first's commit, then rates from it."""
    await run_migrations(pg_url)
    store = await room_at(pg_url)
    try:
        await race(store, pg_url)
    finally:
        await store.close()


async def race(store: Store, url: str) -> None:
    await finish(store, await add_game(store, 3, [("Sara", 30, "person"), ("Omid", 20, "person")]), 3)
    first = await add_game(store, 1, [("Sara", 10, "person"), ("Omid", 50, "person")])
    second = await add_game(store, 2, [("Sara", 20, "person"), ("Nika", 60, "person")])
    other = Store(url)
    try:
        async with store.engine.connect() as one, other.engine.connect() as two:
            await one.begin()
            await record_game_end(one, first, T0 + timedelta(minutes=1))
            await two.begin()
            racing = asyncio.ensure_future(record_game_end(two, second, T0 + timedelta(minutes=1)))
            await asyncio.sleep(0.5)
            assert not racing.done(), "the second game's end waits for the first's commit"
            await one.commit()
            await asyncio.wait_for(racing, 10)
            await two.commit()
    finally:
        await other.close()
    direct = Direct()
    direct.game(3, [("Sara", 30), ("Omid", 20)])
    direct.game(1, [("Sara", 10), ("Omid", 50)])
    direct.game(2, [("Sara", 20), ("Nika", 60)])
    sara = await Standings(store).player("Sara")
    assert sara is not None and sara.summary.rating is not None
    assert sara.summary.rating.games == 3 and sara.summary.games == 3
    mu, sigma = direct.ratings[name_skeleton("Sara")]
    assert (sara.summary.rating.mu, sara.summary.rating.sigma) == (round(mu, 2), round(sigma, 2))
