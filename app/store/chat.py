"""A table's recent chat lines and reactions: written one at a time (the oldest pruned past the bound in the
same transaction) and read back for a page that (re)connects, on any process."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .models import ChatRow

CHAT: SqlTable = ChatRow.__table__  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """A chat line (or a reaction: ``text`` is its emoji) as the store keeps it."""

    seat: int
    name: str
    text: str
    at: datetime
    reaction: bool = False

    @property
    def size(self) -> int:
        """What the line weighs against the bound: its name's and text's bytes."""
        return len(self.name.encode()) + len(self.text.encode())


@dataclass(frozen=True, slots=True)
class ChatBound:
    """How much of a table's chat is kept: at most ``lines`` lines and ``bytes`` bytes of names and text."""

    lines: int
    bytes: int

    def within(self, newest_first: Iterable[ChatRecord]) -> int:
        """How many of the newest lines are kept."""
        count = held = 0
        for record in newest_first:
            held += record.size
            if count >= self.lines or held > self.bytes:
                break
            count += 1
        return count


_INSERT = insert(CHAT).values(
    room_code=bindparam("c_code"),
    seat=bindparam("c_seat"),
    name=bindparam("c_name"),
    text=bindparam("c_text"),
    reaction=bindparam("c_reaction"),
    at=bindparam("c_at"),
)
_NEWEST = (
    select(CHAT.c.id, CHAT.c.seat, CHAT.c.name, CHAT.c.text, CHAT.c.at, CHAT.c.reaction)
    .where(CHAT.c.room_code == bindparam("c_code"))
    .order_by(CHAT.c.id.desc())
    .limit(bindparam("c_limit"))
)
_PRUNE = delete(CHAT).where(CHAT.c.room_code == bindparam("c_code"), CHAT.c.id <= bindparam("c_upto"))


def _kept(rows: list[tuple[int, ChatRecord]], bound: ChatBound) -> tuple[list[ChatRecord], int | None]:
    """Of the newest rows first, those within the bound (oldest first), and the id of the newest one past it
    (None: every row is kept)."""
    count = bound.within(record for _, record in rows)
    past = rows[count][0] if count < len(rows) else None
    return [record for _, record in rows[:count]][::-1], past


async def _newest(conn: AsyncConnection, code: str, bound: ChatBound) -> list[tuple[int, ChatRecord]]:
    rows = await conn.execute(_NEWEST, {"c_code": code, "c_limit": bound.lines + 1})
    return [(row[0], ChatRecord(*row[1:])) for row in rows]


async def add(conn: AsyncConnection, code: str, record: ChatRecord, bound: ChatBound) -> None:
    """One line, in the caller's transaction; the table's lines past the bound go in the same one."""
    await conn.execute(
        _INSERT,
        {
            "c_code": code,
            "c_seat": record.seat,
            "c_name": record.name,
            "c_text": record.text,
            "c_reaction": record.reaction,
            "c_at": record.at,
        },
    )
    _, past = _kept(await _newest(conn, code, bound), bound)
    if past is not None:
        await conn.execute(_PRUNE, {"c_code": code, "c_upto": past})


async def recent(reader: AsyncEngine, code: str, bound: ChatBound) -> list[ChatRecord]:
    """The table's recent lines, oldest first, within the bound (two writers pruning at once may each have
    left one line too many for a moment): one indexed read."""
    async with reader.connect() as conn:
        kept, _ = _kept(await _newest(conn, code, bound), bound)
    return kept
