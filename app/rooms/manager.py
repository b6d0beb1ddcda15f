"""RoomManager: creates rooms, loads them lazily from the store, and keeps them cached.

With ``REDIS_URL`` it also connects this process to the others: notices over Redis pub/sub, leases on
tables' drivers, and a heartbeat saying which seats are at each table through this process.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

from app.config import Settings
from app.metrics import ROOMS_EVICTED
from app.protocol import Restarting
from app.store import CodeTaken, Store
from app.table import Refusal
from app.table.commands import new_table
from app.table.origins import new_salt
from app.table.schedule import pace_of

from . import paced, peers
from .broadcast import EVERY_ROOM, Broadcaster, InProcessBroadcaster, Notice
from .clock import Clock, SystemClock
from .connection import CLOSE_RESTART
from .lease import Leases, RedisLeases
from .redis_broadcast import RedisBroadcaster
from .room import Room
from .tokens import hash_token, new_room_code, new_token, normalize_code

log = logging.getLogger(__name__)


HEARTBEAT_SECONDS = 0.5  # how often a process says which seats it has at each table
SILENT_AFTER_SECONDS = 3 * HEARTBEAT_SECONDS  # a process not heard from for this long has died
SWEEP_BEATS = 2  # every this many beats, the loaded tables' versions are read from the store
# With several processes: a live table with no socket here leaves memory after this long (``evict_idle``).
FOLLOWED_IDLE_SECONDS = 10.0


class RoomManager:
    def __init__(
        self,
        *,
        store: Store,
        settings: Settings,
        clock: Clock | None = None,
        broadcaster: Broadcaster | None = None,
    ) -> None:
        self.store, self.settings = store, settings
        self.clock: Clock = clock or SystemClock()
        self.leases: Leases | None = None
        self.redis: RedisBroadcaster | None = None
        if broadcaster is None and settings.redis_url:
            self.redis = RedisBroadcaster(
                settings.redis_url, on_resync=self._resync, key=settings.redis_notice_key
            )
            redis = self.redis
            self.leases = RedisLeases(
                redis.redis,
                redis.process_id,
                settings.lease_ms,
                hearing=lambda: redis.hearing(EVERY_ROOM, SILENT_AFTER_SECONDS),
            )
            broadcaster = self.redis
        self.broadcaster: Broadcaster = broadcaster or InProcessBroadcaster()
        self._heartbeat: asyncio.Task[None] | None = None
        self.peers: dict[str, float] = {}  # another process -> when it was last heard (``Clock.steady``)
        self._checking: asyncio.Task[None] | None = None  # the tables' check against the store, if running
        self._peer_died = False  # a peer fell silent since the last check at once
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, tuple[asyncio.Lock, list[int]]] = {}  # code -> (lock, [callers waiting])
        self._sweeper: asyncio.Task[None] | None = None
        self._waker: asyncio.Task[None] | None = None
        self.nudger: paced.Nudger | None = None  # turn notifications (set by the app); None: none are sent
        self.seats_elsewhere: dict[str, dict[str, set[int]]] = {}  # process -> table -> seats with sockets
        self.draining = False  # shutting down: /readyz says no, rooms take no new moves

    def start(self) -> None:
        """Connect to the other processes (with Redis); in one process there is nothing to start."""
        if self.redis is not None:
            self.redis.start()
            self._heartbeat = asyncio.create_task(self._beat(), name="presence-heartbeat")
            self.broadcaster.subscribe(EVERY_ROOM, self._heard_heartbeat)

    def _resync(self, code: str | None) -> None:
        """Notices may have been missed (a room's channel was just joined, Redis came back): every such
        room reads the store's version, and catches up if it is not there, and reads its chat again."""
        rooms = list(self.rooms.values()) if code is None else [r for r in [self.rooms.get(code)] if r]
        for room in rooms:
            room.chat.forget()
            room.follower.follow_soon()

    async def _beat(self) -> None:
        """Say, in one notice for all tables, which seats each has here; forget what silent processes said;
        and check the cached tables against the store: at once when a peer fell silent (what it committed
        last may never have been told), and every ``SWEEP_BEATS`` beats in any case."""
        beats = 0
        while not self.draining:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            beats += 1
            dead = self.forget_silent()
            tables: dict[str, dict[str, Any]] = {}
            for room in list(self.rooms.values()):
                if room.has_sockets():
                    tables[room.code] = peers.here(self.broadcaster.process_id, room.table, room.presence)
            payload = {"process": self.broadcaster.process_id, "tables": tables}
            try:
                await self.broadcaster.publish(Notice(EVERY_ROOM, "here", 0, payload))
            except Exception:
                log.exception("the presence heartbeat failed")
            self._peer_died = self._peer_died or bool(dead)
            due = self._peer_died or beats % SWEEP_BEATS == 0
            if due and (self._checking is None or self._checking.done()):
                # In a task of its own: a slow store never delays the heartbeat (peers would think us dead).
                at_once, self._peer_died = self._peer_died, False
                self._checking = asyncio.create_task(self.check_rooms(at_once=at_once), name="store-check")

    def forget_silent(self) -> list[str]:
        """The peers not heard from for ``SILENT_AFTER_SECONDS`` died: forget them, and what they said of
        their sockets at each table. Silence is measured on the clock no test moves (``Clock.steady``): a
        moved clock is read by each process a moment apart, and hours passing at once are no silence. The
        ids of the peers forgotten."""
        silent = self.clock.steady() - SILENT_AFTER_SECONDS
        dead = [process for process, heard in self.peers.items() if heard < silent]
        for process in dead:
            log.warning("process %s fell silent; checking every table against the store", process)
            del self.peers[process]
            self.seats_elsewhere.pop(process, None)
        for room in list(self.rooms.values()):
            room.follower.forget_silent(silent)
        return dead

    async def check_rooms(self, *, at_once: bool) -> None:
        """Read the stored version of every loaded table in one query, and let each room judge its cache
        (``Room.heard_store_version``)."""
        rooms = list(self.rooms.values())
        if not rooms:
            return
        try:
            stored = await self.store.versions(room.code for room in rooms)
        except Exception as exc:  # the store is away: the next sweep tries again
            log.warning("could not read the tables' versions: %s", exc)
            return
        for room in rooms:
            if room.code in stored and not room.closing:
                room.follower.heard_store_version(stored[room.code], at_once=at_once)

    def _heard_heartbeat(self, notice: Notice) -> None:
        """Another process's heartbeat: what it has at each table loaded here (nothing, if not listed)."""
        if notice.payload.get("process") == self.broadcaster.process_id:
            return  # our own, delivered here when published
        said = peers.heartbeat(notice.payload)
        if said is None:
            return
        self.peers[said.process] = self.clock.steady()
        self.seats_elsewhere[said.process] = {
            code: {s for s in entry.get("seats", []) if isinstance(s, int)}
            for code, entry in said.tables.items()
            if isinstance(entry, dict)
        }
        nothing = {"process": said.process, "seats": [], "spectators": 0}
        for code, room in list(self.rooms.items()):
            if code not in said.tables and not room.presence.heard_from(said.process):
                continue  # nothing said of it now or before (behind the hashing balancer: nearly every room)
            here = peers.here_said(
                said.tables.get(code, nothing),
                room.table,
                max_spectators=self.settings.max_spectators_per_table,
            )
            if here is not None and here.process == said.process:
                room.follower.heard_heartbeat(here)

    async def get(self, code: str) -> Room | None:
        """The live room for ``code`` (case-insensitive), loading it from the store on first use."""
        normalized = normalize_code(code)
        if normalized is None:
            return None
        room = self.rooms.get(normalized)
        if room is not None:
            return room
        lock, callers = self._loading.setdefault(normalized, (asyncio.Lock(), [0]))
        callers[0] += 1
        try:
            return await self._load(normalized, lock)
        finally:
            callers[0] -= 1
            if not callers[0]:  # the last one out drops the lock: codes looked up leave nothing behind
                self._loading.pop(normalized, None)

    async def _load(self, normalized: str, lock: asyncio.Lock) -> Room | None:
        async with lock:  # two sockets arriving at once must share one Room
            room = self.rooms.get(normalized)
            if room is None:
                loaded = await self.store.load_table(normalized)
                if loaded is None:
                    return None
                room = Room(
                    loaded,
                    store=self.store,
                    settings=self.settings,
                    clock=self.clock,
                    broadcaster=self.broadcaster,
                    leases=self.leases,
                )
                self.rooms[normalized] = room
                room.driver.kick()  # a bot's turn, a timer or an absent seat: all derived from the store
        return room

    async def require(self, code: str) -> Room:
        room = await self.get(code)
        if room is None:
            raise Refusal("room_not_found", f"there is no room {code[:16]!r}; check the code or link")
        return room

    async def require_fresh(self, code: str) -> Room:
        """The live room for a REST read: with several processes its cache is checked against the store
        first (one indexed read), so a read never answers with a table older than the store's."""
        room = await self.require(code)
        await room.check_store()
        return room

    async def create(
        self, *, name: str, seat_count: int, bots: list[str], options: dict[str, Any], address: str = ""
    ) -> tuple[Room, str]:
        """Open a room in the lobby with the host (who asked from ``address``) in seat 0 and ``bots`` after
        it. Returns (room, token)."""
        token = new_token()
        for _ in range(10):
            code = new_room_code()
            table = new_table(
                code=code,
                host=name,
                token_hash=hash_token(token),
                bots=bots,
                seat_count=seat_count,
                options=options,
                now=self.clock.now(),
                salt=new_salt(),
                address=address,
            )
            try:
                await self.store.create_room(table, now=self.clock.now())
            except CodeTaken:
                continue
            room = await self.get(code)
            assert room is not None
            room.chat.made_here()
            return room, token
        raise RuntimeError("could not find a free room code")  # 10 collisions in 2**39: never

    async def announce_restart(self, flush_seconds: float = 1.0, finish_seconds: float = 10.0) -> None:
        """Shutdown, first step: take no new moves, let the ones in flight commit (and be acknowledged),
        stop the bots, then tell every socket to reconnect later, and close it."""
        self.draining = True
        rooms = list(self.rooms.values())
        closing = asyncio.gather(*(room.close() for room in rooms), return_exceptions=True)
        try:
            await asyncio.wait_for(closing, finish_seconds)
        except TimeoutError:
            log.error("shutdown: moves still in flight after %.0f s; not waiting longer", finish_seconds)
        for room in rooms:
            for conn in list(room.presence.connections):
                conn.send(Restarting())
                conn.close(CLOSE_RESTART)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + flush_seconds
        while loop.time() < deadline and any(r.presence.connections for r in self.rooms.values()):
            await asyncio.sleep(0.01)  # the sockets' writers deliver `restarting`, then detach

    async def evict_idle(self) -> int:
        """Rooms that no socket has used for ``ROOM_IDLE_SECONDS`` and that have nothing due (no bot or timer
        to play) leave memory; the store is the truth, so they load again when someone comes back. A paced
        table whose next deadline is further away than that leaves too: ``wake_due`` brings it back.

        With several processes, a table played live moves only where it has sockets (its driver too), so a
        copy here with none would only follow every move made elsewhere (a read of the store each): it leaves
        after ``FOLLOWED_IDLE_SECONDS``, whatever is due. The balancer puts a table's sockets on one process,
        so this is the copy of the process that happened to create the table, or that a socket left."""
        idle_for = timedelta(seconds=self.settings.room_idle_seconds)
        followed_for = min(idle_for, timedelta(seconds=FOLLOWED_IDLE_SECONDS))
        now, evicted = self.clock.now(), 0
        for code, room in list(self.rooms.items()):
            live = pace_of(room.table) is None
            unwatched = self.broadcaster.shared and live
            if (
                room.presence.idle_since(now) < (followed_for if unwatched else idle_for)
                or room.lock.locked()
            ):
                continue
            wake = room.next_wake()
            if not unwatched and wake is not None and (live or wake <= now + idle_for):
                continue
            del self.rooms[code]
            await room.close()
            evicted += 1
        ROOMS_EVICTED.inc(evicted)
        return evicted

    def start_sweeping(self) -> None:
        """Evict idle rooms every little while, and wake the paced tables that are due (started with the
        app)."""

        async def sweep() -> None:
            every = min(60.0, self.settings.room_idle_seconds / 2)
            if self.broadcaster.shared:
                every = min(every, FOLLOWED_IDLE_SECONDS / 2)
            while not self.draining:
                await self.clock.sleep(every)
                await self.evict_idle()

        async def wake() -> None:
            while not self.draining:
                await paced.wake_due(self)
                await paced.nudge_turns(self)
                await self.clock.sleep(self.settings.pace_wake_seconds)

        self._sweeper = asyncio.create_task(sweep(), name="room-sweeper")
        self._waker = asyncio.create_task(wake(), name="paced-waker")

    async def close(self) -> None:
        """Server shutdown: tell every socket to reconnect later, stop bots."""
        for task in (self._sweeper, self._waker):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        await self.announce_restart(flush_seconds=0)
        self.rooms.clear()
        for task in (self._heartbeat, self._checking):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self.leases is not None:
            await self.leases.close()
        await self.broadcaster.close()
