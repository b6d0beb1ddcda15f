"""The move path on PostgreSQL: one accepted move is ONE statement straight on the driver (asyncpg).

A move is the hot path of the whole server (every move of every table). Through SQLAlchemy it cost a
BEGIN, three statements and a COMMIT (five round trips) plus the compilation and result machinery of each;
here the room's version check, the log row and the game's version are one statement with data-modifying
CTEs (``moves.in_one_statement``, compiled once for the engine's dialect), so they commit together as one
implicit transaction in one round trip, prepared once per connection by asyncpg's statement cache. The
connection still comes from (and goes back to) the engine's pool, as the pool's raw connection (no
SQLAlchemy ``Connection`` around it).

A move inside a round writes no snapshot: loading replays the round's logged moves onto the snapshot
written when the round began. A move that ends a round (not the game, handing no seat over) comes here too,
as one statement with the game's snapshot and the round's score rows (``moves.round_end_in_one_statement``,
compiled once per number of seats): through SQLAlchemy it cost six round trips and about 2.5 ms of CPU,
five times a move inside a round. A move that ends the game goes the store's general path (the standings).
"""

from __future__ import annotations

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.table import RecordMove

from .moves import SCORE_COLUMNS, MoveRow, Positional, in_one_statement, round_end_in_one_statement

# What a dropped connection looks like from asyncpg (the database restarted, or killed the backend).
DISCONNECTED = (
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.OperatorInterventionError,
    # a connection whose backend was killed while it sat in the pool can still be reading the notice of
    # its own termination when it is next used: asyncpg refuses the call in that state
    asyncpg.exceptions.InternalClientError,
    ConnectionError,
)


class PgMoves:
    """Writes moves through one engine's pool, each in one statement."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.move = Positional.compile(in_one_statement(), engine.dialect)
        self._round_ends: dict[int, Positional] = {}  # by the number of score rows

    async def record_move(self, move: MoveRow) -> None:
        """Write one move inside a round (room version, log row, game version) atomically, or raise
        VersionConflict (stale version; nothing written) or IntegrityError (e.g. a client id used twice;
        nothing written)."""
        await self._run(self.move, move.params(), move)

    async def record_round_end(self, row: MoveRow, move: RecordMove) -> None:
        """Write a move that ends a round and not the game (``writes.plain_round_end``): its log row, the
        room's and the game's version, the game's snapshot and the round's score rows, atomically; or raise
        as ``record_move``."""
        scores = move.round_scores
        statement = self._round_ends.get(len(scores))
        if statement is None:
            statement = Positional.compile(round_end_in_one_statement(len(scores)), self.engine.dialect)
            self._round_ends[len(scores)] = statement
        params = row.params() | {"m_state": move.state.to_dict()}
        for k, score in enumerate(scores):
            params |= {f"s{k}_{column}": getattr(score, column) for column in SCORE_COLUMNS}
        await self._run(statement, params, row)

    async def _run(self, statement: Positional, params: dict[str, object], move: MoveRow) -> None:
        """Run one move's statement on a pooled connection. A pooled connection found dead (the database
        restarted) is replaced and the statement run again on the next one: a move that did commit then
        fails its version check (VersionConflict), so nothing is written twice."""
        sql, args = statement.sql, statement.args(params)
        attempts = pool_size(self.engine) + 1  # after a restart every pooled connection may be dead
        for attempt in range(attempts):
            # The pool's connection itself, without SQLAlchemy's Connection around it (whose close runs in
            # a task of its own): about 50 µs less CPU per move. Back to the pool after the one statement.
            pooled = await self.engine.raw_connection()
            try:
                written = await pooled.driver_connection.fetchval(sql, *args)  # type: ignore[union-attr]
            except DISCONNECTED:
                pooled.invalidate()
                if attempt == attempts - 1:
                    raise
                continue
            except asyncpg.IntegrityConstraintViolationError as exc:
                pooled.close()
                raise IntegrityError(sql, args, exc) from exc
            except BaseException:  # cancelled mid-statement: the connection's state is unknown, so drop it
                pooled.invalidate()
                raise
            pooled.close()
            if written != 1:
                raise move.stale()
            return


def pool_size(engine: AsyncEngine) -> int:
    """The engine's pool size (1 for a pool that has none)."""
    size = getattr(engine.sync_engine.pool, "size", None)
    return int(size()) if callable(size) else 1
