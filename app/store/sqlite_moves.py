"""The move path on SQLite: every move that queued for the one writer is written in ONE call on a thread.

Through SQLAlchemy and aiosqlite a move cost a BEGIN, three statements and a COMMIT, each a hop from the
event loop to aiosqlite's thread and back with SQLAlchemy's compile and result machinery around it: about
1 ms of CPU, 15 times what SQLite itself spends. Here the store's group commit hands the whole batch to one
function on a worker thread, which runs it on a plain ``sqlite3`` connection of its own: one transaction,
each move inside a savepoint of its own (a stale or conflicting move is rolled back alone, the others
commit), one COMMIT, and so one sync to disk, for all of them.

The statements are the move's Core statements (``moves``) compiled once for the engine's dialect, and values
are bound with the column types' own SQLAlchemy bind processors (the dates and JSON are stored exactly as
the ORM path stores them). The connection gets the same pragmas as the engine's (``db.sqlite_pragmas``: WAL,
FULL sync, busy timeout, foreign keys). The store's writer lock keeps this connection and the engine's from
writing at once; readers see each commit as usual under WAL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from sqlalchemy.engine import Dialect

from .db import sqlite_pragmas
from .errors import VersionConflict
from .moves import INSERT_ACTION, MOVE_GAME_VERSION, MOVE_ROOM, MoveRow, Positional

Outcome = BaseException | None  # per move: None (committed), VersionConflict or sqlite3.IntegrityError


class SqliteMoves:
    """Writes batches of moves on one ``sqlite3`` connection. Call ``write`` from one thread at a time (the
    store's writer lock), never on the event loop: it waits for the disk."""

    def __init__(self, path: str, dialect: Dialect) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self.move_room = Positional.compile(MOVE_ROOM, dialect)
        self.insert_action = Positional.compile(INSERT_ACTION, dialect)
        self.move_game = Positional.compile(MOVE_GAME_VERSION, dialect)

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            # Autocommit mode: the transaction is the explicit BEGIN below; any thread (one at a time).
            connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            sqlite_pragmas(connection, None)
            self._connection = connection
        return self._connection

    def write(self, moves: Sequence[MoveRow]) -> list[Outcome]:
        """Commit ``moves`` in one transaction; each move's outcome, in order. A move that is stale
        (VersionConflict) or breaks a constraint (sqlite3.IntegrityError) writes nothing and the others
        commit; any other error rolls the whole batch back and is raised."""
        connection = self._connect()
        outcomes: list[Outcome] = []
        connection.execute("BEGIN IMMEDIATE")
        try:
            for move in moves:
                connection.execute("SAVEPOINT move")
                try:
                    self._write_one(connection, move)
                except (VersionConflict, sqlite3.IntegrityError) as refused:
                    connection.execute("ROLLBACK TO move")
                    outcomes.append(refused)
                else:
                    outcomes.append(None)
                connection.execute("RELEASE move")
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        return outcomes

    def _write_one(self, connection: sqlite3.Connection, move: MoveRow) -> None:
        params = move.params()
        if connection.execute(self.move_room.sql, self.move_room.args(params)).rowcount != 1:
            raise move.stale()
        connection.execute(self.insert_action.sql, self.insert_action.args(params))
        connection.execute(self.move_game.sql, self.move_game.args(params))

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
