"""One live table: the lock that makes the room the single referee, dispatch, the ONE commit path, and the
ONE transition of the room's cache.

The room's table is a cache of the store. It moves forward only through ``Room._advance``: after a commit
of this process (``commit``), after moves another process committed (read from the store's log by
``_catch_up``, never taken from a notice), after a reload, and for the pause and ready updates that are
not stored. ``_advance`` swaps the table, keeps the acks, moves presence and sockets with the seats, and
wakes the driver; nothing else assigns ``table``.

With several processes (``broadcaster.shared``) the cache may be behind without a notice saying so (the
notice died with the process that committed). It is checked against the store wherever that matters: every
``hello``, a REST read of the table, a retried action id this cache has no ack for, a move that says it saw
a newer version, a driver that takes over the table's lease, and the manager's checks after a peer falls
silent and every second (``heard_store_version``). See docs/scaling.md, "How a cached table is kept true".
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from datetime import datetime

from app.config import Settings
from app.engine import GameError, action_from_dict, action_to_dict
from app.engine.bots import choose_action
from app.metrics import ACTION_LATENCY, count_applied
from app.protocol import (
    Ack,
    ActionMessage,
    AvatarIn,
    ChatIn,
    ClientMessage,
    Continue,
    DeclineSeat,
    Hello,
    HintIn,
    HintOut,
    Leave,
    Ping,
    Pong,
    Practice,
    ReactIn,
    Ready,
    RequestSeat,
    Resync,
    RoomInfo,
    SeatRequested,
    Welcome,
    WithdrawRequest,
    encode,
)
from app.store import AckRecord, LoadedTable, LoggedMove, Store, VersionConflict
from app.table import Change, RecordMove, Refusal, Table, pause
from app.table import commands as table_commands
from app.table.schedule import (
    Timing,
    auto_announcement_due,
    due_move,
    host_handover,
    next_wake,
    unanswered_requests,
)
from app.table.text import clean_name

from . import peers, render, seat_changes, talk
from .broadcast import Broadcaster, Notice
from .clock import Clock
from .connection import CLOSE_POLICY, Connection
from .driver import Driver
from .feed import RoundMoves
from .hello import SPECTATOR, identify
from .lease import Leases
from .limits import SeatLimiter, SeatRequestGuard, Throttle
from .lobby import LobbyMessage
from .presence import Presence
from .tokens import hash_token, new_token

log = logging.getLogger(__name__)

RESTARTING = "the server is restarting; reconnect in a moment and try again"
PRESENCE_SECONDS = 0.25
UNSAVED = "the move could not be saved (the database did not answer), so it was not made; try again shortly"
COMMIT_ATTEMPTS = 3  # seat and lobby commands (no version) retried on the table another process left
BAD_HELLOS = 5  # hellos with a token that is nothing here; then the socket is closed
RECHECK_SECONDS = 0.2  # a move from "the future" reads the store at most this often at one cache version


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
        self.table: Table = loaded.table
        self.acks: dict[str, AckRecord] = dict(loaded.acks)
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
            request_wait_seconds=settings.request_wait_seconds,
        )
        self.leases = leases  # None: this process drives the table; else only while it holds the lease
        self.driver = Driver(self, clock, leases)
        self.chat_limit = SeatLimiter(settings.chat_max_per_10s, clock, "chat lines")
        self.chat = talk.TableChat(store, self.code)  # the recent lines a (re)connecting page gets (stored)
        self.round_moves = RoundMoves(self.table, loaded.round_moves)  # and this round's moves (the log's)
        self.lobby_limit = SeatLimiter(settings.lobby_max_per_10s, clock, "table commands")
        self.request_limit = SeatLimiter(settings.lobby_max_per_10s, clock, "seat requests")
        self.seat_requests = SeatRequestGuard(
            per_table=settings.table_requests_per_10s,
            per_address=settings.address_requests_per_10s,
            cool_down=settings.declined_cool_down_seconds,
            clock=clock,
            watch_from=clock.now(),
        )
        # Sockets coming and going are told to everyone at most a few times a second (spectator churn).
        self.presence_news = Throttle(PRESENCE_SECONDS, clock, self.publish_presence)
        self._hints: dict[int, HintOut] = {}  # seat -> its hint at the table's current version
        self._heard_version = self.table.version  # the newest version a notice spoke of
        self._future_checked = (-1, 0.0)  # (cache version, when) the store was last read for a future one
        self._behind_at_sweep: int | None = None  # the store's version at the last sweep, if it was ahead
        self._following: asyncio.Task[None] | None = None
        self._follow_again = False
        self._unsubscribe = broadcaster.subscribe(self.code, self._on_notice)

    # ----- reads ------------------------------------------------------------------------------------------

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
        away, waiting = self.presence.away(self.table), self.waiting_requests()
        return next_wake(self.table, away, self.presence.announced, self.timing, waiting)

    def waiting_requests(self) -> dict[int, datetime]:
        """Pending requests with no socket of their asker here, and since when. With several processes the
        asker may be on another one (presence carries no tokens): none counts as unattended then."""
        if self.broadcaster.shared:
            return {}
        attended = {c.token_hash for c in self.presence.joined() if c.token_hash is not None}
        return self.seat_requests.waiting(self.table, attended)

    # ----- the one transition -----------------------------------------------------------------------------

    def _advance(
        self,
        table: Table,
        *,
        at: datetime,
        acks: dict[str, AckRecord] | None = None,
        ack: tuple[str, AckRecord] | None = None,
    ) -> None:
        """THE transition of this room's cache: every new table (a commit here, a move another process
        committed, a reload, a pause or ready update) comes through here, and nothing else assigns
        ``table``. ``acks`` replaces the acks (a reload); ``ack`` adds the one a move made; a new game
        starts with none. A person just given a seat starts the grace period at ``at``; sockets follow
        their tokens' seats; the driver looks again."""
        before = self.table
        self.table = table
        if acks is not None:
            self.acks = acks
        elif table.game_id != before.game_id:
            self.acks = {}
        if ack is not None:
            self.acks[ack[0]] = ack[1]
        if table.version != before.version:
            self._hints.clear()
        self.presence.follow(before, table, at)
        self.driver.kick()

    def _show(
        self, events: render.EventsBySeat | None = None, *, ack: tuple[Connection, str] | None = None
    ) -> bool:
        """Every socket here gets the table as it now is (with its seat's face of ``events``); ``ack``'s
        socket gets its action's id in its copy. True if it did (it is here)."""
        events = events or {}
        self.round_moves.add(self.table, events.get(render.seat_key(None), ()))
        return render.send_states(self.table, list(self.presence.joined()), self.room_values(), events, ack)

    # ----- committing -------------------------------------------------------------------------------------

    async def commit(self, change: Change, *, ack: tuple[Connection, str] | None = None) -> None:
        """Make ``change`` durable, then advance to it, answer the sender, show it, publish. Under the lock.
        A stale version raises VersionConflict; any other failure reloads the table and raises."""
        try:
            game_id = await self.store.commit(change)
        except VersionConflict:
            raise
        except Exception as exc:  # the database is away (or refused): nothing is acknowledged
            log.exception("room %s: could not commit a change; reloading from the store", self.code)
            try:
                await self._reload()
            except Exception:
                log.warning("room %s: the store does not answer either", self.code)
            raise Refusal("not_ready", UNSAVED) from exc
        if game_id is not None:
            change = table_commands.with_game_id(change, game_id)
        write, made = change.write, None
        if isinstance(write, RecordMove):
            count_applied(action_to_dict(write.action)["type"])
            if write.client_id is not None:
                made = (write.client_id, AckRecord(write.seat, change.table.version))
        self._advance(change.table, at=change.at, ack=made)
        # The sender is answered first: by an ack message, or (if its hello asked) by the state itself.
        in_state = ack if ack is not None and ack[0].acks_in_state else None
        if ack is not None and in_state is None:
            ack[0].send(Ack(id=ack[1], version=self.table.version))
        shown = self._show(render.events_by_seat(self.table, change.events, auto=change.auto), ack=in_state)
        if not shown and in_state is not None:  # the sender is no longer here: its ack goes on its own
            in_state[0].send(Ack(id=in_state[1], version=self.table.version))
        # Other processes read what changed from the store: the notice only says the version moved.
        await self.broadcaster.publish(Notice(self.code, "state", self.table.version))

    async def _commit_fresh(self, make: seat_changes.Maker) -> Change | None:
        """Commit the change ``make`` gives for the table as it is (None: nothing to do). Seat and lobby
        commands carry no version: on a table another process moved, they are made again on the new one.
        Under the lock."""
        for attempt in range(COMMIT_ATTEMPTS):
            change = make(self.table)
            if change is None:
                return None
            try:
                await self.commit(change)
                return change
            except VersionConflict:  # another process changed the table; read what it did
                if attempt == COMMIT_ATTEMPTS - 1:
                    raise
                await self._catch_up()
        return None  # pragma: no cover - the loop returns or raises

    # ----- keeping the cache true -------------------------------------------------------------------------

    async def _reload(self) -> None:
        """Re-read the whole table from the store (the store is the truth). Under the lock."""
        loaded = await self.store.load_table(self.code)
        if loaded is None:
            return
        if loaded.table.version < self.table.version:
            log.error("room %s: the cache was ahead of the store (%d > %d); reloaded", self.code,
                      self.table.version, loaded.table.version)  # fmt: skip
        # A seat that changed hands in what was reloaded starts its grace period now: the table does not say
        # when (a hand-over is not a move), and now is never earlier than it was.
        self._advance(pause.carry(self.table, loaded.table), at=self.clock.now(), acks=dict(loaded.acks))
        self.round_moves.reset(self.table, loaded.round_moves)

    async def _catch_up(self) -> bool:
        """Bring the cache to the store's version, and show every socket here each step. Moves another
        process committed are read from the log and applied with the engine (as it did); anything else
        (a seat, the lobby, a new game, a cache the log does not lead from) reloads the table. Under the
        lock. True if the table moved."""
        table = self.table
        after_seq = table.game.moves if table.game is not None else 0
        tail = await self.store.tail(self.code, game_id=table.game_id, after_seq=after_seq)
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
                log.info("room %s: the log does not lead on from the cache (%s); reloading", self.code, exc)
        await self._reload()
        self._show()
        return True

    def _follow_move(self, move: LoggedMove) -> None:
        """One move another process committed, from the log: the same command it ran, then advance."""
        seat = self.table.seats[move.seat]
        change = table_commands.play(
            self.table, seat=move.seat, action=action_from_dict(move.action), at=move.at,
            client_id=move.client_id,
        )  # fmt: skip
        if change.table.version != move.version:
            raise ValueError(f"the log's move makes version {move.version}, not {change.table.version}")
        made = None if move.client_id is None else (move.client_id, AckRecord(move.seat, move.version))
        self._advance(change.table, at=move.at, ack=made)
        auto = move.client_id is None and not seat.is_bot  # the server played it for a person
        self._show(render.events_by_seat(self.table, change.events, auto=auto))

    async def catch_up(self) -> None:
        """Another writer moved the table on: read what it did, and show it here."""
        async with self.lock:
            await self._catch_up()

    async def check_store(self) -> None:
        """With several processes: one indexed read of the store's version, and a catch-up if the cache is
        not at it (the cache may be behind without a notice saying so). In one process the cache is the
        truth and this reads nothing."""
        if not self.broadcaster.shared:
            return
        try:
            stored = await self.store.version_of(self.code)
            if stored is None or stored == self.table.version:
                return
            async with self.lock:
                await self._catch_up()
        except Exception as exc:  # the store is away: the cache is all there is (no move commits now)
            log.warning("room %s: could not check the table against the store: %s", self.code, exc)

    def heard_store_version(self, version: int, *, at_once: bool) -> None:
        """The manager read the store's version of this table: after a peer fell silent (``at_once``: its
        unpublished notices are lost) a cache behind it catches up now; at the regular sweep only a cache
        still behind what the last sweep read (a notice in flight is not a lost one)."""
        behind_before = self._behind_at_sweep
        self._behind_at_sweep = version if version > self.table.version else None
        if version == self.table.version:
            return
        if at_once or (behind_before is not None and self.table.version < behind_before):
            self.follow_soon()
        elif version < self.table.version:
            self.follow_soon()  # a cache ahead of the store: it is wrong, reload it

    def follow_soon(self) -> None:
        """Catch up in a task of its own (one at a time; one asked for meanwhile runs after)."""
        self._follow_again = True
        if self._following is None or self._following.done():
            self._following = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        while self._follow_again and not self.closing:
            self._follow_again = False
            try:
                await self.catch_up()
            except Exception:  # the store is away: the next notice, hello or sweep tries again
                log.exception("room %s: could not catch up with the store", self.code)
                return

    # ----- what other processes say -----------------------------------------------------------------------

    def _on_notice(self, notice: Notice) -> None:
        """A notice about this table (this process's own, or another's through Redis), never trusted as
        it comes: see ``peers``."""
        joined = list(self.presence.joined())
        if notice.kind == "state":
            self._heard_version = max(self._heard_version, notice.version)
            if notice.version != self.table.version:
                self.follow_soon()  # read it from the store (a notice behind us: a cheap check)
        elif notice.kind == "presence":
            said = peers.here_said(
                notice.payload, self.table, max_spectators=self.settings.max_spectators_per_table
            )
            if said is not None:
                self.heard_here(said)
                render.send_presence(self.table, joined, self.room_info())
        elif notice.kind == "chat":
            self.chat.heard_one()
            line = peers.chat_line(notice.payload, self.table, max_length=self.settings.chat_max_length)
            self._send_all(joined, None if line is None else encode(line))
        elif notice.kind == "reaction":
            self.chat.heard_one()
            reaction = peers.reaction(notice.payload, self.table)
            self._send_all(joined, None if reaction is None else encode(reaction))
        else:
            log.warning("room %s: ignored a notice of unknown kind %.20r", self.code, notice.kind)

    @staticmethod
    def _send_all(joined: list[Connection], text: str | None) -> None:
        if text is not None:
            for conn in joined:
                conn.send_text(text)

    def heard_here(self, said: peers.HereSaid) -> bool:
        """Another process said who is at the table through it (and who pressed Continue there); True if
        who is connected, or the pause, changed."""
        if said.process == self.broadcaster.process_id:
            return False
        changed = self.presence.heard(
            said.process,
            seats=said.seats,
            spectators=said.spectators,
            now=self.clock.now(),
            at=self.clock.monotonic(),
        )
        # The pause is not stored: merged here, but not while a commit is in flight (it would be lost; the
        # next heartbeat says it again).
        if said.pause is not None and not self.lock.locked():
            table = peers.heard_pause(self.table, said.pause)
            if table is not None:
                self._advance(table, at=self.clock.now())
                changed = True
        if changed:
            self.driver.kick()
        return changed

    def heard_heartbeat(self, said: peers.HereSaid) -> None:
        """Another process's heartbeat about this table: show who is connected if that changed."""
        if self.heard_here(said):
            render.send_presence(self.table, list(self.presence.joined()), self.room_info())

    def forget_silent(self, older_than: float) -> None:
        """Drop what processes not heard from since ``older_than`` (monotonic) said (they died)."""
        if self.presence.expire(older_than, self.clock.now()):
            render.send_presence(self.table, list(self.presence.joined()), self.room_info())
            self.driver.kick()

    async def publish_presence(self) -> None:
        said = peers.here(self.broadcaster.process_id, self.table, self.presence)
        await self.broadcaster.publish(Notice(self.code, "presence", self.table.version, said))

    # ----- sockets ----------------------------------------------------------------------------------------

    async def attach(self, conn: Connection) -> None:
        self.presence.connections.add(conn)

    async def detach(self, conn: Connection) -> None:
        """A socket went away: presence (or the spectator count) changes for everyone else."""
        if self.presence.leave(conn, self.clock.now()):
            await self.presence_news()
            await self._settle_pause()
        try:
            await self._requester_left(conn)
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
            await self._hello(conn, message)
        elif not conn.joined:
            raise Refusal("bad_message", 'say hello first: {"type": "hello", "token": ...}')
        elif isinstance(message, ActionMessage):
            await self._action(conn, message)
        elif isinstance(message, Ping):
            conn.send(Pong())
        elif isinstance(message, Resync):
            conn.send_text(self.state_for(conn.seat))
        elif isinstance(message, ChatIn):
            now = self.clock.now()
            line = talk.chat_line(
                self.table, conn.seat, message, now=now, max_length=self.settings.chat_max_length
            )
            self.chat_limit.check(line.seat)
            said = Notice(self.code, "chat", self.table.version, line.model_dump())
            await self.chat.say(talk.record(line, at=now), lambda: self.broadcaster.publish(said))
        elif isinstance(message, ReactIn):
            reaction = talk.reaction(conn.seat, message)
            self.chat_limit.check(reaction.seat)  # counted with the chat lines
            reacted = Notice(self.code, "reaction", self.table.version, reaction.model_dump())
            kept = talk.reaction_record(self.table, reaction, now=self.clock.now())
            await self.chat.say(kept, lambda: self.broadcaster.publish(reacted))
        elif isinstance(message, HintIn):
            self._hint(conn)
        elif isinstance(message, RequestSeat | WithdrawRequest):
            await self._seat_request(conn, message)
        elif isinstance(message, Continue):
            await self._continue_round(conn)
        elif isinstance(message, Ready):
            await self._ready(conn)
        elif isinstance(message, Practice):
            await self._practice(conn, message)
        elif isinstance(message, AvatarIn):
            await self._avatar(conn, message)
        elif isinstance(message, Leave):
            await self._leave(conn)
        else:
            await self._lobby(conn, message)

    async def _hello(self, conn: Connection, hello: Hello) -> None:
        """The socket joins as its token's seat (or watches); everyone hears the presence. With several
        processes the cache is checked against the store first, however fresh it looks: a table the
        socket gets is never older than the store's."""
        if conn.joined:
            raise Refusal("bad_message", "hello was said already on this connection")
        await self.check_store()
        chat = await self.chat.recent()  # the last await before the socket joins: later lines reach it live
        identity = SPECTATOR
        if hello.token:
            wanted = hash_token(hello.token)
            found = identify(self.table, wanted)
            if found is None:
                refusal = Refusal("bad_token", "this token is not a seat of this room; join again or watch")
                conn.bad_hellos += 1
                if conn.bad_hellos < BAD_HELLOS:
                    raise refusal
                conn.refuse(refusal)  # and no more guesses on this socket
                conn.close(CLOSE_POLICY)
                return
            identity = found
            conn.token_hash = wanted
        seat = identity.seat
        if seat is None and self.presence.spectator_count() >= self.settings.max_spectators_per_table:
            raise Refusal("not_allowed", "this table has as many spectators as it takes; try again later")
        conn.acks_in_state = hello.acks == "in_state"
        self.presence.join(conn, seat)
        host = seat is not None and seat == self.table.host_seat
        welcome = Welcome(
            room=self.code, seat=seat, you_are_host=host, requested_seat=identity.requested, chat=chat or None
        )
        conn.send_text(self.round_moves.welcome_text(welcome, self.table))  # with the round's moves
        self.driver.kick()
        if not await self.presence_news():  # coalesced with others: this socket hears it at once
            conn.send_text(render.presence_text(self.table, self.room_info()))
        if hello.last_version != self.table.version:
            conn.send_text(self.state_for(seat))

    async def _action(self, conn: Connection, message: ActionMessage) -> None:
        if conn.seat is None:
            raise Refusal("not_seated", "spectators cannot play; join a seat first")
        started = time.perf_counter()
        async with self.lock:
            if self.closing:
                raise Refusal("not_allowed", RESTARTING)
            if message.version is not None and message.version > self.table.version and self._may_be_behind():
                await self._catch_up()  # the client has seen a newer table: notices were missed
            seen = self.acks.get(message.id)
            for attempt in range(2):
                if seen is not None:
                    break
                try:
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
                    return
                except VersionConflict as exc:  # another process committed first: if not to the game (a
                    if attempt == 0 and await self._game_unmoved():  # seat request, say), made again
                        await self._catch_up()
                        seen = self.acks.get(message.id)
                        continue
                    seen = await self._ack_from_store(message.id, exc)
                except Refusal as exc:
                    seen = await self._ack_from_store(message.id, exc)
            assert seen is not None
            if seen.seat != conn.seat:
                raise Refusal("bad_message", f"action id {message.id!r} was used by another seat")
            conn.send(Ack(id=message.id, version=seen.version))  # a retry: never applied twice

    def _may_be_behind(self) -> bool:
        """A move says it saw a version newer than the cache: worth a read of the store? Yes if a notice
        spoke of a newer version, or the store has not been read at this cache version in the last
        ``RECHECK_SECONDS`` (a client claiming versions from the future costs at most a few cheap reads a
        second, never a reload each)."""
        if self._heard_version > self.table.version:
            return True
        version, at = self._future_checked
        now = self.clock.monotonic()
        if version == self.table.version and now - at < RECHECK_SECONDS:
            return False
        self._future_checked = (self.table.version, now)
        return True

    async def _game_unmoved(self) -> bool:
        """The store holds no move of this table's game past the cache's, nor another game. Under the lock."""
        game = self.table.game
        if game is None or self.table.game_id is None:
            return False
        tail = await self.store.tail(self.code, game_id=self.table.game_id, after_seq=game.moves)
        return tail is not None and tail.game_id == self.table.game_id and not tail.moves

    async def _ack_from_store(self, action_id: str, refused: Exception) -> AckRecord:
        """A move refused as stale (or beaten to the store) may be a retry of one applied through another
        process that this cache has not heard of: its ack is read from the log. Otherwise the refusal
        stands. Under the lock."""
        stale = isinstance(refused, VersionConflict) or (
            isinstance(refused, Refusal) and refused.code == "stale_version"
        )
        if not stale or not self.broadcaster.shared:
            raise refused
        seen = await self.store.ack_of(self.code, action_id)
        if seen is None:
            raise refused
        await self._catch_up()
        return seen

    def _hint(self, conn: Connection) -> None:
        """The best discard, to this socket only; one search per seat and version however often asked."""
        hint = self._hints.get(conn.seat) if conn.seat is not None else None
        if hint is None:
            hint = talk.hint(self.table, conn.seat)
            self._hints[conn.seat] = hint  # type: ignore[index]  # talk.hint refused a spectator
        conn.send(hint)

    # ----- seats, requests and the lobby ------------------------------------------------------------------

    async def join(
        self, name: str, seat: int | None = None, *, program: bool = False, address: str = "unknown"
    ) -> tuple[int | None, str | None]:
        """REST join: the next open seat; (None, None): watch instead (full or started). With ``seat`` (a
        bot's), a request for it is made for a new token: (None, token); the seat passes once approved."""
        token = new_token()
        now = self.clock.now()
        async with self.lock:
            if seat is not None:
                asker = hash_token(token)
                await self._commit_fresh(
                    self.seat_requests.guard(
                        address,
                        asker,
                        seat_changes.request_seat(index=seat, name=name, token_hash=asker, at=now),
                    )
                )
                self.seat_requests.unattended(asker, now)  # until a socket says hello with it
                return None, token
            change = await self._commit_fresh(
                seat_changes.join(name=name, token_hash=hash_token(token), at=now, program=program)
            )
        return (None, None) if change is None else (change.seats_taken[0], token)

    async def _seat_request(self, conn: Connection, message: RequestSeat | WithdrawRequest) -> None:
        """A spectator asks for a bot's seat (or takes the request back). One who has no token is given
        one: it identifies the request, and opens the seat once it passes."""
        if conn.seat is not None:
            raise Refusal("already_seated", f"you play seat {conn.seat} already; one person holds one seat")
        self.request_limit.check(-conn.id)  # spectators have no seat: each socket is limited on its own
        now = self.clock.now()
        if isinstance(message, WithdrawRequest):
            if conn.token_hash is not None:
                async with self.lock:
                    await self._commit_fresh(
                        seat_changes.withdraw_request(token_hash=conn.token_hash, at=now)
                    )
            return
        name = None
        if message.name is not None:
            name = clean_name(message.name, max_length=self.settings.max_name_length, code="bad_message")
        before, token = conn.token_hash, None
        if before is None:
            token = new_token()
        token_hash = before if before is not None else hash_token(token or "")
        conn.token_hash = token_hash  # known by its token first: a seat handed over at once finds it
        try:
            async with self.lock:
                await self._commit_fresh(
                    self.seat_requests.guard(
                        conn.address,
                        token_hash,
                        seat_changes.request_seat(
                            index=message.seat, name=name, token_hash=token_hash, at=now
                        ),
                    )
                )
        except BaseException:
            conn.token_hash = before
            raise
        conn.send(SeatRequested(seat=message.seat, token=token))

    async def _requester_left(self, conn: Connection) -> None:
        """A spectator that asked for a seat went away: with no other socket of theirs here, it goes."""
        self.request_limit.forget(-conn.id)
        token_hash = conn.token_hash
        if conn.seat is not None or token_hash is None or self.closing:
            return
        if any(c.token_hash == token_hash for c in self.presence.joined() if c is not conn):
            return
        if not seat_changes.unanswered_request(self.table, token_hash):
            return
        self.seat_requests.unattended(token_hash, self.clock.now())  # should the withdrawal fail, it goes
        async with self.lock:
            await self._commit_fresh(
                seat_changes.withdraw_request(token_hash=token_hash, at=self.clock.now())
            )

    async def _lobby(self, conn: Connection, message: LobbyMessage) -> None:
        """The host's lobby commands (rate-limited per seat). Who the host is, is judged on the table each
        attempt is made on: the role may have moved through another process since this cache was read."""
        seat = conn.seat
        if seat is None:
            raise Refusal("not_seated", "only the host can do that; spectators cannot")
        if seat != self.table.host_seat and not self.broadcaster.shared:  # one process: the cache is true
            raise Refusal("not_host", seat_changes.NOT_HOST)
        self.lobby_limit.check(seat)
        async with self.lock:
            if seat != self.table.host_seat and self.broadcaster.shared:  # made host elsewhere just now?
                await self._catch_up()
            asker = None
            if isinstance(message, DeclineSeat) and 0 <= message.seat < len(self.table.seats):
                claim = self.table.seats[message.seat].claim
                asker = None if claim is None else claim.token_hash
            change = await self._commit_fresh(seat_changes.lobby(seat, message, self.clock.now()))
        if change is not None and asker is not None:  # the declined asker waits before asking again
            self.seat_requests.declined(asker)

    async def _practice(self, conn: Connection, message: Practice) -> None:
        """A seated person plays their own seat for practice, or counts it again (rate-limited like the
        lobby's commands)."""
        seat = conn.seat
        if seat is None:
            raise Refusal("not_seated", "only players at the table choose practice for their seat")
        self.lobby_limit.check(seat)
        async with self.lock:
            await self._commit_fresh(seat_changes.practice(seat, on=message.on, at=self.clock.now()))

    async def _avatar(self, conn: Connection, message: AvatarIn) -> None:
        """A seated person shows a face at their own seat, in the lobby or during a game (rate-limited like
        the lobby's commands). The seat is the one their token holds on the table it is tried on."""
        seat, token_hash = conn.seat, conn.token_hash
        if seat is None or token_hash is None:
            raise Refusal("not_seated", "only players at the table pick an avatar, for their own seat")
        self.lobby_limit.check(seat)
        at = self.clock.now()

        def make(table: Table) -> Change | None:
            held = table.holder(token_hash)
            if held is None:
                raise Refusal("not_seated", "your seat is no longer yours; only players pick an avatar")
            return seat_changes.avatar(held.index, avatar=message.avatar, at=at)(table)

        async with self.lock:
            await self._commit_fresh(make)

    async def _leave(self, conn: Connection) -> None:
        """A seated person leaves the table: a bot plays their seat, the host role passes on, and every tab
        of theirs watches from now on (``presence.follow`` tells them)."""
        seat, token_hash = conn.seat, conn.token_hash
        if seat is None or token_hash is None:
            raise Refusal("not_seated", "only players at the table can leave it")
        self.lobby_limit.check(seat)

        def make(table: Table) -> Change | None:
            held = table.holder(token_hash)
            if held is None:  # handed to a bot already (through another process, say): nothing to do
                return None
            return seat_changes.leave(held.index, at=self.clock.now(), away=self.presence.away)(table)

        async with self.lock:
            await self._commit_fresh(make)

    # ----- the pause between rounds, and the lobby's ready check (not stored) -----------------------------

    async def _continue_round(self, conn: Connection) -> None:
        """A player pressed Continue on the round's results: everyone sees it, and the pause ends once every
        present player has. Outside a pause it is ignored."""
        if conn.seat is None:
            raise Refusal("not_seated", "only players at the table can continue; spectators wait")
        async with self.lock:
            now = self.clock.now()
            table = pause.continue_round(
                self.table, seat=conn.seat, present=self.presence.connected_seats(),
                length=self.timing.round_break, now=now,
            )  # fmt: skip
            if table is None:
                return
            self._advance(table, at=now)
        await self.publish_presence()

    async def _ready(self, conn: Connection) -> None:
        """A seated person says they are in for the next game (the lobby's ready check)."""
        if conn.seat is None:
            raise Refusal("not_seated", "only players at the table can say they are ready")
        self.lobby_limit.check(conn.seat)
        async with self.lock:
            table = pause.ready(self.table, seat=conn.seat)
            if table is None:
                return
            self._advance(table, at=self.clock.now())
        await self.publish_presence()

    async def _settle_pause(self) -> None:
        """Someone left: the pause ends if everyone still present has pressed Continue."""
        async with self.lock:
            now = self.clock.now()
            table = pause.settle(
                self.table, present=self.presence.connected_seats(), length=self.timing.round_break, now=now
            )
            if table is None:
                return
            self._advance(table, at=now)
        await self.publish_presence()

    # ----- the server's own moves -------------------------------------------------------------------------

    async def act(self, now: datetime) -> None:
        """The driver's call: hand the host role on when the host is gone, play the move that is due (a
        bot's, or one for a person out of time or away) through the same command and commit as anyone's,
        and announce seats whose grace period just ended."""
        away = self.presence.away(self.table)
        if announce := auto_announcement_due(self.table, away, self.presence.announced, now, self.timing):
            self.presence.announced = now
        async with self.lock:
            now = self.clock.now()
            successor = host_handover(self.table, self.presence.away(self.table), now, self.timing)
            if successor is not None and not self.closing:
                await self.commit(
                    table_commands.make_host(self.table, index=successor, at=now, handover=True)
                )
            for index in unanswered_requests(self.table, self.waiting_requests(), now, self.timing):
                if not self.closing:  # nobody has been behind it for a while: it goes
                    await self.commit(table_commands.drop_request(self.table, index=index, at=now))
            due = due_move(self.table, self.presence.away(self.table), now, self.timing)
            if self.closing or due is None or self.table.game is None:
                if announce:
                    await self.publish_presence()
                return
            action = choose_action(self.table.game, due.seat, due.level, self.table.game_seed)
            change = table_commands.play(self.table, seat=due.seat, action=action, at=now)
            auto = not self.table.seats[due.seat].is_bot
            await self.commit(replace(change, auto=auto))

    async def close(self) -> None:
        """Stop the driver and stop listening (shutdown or eviction); the caller closes the sockets."""
        self._unsubscribe()
        self._unsubscribe = lambda: None
        self.closing = True
        async with self.lock:  # let a move in flight finish and commit; no new one starts once closing
            pass
        if self._following is not None:
            self._following.cancel()
            await asyncio.gather(self._following, return_exceptions=True)
        await self.driver.close()
        await self.presence_news.close()
        if self.leases is not None:
            await self.leases.release(self.code)
