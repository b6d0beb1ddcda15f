"""The pure schedule: who the server plays for, and when, as plain function calls (no clock, no waiting)."""

from __future__ import annotations

from datetime import datetime, timedelta

from app.engine import Options
from app.table import Table
from app.table import commands as c
from app.table.schedule import Timing, auto_seats, due_move, move_due, next_wake, turn_deadline
from tests.table.tables import T0, started_table

TIMING = Timing(grace=timedelta(seconds=60), bot_delay=timedelta(milliseconds=700))


def started(*, bots: list[str], timer: int = 0, seats: int = 2, seed: int = 11) -> Table:
    return started_table(bots=bots, timer=timer, seats=seats, seed=seed)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_a_bot_moves_after_its_delay_and_only_then() -> None:
    tables = [started(bots=["hard"], seed=seed) for seed in range(20)]
    person_first = next(t for t in tables if t.game is not None and t.game.turn == 0)
    assert move_due(person_first, {}, TIMING) is None and next_wake(person_first, {}, T0, TIMING) is None
    table = next(t for t in tables if t.game is not None and t.game.turn == 1)
    bot = 1
    assert move_due(table, {}, TIMING) == at(0.7)
    assert due_move(table, {}, at(0.69), TIMING) is None
    due = due_move(table, {}, at(0.7), TIMING)
    assert due is not None and (due.seat, due.level) == (bot, "hard")


def test_a_turn_timer_plays_for_the_person_at_its_deadline() -> None:
    table = started(bots=[], timer=30)
    assert table.game is not None
    assert turn_deadline(table, TIMING) == at(30)
    assert due_move(table, {}, at(29.9), TIMING) is None
    due = due_move(table, {}, at(30), TIMING)
    assert due is not None and due.seat == table.game.turn and due.level == "normal"
    assert turn_deadline(started(bots=[], timer=0), TIMING) is None


def test_an_absent_person_is_played_after_the_grace_period_and_announced() -> None:
    table = started(bots=[])
    assert table.game is not None
    seat, other = table.game.turn, 1 - table.game.turn
    away = {seat: at(5)}
    assert auto_seats(table, away, at(64), TIMING) == frozenset()
    assert auto_seats(table, away, at(65), TIMING) == {seat}
    assert move_due(table, away, TIMING) == at(65)
    # Only the other seat away: nothing to play, but its grace period's end is announced.
    assert move_due(table, {other: at(0)}, TIMING) is None
    assert next_wake(table, {other: at(0)}, T0, TIMING) == at(60)
    # Announced already; what is left is the host role passing on, if the seat away is the host's.
    assert next_wake(table, {other: at(0)}, at(60), TIMING) == (at(60) if other == table.host_seat else None)


def test_nothing_is_due_in_the_lobby() -> None:
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=2, options={}, now=T0
    )
    assert (
        move_due(table, {0: T0}, TIMING) is None
        and auto_seats(table, {0: T0}, at(999), TIMING) == frozenset()
    )
    assert table.options == Options()
