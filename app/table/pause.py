"""The pause between rounds, as pure functions of the table and the time.

When a round ends and the game goes on, the engine deals the next round at once, but the round's first turn
does not start yet: its turn timer and the bots wait until every player present at the table has pressed
Continue (after reading the round's results), or until the pause's countdown runs out (``length``, the
server's ``ROUND_BREAK_SECONDS``; zero: no pause). A table with no person at it (bots and programs only)
never pauses, nor does a table played at its own pace (its next round starts at once). The countdown
starts at the commit of the move that ended the round, which the store keeps, so a restart resumes it;
who pressed Continue is kept in memory only (``Table.pause``).

The lobby's ready check uses the same memory: there ``Table.pause.continued`` holds the seats whose players
said they are in for the next game (``ready``). It belongs to the lobby as it is (its game number and who
sits where): when someone joins or leaves, or a game starts, it starts afresh.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from datetime import datetime, timedelta

from app.engine import GameState

from .errors import Refusal
from .table import NO_PAUSE, Pause, RoomStatus, Table


def people(table: Table) -> frozenset[int]:
    """The seats played by people (not the server's bots, not programs): those a pause waits for."""
    return frozenset(s.index for s in table.seats if not s.is_bot and not s.is_program)


def _first_turn(game: GameState) -> bool:
    """No seat has finished a turn yet in the current round."""
    return not any(kind in ("discard", "go_out") for _, kind, _ in game.round_log)


def pause_end(table: Table, length: timedelta) -> datetime | None:
    """When the pause before the current round's first turn ends, or ended (early, if everyone present
    pressed Continue). None: this round has no pause (the game's first round, nobody at the table, no
    pause configured) or its first turn is over."""
    game = table.playing
    if game is None or not game.results or length <= timedelta(0) or not people(table) or game.options.paced:
        return None
    if not _first_turn(game):
        return None
    countdown = table.turn_started + length
    return countdown if table.pause.ended is None else min(countdown, table.pause.ended)


def pausing(table: Table, length: timedelta, now: datetime) -> datetime | None:
    """The end of the pause that is on at ``now``; None when none is (a move in the round ends it too)."""
    end = pause_end(table, length)
    if end is None or now >= end or table.game is None or table.game.round_log:
        return None
    return end


def waiting_for(table: Table, present: Collection[int]) -> frozenset[int]:
    """The present players who have not pressed Continue yet."""
    return (people(table) & frozenset(present)) - table.pause.continued


def continue_round(
    table: Table, *, seat: int, present: Collection[int], length: timedelta, now: datetime
) -> Table | None:
    """``seat``'s player pressed Continue; the pause ends now if that was the last one present. None when
    this changes nothing (no pause on, not a person's seat, pressed already)."""
    if pausing(table, length, now) is None or seat not in people(table) or seat in table.pause.continued:
        return None
    pressed = replace(table, pause=replace(table.pause, continued=table.pause.continued | {seat}))
    return settle(pressed, present=present, length=length, now=now) or pressed


def settle(table: Table, *, present: Collection[int], length: timedelta, now: datetime) -> Table | None:
    """End the pause at ``now`` if someone pressed Continue and nobody present still has to (e.g. the last
    one who had not pressed it left). None: it goes on (or is not on)."""
    if pausing(table, length, now) is None or not table.pause.continued or waiting_for(table, present):
        return None
    return replace(table, pause=replace(table.pause, ended=now))


def ready(table: Table, *, seat: int) -> Table | None:
    """In the lobby, ``seat``'s player says they are in for the next game. None when this changes nothing
    (said already); a seat that is not a person's cannot say it."""
    if table.status is not RoomStatus.LOBBY:
        raise Refusal("wrong_status", "the ready check is in the lobby, before a game starts")
    if seat not in people(table):
        raise Refusal("not_allowed", f"seat {seat} is not played by a person")
    if seat in table.pause.continued:
        return None
    return replace(table, pause=replace(table.pause, continued=table.pause.continued | {seat}))


def ready_seats(table: Table) -> list[int]:
    """Who said they are in, in the lobby (nobody outside it)."""
    return sorted(table.pause.continued) if table.status is RoomStatus.LOBBY else []


def pause_key(table: Table) -> list[object] | None:
    """Which pause (or lobby ready check) ``Table.pause`` belongs to, for other processes: the game and its
    round; in the lobby, the game number and who sits where."""
    if table.status is RoomStatus.LOBBY:
        return ["lobby", table.game_number or 0, [s.name for s in table.seats]]
    return None if table.game is None or table.game_id is None else [table.game_id, table.game.round]


def heard(table: Table, *, key: object, continued: Collection[int], ended: datetime | None) -> Table | None:
    """Another process's word on the current pause (who pressed Continue there, its early end) or on the
    lobby's ready check, merged in. None: it is about another pause, or says nothing new."""
    if key is None or key != pause_key(table):
        return None
    if table.status is not RoomStatus.LOBBY and (table.game is None or not _first_turn(table.game)):
        return None
    merged = Pause(
        table.pause.continued | (frozenset(continued) & people(table)),
        min((t for t in (table.pause.ended, ended) if t is not None), default=None),
    )
    return None if merged == table.pause else replace(table, pause=merged)


def carry(old: Table, new: Table) -> Table:
    """``new`` (read back from the store) with what memory knew of the same round's pause."""
    if old.pause == NO_PAUSE or pause_key(old) != pause_key(new):
        return new
    return replace(new, pause=old.pause)
