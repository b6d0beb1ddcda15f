"""Who must move next, and when: bots, turn timers and seats played for absent people, as plain functions
of the table and the time (no clock, no waiting: the room's driver asks these and sleeps until ``next_wake``).

``away`` maps each person's seat that has no open socket to when it was last seen (the presence module
keeps it); the server plays such a seat once the grace period has passed.

The host is **gone** when the host's seat has had no open socket for ``host_away`` (``HOST_AWAY_SECONDS``)
while another person is at the table, or when a bot holds the host's seat: the host role then passes to the
next person present, in seat order after the host (people before programs), so someone can always start
the next game. When the host who was gone is back, the role returns to them (``Table.host_returns_to``).

A bot's seat asked for (a pending request) whose asker has no open socket goes after ``request_wait``:
``waiting`` maps such seats to since when nobody is behind the request (the room keeps it).

A table played at its own **pace** (the option ``pace``: hours a turn may take) waits for people: nobody away
is played for, and the host role does not move on because the host is away; a turn's time is the pace, and
when it runs out the server plays that one turn (``MISSED_TURNS`` in a row: the seat goes to a bot until its
person is back, ``commands.missed_turn``). There is no pause between rounds. The turn's deadline is kept in
the store (``stored_due``): a process finds and wakes a table whose deadline passed while no process held it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from .pause import pause_end
from .table import AUTO_LEVEL, RoomStatus, Table

MISSED_TURNS = 3  # a paced table: turns in a row run out before a bot takes the seat
HOST_AWAY_DEFAULT = timedelta(seconds=60)
REQUEST_WAIT_DEFAULT = timedelta(seconds=60)


@dataclass(frozen=True, slots=True)
class Timing:
    grace: timedelta  # how long a person may be away before the server plays for them
    bot_delay: timedelta  # how long a bot (or the server for an away person) waits before each move
    host_away: timedelta = HOST_AWAY_DEFAULT  # how long the host may be away before the role moves on
    round_break: timedelta = timedelta(0)  # the pause between rounds (``pause.py``); zero: none
    request_wait: timedelta = REQUEST_WAIT_DEFAULT  # how long a request with no socket behind it stays

    @classmethod
    def of(
        cls,
        *,
        grace_seconds: float,
        bot_delay_ms: float,
        host_away_seconds: float = 60,
        round_break_seconds: float = 0,
        request_wait_seconds: float = 60,
    ) -> Timing:
        return cls(
            grace=timedelta(seconds=grace_seconds),
            bot_delay=timedelta(milliseconds=bot_delay_ms),
            host_away=timedelta(seconds=host_away_seconds),
            round_break=timedelta(seconds=round_break_seconds),
            request_wait=timedelta(seconds=request_wait_seconds),
        )


@dataclass(frozen=True, slots=True)
class DueMove:
    """The server plays ``seat`` now, at ``level`` (a bot's own, or AUTO_LEVEL for a person)."""

    seat: int
    level: str


def pace_of(table: Table) -> timedelta | None:
    """The time a turn may take at a table played at its own pace (the game's options while one is on, the
    lobby's otherwise); None at a live table."""
    options = table.game.options if table.playing is not None and table.game is not None else table.options
    return timedelta(hours=int(options.pace)) if options.paced else None


def turn_clock(table: Table, timing: Timing) -> datetime:
    """When the current turn's clock started: its predecessor's end, or for a round's first turn the end of
    the pause between rounds (the timer and the bots wait for it)."""
    end = pause_end(table, timing.round_break)
    return table.turn_started if end is None else max(table.turn_started, end)


def turn_deadline(table: Table, timing: Timing) -> datetime | None:
    """When the turn timer runs out for the person to act (None: no timer, a bot's turn, no game). At a
    paced table the pace is the timer."""
    game = table.playing
    if game is None or table.seats[game.turn].is_bot:
        return None
    if (pace := pace_of(table)) is not None:
        return table.turn_started + pace
    if not game.options.turn_timer:
        return None
    return turn_clock(table, timing) + timedelta(seconds=game.options.turn_timer)


def stored_due(table: Table) -> datetime | None:
    """What the store keeps as the moment this table must be woken (``rooms.due_at``): at a paced table, the
    deadline of the turn (a person's), or the last move's time when a bot is to move (due at once: a bot
    moves whenever a process holds the table). None at a live table, and when no game is on."""
    game = table.playing
    if game is None or (pace := pace_of(table)) is None:
        return None
    return table.last_move_at if table.seats[game.turn].is_bot else table.turn_started + pace


def turn_seat(table: Table) -> int | None:
    """Whose turn it is while a game is on (None otherwise): what the store keeps for lists of tables."""
    game = table.playing
    return None if game is None else game.turn


def absent(table: Table, away: Mapping[int, datetime]) -> dict[int, datetime]:
    """People's seats with no open socket while a game is on, and since when (none at a paced table: the
    server never plays for someone away there before their turn's time runs out)."""
    if table.status is not RoomStatus.PLAYING or pace_of(table) is not None:
        return {}
    return {s.index: away[s.index] for s in table.seats if not s.is_bot and s.index in away}


def auto_from(table: Table, away: Mapping[int, datetime], timing: Timing) -> dict[int, datetime]:
    """When the server starts playing each away person's seat: the end of their grace period."""
    return {seat: since + timing.grace for seat, since in absent(table, away).items()}


def auto_seats(table: Table, away: Mapping[int, datetime], now: datetime, timing: Timing) -> frozenset[int]:
    """People's seats away longer than the grace period: the server plays their turns."""
    return frozenset(seat for seat, at in auto_from(table, away, timing).items() if at <= now)


def move_due(table: Table, away: Mapping[int, datetime], timing: Timing) -> datetime | None:
    """When the server plays the current turn (a bot's; or a person's whose timer ran out or who is away)."""
    game = table.playing
    if game is None:
        return None
    seat = table.seats[game.turn]
    clock = turn_clock(table, timing)
    if seat.is_bot:  # a bot waits before each of its moves (and for the pause between rounds)
        return max(table.last_move_at, clock) + timing.bot_delay
    due = [deadline] if (deadline := turn_deadline(table, timing)) is not None else []
    since = absent(table, away).get(seat.index)
    if since is not None:  # away: played once the grace period is over, a whole turn at once
        due.append(max(since + timing.grace, clock + timing.bot_delay))
    return min(due, default=None)


def due_move(table: Table, away: Mapping[int, datetime], now: datetime, timing: Timing) -> DueMove | None:
    """The move the server must make at ``now``, if any."""
    due = move_due(table, away, timing)
    if due is None or due > now or table.game is None:
        return None
    seat = table.seats[table.game.turn]
    return DueMove(seat.index, (seat.bot_level or AUTO_LEVEL) if seat.is_bot else AUTO_LEVEL)


def host_successor(table: Table, away: Mapping[int, datetime]) -> int | None:
    """The person present who would take the host role: the next in seat order after the host, people
    before programs (None: nobody else is here)."""
    count = len(table.seats)
    order = [table.seats[(table.host_seat + step) % count] for step in range(1, count)]
    present = [s for s in order if not s.is_bot and s.index != table.host_seat and s.index not in away]
    present.sort(key=lambda s: s.is_program)  # stable: seat order kept within each kind
    return present[0].index if present else None


def returning_host(table: Table, away: Mapping[int, datetime]) -> int | None:
    """The seat of the host who was gone, now back (present, and not the host): the role returns to it."""
    if table.host_returns_to is None:
        return None
    seat = table.holder(table.host_returns_to)
    if seat is None or seat.is_bot or seat.index in away or seat.index == table.host_seat:
        return None
    return seat.index


def host_handover_at(table: Table, away: Mapping[int, datetime], timing: Timing) -> datetime | None:
    """When the host counts as gone and the role moves on, or returns to the host who was gone (None: the
    host is here, or nobody could take it). A bot in the host's seat is gone at once."""
    if returning_host(table, away) is not None:
        return table.last_move_at  # any moment already past: due now
    if host_successor(table, away) is None:
        return None
    if not 0 <= table.host_seat < len(table.seats) or table.seats[table.host_seat].is_bot:
        return table.last_move_at  # any moment already past: due now
    if pace_of(table) is not None:
        return None  # a paced table: the host is away most of the time, and the role stays theirs
    since = away.get(table.host_seat)
    return None if since is None else since + timing.host_away


def host_handover(table: Table, away: Mapping[int, datetime], now: datetime, timing: Timing) -> int | None:
    """The seat that must become the host at ``now`` (the host is gone, or the host who was is back)."""
    due = host_handover_at(table, away, timing)
    if due is None or due > now:
        return None
    back = returning_host(table, away)
    return back if back is not None else host_successor(table, away)


def unanswered_at(table: Table, waiting: Mapping[int, datetime], timing: Timing) -> datetime | None:
    """When the first pending request with nobody behind it goes (None: none is waiting so)."""
    times = [
        since + timing.request_wait
        for index, since in waiting.items()
        if 0 <= index < len(table.seats)
        and (claim := table.seats[index].claim) is not None
        and not claim.approved
    ]
    return min(times, default=None)


def unanswered_requests(
    table: Table, waiting: Mapping[int, datetime], now: datetime, timing: Timing
) -> tuple[int, ...]:
    """The bot's seats whose pending request must go at ``now``: nobody has been behind it for
    ``request_wait``. An approved one stays (the seat is the asker's from the next round)."""
    return tuple(
        index
        for index, since in sorted(waiting.items())
        if since + timing.request_wait <= now
        and 0 <= index < len(table.seats)
        and (claim := table.seats[index].claim) is not None
        and not claim.approved
    )


def next_wake(
    table: Table,
    away: Mapping[int, datetime],
    announced: datetime,
    timing: Timing,
    waiting: Mapping[int, datetime] | None = None,
) -> datetime | None:
    """The next moment something happens: a move is due, a seat's grace period ends (announced to
    everyone as ``auto``; those up to ``announced`` were), the host counts as gone (or is back), or a
    request nobody is behind goes."""
    times = [since + timing.grace for since in absent(table, away).values()]
    times = [t for t in times if t > announced]
    if waiting and (unanswered := unanswered_at(table, waiting, timing)) is not None:
        times.append(unanswered)
    if (due := move_due(table, away, timing)) is not None:
        times.append(due)
    if (handover := host_handover_at(table, away, timing)) is not None:
        times.append(handover)
    return min(times, default=None)


def auto_announcement_due(
    table: Table, away: Mapping[int, datetime], announced: datetime, now: datetime, timing: Timing
) -> bool:
    """A seat's grace period ended after ``announced`` and by ``now``: everyone must see it played by the
    server."""
    return any(announced < since + timing.grace <= now for since in absent(table, away).values())
