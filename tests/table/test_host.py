"""The host role: handed over by choice (``make_host``), and passed on when the host is gone (schedule)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from app.table import Refusal, RoomStatus, SetHost, Table
from app.table import commands as c
from app.table.schedule import Timing, host_handover, host_handover_at, host_successor, next_wake

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TIMING = Timing(grace=timedelta(seconds=60), bot_delay=timedelta(0), host_away=timedelta(seconds=60))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def table_of(*people: str, bots: int = 0, program: str | None = None) -> Table:
    """Host in seat 0, ``bots`` bots after it, then each of ``people``, then a program."""
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"] * bots, seat_count=8, options={}, now=T0
    )
    for name in people:
        table = c.seat_person(table, name=name, token_hash=name, at=T0).table
    if program is not None:
        table = c.seat_person(table, name=program, token_hash=program, at=T0, program=True).table
    return table


def test_the_host_hands_the_role_to_a_person_in_any_status() -> None:
    table = table_of("Omid", bots=1)
    change = c.make_host(table, index=2, at=T0)
    assert isinstance(change.write, SetHost) and change.write.seat == 2
    assert change.table.host_seat == 2 and change.table.version == table.version + 1
    back = c.make_host(change.table, index=0, at=T0).table
    assert back.host_seat == 0
    playing = c.with_game_id(c.start_game(table, seed=1, public_id="abcdefghijkm", at=T0), 1).table
    assert playing.status is RoomStatus.PLAYING
    assert c.make_host(playing, index=2, at=T0).table.host_seat == 2


@pytest.mark.parametrize(("seat", "code"), [(1, "not_allowed"), (0, "not_allowed"), (5, "bad_message")])
def test_not_to_a_bot_nor_to_itself_nor_to_an_empty_seat(seat: int, code: str) -> None:
    with pytest.raises(Refusal) as refused:
        c.make_host(table_of("Omid", bots=1), index=seat, at=T0)
    assert refused.value.code == code


def test_removing_a_seat_below_the_host_moves_the_host_down_with_its_seat() -> None:
    table = c.make_host(table_of("Omid", "Nima"), index=2, at=T0).table  # Nima hosts
    removed = c.remove_seat(table, index=1, at=T0).table
    assert removed.host_seat == 1 and removed.seats[1].name == "Nima"
    with pytest.raises(Refusal):
        c.remove_seat(removed, index=1, at=T0)  # still the host's own seat


def test_the_host_away_past_the_setting_while_another_person_is_here_is_gone() -> None:
    table = table_of("Omid", "Nima", bots=1)  # Host 0, bot 1, Omid 2, Nima 3
    away = {0: at(10), 3: at(0)}  # the host left at 10 s; Nima never came; Omid is here
    assert host_successor(table, away) == 2
    assert host_handover_at(table, away, TIMING) == at(70)
    assert host_handover(table, away, at(69.9), TIMING) is None
    assert host_handover(table, away, at(70), TIMING) == 2
    assert next_wake(table, away, T0, TIMING) == at(70)


def test_nobody_else_here_or_the_host_here_means_no_handover() -> None:
    table = table_of("Omid", bots=1)
    assert host_handover_at(table, {0: T0, 2: T0}, TIMING) is None  # nobody else to take it
    assert next_wake(table, {0: T0, 2: T0}, T0, TIMING) is None
    assert host_handover_at(table, {2: T0}, TIMING) is None  # the host is here
    assert host_handover(table, {}, at(1000), TIMING) is None


def test_the_next_person_after_the_host_in_seat_order_and_people_before_programs() -> None:
    table = table_of("Omid", "Nima", "Lale", program="Robo")  # 0 Host, 1 Omid, 2 Nima, 3 Lale, 4 Robo
    table = c.make_host(table, index=2, at=T0).table  # Nima hosts, then goes
    assert host_successor(table, {2: T0}) == 3  # after Nima: Lale
    assert host_successor(table, {2: T0, 3: T0}) == 0  # then round the table
    assert host_successor(table, {0: T0, 1: T0, 2: T0, 3: T0}) == 4  # a program only when no person is here
    assert host_handover(table, {2: T0, 3: T0}, at(60), TIMING) == 0


def test_a_bot_in_the_hosts_seat_is_gone_at_once() -> None:
    table = c.make_host(table_of("Omid"), index=1, at=T0).table
    table = c.hand_to_bot(table, index=0, level="easy", at=T0).table
    bot_host = replace(table, host_seat=0)  # as a table could be stored once the host's seat is a bot's
    assert host_handover(bot_host, {}, T0, TIMING) == 1
    assert host_handover(bot_host, {1: T0}, at(1000), TIMING) is None  # nobody present to take it
