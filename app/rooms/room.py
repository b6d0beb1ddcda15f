"""One live table: seats, sockets, the lock that makes the room the single referee, bots, broadcasts.

Every change goes: validate → engine → store (commit) → in-memory state → ack → broadcast. The in-memory
state is a cache of the store, changed only after a commit succeeded.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from app.config import Settings
from app.engine import (
    Action,
    Draw,
    Event,
    GameState,
    Options,
    action_from_dict,
    action_to_dict,
    apply,
    new_game,
    view_for,
)
from app.engine.bots import choose_action
from app.metrics import ACTION_LATENCY, ACTIONS_APPLIED
from app.protocol import (
    Ack,
    ActionMessage,
    AddBot,
    BotSeat,
    ChatIn,
    ChatOut,
    ClientMessage,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    Rematch,
    RemoveSeat,
    Resync,
    RoomInfo,
    SeatInfo,
    SetOptions,
    Start,
    StateMessage,
    Welcome,
    encode,
    wire_error,
)
from app.store import AckRecord, GameRecord, RoomRecord, RoundScore, SeatRecord, Store, VersionConflict

from .broadcast import Broadcaster, Notice
from .clock import Clock
from .connection import Connection
from .tokens import hash_token, new_token, token_matches

log = logging.getLogger(__name__)


BOT_MAX_FAILURES = 5  # then the bots wait for the next change at the table (or a reload)
BOT_RETRY_SECONDS = 1.0
RESTARTING = "the server is restarting; reconnect in a moment and try again"


class RoomStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"


TRANSITIONS: dict[RoomStatus, frozenset[RoomStatus]] = {
    RoomStatus.LOBBY: frozenset({RoomStatus.PLAYING}),
    RoomStatus.PLAYING: frozenset({RoomStatus.FINISHED}),
    RoomStatus.FINISHED: frozenset({RoomStatus.PLAYING}),
}


class WrongStatus(ProtocolError):
    """A room operation in the wrong lifecycle status; the message names what was expected and what is."""

    def __init__(self, doing: str, expected: RoomStatus, actual: RoomStatus) -> None:
        super().__init__(
            "wrong_status",
            f"cannot {doing} while the room is {actual.value}; the room must be {expected.value}",
        )
        self.expected, self.actual = expected, actual


def clean_text(text: str, *, max_length: int, what: str, code: str = "bad_message") -> str:
    """Strip; refuse empty, too long, or control/format characters (names and chat lines)."""
    text = text.strip()
    if not text:
        raise ProtocolError(code, f"the {what} is empty")
    if len(text) > max_length:
        raise ProtocolError(code, f"the {what} is longer than {max_length} characters")
    if any(
        unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") and ch not in "\u200c\u200d" for ch in text
    ):
        raise ProtocolError(code, f"the {what} contains control characters")
    return text


def _seat_key(seat: int | None) -> str:
    return "spectator" if seat is None else str(seat)


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


AUTO_LEVEL = "normal"  # how the server plays a turn for a person (timer ran out, or away)


@dataclass(slots=True)
class Seat:
    index: int
    name: str
    is_bot: bool = False
    bot_level: str | None = None
    token_hash: str | None = None


class Room:
    """The referee of one table. Mutations run under ``lock``; reads and sends never await."""

    def __init__(
        self,
        record: RoomRecord,
        *,
        store: Store,
        settings: Settings,
        clock: Clock,
        broadcaster: Broadcaster,
    ) -> None:
        self.code = record.code
        self.store, self.settings, self.clock, self.broadcaster = store, settings, clock, broadcaster
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self._bot_task: asyncio.Task[None] | None = None
        self._timer_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # set on every change: the timer task looks at the table again
        self._chat_times: dict[int, deque[float]] = {}
        self.closing = False
        # Presence is this process's own (its sockets): a seat nobody has opened here counts as away since
        # the room was loaded, so after a restart the grace period starts again for everyone.
        self._watch_from = clock.now()
        self._away: dict[int, datetime] = {}  # seat -> when its last socket closed
        self._auto_announced = self._watch_from  # grace expiries up to here were broadcast (auto: true)
        self._load(record)
        self._unsubscribe = broadcaster.subscribe(self.code, self._on_notice)

    def _load(self, record: RoomRecord) -> None:
        self.status = RoomStatus(record.status)
        self.version = record.version
        self.host_seat = record.host_seat
        self.seat_count = record.seat_count
        self.options = dict(record.options)
        self.seats = [Seat(s.index, s.name, s.is_bot, s.bot_level, s.token_hash) for s in record.seats]
        self.game: GameState | None = None
        self.game_id: int | None = None
        self.game_number: int | None = None
        self.game_seed = 0
        self.acks: dict[str, AckRecord] = {}
        # When the seat to act got the turn: the commit time of the last discard (or of the game's start),
        # so the turn timer is derived from the store and survives a restart or a move to another process.
        self.turn_started = self.clock.now()
        if record.game is not None:
            self.game = GameState.from_dict(record.game.state)
            self.game_id, self.game_number = record.game.id, record.game.number
            self.game_seed = record.game.seed
            self.acks = dict(record.game.acks)
            self._turn_start_from_log(record.game)

    def _turn_start_from_log(self, game: GameRecord) -> None:
        """When the seat to act got the turn: the commit time of the last discard, or the game's start."""
        self.turn_started = game.created_at or self.turn_started
        for record in game.actions:
            if record.action.get("type") != "draw" and record.created_at is not None:
                self.turn_started = record.created_at

    async def reload(self) -> None:
        """Re-read the room from the store (after a failed write: the store is the truth)."""
        record = await self.store.load_room(self.code)
        if record is not None:
            self._load(record)
            self.kick_timers()

    # ----- lifecycle -----------------------------------------------------------------------------------

    def _transition(self, doing: str, expected: RoomStatus, target: RoomStatus) -> None:
        if self.status is not expected:
            raise WrongStatus(doing, expected, self.status)
        assert target in TRANSITIONS[expected]
        self.status = target

    def _expect(self, doing: str, expected: RoomStatus) -> None:
        if self.status is not expected:
            raise WrongStatus(doing, expected, self.status)

    async def close(self) -> None:
        """Stop bots and stop listening (server shutdown or eviction); sockets are closed by the caller."""
        self._unsubscribe()
        self._unsubscribe = lambda: None
        self.closing = True
        async with self.lock:  # let a move in flight finish and commit; no new one starts once closing
            for task in (self._bot_task, self._timer_task):
                if task is not None:
                    task.cancel()
        tasks = [t for t in (self._bot_task, self._timer_task) if t is not None]
        await asyncio.gather(*tasks, return_exceptions=True)

    # ----- what clients see ----------------------------------------------------------------------------

    def connected_seats(self) -> set[int]:
        return {c.seat for c in self.connections if c.joined and c.seat is not None}

    def spectator_count(self) -> int:
        return sum(1 for c in self.connections if c.joined and c.seat is None)

    def room_info(self) -> RoomInfo:
        connected = self.connected_seats()
        auto = self.auto_seats(connected)
        deadline = self.turn_deadline()
        return RoomInfo(
            code=self.code,
            status=self.status.value,
            host_seat=self.host_seat,
            seat_count=self.seat_count,
            seats=[
                SeatInfo(
                    seat=s.index,
                    name=s.name,
                    bot=s.is_bot,
                    bot_level=s.bot_level,
                    connected=s.is_bot or s.index in connected,
                    auto=s.index in auto,
                )
                for s in self.seats
            ],
            options=dict(self.options),
            spectators=self.spectator_count(),
            game_id=self.game_id,
            game_number=self.game_number,
            turn_deadline=None if deadline is None else _iso(deadline),
            server_time=_iso(self.clock.now()),
        )

    def state_for(
        self, seat: int | None, info: RoomInfo | None = None, events: list[dict[str, Any]] | None = None
    ) -> str:
        """The encoded state message for one seat (None: spectator): the only way a game leaves the room."""
        game = None if self.game is None else view_for(self.game, seat)
        message = StateMessage(
            version=self.version, room=info or self.room_info(), game=game, events=events or []
        )
        return encode(message)

    def _on_notice(self, notice: Notice) -> None:
        """Fan a notice out to this process's sockets, rendering each seat's own view once."""
        if notice.kind == "chat":
            text = encode(ChatOut(**notice.payload))
            for conn in self.connections:
                if conn.joined:
                    conn.send_text(text)
            return
        events: dict[str, list[dict[str, Any]]] = notice.payload.get("events", {})
        info = self.room_info()
        rendered: dict[int | None, str] = {}
        for conn in self.connections:
            if not conn.joined:
                continue
            if conn.seat not in rendered:
                rendered[conn.seat] = self.state_for(conn.seat, info, events.get(_seat_key(conn.seat)))
            conn.send_text(rendered[conn.seat])

    async def _broadcast(self, events: Sequence[Event] = ()) -> None:
        """Publish that the table changed; events are filtered per seat here, so a notice is plain JSON."""
        by_seat: dict[str, list[dict[str, Any]]] = {}
        if events:
            for seat in [None, *range(len(self.seats))]:
                by_seat[_seat_key(seat)] = [e.for_seat(seat) for e in events]
        await self.broadcaster.publish(Notice(self.code, "state", self.version, {"events": by_seat}))

    # ----- sockets -------------------------------------------------------------------------------------

    async def attach(self, conn: Connection) -> None:
        self.connections.add(conn)

    async def detach(self, conn: Connection) -> None:
        """A socket went away: presence (or the spectator count) changes for everyone else."""
        was_joined = conn in self.connections and conn.joined
        self.connections.discard(conn)
        if conn.seat is not None and conn.seat not in self.connected_seats():
            self._away[conn.seat] = self.clock.now()  # the grace period starts
            self.kick_timers()
        if was_joined:
            await self._broadcast()

    async def handle(self, conn: Connection, message: ClientMessage) -> None:
        """Act on one parsed client message; every refusal becomes an error to this socket only."""
        action_id = message.id if isinstance(message, ActionMessage) else None
        try:
            try:
                await self._dispatch(conn, message)
            except VersionConflict:
                # Another writer (a second server process) moved the table on: catch up from the store.
                async with self.lock:
                    await self.reload()
                raise ProtocolError(
                    "stale_version", "the table moved on; here is its current state"
                ) from None
        except Exception as exc:  # one place turns refusals (and bugs) into wire errors
            try:
                conn.send(wire_error(exc, id=action_id))
            except ValueError:  # e.g. text that cannot be encoded: answer without echoing it
                conn.send(wire_error(ProtocolError("bad_message", "the message could not be answered")))
            if isinstance(exc, ProtocolError) and exc.code == "stale_version":
                conn.send_text(self.state_for(conn.seat))

    async def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if self.closing:
            raise ProtocolError("not_allowed", RESTARTING)
        if isinstance(message, Hello):
            await self._hello(conn, message)
            return
        if not conn.joined:
            raise ProtocolError("bad_message", 'say hello first: {"type": "hello", "token": ...}')
        if isinstance(message, ActionMessage):
            await self._action(conn, message)
        elif isinstance(message, Ping):
            conn.send(Pong())
        elif isinstance(message, Resync):
            conn.send_text(self.state_for(conn.seat))
        elif isinstance(message, ChatIn):
            await self._chat(conn, message)
        else:
            await self._lobby(conn, message)

    async def _hello(self, conn: Connection, hello: Hello) -> None:
        if conn.joined:
            raise ProtocolError("bad_message", "hello was said already on this connection")
        seat: int | None = None
        if hello.token:
            wanted = hash_token(hello.token)
            match = [s for s in self.seats if token_matches(s.token_hash, wanted)]
            if not match:
                raise ProtocolError("bad_token", "this token is not a seat of this room; join again or watch")
            seat = match[0].index
        conn.join(seat)
        self.connections.add(conn)
        if seat is not None:
            self._away.pop(seat, None)  # back: the server stops playing for this seat
            self.kick_timers()
        conn.send(
            Welcome(room=self.code, seat=seat, you_are_host=seat is not None and seat == self.host_seat)
        )
        # Everyone (this socket included) gets the state: presence or the spectator count changed.
        await self._broadcast()

    # ----- game actions ---------------------------------------------------------------------------------

    async def _action(self, conn: Connection, message: ActionMessage) -> None:
        if conn.seat is None:
            raise ProtocolError("not_seated", "spectators cannot play; join a seat first")
        started = time.perf_counter()
        async with self.lock:
            if self.closing:
                raise ProtocolError("not_allowed", RESTARTING)
            seen = self.acks.get(message.id)
            if seen is not None:
                if seen.seat != conn.seat:
                    raise ProtocolError("bad_message", f"action id {message.id!r} was used by another seat")
                conn.send(Ack(id=message.id, version=seen.version))
                return
            if self.game is None or self.status is RoomStatus.LOBBY:
                raise ProtocolError("game_not_started", "the game has not started yet")
            if message.version is not None and message.version != self.version:
                raise ProtocolError(
                    "stale_version",
                    f"this move was made against version {message.version}; "
                    f"the table is at version {self.version}",
                )
            action = action_from_dict(message.action.model_dump())
            events = await self._apply(conn.seat, action, client_id=message.id)
            conn.send(Ack(id=message.id, version=self.version))
            ACTION_LATENCY.observe(time.perf_counter() - started)
            await self._after_change(events)

    async def _apply(self, seat: int, action: Action, *, client_id: str | None) -> list[Event]:
        """Engine, then commit, then memory. Call under the lock. Returns the events (not yet broadcast)."""
        assert self.game is not None and self.game_id is not None
        before = self.game
        after, events = apply(before, seat, action)
        version = self.version + 1
        scores = [
            RoundScore(result.round, s, self.seats[s].name, penalty)
            for result in after.results[len(before.results) :]
            for s, penalty in enumerate(result.penalties)
        ]
        now = self.clock.now()
        try:
            await self.store.record_action(
                code=self.code,
                game_id=self.game_id,
                version=version,
                seq=after.moves,
                seat=seat,
                action=action_to_dict(action),
                client_id=client_id,
                state=after.to_dict(),
                finished=after.is_over,
                round_scores=scores,
                now=now,
            )
        except VersionConflict:
            raise
        except Exception:
            log.exception("room %s: could not commit a move; reloading from the store", self.code)
            await self.reload()
            raise
        self.game, self.version = after, version
        if not isinstance(action, Draw):
            self.turn_started = (
                now  # a discard hands the turn on (the same time _turn_start_from_log reads back)
            )
        ACTIONS_APPLIED.labels(kind=action_to_dict(action)["type"]).inc()
        if client_id is not None:
            self.acks[client_id] = AckRecord(seat, version)
        if after.is_over:
            self._transition("finish the game", RoomStatus.PLAYING, RoomStatus.FINISHED)
        self.kick_timers()
        return events

    async def _after_change(self, events: Sequence[Event] = ()) -> None:
        await self._broadcast(events)
        self.kick_bots()
        self.kick_timers()

    # ----- bots -----------------------------------------------------------------------------------------

    def bot_to_act(self) -> Seat | None:
        if self.status is not RoomStatus.PLAYING or self.game is None or self.game.is_over:
            return None
        seat = self.seats[self.game.turn]
        return seat if seat.is_bot else None

    def kick_bots(self) -> None:
        """Make sure a bot whose turn it is will play (one task per room plays bot turns in a row)."""
        if self.closing or self.bot_to_act() is None:
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.create_task(self._bot_loop(), name=f"bots-{self.code}")

    async def _bot_loop(self) -> None:
        failures = 0
        while self.bot_to_act() is not None and failures < BOT_MAX_FAILURES:
            delay = self.settings.bot_delay_ms / 1000 if not failures else BOT_RETRY_SECONDS * failures
            await self.clock.sleep(delay)
            failures = await self._server_move(self._play_bot_turn, "a bot move", failures)

    async def _play_bot_turn(self) -> None:
        async with self.lock:
            seat = self.bot_to_act()
            if seat is None or self.game is None:
                return
            action = choose_action(self.game, seat.index, seat.bot_level or "normal", self.game_seed)
            await self._broadcast(await self._apply(seat.index, action, client_id=None))

    async def _server_move(self, move: Callable[[], Awaitable[None]], what: str, failures: int) -> int:
        """Run a move the server makes itself (a bot's, or one for a person away or out of time).
        Returns the failures in a row: 0 after a success; unchanged after catching up with another
        process that moved the table first."""
        try:
            await move()
            return 0
        except VersionConflict:
            async with self.lock:  # another process moved the table: catch up and look again
                await self.reload()
            await self._broadcast()
            return failures
        except Exception:
            log.exception("room %s: %s failed (%d in a row)", self.code, what, failures + 1)
            return failures + 1

    # ----- turn timer and absent players ----------------------------------------------------------------

    def turn_deadline(self) -> datetime | None:
        """When the turn timer runs out for the person to act (None: no timer, a bot's turn, no game)."""
        if self.status is not RoomStatus.PLAYING or self.game is None or self.game.is_over:
            return None
        if not self.game.options.turn_timer or self.seats[self.game.turn].is_bot:
            return None
        return self.turn_started + timedelta(seconds=self.game.options.turn_timer)

    def _away_until(self, seat: int) -> datetime:
        """When a seat with no open socket starts being played by the server."""
        since = self._away.get(seat, self._watch_from)
        return since + timedelta(seconds=self.settings.grace_seconds)

    def _absent(self, connected: set[int]) -> list[int]:
        """People's seats without an open socket, while a game is on."""
        if self.status is not RoomStatus.PLAYING:
            return []
        return [s.index for s in self.seats if not s.is_bot and s.index not in connected]

    def auto_seats(self, connected: set[int] | None = None) -> set[int]:
        """People's seats away longer than the grace period: the server plays their turns."""
        connected = self.connected_seats() if connected is None else connected
        now = self.clock.now()
        return {i for i in self._absent(connected) if self._away_until(i) <= now}

    def _auto_due(self) -> datetime | None:
        """When the server plays the current turn for the person to act (None: it waits for them)."""
        if self.status is not RoomStatus.PLAYING or self.game is None or self.game.is_over:
            return None
        seat = self.game.turn
        if self.seats[seat].is_bot:
            return None
        due = [deadline] if (deadline := self.turn_deadline()) is not None else []
        if seat not in self.connected_seats():  # away: played like a bot once the grace period is over
            bot_pace = self.turn_started + timedelta(milliseconds=self.settings.bot_delay_ms)
            due.append(max(self._away_until(seat), bot_pace))
        return min(due, default=None)

    def _next_wake(self) -> datetime | None:
        """The next moment the timer task has something to do: play a turn or announce an auto seat."""
        times = [t for t in (self._away_until(i) for i in self._absent(self.connected_seats()))]
        times = [t for t in times if t > self._auto_announced]
        if (due := self._auto_due()) is not None:
            times.append(due)
        return min(times, default=None)

    def kick_timers(self) -> None:
        """Something changed: the timer task looks again (and starts if there is something to wait for)."""
        if self.closing:
            return
        self._wake.set()
        if (self._timer_task is None or self._timer_task.done()) and self._next_wake() is not None:
            self._timer_task = asyncio.create_task(self._timer_loop(), name=f"timers-{self.code}")

    async def _timer_loop(self) -> None:
        """Sleep until the next deadline (every change wakes it to look again), then act on it."""
        failures = 0
        while not self.closing and failures < BOT_MAX_FAILURES:
            self._wake.clear()
            wake = self._next_wake()
            if wake is None:
                return
            now = self.clock.now()
            if wake > now:
                await self._sleep_or_wake((wake - now).total_seconds())
                continue
            before = failures
            failures = await self._server_move(
                functools.partial(self._on_timer, now), "playing a turn for someone", failures
            )
            if failures > before:
                await self._sleep_or_wake(BOT_RETRY_SECONDS * failures)

    async def _sleep_or_wake(self, seconds: float) -> None:
        sleeper = asyncio.ensure_future(self.clock.sleep(seconds))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            waker.cancel()

    async def _on_timer(self, now: datetime) -> None:
        announce = any(
            self._auto_announced < t <= now
            for t in (self._away_until(i) for i in self._absent(self.connected_seats()))
        )
        if announce:
            self._auto_announced = now
        async with self.lock:
            due = self._auto_due()
            if self.closing or self.game is None or due is None or due > self.clock.now():
                if announce:
                    await self._broadcast()  # presence: a seat is now played automatically
                return
            seat = self.game.turn
            # The same path as anyone's move: the engine validates, the store commits, then the broadcast.
            action = choose_action(self.game, seat, AUTO_LEVEL, self.game_seed)
            events = await self._apply(seat, action, client_id=None)
            await self._broadcast(events)
        self.kick_bots()

    # ----- chat ------------------------------------------------------------------------------------------

    async def _chat(self, conn: Connection, message: ChatIn) -> None:
        if conn.seat is None:
            raise ProtocolError("not_seated", "only players at the table can chat")
        text = clean_text(message.text, max_length=self.settings.chat_max_length, what="chat line")
        now = self.clock.monotonic()
        times = self._chat_times.setdefault(conn.seat, deque())
        while times and now - times[0] > 10:
            times.popleft()
        if len(times) >= self.settings.chat_max_per_10s:
            raise ProtocolError("rate_limited", "slow down: too many chat lines")
        times.append(now)
        at = self.clock.now().isoformat(timespec="milliseconds").replace("+00:00", "Z")
        payload = {"seat": conn.seat, "name": self.seats[conn.seat].name, "text": text, "at": at}
        await self.broadcaster.publish(Notice(self.code, "chat", self.version, payload))

    # ----- lobby -----------------------------------------------------------------------------------------

    async def join(self, name: str, seat_index: int | None = None) -> tuple[int | None, str | None]:
        """Take the next open seat (REST join). (None, None): watch instead (full or started).

        With ``seat_index``: take over that bot's seat, in the lobby, between rounds or between games.
        """
        async with self.lock:
            if seat_index is not None:
                token = await self._take_bot_seat(name, seat_index)
                await self._after_change()
                return seat_index, token
            if self.status is not RoomStatus.LOBBY or len(self.seats) >= self.seat_count:
                return None, None
            token = new_token()
            seat = Seat(len(self.seats), name, token_hash=hash_token(token))
            await self._commit_seat(seat)
            await self._after_change()
            return seat.index, token

    def between_rounds(self) -> bool:
        """No move made yet in the current round (or no game on): a seat may change hands."""
        if self.status is not RoomStatus.PLAYING:
            return True
        return self.game is not None and not self.game.round_log

    async def _take_bot_seat(self, name: str, index: int) -> str:
        if not 0 <= index < len(self.seats):
            raise ProtocolError("bad_request", f"there is no seat {index}")
        if not self.seats[index].is_bot:
            raise ProtocolError("not_allowed", f"seat {index} is a person's; only a bot's seat can be taken")
        if not self.between_rounds():
            raise ProtocolError(
                "wrong_status", "a bot's seat can be taken in the lobby or between rounds; try after this one"
            )
        token = new_token()
        await self._replace_seat(Seat(index, name, token_hash=hash_token(token)))
        self._away[index] = self.clock.now()  # the newcomer gets the grace period to connect
        return token

    async def _bot_seat(self, message: BotSeat) -> None:
        """Host: a bot plays this seat from now on; the person's token no longer opens it."""
        index = message.seat
        if not 0 <= index < len(self.seats):
            raise ProtocolError("bad_message", f"there is no seat {index}")
        if index == self.host_seat:
            raise ProtocolError("not_allowed", "the host's seat cannot be handed to a bot")
        old = self.seats[index]
        await self._replace_seat(Seat(index, old.name, True, message.level, None))
        self._away.pop(index, None)
        for conn in self.connections:  # the person's tabs now watch (like a kicked seat)
            if conn.joined and conn.seat == index:
                conn.seat = None
                conn.send(Welcome(room=self.code, seat=None, you_are_host=False))

    async def _replace_seat(self, seat: Seat) -> None:
        version = self.version + 1
        await self.store.update_seat(
            code=self.code,
            version=version,
            seat=SeatRecord(seat.index, seat.name, seat.is_bot, seat.bot_level, seat.token_hash),
        )
        self.seats[seat.index] = seat
        self.version = version

    async def _commit_seat(self, seat: Seat) -> None:
        version = self.version + 1
        await self.store.add_seat(
            code=self.code,
            version=version,
            seat=SeatRecord(seat.index, seat.name, seat.is_bot, seat.bot_level, seat.token_hash),
            now=self.clock.now(),
        )
        self.seats.append(seat)
        self.version = version

    async def _lobby(self, conn: Connection, message: ClientMessage) -> None:
        if conn.seat is None:
            raise ProtocolError("not_seated", "only the host can do that; spectators cannot")
        if conn.seat != self.host_seat:
            raise ProtocolError("not_host", "only the host can do that")
        async with self.lock:
            if isinstance(message, SetOptions):
                await self._set_options(message)
            elif isinstance(message, AddBot):
                self._expect("add a bot", RoomStatus.LOBBY)
                if len(self.seats) >= self.seat_count:
                    raise ProtocolError("seats_full", "every seat is taken; raise the seat count first")
                index = len(self.seats)
                await self._commit_seat(Seat(index, f"Bot {index + 1}", True, message.level))
            elif isinstance(message, RemoveSeat):
                await self._remove_seat(message.seat)
            elif isinstance(message, BotSeat):
                await self._bot_seat(message)
            elif isinstance(message, Start):
                await self._start_game("start the game", RoomStatus.LOBBY)
            elif isinstance(message, Rematch):
                await self._start_game("start a rematch", RoomStatus.FINISHED)
            else:  # pragma: no cover - the union is exhaustive
                raise ProtocolError("unknown_type", f"unknown message {message!r}")
            await self._after_change()

    async def _set_options(self, message: SetOptions) -> None:
        self._expect("change the options", RoomStatus.LOBBY)
        options = Options.from_dict({**self.options, **(message.options or {})})
        seat_count = message.seats if message.seats is not None else self.seat_count
        if seat_count < len(self.seats):
            raise ProtocolError("not_allowed", f"{len(self.seats)} seats are taken; remove some first")
        options.deck_count(seat_count)  # refuse decks that could not deal round 11 to a full table
        version = self.version + 1
        await self.store.update_lobby(
            code=self.code, version=version, options=options.to_dict(), seat_count=seat_count
        )
        self.options, self.seat_count, self.version = options.to_dict(), seat_count, version

    async def _remove_seat(self, index: int) -> None:
        self._expect("remove a seat", RoomStatus.LOBBY)
        if not 0 <= index < len(self.seats):
            raise ProtocolError("bad_message", f"there is no seat {index}")
        if index == self.host_seat:
            raise ProtocolError("not_allowed", "the host's seat cannot be removed")
        version = self.version + 1
        await self.store.remove_seat(code=self.code, version=version, index=index)
        del self.seats[index]
        for seat in self.seats[index:]:
            seat.index -= 1
        self.version = version
        self._away = {(i if i < index else i - 1): t for i, t in self._away.items() if i != index}
        for conn in self.connections:
            if not conn.joined or conn.seat is None or conn.seat < index:
                continue
            conn.seat = None if conn.seat == index else conn.seat - 1
            conn.send(Welcome(room=self.code, seat=conn.seat, you_are_host=conn.seat == self.host_seat))

    async def _start_game(self, doing: str, expected: RoomStatus) -> None:
        self._expect(doing, expected)
        if len(self.seats) < 2:
            raise ProtocolError("not_allowed", "a game needs at least 2 seats taken")
        options = Options.from_dict(self.options)
        seed = secrets.randbits(62)
        state = new_game(len(self.seats), options, seed)
        number = (self.game_number or 0) + 1
        version = self.version + 1
        now = self.clock.now()
        players = [
            {"seat": s.index, "name": s.name, "bot": s.is_bot, "bot_level": s.bot_level} for s in self.seats
        ]
        game_id = await self.store.start_game(
            code=self.code,
            version=version,
            number=number,
            seed=seed,
            options=options.to_dict(),
            players=players,
            state=state.to_dict(),
            now=now,
        )
        self._transition(doing, expected, RoomStatus.PLAYING)
        self.game, self.game_id, self.game_number, self.game_seed = state, game_id, number, seed
        self.acks, self.version, self.seat_count = {}, version, len(self.seats)
        self.turn_started = now
