"""One live table: the lock that makes the room the single referee, dispatch, and the ONE commit path.

Every change is a pure command of ``app.table`` (validated there and by the engine), then ``commit``:
store → memory → ack → driver → publish. The in-memory table is a cache of the store, replaced only after a
commit succeeded. A notice from another process one version ahead carrying a move is applied here with
the engine; any other notice ahead of the cache makes the room reload from the store first, so a socket
never receives an older table after a newer one (the cache only ever moves forward).
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any

from app.config import Settings
from app.engine import action_to_dict
from app.metrics import ACTION_LATENCY, count_applied
from app.protocol import (
    Ack,
    ActionMessage,
    ChatIn,
    ClientMessage,
    Continue,
    Hello,
    HintIn,
    Ping,
    Pong,
    ReactIn,
    Ready,
    RequestSeat,
    Resync,
    RoomInfo,
    WithdrawRequest,
)
from app.store import AckRecord, LoadedTable, Store, VersionConflict
from app.table import Change, RecordMove, Refusal, ReplaceSeat, StartGame, pause
from app.table import commands as table_commands
from app.table.schedule import Timing, next_wake

from . import hello, remote, render, requests
from .broadcast import Broadcaster, Notice
from .clock import Clock
from .connection import Connection
from .driver import Driver
from .lease import Leases
from .limits import SeatLimiter, Throttle
from .presence import Presence

log = logging.getLogger(__name__)

RESTARTING = "the server is restarting; reconnect in a moment and try again"
PRESENCE_SECONDS = 0.25
UNSAVED = "the move could not be saved (the database did not answer), so it was not made; try again shortly"


class Room:
    """The referee of one table. Changes run under ``lock``; reads and sends never await."""

    def __init__(
        self,
        loaded: LoadedTable,
        *,
        store: Store,
        settings: Settings,
        clock: Clock,
        broadcaster: Broadcaster,
        leases: Leases | None = None,
    ) -> None:
        self.table, self.acks = loaded.table, loaded.acks
        self.code = self.table.code
        self.store, self.settings, self.clock, self.broadcaster = store, settings, clock, broadcaster
        self.lock = asyncio.Lock()
        self.closing = False
        self.presence = Presence(clock.now())
        self.timing = Timing.of(
            grace_seconds=settings.grace_seconds,
            bot_delay_ms=settings.bot_delay_ms,
            host_away_seconds=settings.host_away_seconds,
            round_break_seconds=settings.round_break_seconds,
        )
        self.leases = leases  # None: this process drives the table; else only while it holds the lease
        self.driver = Driver(self, clock, leases)
        self.others = remote.OtherProcesses(self)
        self.chat_limit = SeatLimiter(settings.chat_max_per_10s, clock, "chat lines")
        self.lobby_limit = SeatLimiter(settings.lobby_max_per_10s, clock, "table commands")
        self.request_limit = SeatLimiter(settings.lobby_max_per_10s, clock, "seat requests")
        # Sockets coming and going are told to everyone at most a few times a second (spectator churn).
        self.presence_news = Throttle(PRESENCE_SECONDS, clock, self.publish_presence)
        self._unsubscribe = broadcaster.subscribe(self.code, self._on_notice)

    def room_info(self) -> RoomInfo:
        return render.room_info(self.table, self.presence, self.clock.now(), self.timing)

    def room_values(self) -> render.RoomValues:
        """The room info as plain values, for state messages (encoded without the model)."""
        return render.room_values(self.table, self.presence, self.clock.now(), self.timing)

    def state_for(self, seat: int | None) -> str:
        return render.state_text(self.table, seat, self.room_values())

    def has_sockets(self) -> bool:
        return any(True for _ in self.presence.joined())

    def next_wake(self) -> datetime | None:
        return next_wake(self.table, self.presence.away(self.table), self.presence.announced, self.timing)

    async def commit(self, change: Change, *, ack: tuple[Connection, str] | None = None) -> None:
        """Make ``change`` durable, then swap it in, answer the sender, wake the driver, publish. Under the
        lock. A stale version raises VersionConflict; any other failure reloads the table and raises."""
        try:
            game_id = await self.store.commit(change)
        except VersionConflict:
            raise
        except Exception as exc:  # the database is away (or refused): nothing is acknowledged
            log.exception("room %s: could not commit a change; reloading from the store", self.code)
            try:
                await self.reload()
            except Exception:
                log.warning("room %s: the store does not answer either", self.code)
            raise Refusal("not_ready", UNSAVED) from exc
        if game_id is not None:
            change = table_commands.with_game_id(change, game_id)
        self.table, write = change.table, change.write
        if isinstance(write, StartGame):
            self.acks = {}
        elif isinstance(write, RecordMove):
            count_applied(action_to_dict(write.action)["type"])
            if write.client_id is not None:
                self.acks[write.client_id] = AckRecord(write.seat, self.table.version)
        for index in change.seats_taken if isinstance(write, ReplaceSeat | RecordMove) else ():
            self.presence.arrived(index, change.at)  # the newcomer gets the grace period
        self.presence.move_seats(change.seat_moves, self.table)
        if ack is not None:
            ack[0].send(Ack(id=ack[1], version=self.table.version))
        self.driver.kick()
        payload: dict[str, Any] = {
            "events": render.events_by_seat(self.table, change.events, auto=change.auto)
        }
        if isinstance(write, RecordMove) and self.broadcaster.shared:  # other processes apply it themselves
            payload["move"] = remote.move_payload(write, change.at)
        await self.broadcaster.publish(Notice(self.code, "state", self.table.version, payload))

    async def reload(self) -> None:
        """Re-read the table from the store (the store is the truth). Call under the lock."""
        loaded = await self.store.load_table(self.code)
        if loaded is not None and loaded.table.version >= self.table.version:  # never backwards
            self.table, self.acks = pause.carry(self.table, loaded.table), loaded.acks
            self.driver.kick()

    async def catch_up_locked(self) -> None:
        """Reload (under the lock), and show this process's sockets the table if it moved on."""
        before = self.table.version
        await self.reload()
        if self.table.version > before:
            self.seat_claimants()
            render.send_states(self.table, list(self.presence.joined()), self.room_values(), {})

    async def catch_up(self) -> None:
        """Another writer moved the table on: reload, and send this process's sockets the table as it now
        is (the other processes heard of the change from its writer)."""
        async with self.lock:
            await self.reload()
        self.seat_claimants()
        render.send_states(self.table, list(self.presence.joined()), self.room_values(), {})

    def seat_claimants(self) -> None:
        """Spectators whose token a seat has just passed to (a request approved) now play it: each socket
        hears its seat (a welcome) before the state that shows its hand."""
        self.presence.seat_claimants(self.table)

    def _on_notice(self, notice: Notice) -> None:
        render.fan_out(self, notice)

    async def publish_presence(self) -> None:
        await self.broadcaster.publish(Notice(self.code, "presence", self.table.version, self.others.here()))

    async def attach(self, conn: Connection) -> None:
        self.presence.connections.add(conn)

    async def detach(self, conn: Connection) -> None:
        """A socket went away: presence (or the spectator count) changes for everyone else."""
        if self.presence.leave(conn, self.clock.now()):
            await self.presence_news()
            await requests.settle_pause(self)
        try:
            await requests.requester_left(self, conn)
        except Exception:  # the request stays (the host may decline it); nothing else depends on it
            log.warning("room %s: could not drop a request whose asker left", self.code, exc_info=True)
        self.driver.kick()
        if self.leases is not None and not self.has_sockets():  # a process with sockets drives it now
            await self.leases.release(self.code)

    async def handle(self, conn: Connection, message: ClientMessage) -> None:
        """Act on one parsed client message; every refusal becomes an error to this socket only."""
        action_id = message.id if isinstance(message, ActionMessage) else None
        try:
            await self._dispatch(conn, message)
        except VersionConflict:  # another writer moved the table on
            conn.refuse(
                Refusal("stale_version", "the table moved on; here is its current state"), id=action_id
            )
            await self.catch_up()  # every socket here (this one too) gets the table as it now is
        except Exception as exc:  # one place turns refusals (and bugs) into wire errors
            try:
                conn.refuse(exc, id=action_id)
            except ValueError:  # e.g. text that cannot be encoded: answer without echoing it
                conn.refuse(Refusal("bad_message", "the message could not be answered"))
            if isinstance(exc, Refusal) and exc.code == "stale_version":
                conn.send_text(self.state_for(conn.seat))

    async def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if self.closing:
            raise Refusal("not_allowed", RESTARTING)
        if isinstance(message, Hello):
            await hello.greet(self, conn, message)
        elif not conn.joined:
            raise Refusal("bad_message", 'say hello first: {"type": "hello", "token": ...}')
        elif isinstance(message, ActionMessage):
            await self._action(conn, message)
        elif isinstance(message, Ping):
            conn.send(Pong())
        elif isinstance(message, Resync):
            conn.send_text(self.state_for(conn.seat))
        elif isinstance(message, ChatIn):
            await requests.chat(self, conn, message)
        elif isinstance(message, RequestSeat | WithdrawRequest):
            await requests.seat_request(self, conn, message)
        elif isinstance(message, ReactIn):
            await requests.react(self, conn, message)
        elif isinstance(message, HintIn):
            requests.hint(self, conn)
        elif isinstance(message, Continue):
            await requests.continue_round(self, conn)
        elif isinstance(message, Ready):
            await requests.ready(self, conn)
        else:
            await requests.lobby(self, conn, message)

    async def _action(self, conn: Connection, message: ActionMessage) -> None:
        if conn.seat is None:
            raise Refusal("not_seated", "spectators cannot play; join a seat first")
        started = time.perf_counter()
        async with self.lock:
            if self.closing:
                raise Refusal("not_allowed", RESTARTING)
            if message.version is not None and message.version > self.table.version:
                await self.catch_up_locked()  # the client has seen a newer table: notices were missed
            seen = self.acks.get(message.id)
            if seen is not None:  # a retry: answered again, never applied twice
                if seen.seat != conn.seat:
                    raise Refusal("bad_message", f"action id {message.id!r} was used by another seat")
                conn.send(Ack(id=message.id, version=seen.version))
                return
            change = table_commands.play(
                self.table,
                seat=conn.seat,
                action=message.action.to_action(),
                at=self.clock.now(),
                client_id=message.id,
                version=message.version,
            )
            await self.commit(change, ack=(conn, message.id))
        ACTION_LATENCY.observe(time.perf_counter() - started)

    async def act(self, now: datetime) -> None:
        """The driver's call: play the move that is due, and announce seats whose grace period ended."""
        await requests.server_move(self, now)

    async def join(
        self, name: str, seat: int | None = None, *, program: bool = False
    ) -> tuple[int | None, str | None]:
        """REST join: the next open seat, or that bot's seat. (None, None): watch (full or started)."""
        return await requests.join(self, name, seat, program=program)

    async def close(self) -> None:
        """Stop the driver and stop listening (shutdown or eviction); the caller closes the sockets."""
        self._unsubscribe()
        self._unsubscribe = lambda: None
        self.closing = True
        async with self.lock:  # let a move in flight finish and commit; no new one starts once closing
            pass
        await self.driver.close()
        await self.presence_news.close()
        if self.leases is not None:
            await self.leases.release(self.code)
