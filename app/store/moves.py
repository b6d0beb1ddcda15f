"""A move's SQL, defined once: the room's version check, the log row and the game's version.

Every path that writes a move derives its statements from the Core statements here: the store's general path
executes them through SQLAlchemy (adding the snapshot of a move that ends a round), ``sqlite_moves`` runs
them compiled for SQLite on a plain ``sqlite3`` connection, and ``pg_moves`` runs them composed into one
statement (data-modifying CTEs) compiled for asyncpg. Each is compiled once, at start-up (``Positional``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import CTE, Select, bindparam, exists, func, insert, null, select, union_all, update
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from .errors import VersionConflict
from .models import ActionRow, GameRow, RoomRow, RoundScoreRow

# The tables themselves, for Core statements on the hot path (every move) without the ORM's unit of work.
ROOMS: SqlTable = RoomRow.__table__  # type: ignore[assignment]
ACTIONS: SqlTable = ActionRow.__table__  # type: ignore[assignment]
GAMES: SqlTable = GameRow.__table__  # type: ignore[assignment]
SCORES: SqlTable = RoundScoreRow.__table__  # type: ignore[assignment]

# The parameters' names are no column's name: one mapping of them (``MoveRow.params``) serves every
# statement of the move, and SQLAlchemy never takes one of them for a column to set.
MOVE_ROOM = (
    update(ROOMS)
    .where(ROOMS.c.code == bindparam("m_code"), ROOMS.c.version == bindparam("m_from"))
    .values(
        version=bindparam("m_version"),
        status=bindparam("m_status"),
        due_at=bindparam("m_due", type_=ROOMS.c.due_at.type),
        turn_seat=bindparam("m_turn", type_=ROOMS.c.turn_seat.type),
    )
)
# The log row's columns and their values (typed as the columns are, so each binds as the ORM binds it).
ACTION_VALUES = {
    column: bindparam(name, type_=ACTIONS.c[column].type)
    for column, name in (
        ("game_id", "m_game"),
        ("seq", "m_seq"),
        ("seat", "m_seat"),
        ("action", "m_action"),
        ("client_id", "m_client"),
        ("version", "m_version"),
        ("created_at", "m_at"),
    )
}
INSERT_ACTION = insert(ACTIONS).values(ACTION_VALUES)
MOVE_GAME_VERSION = (
    update(GAMES).where(GAMES.c.id == bindparam("m_game")).values(version=bindparam("m_version"))
)


@dataclass(frozen=True, slots=True)
class MoveRow:
    """One accepted move inside a round: the room goes from ``version - 1`` to ``version``."""

    code: str
    version: int
    status: str
    game_id: int | None
    seq: int
    seat: int
    action: dict[str, str]
    client_id: str | None
    now: datetime
    due: datetime | None = None  # when a paced table must be woken (``schedule.stored_due``)
    turn: int | None = None  # whose turn it is after the move

    def params(self) -> dict[str, Any]:
        """The values of every statement of the move, by parameter name."""
        return {
            "m_code": self.code,
            "m_from": self.version - 1,
            "m_version": self.version,
            "m_status": self.status,
            "m_game": self.game_id,
            "m_seq": self.seq,
            "m_seat": self.seat,
            "m_action": self.action,
            "m_client": self.client_id,
            "m_at": self.now,
            "m_due": self.due,
            "m_turn": self.turn,
        }

    def stale(self) -> VersionConflict:
        return VersionConflict(f"room {self.code} is no longer at version {self.version - 1}")


async def log_move(conn: AsyncConnection, row: MoveRow) -> None:
    """The room's version check and the log row (through SQLAlchemy), or VersionConflict (nothing written)."""
    params = row.params()
    if (await conn.execute(MOVE_ROOM, params)).rowcount != 1:
        raise row.stale()
    await conn.execute(INSERT_ACTION, params)


async def write_move(conn: AsyncConnection, row: MoveRow) -> None:
    """A move inside a round through SQLAlchemy (an in-memory SQLite database: no second connection)."""
    await log_move(conn, row)
    await conn.execute(MOVE_GAME_VERSION, row.params())


def _moved_and_logged() -> tuple[CTE, CTE]:
    """The two CTEs every move statement starts with: the room moved from the expected version (``room``:
    one row, or none when it was not there) and the log row, written only if it moved."""
    room = MOVE_ROOM.returning(ROOMS.c.code).cte("room")
    logged = (
        insert(ACTIONS)
        .from_select(list(ACTION_VALUES), select(*ACTION_VALUES.values()).select_from(room))
        .cte("logged")
    )
    return room, logged


def in_one_statement() -> Select[int]:
    """The move as ONE statement for PostgreSQL, composed of the statements above as data-modifying CTEs:
    nothing is logged or moved unless the room was at the expected version, and the answer (1 or 0) is
    whether it moved. (Data-modifying CTEs always run to completion, read or not.)"""
    room, logged = _moved_and_logged()
    game = MOVE_GAME_VERSION.where(exists().select_from(room)).cte("game")
    return select(func.count()).select_from(room).add_cte(logged, game)


SCORE_COLUMNS = ("round", "seat", "name", "penalty", "went_out", "bot")


def round_end_in_one_statement(seats: int) -> Select[int]:
    """A move that ends a round (and not the game) as ONE statement for PostgreSQL: the move's own writes as
    in ``in_one_statement``, the game's snapshot (``m_state``) and status with its version, and the round's
    score rows of ``seats`` seats (``s0_round``, ``s0_seat`` ... ``s{seats-1}_went_out``). Nothing is written
    unless the room was at the expected version; the answer (1 or 0) is whether it moved."""
    room, logged = _moved_and_logged()
    snapshot = MOVE_GAME_VERSION.values(
        state=bindparam("m_state", type_=GAMES.c.state.type), status=bindparam("m_status"), finished_at=null()
    )
    game = snapshot.where(exists().select_from(room)).cte("game")
    rows = [
        select(
            bindparam("m_game", type_=SCORES.c.game_id.type),
            *(bindparam(f"s{k}_{column}", type_=SCORES.c[column].type) for column in SCORE_COLUMNS),
        ).select_from(room)
        for k in range(seats)
    ]
    scored = insert(SCORES).from_select(["game_id", *SCORE_COLUMNS], union_all(*rows)).cte("scored")
    return select(func.count()).select_from(room).add_cte(logged, game, scored)


@dataclass(frozen=True, slots=True)
class Positional:
    """A statement compiled once for a database driver, run without SQLAlchemy: its SQL text, and how to
    turn ``MoveRow.params`` into the driver's positional arguments (each converted by its column type's own
    bind processor, as SQLAlchemy would)."""

    sql: str
    _pick: Callable[[Mapping[str, Any]], Any]
    _processors: tuple[tuple[int, Callable[[Any], Any]], ...]

    @classmethod
    def compile(cls, statement: ClauseElement, dialect: Dialect) -> Positional:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        names = tuple(compiled.positiontup or ())
        processors = tuple(
            (position, processor)
            for position, name in enumerate(names)
            if (processor := compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
        )
        pick = itemgetter(*names)
        return cls(compiled.string, pick if len(names) > 1 else lambda p: (pick(p),), processors)

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        values = list(self._pick(params))
        for position, processor in self._processors:
            values[position] = processor(values[position])
        return values
