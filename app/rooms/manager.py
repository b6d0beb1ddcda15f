"""RoomManager: creates rooms, loads them lazily from the store, and keeps them cached."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.config import Settings
from app.engine import Options
from app.protocol import ProtocolError, Restarting
from app.store import CodeTaken, SeatRecord, Store

from .broadcast import Broadcaster, InProcessBroadcaster
from .clock import Clock, SystemClock
from .connection import CLOSE_RESTART
from .room import Room
from .tokens import hash_token, new_room_code, new_token, normalize_code

log = logging.getLogger(__name__)


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
        self.broadcaster: Broadcaster = broadcaster or InProcessBroadcaster()
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.draining = False  # shutting down: /readyz says no, rooms take no new moves

    async def get(self, code: str) -> Room | None:
        """The live room for ``code`` (case-insensitive), loading it from the store on first use."""
        normalized = normalize_code(code)
        if normalized is None:
            return None
        room = self.rooms.get(normalized)
        if room is not None:
            return room
        lock = self._loading.setdefault(normalized, asyncio.Lock())
        async with lock:  # two sockets arriving at once must share one Room
            room = self.rooms.get(normalized)
            if room is None:
                record = await self.store.load_room(normalized)
                if record is None:
                    return None
                room = Room(
                    record,
                    store=self.store,
                    settings=self.settings,
                    clock=self.clock,
                    broadcaster=self.broadcaster,
                )
                self.rooms[normalized] = room
                room.kick_bots()  # a bot's turn that was pending when the server stopped
                room.kick_timers()  # a turn timer or an absent seat: deadlines are derived from the store
        return room

    async def require(self, code: str) -> Room:
        room = await self.get(code)
        if room is None:
            raise ProtocolError("room_not_found", f"there is no room {code[:16]!r}; check the code or link")
        return room

    async def create(
        self, *, name: str, seat_count: int, bots: list[str], options: dict[str, Any]
    ) -> tuple[Room, str]:
        """Open a room in the lobby with the host in seat 0 and ``bots`` after it. Returns (room, token)."""
        if not 2 <= seat_count <= 8:
            raise ProtocolError("bad_request", "a table has 2 to 8 seats")
        if 1 + len(bots) > seat_count:
            raise ProtocolError(
                "bad_request", f"{len(bots)} bots and the host do not fit in {seat_count} seats"
            )
        checked = Options.from_dict(options)
        checked.deck_count(seat_count)
        token = new_token()
        seats = [SeatRecord(0, name, token_hash=hash_token(token))]
        seats += [SeatRecord(i + 1, f"Bot {i + 2}", True, level) for i, level in enumerate(bots)]
        for _ in range(10):
            code = new_room_code()
            try:
                await self.store.create_room(
                    code=code,
                    seat_count=seat_count,
                    options=checked.to_dict(),
                    seats=seats,
                    now=self.clock.now(),
                )
            except CodeTaken:
                continue
            room = await self.get(code)
            assert room is not None
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
            for conn in list(room.connections):
                conn.send(Restarting())
                conn.close(CLOSE_RESTART)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + flush_seconds
        while loop.time() < deadline and any(r.connections for r in self.rooms.values()):
            await asyncio.sleep(0.01)  # the sockets' writers deliver `restarting`, then detach

    async def close(self) -> None:
        """Server shutdown: tell every socket to reconnect later, stop bots."""
        await self.announce_restart(flush_seconds=0)
        self.rooms.clear()
