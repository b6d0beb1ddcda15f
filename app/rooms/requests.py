"""What a room is asked besides moves: REST joins, the host's lobby commands, chat lines, and the server's own
moves (bots, timers, absent seats). Each goes through the room's lock and its one ``commit``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from app.engine.bots import choose_action
from app.engine.hints import hint as best_discard
from app.protocol import (
    ChatIn,
    ChatOut,
    ClientMessage,
    HintOut,
    ReactIn,
    ReactionOut,
    RequestSeat,
    SeatRequested,
    WithdrawRequest,
)
from app.store import VersionConflict
from app.table import Change, Refusal, Table, clean_text, pause
from app.table import commands as table_commands
from app.table.schedule import auto_announcement_due, due_move, host_handover
from app.table.text import clean_name

from . import render
from .broadcast import Notice
from .connection import Connection
from .lobby import lobby_change
from .tokens import hash_token, new_token

if TYPE_CHECKING:
    from .room import Room

NOT_HOST = "only the host can do that"
COMMIT_ATTEMPTS = 3  # seat and lobby commands (no version) retried on the table another process left


async def join(room: Room, name: str, seat: int | None, *, program: bool) -> tuple[int | None, str | None]:
    """The next open seat; (None, None): watch instead (full or started). With ``seat`` (a bot's), a request
    for it is made for a new token: (None, token); the seat passes once the host approves."""
    token = new_token()
    async with room.lock:
        if seat is not None:
            await commit_fresh(
                room,
                lambda table: table_commands.request_seat(
                    table, index=seat, name=name, token_hash=hash_token(token), at=room.clock.now()
                ),
            )
            return None, token
        change = await commit_fresh(
            room,
            lambda table: table_commands.join(
                table, name=name, token_hash=hash_token(token), at=room.clock.now(), program=program
            ),
        )
        return (None, None) if change is None else (change.seats_taken[0], token)


async def seat_request(room: Room, conn: Connection, message: RequestSeat | WithdrawRequest) -> None:
    """A spectator asks for a bot's seat (or takes the request back). One who has no token is given one: it
    identifies the request, and opens the seat once it passes."""
    if conn.seat is not None:
        raise Refusal("already_seated", f"you play seat {conn.seat} already; one person holds one seat")
    room.request_limit.check(-conn.id)  # spectators have no seat: each socket is limited on its own
    now = room.clock.now()
    if isinstance(message, WithdrawRequest):
        if conn.token_hash is not None:
            token_hash = conn.token_hash
            async with room.lock:
                await commit_fresh(
                    room, lambda t: table_commands.withdraw_request(t, token_hash=token_hash, at=now)
                )
        return
    name = None
    if message.name is not None:
        name = clean_name(message.name, max_length=room.settings.max_name_length, code="bad_message")
    before, token = conn.token_hash, None
    if before is None:
        token = new_token()
        token_hash = hash_token(token)
    else:
        token_hash = before
    conn.token_hash = token_hash
    try:  # known by its token first: a seat handed over at once finds this socket
        async with room.lock:
            await commit_fresh(
                room,
                lambda t: table_commands.request_seat(
                    t, index=message.seat, name=name, token_hash=token_hash, at=now
                ),
            )
    except BaseException:
        conn.token_hash = before
        raise
    conn.send(SeatRequested(seat=message.seat, token=token))


async def requester_left(room: Room, conn: Connection) -> None:
    """A spectator that asked for a seat went away: with no other socket of theirs here, the request goes."""
    room.request_limit.forget(-conn.id)
    token_hash = conn.token_hash
    if conn.seat is not None or token_hash is None or room.closing:
        return
    if any(c.token_hash == token_hash for c in room.presence.joined() if c is not conn):
        return
    if (asked := room.table.claim_of(token_hash)) is None or asked.claim is None or asked.claim.approved:
        return
    async with room.lock:
        await commit_fresh(
            room, lambda t: table_commands.withdraw_request(t, token_hash=token_hash, at=room.clock.now())
        )


async def commit_fresh(room: Room, make: Callable[[Table], Change | None]) -> Change | None:
    """Commit the change ``make`` gives for the table as it is (None: nothing to do). Seat and lobby commands
    carry no version: on a table another process moved, they are made again on the new one. Under the lock."""
    for attempt in range(COMMIT_ATTEMPTS):
        change = make(room.table)
        if change is None:
            return None
        try:
            await room.commit(change)
            return change
        except VersionConflict:  # another process changed the table; its notice is on its way
            if attempt == COMMIT_ATTEMPTS - 1:
                raise
            await room.catch_up_locked()
    return None  # pragma: no cover - the loop returns or raises


async def lobby(room: Room, conn: Connection, message: ClientMessage) -> None:
    """The host's lobby commands (rate-limited per seat). Who the host is, is judged on the table each
    attempt is made on: the role may have moved through another process since this cache was read."""
    seat = conn.seat
    if seat is None:
        raise Refusal("not_seated", "only the host can do that; spectators cannot")

    def make(table: Table) -> Change | None:
        if seat != table.host_seat:
            raise Refusal("not_host", NOT_HOST)
        return lobby_change(table, message, room.clock.now())

    if seat != room.table.host_seat and not room.broadcaster.shared:  # one process: this cache is the truth
        raise Refusal("not_host", NOT_HOST)
    room.lobby_limit.check(seat)

    async with room.lock:
        if seat != room.table.host_seat and room.broadcaster.shared:  # made host elsewhere just now?
            await room.catch_up_locked()
        await commit_fresh(room, make)


async def chat(room: Room, conn: Connection, message: ChatIn) -> None:
    if conn.seat is None:
        raise Refusal("not_seated", "only players at the table can chat")
    text = clean_text(message.text, max_length=room.settings.chat_max_length, what="chat line")
    room.chat_limit.check(conn.seat)
    line = ChatOut(
        seat=conn.seat, name=room.table.seats[conn.seat].name, text=text, at=render.iso(room.clock.now())
    )
    await room.broadcaster.publish(Notice(room.code, "chat", room.table.version, line.model_dump()))


async def react(room: Room, conn: Connection, message: ReactIn) -> None:
    """A quick reaction, to every socket of the table on every process (counted with the chat lines)."""
    if conn.seat is None:
        raise Refusal("not_seated", "only players at the table can react")
    room.chat_limit.check(conn.seat)
    reaction = ReactionOut(seat=conn.seat, emoji=message.emoji)
    await room.broadcaster.publish(Notice(room.code, "reaction", room.table.version, reaction.model_dump()))


def hint(room: Room, conn: Connection) -> None:
    """The discard that leaves the fewest points, to this socket only (where the table allows hints).
    Nothing is committed: the table does not change."""
    if conn.seat is None:
        raise Refusal("not_seated", "only players at the table get hints")
    game = room.table.playing
    if game is None:
        raise Refusal("wrong_status", "there is no game in play to give a hint for")
    found = best_discard(game, conn.seat)
    conn.send(HintOut(card=str(found.card), go_out=found.go_out, penalty=found.penalty))


async def server_move(room: Room, now: datetime) -> None:
    """Hand the host role on when the host is gone, play the move that is due (a bot's, or one for a
    person out of time or away), each through the same command and commit as anyone's, and announce seats
    whose grace period just ended."""
    away = room.presence.away(room.table)
    if announce := auto_announcement_due(room.table, away, room.presence.announced, now, room.timing):
        room.presence.announced = now
    async with room.lock:
        successor = host_handover(room.table, room.presence.away(room.table), room.clock.now(), room.timing)
        if successor is not None and not room.closing:
            await room.commit(table_commands.make_host(room.table, index=successor, at=room.clock.now()))
        due = due_move(room.table, room.presence.away(room.table), room.clock.now(), room.timing)
        if room.closing or due is None or room.table.game is None:
            if announce:
                await room.publish_presence()
            return
        action = choose_action(room.table.game, due.seat, due.level, room.table.game_seed)
        change = table_commands.play(room.table, seat=due.seat, action=action, at=room.clock.now())
        await room.commit(replace(change, auto=not room.table.seats[due.seat].is_bot))


async def continue_round(room: Room, conn: Connection) -> None:
    """A player pressed Continue on the round's results: everyone sees it, and the pause between rounds ends
    once every present player has. Nothing is stored (``app.table.pause``); outside a pause it is ignored."""
    if conn.seat is None:
        raise Refusal("not_seated", "only players at the table can continue; spectators wait")
    async with room.lock:
        now = room.clock.now()
        table = pause.continue_round(
            room.table,
            seat=conn.seat,
            present=room.presence.connected_seats(),
            length=room.timing.round_break,
            now=now,
        )
        if table is None:
            return
        room.table = table
        room.driver.kick()
    await room.publish_presence()


async def ready(room: Room, conn: Connection) -> None:
    """A seated person says they are in for the next game (the lobby's ready check): everyone sees it.
    Nothing is stored, as with Continue; other processes hear it with the presence."""
    if conn.seat is None:
        raise Refusal("not_seated", "only players at the table can say they are ready")
    room.lobby_limit.check(conn.seat)
    async with room.lock:
        table = pause.ready(room.table, seat=conn.seat)
        if table is None:
            return
        room.table = table
    await room.publish_presence()


async def settle_pause(room: Room) -> None:
    """Someone left: the pause ends if everyone still present has pressed Continue."""
    async with room.lock:
        table = pause.settle(
            room.table,
            present=room.presence.connected_seats(),
            length=room.timing.round_break,
            now=room.clock.now(),
        )
        if table is None:
            return
        room.table = table
        room.driver.kick()
    await room.publish_presence()
