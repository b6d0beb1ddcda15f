"""One live table's owner: the lock (the single referee), the ONE transition of its cache (``advance``: a
commit here, moves committed elsewhere, a reload, the unstored pause and ready updates), the ONE commit path
(``commit``), the sockets, and the loop that runs each message's answer. Its other jobs are parts on narrow
protocols (none imports the room): ``follower``, the answers (``answers``, ``hello``, ``playing``), the
server's moves (``server_moves``, by the ``Driver``), the kept chat. See docs/architecture.md."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from app.config import Settings
from app.engine import action_to_dict
from app.metrics import count_applied
from app.protocol import Ack, ActionMessage, ClientMessage, Hello, Resync, RoomInfo
from app.store import AckRecord, LoadedTable, Store, VersionConflict, WriteRefused
from app.table import Change, RecordMove, Refusal, Table, pause
from app.table import commands as table_commands
from app.table.schedule import next_wake

from . import answers, kept_chat, leaving, peers, playing, render, seat_changes, server_moves, talk
from .answers import Terms
from .broadcast import Broadcaster, Notice
from .clock import Clock
from .connection import Connection
from .driver import Driver
from .feed import RoundMoves
from .follower import Follower
from .hello import hello
from .kept_names import asker_of
from .lease import Leases
from .letting_go import let_parts_go
from .limits import Throttle, room_limits
from .outcomes import Answer, Asker, Maker, Reply, Said, Stored
from .presence import Presence
from .tokens import hash_token, new_token

log = logging.getLogger(__name__)

PRESENCE_SECONDS = 0.25
UNSAVED = "the move could not be saved (the database did not answer), so it was not made; try again shortly"
REFUSED = "the database refused to store this change, so nothing was changed"
COMMIT_ATTEMPTS = 3  # seat and lobby commands (no version) retried on the table another process left


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
        self.timing = server_moves.timing_of(settings)
        self.terms = Terms.of(settings, self.timing, shared=broadcaster.shared)
        self.leases = leases  # None: this process drives the table; else only while it holds the lease
        self.driver = Driver(self, clock, leases)
        self.follower = Follower(self)
        self.limits, self.seat_requests = room_limits(settings, clock)
        self.chat = kept_chat.TableChat(store, self.code)  # the recent lines a page is welcomed with (stored)
        self.round_moves = RoundMoves(self.table, loaded.round_moves)  # and this round's moves (the log's)
        self.hints = talk.Hints()
        # Sockets coming and going are told to everyone at most a few times a second (spectator churn).
        self.presence_news = Throttle(PRESENCE_SECONDS, clock, self.publish_presence)
        self._unsubscribe = broadcaster.subscribe(self.code, self.follower.on_notice)

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
        """Pending requests with no socket of their asker at the table, through any process, and since when
        (``SeatRequestGuard.waiting``, ``Presence.unattended_since``)."""
        attended = self.presence.local_askers(self.table) | self.presence.remote_askers()
        waiting = self.seat_requests.waiting(self.table, attended, self.clock.now())
        return self.presence.unattended_since(waiting)

    # ----- the one transition -----------------------------------------------------------------------------

    def advance(
        self, table: Table, *, at: datetime, acks: dict[str, AckRecord] | None = None,
        ack: tuple[str, AckRecord] | None = None,
    ) -> None:  # fmt: skip
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
        self.presence.follow(before, table, at)
        self.driver.kick()

    def show(
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
                await self.reload()
            except Exception:
                log.warning("room %s: the store does not answer either", self.code)
            refused = ("internal_error", REFUSED) if isinstance(exc, WriteRefused) else ("not_ready", UNSAVED)
            raise Refusal(*refused) from exc
        if game_id is not None:
            change = table_commands.with_game_id(change, game_id)
        write, made = change.write, None
        if isinstance(write, RecordMove):
            count_applied(action_to_dict(write.action)["type"])
            if write.client_id is not None:
                made = (write.client_id, AckRecord(write.seat, change.table.version))
        self.advance(change.table, at=change.at, ack=made)
        # The sender is answered first: by an ack message, or (if its hello asked) by the state itself.
        in_state = ack if ack is not None and ack[0].acks_in_state else None
        if ack is not None and in_state is None:
            ack[0].send(Ack(id=ack[1], version=self.table.version))
        shown = self.show(render.events_by_seat(self.table, change.events, auto=change.auto), ack=in_state)
        if not shown and in_state is not None:  # the sender is no longer here: its ack goes on its own
            in_state[0].send(Ack(id=in_state[1], version=self.table.version))
        # Other processes read what changed from the store: the notice only says the version moved.
        await self.broadcaster.publish(Notice(self.code, "state", self.table.version))

    async def commit_fresh(self, make: Maker) -> Change | None:
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
                await self.follower.catch_up_locked()
        return None  # pragma: no cover - the loop returns or raises

    async def reload(self) -> None:
        """Re-read the whole table from the store (the store is the truth), and forget the chat read. Under
        the lock."""
        loaded = await self.store.load_table(self.code)
        if loaded is None:
            return
        if loaded.table.version < self.table.version:
            log.error("room %s: the cache was ahead of the store (%d > %d); reloaded", self.code,
                      self.table.version, loaded.table.version)  # fmt: skip
        # A seat that changed hands in what was reloaded starts its grace period now: the table does not say
        # when (a hand-over is not a move), and now is never earlier than it was.
        self.advance(pause.carry(self.table, loaded.table), at=self.clock.now(), acks=dict(loaded.acks))
        self.round_moves.reset(self.table, loaded.round_moves)
        self.chat.forget()

    async def catch_up(self) -> None:
        await self.follower.catch_up()

    async def check_store(self) -> None:
        await self.follower.check_store()

    async def act(self, now: datetime) -> None:
        await server_moves.act(self, now)

    async def publish_presence(self) -> None:
        said = peers.here(self.broadcaster.process_id, self.table, self.presence)
        await self.broadcaster.publish(Notice(self.code, "presence", self.table.version, said))

    # ----- sockets, and the answer to each message --------------------------------------------------------

    async def attach(self, conn: Connection) -> None:
        self.presence.connections.add(conn)

    async def detach(self, conn: Connection) -> None:
        """A socket went away: presence (or the spectator count) changes for everyone else; the pause may
        end, and a request its asker no longer stands behind goes."""
        if self.presence.leave(conn, self.clock.now()):
            await self.presence_news()
            await self.run(leaving.settle(length=self.timing.round_break))
        self.limits["request"].forget(-conn.id)
        asker = Asker(conn.seat, conn.token_hash, conn.id, conn.address)
        still_here = any(c.token_hash == conn.token_hash for c in self.presence.joined() if c is not conn)
        now = self.clock.now()
        left = leaving.requester_left(self.table, asker, still_here=still_here, at=now)
        if left is not None and not self.closing and conn.token_hash is not None:
            self.seat_requests.unattended(conn.token_hash, now)  # should the withdrawal fail, it goes
            try:
                await self.run(left)
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
        """Pick the answer to ``message`` and run it."""
        if self.closing:
            raise Refusal("not_allowed", playing.RESTARTING)
        if isinstance(message, Hello):
            await hello(self, conn, message)
        elif not conn.joined:
            raise Refusal("bad_message", 'say hello first: {"type": "hello", "token": ...}')
        elif isinstance(message, ActionMessage):
            await playing.action(self, conn, message)
        elif isinstance(message, Resync):
            conn.send_text(self.state_for(conn.seat))
        else:
            asker, now = await asker_of(self.store, conn, message), self.clock.now()
            terms, away, hints = self.terms, self.presence.away, self.hints
            found = answers.answer(self.table, message, asker, now=now, terms=terms, away=away, hints=hints)
            await self.run(found, conn)

    async def run(self, answer: Answer, conn: Connection | None = None) -> None:
        """Count ``answer`` against its rate limit, then: reply to ``conn``; keep what was said in the store,
        then publish it; commit the change through the one path (under the lock); or advance to the
        unstored update and publish the presence."""
        if answer.limit is not None:
            self.limits[answer.limit[0]].check(answer.limit[1])
        if isinstance(answer, Reply):
            if answer.message is not None and conn is not None:
                conn.send(answer.message)
        elif isinstance(answer, Said):  # kept in the store, then published (unheard if it cannot be kept)
            await self.chat.tell(answer, self.table, now=self.clock.now(), publish=self.broadcaster.publish)
        elif isinstance(answer, Stored):
            await self._store(answer, conn)
        else:
            async with self.lock:
                now = self.clock.now()
                table = answer.update(self.table, self.presence.connected_seats(), now)
                if table is None:
                    return
                self.advance(table, at=now)
            await self.publish_presence()

    async def _store(self, answer: Stored, conn: Connection | None = None) -> Change | None:
        """Commit a stored answer under the lock (``outcomes.Stored`` says how); the change, or None."""
        before = None if conn is None else conn.token_hash
        if conn is not None and answer.known_as is not None:
            conn.token_hash = answer.known_as
        make = answer.make if answer.budget is None else self.seat_requests.guard(*answer.budget, answer.make)
        try:
            async with self.lock:
                if answer.host is not None and answer.host != self.table.host_seat:  # made host elsewhere?
                    await self.follower.catch_up_locked()
                declined = seat_changes.asker_of(self.table, answer.declines)
                change = await self.commit_fresh(make)
        except BaseException:
            if conn is not None:
                conn.token_hash = before
            raise
        if change is not None and declined is not None:  # the declined asker waits before asking again
            self.seat_requests.declined(declined)
        if answer.reply is not None and conn is not None:
            conn.send(answer.reply)
        return change

    async def join(
        self, name: str, seat: int | None = None, *, program: bool = False, address: str = "unknown"
    ) -> tuple[int | None, str | None]:
        """REST join: the next open seat; (None, None): watch instead (full or started). With ``seat`` (a
        bot's), a request for it is made for a new token: (None, token); the seat passes once approved."""
        token, now = new_token(), self.clock.now()
        token_hash = hash_token(token)
        change = await self._store(
            seat_changes.joining(name, seat, token_hash=token_hash, address=address, at=now, program=program)
        )
        if seat is not None:
            self.seat_requests.unattended(token_hash, now)  # until a socket says hello with it
            return None, token
        return (None, None) if change is None else (change.seats_taken[0], token)

    async def close(self) -> None:
        """Stop the driver and stop listening (shutdown or eviction); the caller closes the sockets."""
        self._unsubscribe()
        self._unsubscribe = lambda: None
        self.closing = True
        async with self.lock:  # let a move in flight finish and commit; no new one starts once closing
            pass
        await self.follower.close()
        await self.driver.close()
        await self.presence_news.close()
        if self.leases is not None:
            await self.leases.release(self.code)
        let_parts_go(self)  # its parts hold it weakly from now on
