"""The store: the engine's lifecycle and the async methods the rooms layer reads and writes through.

The SQL lives in the modules it delegates to: ``writes`` (each kind of write), ``moves`` (a move inside a
round, the hot path, with ``sqlite_moves`` and ``pg_moves`` running it on each driver), ``loading`` (reads),
and ``scheduling`` decides when each write runs on its database (``dialect``). It returns plain records
(never ORM objects), so the rooms layer knows nothing about SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar, assert_never

from sqlalchemy import select
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, async_sessionmaker

from app.engine import GameState
from app.table import (
    AddSeat,
    Change,
    EndGame,
    RecordMove,
    RemoveSeat,
    Reopen,
    ReplaceSeat,
    SetHost,
    SetLobby,
    StartGame,
    Table,
)

from . import chat, loading, my_tables, passkeys, push, writes
from .chat import ChatBound, ChatRecord
from .db import make_engine, sqlite_file
from .dialect import Dialect
from .errors import CodeTaken, StoreError, VersionConflict, WriteRefused
from .loading import AckRecord, LoadedTable, LoggedMove, ReplayedMove, Tail
from .my_tables import MyTableRecord, PlayerRecord, TableAsk
from .push import Kind, PushSubscription, Subscribed, TurnToNudge
from .scheduling import scheduler_for

__all__ = [
    "AckRecord",
    "ChatBound",
    "ChatRecord",
    "CodeTaken",
    "LoadedTable",
    "LoggedMove",
    "MyTableRecord",
    "PlayerRecord",
    "PushSubscription",
    "TurnToNudge",
    "ReplayedMove",
    "Store",
    "StoreError",
    "TableAsk",
    "Tail",
    "VersionConflict",
    "WriteRefused",
]

T = TypeVar("T")


class Store:
    """Async access to the database behind one engine."""

    def __init__(self, url: str, **engine_kwargs: Any) -> None:
        self.dialect = Dialect.of(url)
        self.engine: AsyncEngine = make_engine(url, **engine_kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # Single-statement reads of a cached table's news (its version, its log's tail): no BEGIN and COMMIT
        # around each (the same pool; the level goes back when a connection is returned).
        self.reader: AsyncEngine = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._scheduler = scheduler_for(self.dialect, self.engine, self.sessions, sqlite_file(url))

    async def close(self) -> None:
        await self._scheduler.close()
        await self.engine.dispose()

    async def ping(self) -> None:
        async with self.sessions() as session:
            await session.execute(select(1))

    # ----- cheap checks of a cached table ------------------------------------------------------------

    async def versions(self, codes: Iterable[str]) -> dict[str, int]:
        """The stored version of each of these rooms (one indexed read; a code with no room is left out).
        A process checks its cached tables with this wherever one could be behind without being told."""
        return await loading.versions(self.reader, codes)

    async def due_rooms(self, now: datetime, limit: int = 100) -> list[str]:
        """The rooms whose paced turn ran out by ``now`` (one indexed read), the most overdue first."""
        return await loading.due_rooms(self.reader, now, limit)

    async def version_of(self, code: str) -> int | None:
        """The stored version of one room (None: no such room)."""
        return (await self.versions([code])).get(code)

    async def tail(self, code: str, *, game_id: int | None, after_seq: int) -> Tail | None:
        """The room's stored version and the moves of its game ``game_id`` logged after ``after_seq``, read
        at one moment (None: no such room). How a process follows moves another one committed: it applies
        them from the log (never from what a notice says), and reloads when the tail is not only moves."""
        return await loading.tail(self.reader, code, game_id=game_id, after_seq=after_seq)

    async def ack_of(self, code: str, client_id: str) -> AckRecord | None:
        """The ack of a client action of the room's current game, read from its log (None: never applied)."""
        return await loading.ack_of(self.engine, code, client_id)

    async def my_tables(self, asks: Sequence[TableAsk]) -> list[MyTableRecord]:
        """What a list of a browser's tables shows of each table whose asked token holds a seat there (its
        own, one a bot plays for it, or one it asked for), in the asks' order: one indexed statement however
        many tables (``my_tables.query``); an ask whose token holds nothing there is left out."""
        return await my_tables.my_tables(self.reader, asks)

    # ----- rooms and games ---------------------------------------------------------------------------

    async def load_game(self, game_id: int) -> tuple[int, GameState] | None:
        """(version, state) of one game as it is now: its snapshot with the round's logged moves replayed."""
        return await loading.load_game(self.sessions, self.dialect, game_id)

    async def load_table(self, code: str) -> LoadedTable | None:
        """The room as a table, with the acks of its current game's client actions (None: no such room)."""
        return await loading.load_table(self.sessions, self.dialect, code)

    # ----- a table's recent chat ---------------------------------------------------------------------

    async def add_chat(self, code: str, line: ChatRecord, bound: ChatBound) -> None:
        """Keep one chat line (or reaction) of the room; its lines past ``bound`` go in the same commit."""
        await self._scheduler.transact(lambda conn: chat.add(conn, code, line, bound))

    async def recent_chat(self, code: str, bound: ChatBound) -> list[ChatRecord]:
        """The room's recent chat lines and reactions, oldest first, within ``bound`` (one indexed read)."""
        return await chat.recent(self.reader, code, bound)

    # ----- Web Push: the server's keys and the seats' subscriptions -----------------------------------

    async def server_key(self, name: str, make: Callable[[], str]) -> str:
        """The kept key ``name``, made by ``make`` and kept at its first need: whichever processes ask at
        once, one value is kept and every one of them gets it."""
        kept = await push.read_key(self.reader, name)
        if kept is None:
            value = make()
            await self._scheduler.transact(lambda conn: push.add_key(conn, name, value))
            kept = await push.read_key(self.reader, name)
            assert kept is not None, "a key written is read back"
        return kept

    async def push_subscribe(
        self, subscription: PushSubscription, *, now: datetime, devices: int = 5
    ) -> Subscribed:
        """Keep a seat's subscription on one device (again: replaced); at most ``devices`` per seat, the
        oldest going. ``no_room`` or ``not_seated`` (the token holds no seat there): nothing is kept."""
        return await self._write(lambda conn: push.subscribe(conn, subscription, now=now, devices=devices))

    async def push_unsubscribe(self, code: str, token_hash: str, device: str | None = None) -> int:
        """Drop the seat's subscription on ``device``, or on every device (None: the seat leaves the table);
        how many went."""
        return await self._write(lambda conn: push.unsubscribe(conn, code, token_hash, device))

    async def push_drop(self, subscription_id: int) -> None:
        """Drop a subscription its push service said is gone (404, 410)."""
        await self._scheduler.transact(lambda conn: push.drop(conn, subscription_id))

    async def push_subscriptions(self, code: str, token_hash: str) -> list[PushSubscription]:
        """The seat's subscriptions at the room (one indexed read)."""
        return await push.of_seat(self.reader, code, token_hash)

    async def turns_to_nudge(self, now: datetime, limit: int = 500) -> list[TurnToNudge]:
        """The turns under way at paced tables whose person has a device subscribed (one read)."""
        return await push.turns_to_nudge(self.reader, now, limit)

    async def push_claim(
        self, subscription_id: int, key: str, kind: Kind, due_at: datetime | None = None
    ) -> bool:
        """Whether this call marked turn ``key`` notified (``kind``: its first notification or its reminder)
        to the subscription: exactly one of any number of calls, in any processes, does; with ``due_at``
        (the turn's deadline), none once that turn is over."""
        return await self._write(lambda conn: push.claim_turn(conn, subscription_id, key, kind, due_at))

    # ----- names kept with passkeys (app.store.passkeys) -----

    async def name_claim(self, skeleton: str) -> passkeys.NameClaim | None:
        """The claim on a name's skeleton (None: the name and its look-alikes are free)."""
        return await passkeys.claim_by_skeleton(self.reader, skeleton)

    async def name_claim_by_id(self, claim_id: int) -> passkeys.NameClaim | None:
        return await passkeys.claim_by_id(self.reader, claim_id)

    async def session_claim(self, token_hash: str, now: datetime) -> passkeys.NameClaim | None:
        """The name a browser's session cookie proves (None: none, lapsed or signed out)."""
        return await passkeys.session_claim(self.reader, token_hash, now)

    async def passkeys_of(self, claim_id: int) -> list[passkeys.Passkey]:
        return await passkeys.passkeys_of(self.reader, claim_id)

    async def passkey(self, credential_id: str) -> passkeys.Passkey | None:
        return await passkeys.passkey_by_credential(self.reader, credential_id)

    async def begin_ceremony(self, challenge: passkeys.Challenge, *, forget_before: datetime) -> None:
        await self._write(lambda conn: passkeys.add_challenge(conn, challenge, forget_before=forget_before))

    async def take_ceremony(self, challenge: str) -> passkeys.Challenge | None:
        """The ceremony of ``challenge``, used up (None: never begun, or taken already)."""
        return await self._write(lambda conn: passkeys.take_challenge(conn, challenge))

    async def claim_name(
        self,
        *,
        name: str,
        skeleton: str,
        user_handle: str,
        key: passkeys.NewKey,
        session: passkeys.NewSession,
    ) -> int | None:
        """Claim a name with its first passkey, signed in (None: claimed first by a look-alike)."""
        return await self._write(
            lambda conn: passkeys.claim_name(
                conn, name=name, skeleton=skeleton, user_handle=user_handle, key=key, session=session
            )
        )

    async def add_device(self, claim_id: int, key: passkeys.NewKey, session: passkeys.NewSession) -> bool:
        return await self._write(
            lambda conn: passkeys.add_device(conn, claim_id=claim_id, key=key, session=session)
        )

    async def passkey_sign_in(
        self, passkey: passkeys.Passkey, new_count: int, session: passkeys.NewSession
    ) -> bool:
        return await self._write(
            lambda conn: passkeys.sign_in(conn, passkey=passkey, new_count=new_count, session=session)
        )

    async def remove_passkey(self, claim_id: int, passkey_id: int) -> passkeys.Removed:
        return await self._write(lambda conn: passkeys.remove_passkey(conn, claim_id, passkey_id))

    async def sign_out(self, token_hash: str) -> None:
        await self._write(lambda conn: passkeys.drop_session(conn, token_hash))

    async def sign_out_everywhere(self, claim_id: int) -> int:
        return await self._write(lambda conn: passkeys.drop_sessions(conn, claim_id))

    async def add_device_code(
        self, code_hash: str, claim_id: int, *, now: datetime, lasts: timedelta
    ) -> None:
        await self._write(
            lambda conn: passkeys.add_device_code(
                conn, code_hash=code_hash, claim_id=claim_id, now=now, lasts=lasts
            )
        )

    async def take_device_code(self, code_hash: str, now: datetime) -> int | None:
        """The claim a one-time code adds a device to, used up (None: unknown, used or lapsed)."""
        return await self._write(lambda conn: passkeys.take_device_code(conn, code_hash, now))

    async def _write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``work`` in a write transaction of the scheduler; what it returned, once committed."""
        result: list[T] = []

        async def run(conn: AsyncConnection) -> None:
            result[:] = [await work(conn)]  # a group's failure runs it again alone: the last answer counts

        await self._scheduler.transact(run)
        return result[0]

    async def create_room(self, table: Table, *, now: datetime) -> None:
        """Insert a new room (in the lobby, with its first seats); CodeTaken if the code is used."""
        try:
            async with self._scheduler.session() as session:
                await writes.create_room(session, table, now)
        except IntegrityError as exc:
            raise CodeTaken(table.code) from exc

    async def commit(self, change: Change) -> int | None:
        """Make a table change durable: the room moves from ``change.from_version`` to its table's version
        in one transaction with what the change writes, or VersionConflict if another writer moved it
        first; WriteRefused when the database answered but refused the values. Returns the new game's id
        for a started game."""
        try:
            return await self._commit(change)
        except DBAPIError as exc:
            if not _refused(exc):
                raise
            raise WriteRefused(str(exc.orig)) from exc

    async def _commit(self, change: Change) -> int | None:
        write = change.write
        match write:
            case RecordMove():
                await self._record_move(change.table, write, change.at)
                return None
            case StartGame():
                async with self._scheduler.session() as session:
                    return await writes.start_game(session, change.table, write, change.at)
            case EndGame():
                async with self._scheduler.session() as session:
                    await writes.end_game(session, change, write)
                return None
            case AddSeat() | ReplaceSeat() | RemoveSeat() | SetHost() | SetLobby() | Reopen():
                async with self._scheduler.session() as session:
                    await writes.change_room(session, change, write)
                return None
            case _:
                assert_never(write)

    async def _record_move(self, table: Table, move: RecordMove, now: datetime) -> None:
        """One accepted move, in ONE transaction: the log row, the room version, and, when the move ends a
        round (or the game), the game's snapshot and the round's scores. Core statements (no ORM unit of
        work): this runs for every move of every table."""
        row = writes.move_row(table, move, now)
        if not writes.ends_round(move):  # most moves: the hot path of each database
            await self._scheduler.record_move(row)
            return
        await self._scheduler.record_round_end(row, move)


def _refused(exc: DBAPIError) -> bool:
    """Whether the database answered and refused the values (SQLSTATE classes 22, data, and 23, integrity;
    asyncpg's adapter raises a bare DBAPIError for both), rather than failing to answer."""
    sqlstate = getattr(exc.orig, "sqlstate", None) or ""
    return isinstance(exc, (DataError, IntegrityError)) or sqlstate[:2] in ("22", "23")
