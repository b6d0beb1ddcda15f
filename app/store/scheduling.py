"""When each write runs: SQLite's group commit behind its one writer, PostgreSQL's fair turns at the pool."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Protocol, assert_never

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app.table import RecordMove

from .dialect import Dialect
from .moves import MoveRow, write_move
from .sqlite_moves import Outcome, SqliteMoves
from .writes import plain_round_end, record_round_end

Work = Callable[[AsyncConnection], Awaitable[None]]  # statements to run in one write transaction


class Scheduler(Protocol):
    """Runs the store's write transactions on one engine."""

    def session(self) -> AbstractAsyncContextManager[AsyncSession]:
        """One write transaction through the ORM (a room, a seat, a game's start)."""
        ...

    async def transact(self, work: Work) -> None:
        """Run ``work`` in one write transaction on a bare connection (Core statements); return once it is
        committed."""

    async def record_move(self, row: MoveRow) -> None:
        """Commit one move inside a round (the hot path), or raise VersionConflict."""

    async def record_round_end(self, row: MoveRow, move: RecordMove) -> None:
        """Commit a move that ends a round or the game (``writes.ends_round``), or raise VersionConflict."""

    async def close(self) -> None:
        """Finish what is in flight (the engine is disposed by its owner)."""


def scheduler_for(
    dialect: Dialect, engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession], sqlite_path: str | None
) -> Scheduler:
    match dialect:
        case Dialect.SQLITE:
            return GroupCommit(engine, sessions, sqlite_path)
        case Dialect.POSTGRESQL:
            return FairTurns(engine, sessions)
        case _:
            assert_never(dialect)


class GroupCommit:
    """SQLite writes one transaction at a time, and each commit waits for the disk. Writes that queue up while
    one commits go together in the next transaction: one commit (one sync to disk) for all. Moves inside a
    round go in one call on a thread (``sqlite_moves``; on a file), each refused alone if it is stale; the
    other writes go in one SQLAlchemy transaction, and if any of them fails it is rolled back and each is
    run on its own, so only the failing one fails. Nothing waits on purpose: a lone write is committed at
    once."""

    def __init__(self, engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession], path: str | None):
        self.engine = engine
        self.sessions = sessions
        # SQLite has one writer at a time; writers of this process queue here instead of meeting
        # "database is locked" when a transaction that began reading wants to write.
        self._writer = asyncio.Lock()
        # The ORM writes (a game's start, a seat, the lobby) take turns here first, so at most one of them
        # waits for the writer at a time: the group commit's moves go between any two of them (the writer
        # lock serves its waiters in order), not behind every one queued (250 games starting at once).
        self._other_writers = asyncio.Lock()
        self._queued: list[tuple[Work | MoveRow, asyncio.Future[None]]] = []
        self._committer: asyncio.Task[None] | None = None
        # On a SQLite file, moves inside a round are written on a connection of their own (sqlite_moves).
        self._moves = None if path is None else SqliteMoves(path, engine.dialect)

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self._other_writers, self._writer, self.sessions.begin() as session:
            yield session

    async def transact(self, work: Work) -> None:
        await self._enqueue(work)

    async def record_round_end(self, row: MoveRow, move: RecordMove) -> None:
        await self._enqueue(lambda conn: record_round_end(conn, row, move))

    async def record_move(self, row: MoveRow) -> None:
        if self._moves is None:  # an in-memory database: no second connection can see it
            await self._enqueue(lambda conn: write_move(conn, row))
        else:
            await self._enqueue(row)

    async def _enqueue(self, work: Work | MoveRow) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # a waiter may be gone
        self._queued.append((work, done))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_queued(), name="store-group-commit")
        await asyncio.shield(done)  # a cancelled waiter does not undo a write in flight

    async def _commit_queued(self) -> None:
        while self._queued:
            batch, self._queued = self._queued, []
            moves = [(w, done) for w, done in batch if isinstance(w, MoveRow)]
            works = [(w, done) for w, done in batch if not isinstance(w, MoveRow)]
            async with self._writer:
                if moves:
                    await self._commit_moves(moves)
                if works:
                    await self._commit_works(works)

    async def _commit_moves(self, batch: list[tuple[MoveRow, asyncio.Future[None]]]) -> None:
        writer = self._moves
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
            elif isinstance(outcome, sqlite3.IntegrityError):
                done.set_exception(IntegrityError(writer.insert_action.sql, (), outcome))
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
        if self._moves is not None:
            self._moves.close()


class FairTurns:
    """PostgreSQL writers take the pool's connections in the order they asked. The pool's own wait is not
    fair: a connection handed back wakes the longest waiter, but whoever asks before that waiter runs (the
    writer that just gave it back, a move that just arrived) takes it, and the waiter goes to the back of the
    queue again. At saturation some tables then wait seconds while others move (p99 about 60× p50 in
    benchmarks/load.py). Holding one of pool-size turns first keeps the pool from running dry under writers,
    and the turns are handed out in order."""

    def __init__(self, engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession]):
        # asyncpg is imported here, for PostgreSQL only: a server on SQLite never loads it (about 2 MB)
        from .pg_moves import PgMoves, pool_size

        self.engine = engine
        self.sessions = sessions
        self._turns = asyncio.Semaphore(pool_size(engine))
        self._moves = PgMoves(engine)

    def session(self) -> AbstractAsyncContextManager[AsyncSession]:
        return self.sessions.begin()

    async def transact(self, work: Work) -> None:
        async with self._turns:
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

    async def record_move(self, row: MoveRow) -> None:
        async with self._turns:
            await self._moves.record_move(row)

    async def record_round_end(self, row: MoveRow, move: RecordMove) -> None:
        if not plain_round_end(move):  # the game's end (the standings) or seats handed over
            await self.transact(lambda conn: record_round_end(conn, row, move))
            return
        async with self._turns:
            await self._moves.record_round_end(row, move)

    async def close(self) -> None:
        pass
