"""The store: the few async functions that read and write rooms, seats, games and the action log.

This is the only module with SQL. It returns plain records (never ORM objects), so the rooms layer knows
nothing about SQLAlchemy. Every write that changes what clients see moves the room's ``version`` with an
optimistic check (``WHERE version = expected``), so two writers can never both win.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from .db import is_sqlite, make_engine
from .models import ActionRow, GamePlayerRow, GameRow, RoomRow, RoundScoreRow, SeatRow

# The tables themselves, for Core statements on the hot path (every move) without the ORM's unit of work.
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
GAMES: Table = GameRow.__table__  # type: ignore[assignment]
SCORES: Table = RoundScoreRow.__table__  # type: ignore[assignment]
PLAYERS: Table = GamePlayerRow.__table__  # type: ignore[assignment]

# A move's statements, built once (parameters are passed at each execution).
_MOVE_ROOM = (
    update(ROOMS)
    .where(ROOMS.c.code == bindparam("b_code"), ROOMS.c.version == bindparam("b_from"))
    .values(version=bindparam("version"), status=bindparam("status"))
)
_INSERT_ACTION = insert(ACTIONS)
_MOVE_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_id"))
    .values(
        state=bindparam("state"),
        version=bindparam("version"),
        status=bindparam("status"),
        finished_at=bindparam("finished_at"),
    )
)


class StoreError(Exception):
    """Base of the store's own errors."""


class CodeTaken(StoreError):
    """A room with this code exists already (pick another code)."""


class VersionConflict(StoreError):
    """The room moved on in the store since it was loaded (another writer): reload it."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    index: int
    name: str
    is_bot: bool = False
    bot_level: str | None = None
    token_hash: str | None = None


@dataclass(frozen=True, slots=True)
class AckRecord:
    """What an accepted client action produced, to answer its retries."""

    seat: int
    version: int


@dataclass(slots=True)
class GameRecord:
    id: int
    number: int
    status: str
    version: int
    seed: int
    state: dict[str, Any]
    acks: dict[str, AckRecord] = field(default_factory=dict)
    created_at: datetime | None = None
    actions: list[ActionRecord] = field(default_factory=list)  # the game's log, in order (for replays)


@dataclass(slots=True)
class RoomRecord:
    code: str
    status: str
    version: int
    host_seat: int
    seat_count: int
    options: dict[str, Any]
    created_at: datetime
    seats: list[SeatRecord]
    game: GameRecord | None


@dataclass(frozen=True, slots=True)
class ActionRecord:
    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None
    version: int
    created_at: datetime | None = None  # when it was committed (UTC)


@dataclass(frozen=True, slots=True)
class RoundScore:
    round: int
    seat: int
    name: str
    penalty: int


class Store:
    """Async access to the database behind one engine."""

    def __init__(self, url: str, **engine_kwargs: Any) -> None:
        self.engine: AsyncEngine = make_engine(url, **engine_kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite has one writer at a time; writers of this process queue here instead of meeting
        # "database is locked" when a transaction that began reading wants to write.
        self._sqlite_writer = asyncio.Lock() if is_sqlite(url) else None
        self._queued: list[tuple[Callable[[AsyncConnection], Awaitable[None]], asyncio.Future[None]]] = []
        self._committer: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[AsyncSession]:
        """One write transaction (serialised per process on SQLite)."""
        if self._sqlite_writer is None:
            async with self.sessions.begin() as session:
                yield session
            return
        async with self._sqlite_writer, self.sessions.begin() as session:
            yield session

    async def _transact(self, work: Callable[[AsyncConnection], Awaitable[None]]) -> None:
        """Run ``work`` in a write transaction on a bare connection (Core statements); return once it is
        committed. On SQLite, moves waiting for the one writer are committed together (``_group_commit``)."""
        if self._sqlite_writer is not None:
            await self._group_commit(work)
            return
        for attempt in range(2):
            # Pooled connections are not pinged before use (a round trip per move); one found dead (the
            # database restarted) is replaced and the transaction run again, once. That is safe: a
            # transaction that did commit fails its version check the second time (VersionConflict).
            try:
                async with self.engine.begin() as conn:
                    await work(conn)
                return
            except DBAPIError as exc:
                if not exc.connection_invalidated or attempt:
                    raise

    async def _group_commit(self, work: Callable[[AsyncConnection], Awaitable[None]]) -> None:
        """SQLite writes one transaction at a time, and each commit waits for the disk. Writes that queue
        up while one commits go together in the next transaction: one commit (one sync to disk) for all.
        If any of them fails, the batch is rolled back and each write is run on its own, so only the
        failing one fails. Nothing waits on purpose: a lone write is committed at once."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # a waiter may be gone
        self._queued.append((work, done))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_queued(), name="store-group-commit")
        await asyncio.shield(done)  # a cancelled waiter does not undo a write in flight

    async def _commit_queued(self) -> None:
        assert self._sqlite_writer is not None
        while self._queued:
            batch, self._queued = self._queued, []
            async with self._sqlite_writer:
                try:
                    async with self.engine.begin() as conn:
                        for work, _ in batch:
                            await work(conn)
                except Exception:
                    for work, done in batch:  # one of them failed: each on its own
                        try:
                            async with self.engine.begin() as conn:
                                await work(conn)
                        except Exception as exc:
                            done.set_exception(exc)
                        else:
                            done.set_result(None)
                    continue
            for _, done in batch:
                done.set_result(None)

    async def close(self) -> None:
        if self._committer is not None:
            await asyncio.gather(self._committer, return_exceptions=True)
        await self.engine.dispose()

    async def ping(self) -> None:
        async with self.sessions() as session:
            await session.execute(select(1))

    # ----- rooms and seats -------------------------------------------------------------------------

    async def create_room(
        self,
        *,
        code: str,
        seat_count: int,
        options: dict[str, Any],
        seats: list[SeatRecord],
        now: datetime,
    ) -> None:
        """Insert a room in the lobby with its first seats (the host first); CodeTaken if the code is used."""
        try:
            async with self._writing() as session:
                session.add(
                    RoomRow(
                        code=code,
                        created_at=now,
                        status="lobby",
                        options=options,
                        seat_count=seat_count,
                        host_seat=0,
                        current_game_id=None,
                        version=1,
                    )
                )
                await session.flush()
                session.add_all(_seat_row(code, seat, now) for seat in seats)
        except IntegrityError as exc:
            raise CodeTaken(code) from exc

    async def load_room(self, code: str) -> RoomRecord | None:
        """The room with its seats and current game (state snapshot and the acks of its client actions)."""
        async with self.sessions() as session:
            room = await session.get(RoomRow, code)
            if room is None:
                return None
            seat_rows = (
                await session.scalars(
                    select(SeatRow).where(SeatRow.room_code == code).order_by(SeatRow.seat_index)
                )
            ).all()
            game: GameRecord | None = None
            if room.current_game_id is not None:
                row = await session.get(GameRow, room.current_game_id)
                if row is not None:
                    # The whole log: acks answer retries; the room replays it for the bots' public history
                    # and reads the turn timer's start from the last commit.
                    actions = [
                        _action_record(a)
                        for a in await session.scalars(
                            select(ActionRow).where(ActionRow.game_id == row.id).order_by(ActionRow.seq)
                        )
                    ]
                    game = GameRecord(
                        id=row.id,
                        number=row.number,
                        status=row.status,
                        version=row.version,
                        seed=row.seed,
                        state=row.state,
                        acks={a.client_id: AckRecord(a.seat, a.version) for a in actions if a.client_id},
                        created_at=_utc(row.created_at),
                        actions=actions,
                    )
            return RoomRecord(
                code=room.code,
                status=room.status,
                version=room.version,
                host_seat=room.host_seat,
                seat_count=room.seat_count,
                options=dict(room.options),
                created_at=room.created_at,
                seats=[
                    SeatRecord(s.seat_index, s.name, s.is_bot, s.bot_level, s.token_hash) for s in seat_rows
                ],
                game=game,
            )

    async def add_seat(self, *, code: str, version: int, seat: SeatRecord, now: datetime) -> None:
        """Seat a person or a bot at ``seat.index``; the room moves to ``version``."""
        async with self._writing() as session:
            await _bump(session, code, version)
            session.add(_seat_row(code, seat, now))

    async def remove_seat(self, *, code: str, version: int, index: int) -> None:
        """Remove a seat; the seats above it move down by one (the game needs seats 0..n-1)."""
        async with self._writing() as session:
            await _bump(session, code, version)
            await session.execute(
                delete(SeatRow).where(SeatRow.room_code == code, SeatRow.seat_index == index)
            )
            above = (
                await session.scalars(
                    select(SeatRow)
                    .where(SeatRow.room_code == code, SeatRow.seat_index > index)
                    .order_by(SeatRow.seat_index)
                )
            ).all()
            for row in above:  # one by one, lowest first, so the unique (room, index) is never violated
                row.seat_index -= 1
                await session.flush()

    async def update_seat(self, *, code: str, version: int, seat: SeatRecord) -> None:
        """Change who sits at ``seat.index`` (a person handed to a bot, a bot taken over by a person)."""
        async with self._writing() as session:
            await _bump(session, code, version)
            result = await session.execute(
                update(SeatRow)
                .where(SeatRow.room_code == code, SeatRow.seat_index == seat.index)
                .values(
                    name=seat.name, is_bot=seat.is_bot, bot_level=seat.bot_level, token_hash=seat.token_hash
                )
            )
            if result.rowcount != 1:  # type: ignore[attr-defined]
                raise StoreError(f"room {code} has no seat {seat.index}")

    async def update_lobby(
        self, *, code: str, version: int, options: dict[str, Any], seat_count: int
    ) -> None:
        async with self._writing() as session:
            await _bump(session, code, version, options=options, seat_count=seat_count)

    async def start_game(
        self,
        *,
        code: str,
        version: int,
        number: int,
        seed: int,
        options: dict[str, Any],
        players: list[dict[str, Any]],
        state: dict[str, Any],
        now: datetime,
    ) -> int:
        """Create game ``number`` of the room and make it current (room: playing). Returns the game id."""
        async with self._writing() as session:
            row = GameRow(
                room_code=code,
                number=number,
                options=options,
                seed=seed,
                players=players,
                status="playing",
                version=version,
                state=state,
                created_at=now,
                finished_at=None,
            )
            session.add(row)
            await session.flush()
            session.add_all(
                GamePlayerRow(
                    game_id=row.id,
                    seat=p["seat"],
                    name=p["name"],
                    name_key=name_key(p["name"]),
                    is_bot=bool(p.get("bot")),
                    total=None,
                    won=None,
                )
                for p in players
            )
            await _bump(
                session,
                code,
                version,
                status="playing",
                current_game_id=row.id,
                seat_count=len(players),
                options=options,
            )
            return row.id

    async def record_action(
        self,
        *,
        code: str,
        game_id: int,
        version: int,
        seq: int,
        seat: int,
        action: dict[str, Any],
        client_id: str | None,
        state: dict[str, Any],
        finished: bool,
        round_scores: list[RoundScore],
        now: datetime,
    ) -> None:
        """One accepted move, in ONE transaction: the log row, the snapshot, the room version, the scores.

        Core statements on one connection (no ORM unit of work): this runs for every move of every table.
        """

        async def write(conn: AsyncConnection) -> None:
            status = "finished" if finished else "playing"
            bumped = await conn.execute(
                _MOVE_ROOM, {"b_code": code, "b_from": version - 1, "version": version, "status": status}
            )
            if bumped.rowcount != 1:
                raise VersionConflict(f"room {code} is no longer at version {version - 1}")
            await conn.execute(
                _INSERT_ACTION,
                {
                    "game_id": game_id,
                    "seq": seq,
                    "seat": seat,
                    "action": action,
                    "client_id": client_id,
                    "version": version,
                    "created_at": now,
                },
            )
            await conn.execute(
                _MOVE_GAME,
                {
                    "b_id": game_id,
                    "state": state,
                    "version": version,
                    "status": status,
                    "finished_at": now if finished else None,
                },
            )
            if round_scores:
                await conn.execute(
                    insert(SCORES),
                    [
                        {
                            "game_id": game_id,
                            "round": s.round,
                            "seat": s.seat,
                            "name": s.name,
                            "penalty": s.penalty,
                        }
                        for s in round_scores
                    ],
                )
            if finished:
                await _record_totals(conn, game_id)

        await self._transact(write)

    async def find_ack(self, *, game_id: int, client_id: str) -> AckRecord | None:
        async with self.sessions() as session:
            row = (
                await session.execute(
                    select(ActionRow.seat, ActionRow.version).where(
                        ActionRow.game_id == game_id, ActionRow.client_id == client_id
                    )
                )
            ).first()
            return AckRecord(row[0], row[1]) if row else None

    async def list_actions(self, game_id: int) -> list[ActionRecord]:
        async with self.sessions() as session:
            rows = (
                await session.scalars(
                    select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.seq)
                )
            ).all()
            return [_action_record(r) for r in rows]

    async def list_round_scores(self, game_id: int) -> list[RoundScore]:
        async with self.sessions() as session:
            rows = (
                await session.scalars(
                    select(RoundScoreRow)
                    .where(RoundScoreRow.game_id == game_id)
                    .order_by(RoundScoreRow.round, RoundScoreRow.seat)
                )
            ).all()
            return [RoundScore(r.round, r.seat, r.name, r.penalty) for r in rows]

    async def load_game_state(self, game_id: int) -> tuple[int, dict[str, Any]] | None:
        """(version, snapshot) of one game, for checks and history."""
        async with self.sessions() as session:
            row = await session.get(GameRow, game_id)
            return (row.version, row.state) if row else None


def name_key(name: str) -> str:
    """How names are matched in the history: trimmed, any letter case."""
    return name.strip().casefold()


async def _record_totals(conn: AsyncConnection, game_id: int) -> None:
    """At a game's end: each seat's total and whether it won (equal lowest totals share the win)."""
    sums = (
        await conn.execute(
            select(SCORES.c.seat, func.sum(SCORES.c.penalty))
            .where(SCORES.c.game_id == game_id)
            .group_by(SCORES.c.seat)
        )
    ).all()
    totals = {seat: int(total) for seat, total in sums}
    low = min(totals.values(), default=0)
    for seat, total in totals.items():
        await conn.execute(
            update(PLAYERS)
            .where(PLAYERS.c.game_id == game_id, PLAYERS.c.seat == seat)
            .values(total=total, won=total == low)
        )


def _utc(when: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _action_record(row: ActionRow) -> ActionRecord:
    return ActionRecord(row.seq, row.seat, row.action, row.client_id, row.version, _utc(row.created_at))


def _seat_row(code: str, seat: SeatRecord, now: datetime) -> SeatRow:
    return SeatRow(
        room_code=code,
        seat_index=seat.index,
        name=seat.name,
        token_hash=seat.token_hash,
        is_bot=seat.is_bot,
        bot_level=seat.bot_level,
        created_at=now,
    )


async def _bump(db: AsyncSession | AsyncConnection, code: str, version: int, **values: Any) -> None:
    """Move the room from ``version - 1`` to ``version`` (and set ``values``), or raise VersionConflict."""
    result = await db.execute(
        update(ROOMS)
        .where(ROOMS.c.code == code, ROOMS.c.version == version - 1)
        .values(version=version, **values)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(f"room {code} is no longer at version {version - 1}")
