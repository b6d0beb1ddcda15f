"""Web Push in the store: the server's kept keys (made once, by whichever process needs them first) and the
seats' push subscriptions, with the claim that lets exactly one process send each turn's notification."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import Table as SqlTable
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from .models import PushSubscriptionRow, RoomRow, SeatRow, ServerKeyRow

KEYS: SqlTable = ServerKeyRow.__table__  # type: ignore[assignment]
SUBSCRIPTIONS: SqlTable = PushSubscriptionRow.__table__  # type: ignore[assignment]
ROOMS: SqlTable = RoomRow.__table__  # type: ignore[assignment]
SEATS: SqlTable = SeatRow.__table__  # type: ignore[assignment]

Kind = Literal["turn", "reminder"]  # a turn's first notification, or its last reminder
Subscribed = Literal["subscribed", "no_room", "not_seated"]


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """One device's subscription for one seat: where to push (``endpoint``), the keys that encrypt for it
    (base64url, unpadded), and the language its notifications are written in."""

    room_code: str
    token_hash: str  # the seat's token's SHA-256 (hex), as ``seats.token_hash``
    device: str
    endpoint: str
    p256dh: str
    auth: str
    lang: str
    id: int = 0  # 0 until stored


_COLUMNS = (
    SUBSCRIPTIONS.c.room_code,
    SUBSCRIPTIONS.c.token_hash,
    SUBSCRIPTIONS.c.device,
    SUBSCRIPTIONS.c.endpoint,
    SUBSCRIPTIONS.c.p256dh,
    SUBSCRIPTIONS.c.auth,
    SUBSCRIPTIONS.c.lang,
    SUBSCRIPTIONS.c.id,
)


def _of_seat(code: str, token_hash: str) -> list[ColumnElement[bool]]:
    return [SUBSCRIPTIONS.c.room_code == code, SUBSCRIPTIONS.c.token_hash == token_hash]


# ----- the server's keys ------------------------------------------------------------------------------------


async def read_key(reader: AsyncEngine, name: str) -> str | None:
    """The kept value of key ``name`` (None: not made yet)."""
    async with reader.connect() as conn:
        return (await conn.execute(select(KEYS.c.value).where(KEYS.c.name == name))).scalar_one_or_none()


async def add_key(conn: AsyncConnection, name: str, value: str) -> None:
    """Keep ``value`` as key ``name`` unless a value is kept already (two processes making it at once: the
    first one written stays, and both read it back)."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    await conn.execute(dialect.insert(KEYS).values(name=name, value=value).on_conflict_do_nothing())


# ----- subscriptions ----------------------------------------------------------------------------------------


async def subscribe(
    conn: AsyncConnection, subscription: PushSubscription, *, now: datetime, devices: int
) -> Subscribed:
    """Keep the subscription of a seat's device (the same seat and device again: it replaces the one kept,
    and keeps what was notified); the seat's subscriptions past ``devices`` go, oldest first. Nothing is
    kept for a token that holds no seat at the room."""
    s = subscription
    room = select(func.count()).select_from(ROOMS).where(ROOMS.c.code == s.room_code).scalar_subquery()
    seats = (
        select(func.count())
        .select_from(SEATS)
        .where(SEATS.c.room_code == s.room_code, SEATS.c.token_hash == s.token_hash)
        .scalar_subquery()
    )
    rooms_found, seats_found = (await conn.execute(select(room, seats))).one()
    if not rooms_found:
        return "no_room"
    if not seats_found:
        return "not_seated"
    values = {
        "endpoint": s.endpoint,
        "p256dh": s.p256dh,
        "auth": s.auth,
        "lang": s.lang,
        "created_at": now,
    }
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    upsert = dialect.insert(SUBSCRIPTIONS).values(
        room_code=s.room_code, token_hash=s.token_hash, device=s.device, **values
    )
    await conn.execute(
        upsert.on_conflict_do_update(
            index_elements=["room_code", "token_hash", "device"],
            set_={name: upsert.excluded[name] for name in values},
        )
    )
    kept = (
        select(SUBSCRIPTIONS.c.id)
        .where(*_of_seat(s.room_code, s.token_hash))
        .order_by(SUBSCRIPTIONS.c.created_at.desc(), SUBSCRIPTIONS.c.id.desc())
        .limit(devices)
    )
    await conn.execute(
        delete(SUBSCRIPTIONS).where(*_of_seat(s.room_code, s.token_hash), SUBSCRIPTIONS.c.id.not_in(kept))
    )
    return "subscribed"


async def unsubscribe(conn: AsyncConnection, code: str, token_hash: str, device: str | None) -> int:
    """Drop the seat's subscription on ``device`` (None: on every device, as when the seat leaves the
    table); how many went."""
    where = _of_seat(code, token_hash)
    if device is not None:
        where.append(SUBSCRIPTIONS.c.device == device)
    return (await conn.execute(delete(SUBSCRIPTIONS).where(*where))).rowcount


async def drop_unseated(db: AsyncSession | AsyncConnection, code: str) -> None:
    """Drop the room's subscriptions of tokens that hold no seat there any more, in the write that took the
    seat away (removed in the lobby; taken by someone else). A token whose seat a bot plays for it keeps its
    subscriptions: it may take the seat back unasked, and its bell is on again at once."""
    kept = (
        select(SEATS.c.token_hash)
        .where(SEATS.c.room_code == code, SEATS.c.token_hash.is_not(None))
        .union(
            select(SEATS.c.former_token_hash).where(
                SEATS.c.room_code == code, SEATS.c.former_token_hash.is_not(None)
            )
        )
    )
    await db.execute(
        delete(SUBSCRIPTIONS).where(
            SUBSCRIPTIONS.c.room_code == code, SUBSCRIPTIONS.c.token_hash.not_in(kept)
        )
    )


async def drop(conn: AsyncConnection, subscription_id: int) -> None:
    """Drop one subscription (its push service said it is gone: 404 or 410)."""
    await conn.execute(delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == subscription_id))


async def of_seat(reader: AsyncEngine, code: str, token_hash: str) -> list[PushSubscription]:
    """The seat's subscriptions, oldest first (one indexed read)."""
    query = select(*_COLUMNS).where(*_of_seat(code, token_hash)).order_by(SUBSCRIPTIONS.c.id)
    async with reader.connect() as conn:
        return [PushSubscription(*row) for row in await conn.execute(query)]


async def claim_turn(
    conn: AsyncConnection, subscription_id: int, key: str, kind: Kind, due_at: datetime | None = None
) -> bool:
    """Mark the turn ``key`` as notified to the subscription (its first notification, or its reminder);
    whether this call did. A conditional update: of several processes claiming one turn, exactly one does,
    and a turn claimed once is never claimed again. With ``due_at`` (the turn's deadline), only while that
    turn is still under way at the subscription's table: the claim keeps only the last turn notified, so a
    look that read a turn just before it ended, and claims it after the next turn's claim, would otherwise
    notify the ended turn (and then the next one a second time)."""
    column = SUBSCRIPTIONS.c.last_turn_key if kind == "turn" else SUBSCRIPTIONS.c.last_reminder_key
    conditions = [SUBSCRIPTIONS.c.id == subscription_id, column.is_distinct_from(key)]
    if due_at is not None:
        under_way = select(ROOMS.c.code).where(
            ROOMS.c.code == SUBSCRIPTIONS.c.room_code, ROOMS.c.due_at == due_at
        )
        conditions.append(under_way.exists())
    claim = update(SUBSCRIPTIONS).where(*conditions).values({column.name: key})
    return (await conn.execute(claim)).rowcount == 1


@dataclass(frozen=True, slots=True)
class TurnToNudge:
    """A person's turn under way at a paced table, whose seat has at least one device subscribed."""

    code: str
    token_hash: str
    seat: int
    due_at: datetime  # the turn's deadline: with the code, it names the turn
    host_name: str
    hours: int  # the table's pace: hours a turn may take


async def turns_to_nudge(engine: AsyncEngine, now: datetime, limit: int) -> list[TurnToNudge]:
    """The turns under way at paced tables (deadline still ahead: ``rooms.due_at``'s index) whose person has
    a device subscribed, the nearest deadline first: one read."""
    seat, host = SEATS.alias("seat"), SEATS.alias("host")
    subscribed = (
        select(SUBSCRIPTIONS.c.id)
        .where(SUBSCRIPTIONS.c.room_code == ROOMS.c.code, SUBSCRIPTIONS.c.token_hash == seat.c.token_hash)
        .exists()
    )
    query = (
        select(
            ROOMS.c.code, seat.c.token_hash, seat.c.seat_index, ROOMS.c.due_at, host.c.name, ROOMS.c.options
        )
        .join(seat, (seat.c.room_code == ROOMS.c.code) & (seat.c.seat_index == ROOMS.c.turn_seat))
        .join(host, (host.c.room_code == ROOMS.c.code) & (host.c.seat_index == ROOMS.c.host_seat))
        .where(ROOMS.c.due_at > now, seat.c.is_bot.is_(False), seat.c.token_hash.is_not(None), subscribed)
        .order_by(ROOMS.c.due_at)
        .limit(limit)
    )
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [
        TurnToNudge(code, token, index, due, name, _hours(options))
        for code, token, index, due, name, options in rows
    ]


def _hours(options: object) -> int:
    pace = options.get("pace") if isinstance(options, dict) else None
    return pace if isinstance(pace, int) and not isinstance(pace, bool) else 0
