"""Following other processes: the room's cache brought to the store's version (moves another process
committed, read from the store's log; anything else reloaded), the notices other processes publish (read
strictly, see ``peers``), their heartbeats, and the sweeps that drop a silent one's word.

With several processes (``broadcaster.shared``) the cache may be behind without a notice saying so (the
notice died with the process that committed). The follower checks it against the store wherever that
matters: every ``hello`` (``check_store``), a retried action id the cache has no ack for
(``ack_from_store``), a move that says it saw a newer version (``may_be_behind``), a driver that takes over
the table's lease, and the manager's checks after a peer falls silent and every second
(``heard_store_version``). See docs/scaling.md, "How a cached table is kept true". It changes the table
only through the room's one transition (``Followed.advance``), and never imports the room.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Protocol

from app.config import Settings
from app.engine import GameError, action_from_dict
from app.protocol import ChatOut, ReactionOut, RoomInfo, encode
from app.store import AckRecord, LoggedMove, Store, VersionConflict
from app.table import Refusal, Table
from app.table import commands as table_commands

from . import peers, render
from .broadcast import Broadcaster, Notice
from .clock import Clock
from .connection import Connection
from .driver import Kicked
from .presence import Presence

log = logging.getLogger(__name__)

RECHECK_SECONDS = 0.2  # a move from "the future" reads the store at most this often at one cache version


class Heard(Protocol):
    """The table's kept chat, told of a line or reaction said, or that some may have been missed
    (``kept_chat.TableChat``)."""

    def heard(self, said: ChatOut | ReactionOut | None, table: Table, *, now: datetime) -> None: ...

    def forget(self) -> None: ...


class Followed(Protocol):
    """What the follower needs of the room: its cache, its lock, and its one transition."""

    code: str
    lock: asyncio.Lock
    store: Store
    settings: Settings
    clock: Clock
    broadcaster: Broadcaster
    presence: Presence

    @property
    def chat(self) -> Heard: ...

    @property
    def driver(self) -> Kicked: ...

    @property
    def table(self) -> Table: ...

    @property
    def closing(self) -> bool: ...

    def advance(
        self,
        table: Table,
        *,
        at: datetime,
        acks: dict[str, AckRecord] | None = None,
        ack: tuple[str, AckRecord] | None = None,
    ) -> None:
        """The room's one transition."""

    def show(self, events: render.EventsBySeat | None = None) -> bool:
        """Every socket here gets the table as it now is."""
        ...

    async def reload(self) -> None:
        """Re-read the whole table from the store. Under the lock."""

    def room_info(self) -> RoomInfo: ...


class Follower:
    """Keeps one room's cache true to the store and to what other processes say."""

    def __init__(self, room: Followed) -> None:
        self.room = room
        self._heard_version = room.table.version  # the newest version a notice spoke of
        self._future_checked = (-1, 0.0)  # (cache version, when) the store was last read for a future one
        self._behind_at_sweep: int | None = None  # the store's version at the last sweep, if it was ahead
        self._following: asyncio.Task[None] | None = None
        self._follow_again = False

    # ----- catching up from the store's log ---------------------------------------------------------------

    async def catch_up_locked(self) -> bool:
        """Bring the cache to the store's version, and show every socket here each step. Moves another
        process committed are read from the log and applied with the engine (as it did); anything else
        (a seat, the lobby, a new game, a cache the log does not lead from) reloads the table. Under the
        lock. True if the table moved."""
        room = self.room
        table = room.table
        after_seq = table.game.moves if table.game is not None else 0
        tail = await room.store.tail(room.code, game_id=table.game_id, after_seq=after_seq)
        if tail is None:
            return False
        self._heard_version = tail.version  # the truth now (a forged notice's version is forgotten)
        if tail.version == table.version:
            return False
        if tail.version > table.version and tail.moves and tail.moves[-1].version == tail.version:
            try:
                for move in tail.moves:
                    self._follow_move(move)
                return True
            except (GameError, Refusal, ValueError, KeyError, TypeError) as exc:
                log.info("room %s: the log does not lead on from the cache (%s); reloading", room.code, exc)
        await room.reload()
        room.show()
        return True

    def _follow_move(self, move: LoggedMove) -> None:
        """One move another process committed, from the log: the same command it ran, then advance."""
        room = self.room
        seat = room.table.seats[move.seat]
        change = table_commands.play(
            room.table, seat=move.seat, action=action_from_dict(move.action), at=move.at,
            client_id=move.client_id,
        )  # fmt: skip
        if change.table.version != move.version:
            raise ValueError(f"the log's move makes version {move.version}, not {change.table.version}")
        made = None if move.client_id is None else (move.client_id, AckRecord(move.seat, move.version))
        room.advance(change.table, at=move.at, ack=made)
        auto = move.client_id is None and not seat.is_bot  # the server played it for a person
        room.show(render.events_by_seat(room.table, change.events, auto=auto))

    async def catch_up(self) -> None:
        """Another writer moved the table on: read what it did, and show it here."""
        async with self.room.lock:
            await self.catch_up_locked()

    async def check_store(self) -> None:
        """With several processes: one indexed read of the store's version, and a catch-up if the cache is
        not at it (the cache may be behind without a notice saying so). In one process the cache is the
        truth and this reads nothing."""
        room = self.room
        if not room.broadcaster.shared:
            return
        try:
            stored = await room.store.version_of(room.code)
            if stored is None or stored == room.table.version:
                return
            async with room.lock:
                await self.catch_up_locked()
        except Exception as exc:  # the store is away: the cache is all there is (no move commits now)
            log.warning("room %s: could not check the table against the store: %s", room.code, exc)

    def heard_store_version(self, version: int, *, at_once: bool) -> None:
        """The manager read the store's version of this table: after a peer fell silent (``at_once``: its
        unpublished notices are lost) a cache behind it catches up now; at the regular sweep only a cache
        still behind what the last sweep read (a notice in flight is not a lost one)."""
        if at_once:
            self.room.chat.forget()  # a line it kept but had not told of is read at the next welcome
        cached = self.room.table.version
        behind_before = self._behind_at_sweep
        self._behind_at_sweep = version if version > cached else None
        if version == cached:
            return
        if at_once or (behind_before is not None and cached < behind_before):
            self.follow_soon()
        elif version < cached:
            self.follow_soon()  # a cache ahead of the store: it is wrong, reload it

    def follow_soon(self) -> None:
        """Catch up in a task of its own (one at a time; one asked for meanwhile runs after)."""
        self._follow_again = True
        if self._following is None or self._following.done():
            self._following = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        while self._follow_again and not self.room.closing:
            self._follow_again = False
            try:
                await self.catch_up()
            except Exception:  # the store is away: the next notice, hello or sweep tries again
                log.exception("room %s: could not catch up with the store", self.room.code)
                return

    # ----- a move's checks against the store --------------------------------------------------------------

    def may_be_behind(self) -> bool:
        """A move says it saw a version newer than the cache: worth a read of the store? Yes if a notice
        spoke of a newer version, or the store has not been read at this cache version in the last
        ``RECHECK_SECONDS`` (a client claiming versions from the future costs at most a few cheap reads a
        second, never a reload each)."""
        cached = self.room.table.version
        if self._heard_version > cached:
            return True
        version, at = self._future_checked
        now = self.room.clock.monotonic()
        if version == cached and now - at < RECHECK_SECONDS:
            return False
        self._future_checked = (cached, now)
        return True

    async def game_unmoved(self) -> bool:
        """The store holds no move of this table's game past the cache's, nor another game. Under the lock."""
        room = self.room
        game = room.table.game
        if game is None or room.table.game_id is None:
            return False
        tail = await room.store.tail(room.code, game_id=room.table.game_id, after_seq=game.moves)
        return tail is not None and tail.game_id == room.table.game_id and not tail.moves

    async def ack_from_store(self, action_id: str, refused: Exception) -> AckRecord:
        """A move refused as stale (or beaten to the store) may be a retry of one applied through another
        process that this cache has not heard of: its ack is read from the log. Otherwise the refusal
        stands. Under the lock."""
        stale = isinstance(refused, VersionConflict) or (
            isinstance(refused, Refusal) and refused.code == "stale_version"
        )
        if not stale or not self.room.broadcaster.shared:
            raise refused
        seen = await self.room.store.ack_of(self.room.code, action_id)
        if seen is None:
            raise refused
        await self.catch_up_locked()
        return seen

    # ----- what other processes say -----------------------------------------------------------------------

    def on_notice(self, notice: Notice) -> None:
        """A notice about this table (this process's own, or another's through Redis), never trusted as
        it comes: see ``peers``."""
        room = self.room
        joined = list(room.presence.joined())
        if notice.kind == "state":
            self._heard_version = max(self._heard_version, notice.version)
            if notice.version != room.table.version:
                self.follow_soon()  # read it from the store (a notice behind us: a cheap check)
        elif notice.kind == "presence":
            said = peers.here_said(
                notice.payload, room.table, max_spectators=room.settings.max_spectators_per_table
            )
            if said is not None:
                self.heard_here(said)
                render.send_presence(room.table, joined, room.room_info())
        elif notice.kind == "chat":
            line = peers.chat_line(notice.payload, room.table, max_length=room.settings.chat_max_length)
            room.chat.heard(line, room.table, now=room.clock.now())  # a welcome reading meanwhile reads again
            self._send_all(joined, None if line is None else encode(line))
        elif notice.kind == "reaction":
            reaction = peers.reaction(notice.payload, room.table)
            room.chat.heard(reaction, room.table, now=room.clock.now())
            self._send_all(joined, None if reaction is None else encode(reaction))
        else:
            log.warning("room %s: ignored a notice of unknown kind %.20r", room.code, notice.kind)

    @staticmethod
    def _send_all(joined: list[Connection], text: str | None) -> None:
        if text is not None:
            for conn in joined:
                conn.send_text(text)

    def heard_here(self, said: peers.HereSaid) -> bool:
        """Another process said who is at the table through it (and who pressed Continue there, and whose
        request has its asker there); True if any of that changed."""
        room = self.room
        if said.process == room.broadcaster.process_id:
            return False
        changed = room.presence.heard(
            said.process,
            seats=said.seats,
            spectators=said.spectators,
            now=room.clock.now(),
            at=room.clock.steady(),
            askers=said.askers,
        )
        # The pause is not stored: merged here, but not while a commit is in flight (it would be lost; the
        # next heartbeat says it again).
        if said.pause is not None and not room.lock.locked():
            table = peers.heard_pause(room.table, said.pause)
            if table is not None:
                room.advance(table, at=room.clock.now())
                changed = True
        if changed:
            room.driver.kick()
        return changed

    def heard_heartbeat(self, said: peers.HereSaid) -> None:
        """Another process's heartbeat about this table: show who is connected if that changed."""
        if self.heard_here(said):
            render.send_presence(self.room.table, list(self.room.presence.joined()), self.room.room_info())

    def forget_silent(self, older_than: float) -> None:
        """Drop what processes not heard from since ``older_than`` (``Clock.steady``) said (they died)."""
        room = self.room
        if room.presence.expire(older_than, room.clock.now()):
            render.send_presence(room.table, list(room.presence.joined()), room.room_info())
            room.driver.kick()

    async def close(self) -> None:
        """Stop a catch-up in flight (the room is closing)."""
        if self._following is not None:
            self._following.cancel()
            await asyncio.gather(self._following, return_exceptions=True)
