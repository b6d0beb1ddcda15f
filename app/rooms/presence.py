"""Who is at a table: this process's sockets, what other processes say of theirs, and since when each
person's seat has had none anywhere.

A seat nobody has opened counts as away since the room was loaded here, so after a restart the grace period
starts again for everyone. Other processes' word (``heard``) lasts until they say otherwise or fall silent
(``expire``): a process that died stops vouching for its seats.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from app.protocol import Welcome
from app.table import Table

from .connection import Connection


class Presence:
    def __init__(self, watch_from: datetime) -> None:
        self.connections: set[Connection] = set()
        self.watch_from = watch_from
        self.announced = watch_from  # grace periods that ended up to here were announced (``auto``)
        self._away: dict[int, datetime] = {}  # seat -> when its last socket closed
        self.last_used = watch_from  # when a socket last came or went
        # Another process -> (its seats with sockets, its spectators, when it said so: monotonic seconds).
        self.remote: dict[str, tuple[frozenset[int], int, float]] = {}

    def joined(self) -> Iterator[Connection]:
        return (c for c in self.connections if c.joined)

    def local_seats(self) -> set[int]:
        return {c.seat for c in self.joined() if c.seat is not None}

    def local_spectators(self) -> int:
        return sum(1 for c in self.joined() if c.seat is None)

    def idle_since(self, now: datetime) -> timedelta:
        """How long no socket has been here (zero while one is)."""
        return timedelta(0) if self.connections else now - self.last_used

    def connected_seats(self) -> set[int]:
        seats = self.local_seats()
        for remote_seats, _, _ in self.remote.values():
            seats |= remote_seats
        return seats

    def spectator_count(self) -> int:
        return self.local_spectators() + sum(count for _, count, _ in self.remote.values())

    def heard(self, process: str, *, seats: list[int], spectators: int, now: datetime, at: float) -> bool:
        """Another process says who is at the table through it; True if who is connected changed."""
        before = (self.connected_seats(), self.spectator_count())
        if seats or spectators:
            self.remote[process] = (frozenset(seats), spectators, at)
        else:
            self.remote.pop(process, None)
        return self._settle(before, now)

    def expire(self, older_than: float, now: datetime) -> bool:
        """Forget processes silent since ``older_than``; True if who is connected changed."""
        before = (self.connected_seats(), self.spectator_count())
        self.remote = {p: said for p, said in self.remote.items() if said[2] >= older_than}
        return self._settle(before, now)

    def _settle(self, before: tuple[set[int], int], now: datetime) -> bool:
        seats = self.connected_seats()
        for seat in seats - before[0]:
            self._away.pop(seat, None)
        for seat in before[0] - seats:
            self._away[seat] = now  # its grace period starts
        return (seats, self.spectator_count()) != before

    def join(self, conn: Connection, seat: int | None) -> None:
        """A socket said hello: it now watches or plays ``seat`` (back: the server stops playing for it)."""
        conn.join(seat)
        self.connections.add(conn)
        if seat is not None:
            self._away.pop(seat, None)

    def leave(self, conn: Connection, now: datetime) -> bool:
        """A socket went away; True if it had joined (everyone else must hear of it)."""
        was_joined = conn in self.connections and conn.joined
        self.connections.discard(conn)
        self.last_used = now
        if conn.seat is not None and conn.seat not in self.connected_seats():
            self._away[conn.seat] = now  # the grace period starts
        return was_joined

    def away(self, table: Table) -> dict[int, datetime]:
        """Each person's seat with no socket here, and since when."""
        connected = self.connected_seats()
        return {
            s.index: self._away.get(s.index, self.watch_from)
            for s in table.seats
            if not s.is_bot and s.index not in connected
        }

    def follow(self, before: Table, after: Table, at: datetime) -> None:
        """The table moved from ``before`` to ``after`` (any change: a move, a reload, a seat handed over at
        a round's start on another process). A person who was just given a seat starts the grace period
        at ``at``; seats that moved take their away-times along; every socket plays the seat its token
        holds now, and one whose seat changed hears who it is (a welcome)."""
        if before.seats is after.seats or before.seats == after.seats:
            return
        moves: dict[int, int | None] = {}
        for seat in before.seats:
            if seat.token_hash is not None:
                held = after.holder(seat.token_hash)
                new = None if held is None else held.index
                if new != seat.index:
                    moves[seat.index] = new
        if moves:
            self._away = {
                new: since for old, since in self._away.items() if (new := moves.get(old, old)) is not None
            }
        for seat in after.seats:
            if seat.token_hash is not None and before.holder(seat.token_hash) is None:
                self._away[seat.index] = at  # a newcomer: the grace period starts now
        for conn in self.joined():
            if conn.token_hash is None:
                continue
            held = after.holder(conn.token_hash)
            seat_now = None if held is None else held.index
            if seat_now == conn.seat:
                continue
            conn.seat = seat_now
            if seat_now is not None:
                self._away.pop(seat_now, None)
            host = seat_now is not None and seat_now == after.host_seat
            former = after.former_of(conn.token_hash) if seat_now is None else None
            former_seat = None if former is None else former.index
            conn.send(Welcome(room=after.code, seat=seat_now, you_are_host=host, former_seat=former_seat))
