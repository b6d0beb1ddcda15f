"""The store: the few async functions that read and write rooms, seats, games and the action log.

This is the only module with SQL. It returns plain records (never ORM objects), so the rooms layer knows
nothing about SQLAlchemy. Every write that changes what clients see moves the room's ``version`` with an
optimistic check (``WHERE version = expected``), so two writers can never both win.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app.engine import GameState, Options, action_from_dict, action_to_dict, apply
from app.table import (
    AddSeat,
    Change,
    Claim,
    RecordMove,
    RemoveSeat,
    Reopen,
    ReplaceSeat,
    RoomStatus,
    Seat,
    SetHost,
    SetLobby,
    StartGame,
    Table,
)

from . import pg_moves, sqlite_moves
from .db import is_sqlite, make_engine, sqlite_file
from .models import ActionRow, GamePlayerRow, GameRow, RoomRow, RoundScoreRow, SeatRow
from .moves import MoveNotApplied, MoveRow
from .sqlite_moves import Outcome, SqliteMoves

# The tables themselves, for Core statements on the hot path (every move) without the ORM's unit of work.
ROOMS: SqlTable = RoomRow.__table__  # type: ignore[assignment]
ACTIONS: SqlTable = ActionRow.__table__  # type: ignore[assignment]
GAMES: SqlTable = GameRow.__table__  # type: ignore[assignment]
SCORES: SqlTable = RoundScoreRow.__table__  # type: ignore[assignment]
PLAYERS: SqlTable = GamePlayerRow.__table__  # type: ignore[assignment]
SEATS: SqlTable = SeatRow.__table__  # type: ignore[assignment]

# A move's statements, built once (parameters are passed at each execution).
_MOVE_ROOM = (
    update(ROOMS)
    .where(ROOMS.c.code == bindparam("b_code"), ROOMS.c.version == bindparam("b_from"))
    .values(version=bindparam("version"), status=bindparam("status"))
)
_INSERT_ACTION = insert(ACTIONS)
_SET_TOTAL = (
    update(PLAYERS)
    .where(PLAYERS.c.game_id == bindparam("b_id"), PLAYERS.c.seat == bindparam("b_seat"))
    .values(total=bindparam("total"), won=bindparam("won"))
)
_MOVE_GAME_VERSION = update(GAMES).where(GAMES.c.id == bindparam("b_id")).values(version=bindparam("version"))
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


Work = Callable[[AsyncConnection], Awaitable[None]]  # statements to run in one write transaction


class StoreError(Exception):
    """Base of the store's own errors."""


class CodeTaken(StoreError):
    """A room with this code exists already (pick another code)."""


class VersionConflict(StoreError):
    """The room moved on in the store since it was loaded (another writer): reload it."""


@dataclass(frozen=True, slots=True)
class AckRecord:
    """What an accepted client action produced, to answer its retries."""

    seat: int
    version: int


@dataclass(frozen=True, slots=True)
class LoadedTable:
    """A room read back from the store: the table, and the acks of its current game's client actions."""

    table: Table
    acks: dict[str, AckRecord]


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move as the action log holds it."""

    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None
    version: int
    at: datetime


@dataclass(frozen=True, slots=True)
class Tail:
    """A room's stored version, its current game, and that game's moves after a given one (``Store.tail``)."""

    version: int
    game_id: int | None
    moves: tuple[LoggedMove, ...]


class Store:
    """Async access to the database behind one engine."""

    def __init__(self, url: str, **engine_kwargs: Any) -> None:
        self.engine: AsyncEngine = make_engine(url, **engine_kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite has one writer at a time; writers of this process queue here instead of meeting
        # "database is locked" when a transaction that began reading wants to write.
        self._sqlite_writer = asyncio.Lock() if is_sqlite(url) else None
        # The other writes (a game's start, a seat, the lobby) take turns here first, so at most one of them
        # waits for the writer at a time: the group commit's moves go between any two of them (the writer
        # lock serves its waiters in order), not behind every one queued (250 games starting at once).
        self._other_writers = asyncio.Lock()
        self._queued: list[tuple[Work | MoveRow, asyncio.Future[None]]] = []
        # On a SQLite file, moves inside a round are written on a connection of their own (sqlite_moves).
        path = sqlite_file(url)
        self._sqlite_moves = None if path is None else SqliteMoves(path, ACTIONS, self.engine.dialect)
        self._committer: asyncio.Task[None] | None = None
        # On PostgreSQL, writers take the pool's connections in the order they asked (see _fair_turn).
        self._write_turns = None if is_sqlite(url) else asyncio.Semaphore(pg_moves.pool_size(self.engine))

    @contextlib.asynccontextmanager
    async def _fair_turn(self) -> AsyncIterator[None]:
        """A writer's turn at the PostgreSQL pool, first come first served. The pool's own wait is not fair:
        a connection handed back wakes the longest waiter, but whoever asks before that waiter runs (the
        writer that just gave it back, a move that just arrived) takes it, and the waiter goes to the back
        of the queue again. At saturation some tables then wait seconds while others move (p99 about 60×
        p50 in benchmarks/load.py). Holding one of pool-size turns first keeps the pool from running dry
        under writers, and the turns are handed out in order."""
        if self._write_turns is None:
            yield
            return
        async with self._write_turns:
            yield

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[AsyncSession]:
        """One write transaction (serialised per process on SQLite)."""
        if self._sqlite_writer is None:
            async with self.sessions.begin() as session:
                yield session
            return
        async with self._other_writers, self._sqlite_writer, self.sessions.begin() as session:
            yield session

    async def _transact(self, work: Work) -> None:
        """Run ``work`` in a write transaction on a bare connection (Core statements); return once it is
        committed. On SQLite, moves waiting for the one writer are committed together (``_group_commit``)."""
        if self._sqlite_writer is not None:
            await self._group_commit(work)
            return
        async with self._fair_turn():
            await self._transact_pg(work)

    async def _transact_pg(self, work: Work) -> None:
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

    async def _group_commit(self, work: Work | MoveRow) -> None:
        """SQLite writes one transaction at a time, and each commit waits for the disk. Writes that queue
        up while one commits go together in the next transaction: one commit (one sync to disk) for all.
        Moves inside a round (``MoveRow``) go in one call on a thread (``sqlite_moves``), each refused
        alone if it is stale; the other writes go in one SQLAlchemy transaction, and if any of them fails
        it is rolled back and each is run on its own, so only the failing one fails. Nothing waits on
        purpose: a lone write is committed at once."""
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
            moves = [(w, done) for w, done in batch if isinstance(w, MoveRow)]
            works = [(w, done) for w, done in batch if not isinstance(w, MoveRow)]
            async with self._sqlite_writer:
                if moves:
                    await self._commit_moves(moves)
                if works:
                    await self._commit_works(works)

    async def _commit_moves(self, batch: list[tuple[MoveRow, asyncio.Future[None]]]) -> None:
        writer = self._sqlite_moves
        assert writer is not None
        moves = [move for move, _ in batch]
        outcomes: list[Outcome]
        try:
            outcomes = await asyncio.to_thread(writer.write, moves)
        except Exception:  # the batch as a whole failed (e.g. the disk): each on its own
            outcomes = []
            for move in moves:
                try:
                    outcomes += await asyncio.to_thread(writer.write, [move])
                except Exception as exc:
                    outcomes.append(exc)
        for (_, done), outcome in zip(batch, outcomes, strict=True):
            if outcome is None:
                done.set_result(None)
            elif isinstance(outcome, MoveNotApplied):
                done.set_exception(VersionConflict(str(outcome)))
            elif isinstance(outcome, sqlite3.IntegrityError):
                done.set_exception(IntegrityError(sqlite_moves.INSERT_ACTION, (), outcome))
            else:
                done.set_exception(outcome)

    async def _commit_works(self, batch: list[tuple[Work, asyncio.Future[None]]]) -> None:
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
            return
        for _, done in batch:
            done.set_result(None)

    async def close(self) -> None:
        if self._committer is not None:
            await asyncio.gather(self._committer, return_exceptions=True)
        if self._sqlite_moves is not None:
            self._sqlite_moves.close()
        await self.engine.dispose()

    async def ping(self) -> None:
        async with self.sessions() as session:
            await session.execute(select(1))

    # ----- cheap checks of a cached table ------------------------------------------------------------

    async def versions(self, codes: Iterable[str]) -> dict[str, int]:
        """The stored version of each of these rooms (one indexed read; a code with no room is left out).
        A process checks its cached tables with this wherever one could be behind without being told."""
        wanted = list(dict.fromkeys(codes))
        if not wanted:
            return {}
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(ROOMS.c.code, ROOMS.c.version).where(ROOMS.c.code.in_(wanted)))
            return {code: version for code, version in rows}

    async def version_of(self, code: str) -> int | None:
        """The stored version of one room (None: no such room)."""
        return (await self.versions([code])).get(code)

    async def tail(self, code: str, *, game_id: int | None, after_seq: int) -> Tail | None:
        """The room's stored version and the moves of its game ``game_id`` logged after ``after_seq``, read
        at one moment (None: no such room). How a process follows moves another one committed: it applies
        them from the log (never from what a notice says), and reloads when the tail is not only moves."""
        async with self.sessions() as session:
            if self._sqlite_writer is None:  # the room and the log read at one moment
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            room = (
                await session.execute(
                    select(ROOMS.c.version, ROOMS.c.current_game_id).where(ROOMS.c.code == code)
                )
            ).first()
            if room is None:
                return None
            moves: list[LoggedMove] = []
            if game_id is not None and room.current_game_id == game_id:
                rows = await session.execute(
                    select(
                        ACTIONS.c.seq,
                        ACTIONS.c.seat,
                        ACTIONS.c.action,
                        ACTIONS.c.client_id,
                        ACTIONS.c.version,
                        ACTIONS.c.created_at,
                    )
                    .where(ACTIONS.c.game_id == game_id, ACTIONS.c.seq > after_seq)
                    .order_by(ACTIONS.c.seq)
                )
                moves = [
                    LoggedMove(seq, seat, action, client_id, version, _utc(created_at))
                    for seq, seat, action, client_id, version, created_at in rows
                ]
            return Tail(room.version, room.current_game_id, tuple(moves))

    async def ack_of(self, code: str, client_id: str) -> AckRecord | None:
        """The ack of a client action of the room's current game, read from its log (None: never applied)."""
        query = (
            select(ACTIONS.c.seat, ACTIONS.c.version)
            .join(ROOMS, ROOMS.c.current_game_id == ACTIONS.c.game_id)
            .where(ROOMS.c.code == code, ACTIONS.c.client_id == client_id)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else AckRecord(row.seat, row.version)

    # ----- rooms and seats -------------------------------------------------------------------------

    async def load_game(self, game_id: int) -> tuple[int, GameState] | None:
        """(version, state) of one game as it is now: its snapshot with the round's logged moves replayed.
        The version is that of the last move replayed (SQLite reads each statement at its own moment)."""
        async with self.sessions() as session:
            if self._sqlite_writer is None:  # the snapshot and the log read at one moment
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            game = await session.get(GameRow, game_id)
            if game is None:
                return None
            log = (
                await session.execute(
                    select(ACTIONS.c.seq, ACTIONS.c.seat, ACTIONS.c.action, ACTIONS.c.version)
                    .where(ACTIONS.c.game_id == game_id, ACTIONS.c.seq > game.state["moves"])
                    .order_by(ACTIONS.c.seq)
                )
            ).all()
            version = log[-1].version if log else game.version
            return version, _replay_round(game.state, [(seq, seat, action) for seq, seat, action, _ in log])

    async def create_room(self, table: Table, *, now: datetime) -> None:
        """Insert a new room (in the lobby, with its first seats); CodeTaken if the code is used."""
        try:
            async with self._writing() as session:
                session.add(
                    RoomRow(
                        code=table.code,
                        created_at=now,
                        status=table.status.value,
                        options=table.options.to_dict(),
                        seat_count=table.seat_count,
                        host_seat=table.host_seat,
                        current_game_id=None,
                        version=table.version,
                    )
                )
                await session.flush()
                session.add_all(_seat_row(table.code, seat, now) for seat in table.seats)
        except IntegrityError as exc:
            raise CodeTaken(table.code) from exc

    async def load_table(self, code: str) -> LoadedTable | None:
        """The room as a table: its seats, its current game (snapshot), and when its turn and last move
        began (the commit times in the game's log), with the acks of the game's client actions."""
        async with self.sessions() as session:
            if self._sqlite_writer is None:  # one snapshot for every read: another process may be writing
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            room = await session.get(RoomRow, code)
            if room is None:
                return None
            seat_rows = (
                await session.scalars(
                    select(SeatRow).where(SeatRow.room_code == code).order_by(SeatRow.seat_index)
                )
            ).all()
            seats = tuple(_seat(s) for s in seat_rows)
            started = last_move = _utc(room.created_at)
            game: GameRow | None = None
            acks: dict[str, AckRecord] = {}
            if room.current_game_id is not None:
                game = await session.get(GameRow, room.current_game_id)
            if game is not None:
                started = last_move = _utc(game.created_at)
                log = await session.execute(
                    select(ACTIONS.c.client_id, ACTIONS.c.seat, ACTIONS.c.version, ACTIONS.c.created_at)
                    .add_columns(ACTIONS.c.action, ACTIONS.c.seq)
                    .where(ACTIONS.c.game_id == game.id)
                    .order_by(ACTIONS.c.seq)
                )
                moves: list[tuple[int, int, dict[str, Any]]] = []
                for client_id, seat, version, created_at, action, seq in log:
                    last_move = _utc(created_at)
                    if action.get("type") != "draw":  # a discard hands the turn on
                        started = last_move
                    if client_id:
                        acks[client_id] = AckRecord(seat, version)
                    moves.append((seq, seat, action))
            table = Table(
                code=room.code,
                status=RoomStatus(room.status),
                version=room.version,
                host_seat=room.host_seat,
                seat_count=room.seat_count,
                options=Options.from_dict(room.options),
                seats=seats,
                turn_started=started,
                last_move_at=last_move,
                game=None if game is None else _replay_round(game.state, moves),
                game_id=None if game is None else game.id,
                game_number=None if game is None else game.number,
                game_seed=0 if game is None else game.seed,
                game_public_id=None if game is None else game.public_id,
            )
            return LoadedTable(table, acks)

    async def commit(self, change: Change) -> int | None:
        """Make a table change durable: the room moves from ``change.from_version`` to its table's version
        in one transaction with what the change writes, or VersionConflict if another writer moved it
        first. Returns the new game's id for a started game."""
        write, code, version, now = change.write, change.table.code, change.table.version, change.at
        if isinstance(write, RecordMove):
            await self._record_move(code, version, write, now)
            return None
        async with self._writing() as session:
            if isinstance(write, StartGame):
                return await _start_game(session, code, version, write, now)
            values: dict[str, Any] = {}
            if isinstance(write, SetLobby):
                values = {"options": write.options.to_dict(), "seat_count": write.seat_count}
            elif isinstance(write, Reopen):  # the finished game stays current: the next one's number goes on
                values = {"status": change.table.status.value}
            elif isinstance(write, SetHost | RemoveSeat):  # a removal below the host moves the host down
                values = {"host_seat": change.table.host_seat}
            await _bump(session, code, version, **values)
            if isinstance(write, AddSeat):
                session.add(_seat_row(code, write.seat, now))
            elif isinstance(write, ReplaceSeat):
                await _replace_seat(session, code, write.seat)
            elif isinstance(write, RemoveSeat):
                await _remove_seat(session, code, write.index)
        return None

    async def _record_move(self, code: str, version: int, move: RecordMove, now: datetime) -> None:
        """One accepted move, in ONE transaction: the log row, the room version, and, when the move ends a
        round (or the game), the game's snapshot and the round's scores. A move inside a round writes no
        snapshot: loading replays the round's logged moves onto the last one (``_replay_round``).

        Core statements on one connection (no ORM unit of work): this runs for every move of every table.
        """
        finished = move.state.is_over
        status = "finished" if finished else "playing"
        action = action_to_dict(move.action)
        # Seats change only with a move that ends a round (one is dealt) or the game: one with a snapshot.
        snapshot = bool(move.round_scores or move.final_totals or finished or move.seats)
        if not snapshot:  # most moves: the hot path of each database
            row = MoveRow(
                code, version, status, move.game_id, move.state.moves, move.seat, action, move.client_id, now
            )
            if self._sqlite_moves is not None:
                await self._group_commit(row)
                return
            if self._sqlite_writer is None:
                try:
                    async with self._fair_turn():
                        await pg_moves.record_move(self.engine, row)
                except MoveNotApplied as exc:
                    raise VersionConflict(str(exc)) from None
                return

        async def write(conn: AsyncConnection) -> None:
            bumped = await conn.execute(
                _MOVE_ROOM, {"b_code": code, "b_from": version - 1, "version": version, "status": status}
            )
            if bumped.rowcount != 1:
                raise VersionConflict(f"room {code} is no longer at version {version - 1}")
            await conn.execute(
                _INSERT_ACTION,
                {
                    "game_id": move.game_id,
                    "seq": move.state.moves,
                    "seat": move.seat,
                    "action": action,
                    "client_id": move.client_id,
                    "version": version,
                    "created_at": now,
                },
            )
            if not snapshot:
                await conn.execute(_MOVE_GAME_VERSION, {"b_id": move.game_id, "version": version})
                return
            await conn.execute(
                _MOVE_GAME,
                {
                    "b_id": move.game_id,
                    "state": move.state.to_dict(),
                    "version": version,
                    "status": status,
                    "finished_at": now if finished else None,
                },
            )
            if move.round_scores:
                await conn.execute(
                    insert(SCORES),
                    [
                        {
                            "game_id": move.game_id,
                            "round": s.round,
                            "seat": s.seat,
                            "name": s.name,
                            "penalty": s.penalty,
                        }
                        for s in move.round_scores
                    ],
                )
            for final in move.final_totals:
                await conn.execute(
                    _SET_TOTAL,
                    {"b_id": move.game_id, "b_seat": final.seat, "total": final.total, "won": final.won},
                )
            for seat in move.seats:  # seats handed over at this new round (or this game's end)
                await _replace_seat(conn, code, seat)

        await self._transact(write)


def _replay_round(snapshot: dict[str, Any], log: Iterable[tuple[int, int, dict[str, Any]]]) -> GameState:
    """The game as it is now: its snapshot (written at the start and at every round's end) with the logged
    moves made since (``seq`` after the snapshot's move count) applied by the deterministic engine."""
    state = GameState.from_dict(snapshot)
    for seq, seat, action in log:
        if seq > state.moves:
            state, _ = apply(state, seat, action_from_dict(action))
    return state


def name_key(name: str) -> str:
    """How names are matched in the history: trimmed, any letter case."""
    return name.strip().casefold()


def _utc(when: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _seat_values(seat: Seat) -> dict[str, Any]:
    """A seat's row, as column values (the index and room aside)."""
    claim = seat.claim
    return {
        "name": seat.name,
        "token_hash": seat.token_hash,
        "is_bot": seat.is_bot,
        "bot_level": seat.bot_level,
        "is_program": seat.is_program,
        "former_token_hash": seat.former_token_hash,
        "claim_name": None if claim is None else claim.name,
        "claim_token_hash": None if claim is None else claim.token_hash,
        "claim_approved": claim is not None and claim.approved,
    }


def _seat(row: SeatRow) -> Seat:
    claim = None
    if row.claim_token_hash is not None and row.claim_name is not None:
        claim = Claim(row.claim_name, row.claim_token_hash, row.claim_approved)
    return Seat(
        row.seat_index,
        row.name,
        row.is_bot,
        row.bot_level,
        row.token_hash,
        row.is_program,
        former_token_hash=row.former_token_hash,
        claim=claim,
    )


def _seat_row(code: str, seat: Seat, now: datetime) -> SeatRow:
    return SeatRow(room_code=code, seat_index=seat.index, created_at=now, **_seat_values(seat))


async def _bump(db: AsyncSession | AsyncConnection, code: str, version: int, **values: Any) -> None:
    """Move the room from ``version - 1`` to ``version`` (and set ``values``), or raise VersionConflict."""
    result = await db.execute(
        update(ROOMS)
        .where(ROOMS.c.code == code, ROOMS.c.version == version - 1)
        .values(version=version, **values)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(f"room {code} is no longer at version {version - 1}")


async def _replace_seat(db: AsyncSession | AsyncConnection, code: str, seat: Seat) -> None:
    result = await db.execute(
        update(SEATS)
        .where(SEATS.c.room_code == code, SEATS.c.seat_index == seat.index)
        .values(**_seat_values(seat))
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise StoreError(f"room {code} has no seat {seat.index}")


async def _remove_seat(session: AsyncSession, code: str, index: int) -> None:
    """Remove a seat; the seats above it move down by one (the game needs seats 0..n-1)."""
    await session.execute(delete(SeatRow).where(SeatRow.room_code == code, SeatRow.seat_index == index))
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


async def _start_game(session: AsyncSession, code: str, version: int, start: StartGame, now: datetime) -> int:
    """Create the room's next game and make it current (room: playing). Returns the game's id."""
    players = [
        {"seat": s.index, "name": s.name, "bot": s.is_bot, "bot_level": s.bot_level} for s in start.players
    ]
    row = GameRow(
        room_code=code,
        public_id=start.public_id,
        number=start.number,
        options=start.options.to_dict(),
        seed=start.seed,
        players=players,
        status="playing",
        version=version,
        state=start.state.to_dict(),
        created_at=now,
        finished_at=None,
    )
    session.add(row)
    await session.flush()
    session.add_all(
        GamePlayerRow(
            game_id=row.id,
            seat=s.index,
            name=s.name,
            name_key=name_key(s.name),
            is_bot=s.is_bot,
            total=None,
            won=None,
        )
        for s in start.players
    )
    await _bump(
        session,
        code,
        version,
        status="playing",
        current_game_id=row.id,
        seat_count=len(players),
        options=start.options.to_dict(),
    )
    return row.id
