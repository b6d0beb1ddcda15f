"""The move path on PostgreSQL: one accepted move is ONE statement straight on the driver (asyncpg).

A move is the hot path of the whole server (every move of every table). Through SQLAlchemy it cost a
BEGIN, three statements and a COMMIT (five round trips) plus the compilation and result machinery of each;
here the room's version check, the log row and the game's version are one statement with data-modifying
CTEs, so they commit together as one implicit transaction in one round trip, prepared once per connection by
asyncpg's statement cache. The connection still comes from (and goes back to) the engine's pool, as the
pool's raw connection (no SQLAlchemy ``Connection`` around it).

Only moves inside a round come here, and they write no snapshot: the game's snapshot is written when a round
ends (the store's general path), and loading replays the round's logged moves onto it.
"""

from __future__ import annotations

import asyncpg  # type: ignore[import-untyped]
import orjson
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from .moves import MoveRow

# $1 code, $2 from version, $3 version, $4 status, $5 game id, $6 seq, $7 seat, $8 action, $9 client id,
# $10 now. Nothing is written unless the room was at the expected version.
# (Data-modifying CTEs always run to completion, read or not: the answer is whether the room moved.)
MOVE_SQL = """
WITH room AS (
    UPDATE rooms SET version = $3, status = $4 WHERE code = $1 AND version = $2 RETURNING code
), logged AS (
    INSERT INTO actions (game_id, seq, seat, action, client_id, version, created_at)
    SELECT $5, $6, $7, $8::json, $9, $3, $10 FROM room
), game AS (
    UPDATE games SET version = $3 WHERE id = $5 AND EXISTS (SELECT 1 FROM room)
)
SELECT count(*) FROM room
"""

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


async def record_move(engine: AsyncEngine, move: MoveRow) -> None:
    """Write one move inside a round (room version, log row, game version) atomically, or raise
    MoveNotApplied (stale version; nothing written) or IntegrityError (e.g. a client id used twice; nothing
    written). A pooled connection found dead (the database restarted) is replaced and the statement run
    again on the next one: a move that did commit then fails its version check (MoveNotApplied), so nothing
    is written twice."""
    args = (
        move.code,
        move.version - 1,
        move.version,
        move.status,
        move.game_id,
        move.seq,
        move.seat,
        orjson.dumps(move.action).decode(),
        move.client_id,
        move.now,
    )
    attempts = pool_size(engine) + 1  # after a restart every pooled connection may be dead
    for attempt in range(attempts):
        # The pool's connection itself, without SQLAlchemy's Connection around it (whose close runs in a
        # task of its own): about 50 µs less CPU per move. Back to the pool after the one statement.
        pooled = await engine.raw_connection()
        try:
            written = await pooled.driver_connection.fetchval(MOVE_SQL, *args)  # type: ignore[union-attr]
        except DISCONNECTED:
            pooled.invalidate()
            if attempt == attempts - 1:
                raise
            continue
        except asyncpg.IntegrityConstraintViolationError as exc:
            pooled.close()
            raise IntegrityError(MOVE_SQL, args, exc) from exc
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
