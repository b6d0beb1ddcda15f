"""Who is at a table: this process's sockets, what other processes say of theirs, and since when each
person's seat has had none anywhere.

A seat nobody has opened counts as away since the room was loaded here, so after a restart the grace period
starts again for everyone. Other processes' word (``heard``) lasts until they say otherwise or fall silent
(``expire``): a process that died stops vouching for its seats. They also say which bots' seats have the
asker of their pending request watching through them (``askers``), so any process can tell a request nobody
stands behind any more, and since when.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import NamedTuple

from app.protocol import Welcome
from app.table import Table

from .connection import Connection


class Said(NamedTuple):
    """What another process said of its sockets at a table, and when (``Clock.steady`` seconds)."""

    seats: frozenset[int]
    spectators: int
    at: float
    askers: frozenset[int] = frozenset()  # bots' seats whose pending request's asker watches there


class Presence:
    def __init__(self, watch_from: datetime) -> None:
        self.connections: set[Connection] = set()
        self.watch_from = watch_from
        self.announced = watch_from  # grace periods that ended up to here were announced (``auto``)
        self._away: dict[int, datetime] = {}  # seat -> when its last socket closed
        self.last_used = watch_from  # when a socket last came or went
        self.remote: dict[str, Said] = {}  # another process -> what it said last
        self._askers_gone: dict[
            int, datetime
        ] = {}  # bot's seat -> when no other process vouched for its asker

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
        for said in self.remote.values():
            seats |= said.seats
        return seats

    def spectator_count(self) -> int:
        return self.local_spectators() + sum(said.spectators for said in self.remote.values())

    def local_askers(self, table: Table) -> set[int]:
        """The bots' seats whose pending request has its asker's socket here."""
        tokens = {c.token_hash for c in self.joined() if c.token_hash is not None}
        return {
            s.index
            for s in table.seats
            if s.claim is not None and not s.claim.approved and s.claim.token_hash in tokens
        }

    def remote_askers(self) -> frozenset[int]:
        """The bots' seats whose pending request's asker watches through another process."""
        return frozenset().union(*(said.askers for said in self.remote.values()))

    def unattended_since(self, waiting: dict[int, datetime]) -> dict[int, datetime]:
        """``waiting`` (bot's seat -> since when its request has had no asker's socket here, or since it was
        first seen), each from when the last other process vouching for its asker stopped, if later."""
        return {seat: max(since, self._askers_gone.get(seat, since)) for seat, since in waiting.items()}

    def heard(
        self,
        process: str,
        *,
        seats: list[int],
        spectators: int,
        now: datetime,
        at: float,
        askers: list[int] | None = None,
    ) -> bool:
        """Another process says who is at the table through it; True if who is connected (or whose
        request has its asker there) changed."""
        before = self._snapshot()
        if seats or spectators or askers:
            self.remote[process] = Said(frozenset(seats), spectators, at, frozenset(askers or ()))
        else:
            self.remote.pop(process, None)
        return self._settle(before, now)

    def heard_from(self, process: str) -> bool:
        """``process`` has said it has someone at the table (and has not said otherwise since)."""
        return process in self.remote

    def expire(self, older_than: float, now: datetime) -> bool:
        """Forget processes silent since ``older_than``; True if who is connected changed."""
        if all(said.at >= older_than for said in self.remote.values()):
            return False  # none fell silent (behind the hashing balancer, usually none said anything here)
        before = self._snapshot()
        self.remote = {p: said for p, said in self.remote.items() if said.at >= older_than}
        return self._settle(before, now)

    def _snapshot(self) -> tuple[set[int], int, frozenset[int]]:
        return self.connected_seats(), self.spectator_count(), self.remote_askers()

    def _settle(self, before: tuple[set[int], int, frozenset[int]], now: datetime) -> bool:
        seats, askers = self.connected_seats(), self.remote_askers()
        for seat in seats - before[0]:
            self._away.pop(seat, None)
        for seat in before[0] - seats:
            self._away[seat] = now  # its grace period starts
        for seat in askers:
            self._askers_gone.pop(seat, None)
        for seat in before[2] - askers:
            self._askers_gone[seat] = now  # nobody elsewhere stands behind that request from now
        return (seats, self.spectator_count(), askers) != before

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
