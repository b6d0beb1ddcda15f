"""A browser's tables: for each (room code, hashed seat token) it holds, what a list of its tables shows
(the players, whose turn, the deadline, unread chat), for many tables in one indexed statement.

A token answers for a room only where one of that room's seats holds it: as the seat's own token, as the
person a bot plays for (they left, or their turns ran out at a paced table: the seat is theirs to take back),
or as a pending request for a bot's seat. The lookup goes through the room's own seats (``seats.room_code``
is indexed, a room has at most eight), so a token is never looked up across rooms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Integer, Select, String, and_, case, func, literal, or_, select, union_all
from sqlalchemy import Table as SqlTable
from sqlalchemy.ext.asyncio import AsyncEngine

from .chat import CHAT
from .models import GameRow, SeatRow, UTCDateTime
from .moves import ROOMS

SEATS: SqlTable = SeatRow.__table__  # type: ignore[assignment]
GAMES: SqlTable = GameRow.__table__  # type: ignore[assignment]

Held = Literal["you", "bot", "asked"]
# Of several seats one token matches in a room (a bot plays its person's seat, and they asked for another),
# the one a list shows: the seat they play, then the one a bot plays for them, then a request.
_HELD_ORDER: tuple[Held, ...] = ("you", "bot", "asked")


@dataclass(frozen=True, slots=True)
class TableAsk:
    """One table a browser asks about: the room's code, its seat token's hash, and the time (a chat line's
    ``at``) of the newest chat line it has read there (None: none)."""

    code: str
    token_hash: str
    chat_read: datetime | None = None


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    seat: int
    name: str
    bot: bool
    program: bool
    avatar: str | None


@dataclass(frozen=True, slots=True)
class MyTableRecord:
    """What the store holds of one table for a token that holds a seat there (``held``: the token's own
    seat, its person's seat a bot plays, or a bot's seat asked for; ``seat`` is that seat)."""

    code: str
    status: str
    seat: int
    held: Held
    host_seat: int
    players: tuple[PlayerRecord, ...]
    options: dict[str, Any]
    turn_seat: int | None
    due_at: datetime | None
    game_number: int | None
    round: int | None
    chat_latest: datetime | None
    chat_unread: int


def _asked(asks: Sequence[TableAsk]) -> Any:
    """The asks as rows of a derived table (n: their order), one SELECT of bound values each: the same SQL
    on SQLite and PostgreSQL (a VALUES list with column names is not)."""
    rows = [
        select(
            literal(n, Integer).label("n"),
            literal(ask.code, String(16)).label("code"),
            literal(ask.token_hash, String(64)).label("token_hash"),
            literal(_utc(ask.chat_read), UTCDateTime()).label("chat_read"),
        )
        for n, ask in enumerate(asks)
    ]
    return (union_all(*rows) if len(rows) > 1 else rows[0]).cte("asked")


def _utc(when: datetime | None) -> datetime | None:
    return None if when is None else when.astimezone(UTC)


def query(asks: Sequence[TableAsk]) -> Select[Any]:
    """The one statement: the asks' seats in their rooms (``mine``: candidates, by the room's seats index),
    each room with its seats, its current game's number and round, and its chat's newest line and the lines
    after the ask's read mark said by others (grouped once per candidate, not per seat row)."""
    asked = _asked(asks)
    mine_seat = SEATS.alias("mine_seat")
    held = case(
        (mine_seat.c.token_hash == asked.c.token_hash, literal("you")),
        (mine_seat.c.former_token_hash == asked.c.token_hash, literal("bot")),
        else_=literal("asked"),
    )
    mine = (
        select(
            asked.c.n,
            asked.c.chat_read,
            mine_seat.c.room_code,
            mine_seat.c.seat_index.label("my_seat"),
            held.label("held"),
        )
        .join(mine_seat, mine_seat.c.room_code == asked.c.code)
        .where(
            or_(
                mine_seat.c.token_hash == asked.c.token_hash,
                mine_seat.c.former_token_hash == asked.c.token_hash,
                mine_seat.c.claim_token_hash == asked.c.token_hash,
            )
        )
        .cte("mine")
    )
    unread = and_(
        CHAT.c.seat != mine.c.my_seat,
        or_(mine.c.chat_read.is_(None), CHAT.c.at > mine.c.chat_read),
    )
    chat = (
        select(
            mine.c.n,
            mine.c.my_seat,
            func.max(CHAT.c.at).label("latest"),
            func.count(case((unread, CHAT.c.id))).label("unread"),
        )
        .select_from(mine.outerjoin(CHAT, CHAT.c.room_code == mine.c.room_code))
        .group_by(mine.c.n, mine.c.my_seat)
        .subquery("chat")
    )
    return (
        select(
            mine.c.n,
            mine.c.my_seat,
            mine.c.held,
            ROOMS.c.code,
            ROOMS.c.status,
            ROOMS.c.options,
            ROOMS.c.host_seat,
            ROOMS.c.turn_seat,
            ROOMS.c.due_at,
            GAMES.c.number,
            GAMES.c.state["round"].as_integer().label("round"),
            chat.c.latest,
            chat.c.unread,
            SEATS.c.seat_index,
            SEATS.c.name,
            SEATS.c.is_bot,
            SEATS.c.is_program,
            SEATS.c.avatar,
        )
        .select_from(mine)
        .join(ROOMS, ROOMS.c.code == mine.c.room_code)
        .join(chat, and_(chat.c.n == mine.c.n, chat.c.my_seat == mine.c.my_seat))
        .join(SEATS, SEATS.c.room_code == mine.c.room_code)
        .outerjoin(GAMES, GAMES.c.id == ROOMS.c.current_game_id)
        .order_by(mine.c.n, mine.c.my_seat, SEATS.c.seat_index)
    )


async def my_tables(reader: AsyncEngine, asks: Sequence[TableAsk]) -> list[MyTableRecord]:
    """The tables of ``asks`` whose token holds a seat there, in the asks' order (one statement; an ask
    whose token holds nothing at its room, or whose room is gone, is left out)."""
    if not asks:
        return []
    async with reader.connect() as conn:
        rows = (await conn.execute(query(asks))).all()
    found: dict[int, dict[int, Any]] = {}  # ask -> its candidate seats -> their rows
    for row in rows:
        found.setdefault(row.n, {}).setdefault(row.my_seat, []).append(row)
    tables = []
    for n in sorted(found):
        candidates = found[n]
        seat = min(candidates, key=lambda s: (_HELD_ORDER.index(candidates[s][0].held), s))
        tables.append(_record(candidates[seat]))
    return tables


def _record(rows: list[Any]) -> MyTableRecord:
    first = rows[0]
    return MyTableRecord(
        code=first.code,
        status=first.status,
        seat=first.my_seat,
        held=first.held,
        host_seat=first.host_seat,
        players=tuple(PlayerRecord(r.seat_index, r.name, r.is_bot, r.is_program, r.avatar) for r in rows),
        options=dict(first.options or {}),
        turn_seat=first.turn_seat,
        due_at=first.due_at,
        game_number=first.number,
        round=first.round,
        chat_latest=first.latest,
        chat_unread=int(first.unread or 0),
    )
