"""What a room hears from the other server processes that serve its table (with ``REDIS_URL`` set): moves
they committed, applied here with the engine; who is connected through them; and a reload from the store
when notices were missed. With one process none of this runs."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from app.engine import action_from_dict, action_to_dict
from app.store import AckRecord
from app.table import RecordMove, pause
from app.table import commands as table_commands

from . import render
from .broadcast import Notice

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)


def move_payload(write: RecordMove, at: datetime) -> dict[str, Any]:
    """A committed move as a notice carries it, so other processes can apply it without reading the store."""
    return {
        "seat": write.seat,
        "action": action_to_dict(write.action),
        "id": write.client_id,
        "at": at.isoformat(),
    }


class OtherProcesses:
    """The room's view of the other processes serving its table."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._resync_task: asyncio.Task[None] | None = None
        self._resync_again = False
        self._reload = False
        self.heard_version = room.table.version  # the newest version any notice spoke of
        self._pending: dict[int, Notice] = {}  # other processes' moves heard while the room was busy

    def resync_soon(self, *, reload: bool = False) -> None:
        """Notices may have been missed (a gap in versions; or ``reload``: Redis reconnected, anything may
        have been missed): catch up, and render if the table moved on. One at a time; one asked for
        meanwhile runs after."""
        self._reload = self._reload or reload
        self._resync_again = True
        if self._resync_task is None or self._resync_task.done():
            self._resync_task = asyncio.get_running_loop().create_task(self._resync())

    async def _resync(self) -> None:
        room = self.room
        while self._resync_again and not room.closing:
            self._resync_again = False
            async with room.lock:
                before = room.table.version
                while (pending := self._pending.get(room.table.version + 1)) and self._apply(pending):
                    pass  # moves heard while the room was busy: no need to read the store for them
                try:
                    if room.table.version < self.heard_version or self._reload:
                        self._reload = False
                        await room.reload()
                except Exception:  # the store is away: the next notice (or reconnection) tries again
                    log.exception("room %s: could not reload from the store", room.code)
                    return
                finally:
                    self._pending = {v: n for v, n in self._pending.items() if v > room.table.version}
                if room.table.version > before:
                    room.seat_claimants()
                    render.send_states(room.table, list(room.presence.joined()), room.room_values(), {})

    def apply_move(self, notice: Notice) -> bool:
        """A move another process committed, one version ahead of this cache: apply it now with the engine
        (as that process did) instead of reading the store; while the room is busy it waits for the resync.
        False if it was not applied now."""
        if self.room.lock.locked():
            if "move" in notice.payload:
                self._pending[notice.version] = notice
            return False
        return self._apply(notice)

    def _apply(self, notice: Notice) -> bool:
        room = self.room
        move = notice.payload.get("move")
        if move is None or notice.version != room.table.version + 1:
            return False
        try:
            seat, client_id = int(move["seat"]), move["id"]
            change = table_commands.play(
                room.table,
                seat=seat,
                action=action_from_dict(move["action"]),
                at=datetime.fromisoformat(move["at"]),
                client_id=client_id,
            )
        except Exception:  # whatever is odd about it, the store has the truth
            return False
        if change.table.version != notice.version:
            return False
        room.table = change.table
        if client_id is not None:
            room.acks[client_id] = AckRecord(seat, room.table.version)
        room.driver.kick()
        return True

    def heard_heartbeat(self, notice: Notice) -> None:
        """Another process's heartbeat about this table: show who is connected if that changed."""
        if self.heard(notice):
            self._show_presence()

    def heard(self, notice: Notice) -> bool:
        """Another process told who is at the table through it; True if who is connected changed."""
        room = self.room
        process = notice.payload.get("process")
        if process is None or process == room.broadcaster.process_id:
            return False
        changed = room.presence.heard(
            str(process),
            seats=[int(s) for s in notice.payload.get("seats", [])],
            spectators=int(notice.payload.get("spectators", 0)),
            now=room.clock.now(),
            at=room.clock.monotonic(),
        )
        changed = self._heard_pause(notice.payload) or changed
        if changed:
            room.driver.kick()
        return changed

    def _heard_pause(self, payload: dict[str, Any]) -> bool:
        """Who pressed Continue through another process (the pause between rounds); True if that is news.
        Not under the lock: a commit in flight would drop it, and the next heartbeat says it again."""
        room = self.room
        said = payload.get("pause")
        if not isinstance(said, dict) or room.lock.locked():
            return False
        try:
            ended = None if said.get("ended") is None else datetime.fromisoformat(said["ended"])
            table = pause.heard(
                room.table, key=said.get("key"), continued=[int(s) for s in said["continued"]], ended=ended
            )
        except (KeyError, TypeError, ValueError):
            return False
        if table is None:
            return False
        room.table = table
        return True

    def here(self) -> dict[str, Any]:
        """Who is at the table through this process (and pressed Continue), for the others."""
        room = self.room
        said = room.table.pause
        return {
            "process": room.broadcaster.process_id,
            "seats": sorted(room.presence.local_seats()),
            "spectators": room.presence.local_spectators(),
            "pause": {
                "key": pause.pause_key(room.table),
                "continued": sorted(said.continued),
                "ended": None if said.ended is None else said.ended.isoformat(),
            },
        }

    def forget_silent(self, older_than: float) -> None:
        """Drop what processes not heard from since ``older_than`` (monotonic) said (they died)."""
        room = self.room
        if room.presence.expire(older_than, room.clock.now()):
            self._show_presence()
            room.driver.kick()

    def _show_presence(self) -> None:
        room = self.room
        render.send_presence(room.table, list(room.presence.joined()), room.room_info())
