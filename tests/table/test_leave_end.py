"""A person leaves the table (``leave``); the host ends a game for everyone (``end_game``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from app.engine import Draw
from app.table import EndGame, Refusal, ReplaceSeat, RoomStatus, Table
from app.table import commands as c

from .tables import started_table

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def lobby_of(*people: str, bots: int = 0) -> Table:
    """Host in seat 0, ``bots`` bots after it, then each of ``people`` (their token: their name)."""
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"] * bots, seat_count=8, options={}, now=T0
    )
    for name in people:
        table = c.seat_person(table, name=name, token_hash=name, at=T0).table
    return table


def _turn(table: Table) -> int:
    assert table.game is not None
    return table.game.turn


def test_a_person_who_leaves_is_played_by_a_bot_under_their_name_and_may_come_back() -> None:
    table = started_table(bots=["easy"], timer=0, seats=3, seed=4)  # Host, Bot 2, Guest 2
    change = c.leave(table, index=2, at=T0, away={})
    seat = change.table.seats[2]
    assert seat.is_bot and seat.name == "Guest 2" and seat.token_hash is None
    assert seat.former_token_hash == "g2"  # they may take it back without asking
    assert isinstance(change.write, ReplaceSeat) and change.write.seat == seat
    assert change.seat_moves == {2: None}  # their tabs watch
    assert change.table.host_seat == 0 and change.table.status is RoomStatus.PLAYING
    assert change.table.holder("g2") is None


def test_the_host_who_leaves_passes_the_role_at_once_to_the_next_person_present() -> None:
    table = lobby_of("Omid", "Sara", bots=1)  # Host, Bot 2, Omid, Sara
    change = c.leave(table, index=0, at=T0, away={2: T0})  # Omid is away: Sara takes it
    assert change.table.host_seat == 3 and change.table.seats[0].is_bot
    assert isinstance(change.write, ReplaceSeat)
    nobody_here = c.leave(table, index=0, at=T0, away={2: T0, 3: T0})
    assert nobody_here.table.host_seat == 2  # nobody else present: still someone, in seat order


def test_a_host_who_leaves_is_no_longer_owed_the_role() -> None:
    table = lobby_of("Omid")
    table = c.make_host(table, index=1, at=T0, handover=True).table
    assert table.host_returns_to == "h"
    after = c.leave(table, index=0, at=T0, away={}).table
    assert after.host_returns_to is None and after.host_seat == 1


def test_the_only_person_and_a_bots_seat_cannot_leave() -> None:
    table = lobby_of(bots=2)
    with pytest.raises(Refusal) as refused:
        c.leave(table, index=0, at=T0, away={})
    assert refused.value.code == "not_allowed" and "only person" in refused.value.message
    with pytest.raises(Refusal) as bot:
        c.leave(lobby_of("Omid", bots=1), index=1, at=T0, away={})
    assert bot.value.code == "not_allowed"


def test_the_host_ends_a_game_it_goes_back_to_the_lobby_unfinished() -> None:
    table = started_table(bots=["easy"], timer=0, seats=3, seed=4)
    table = c.play(table, seat=_turn(table), action=Draw("stock"), at=T0).table
    change = c.end_game(table, at=T0)
    after = change.table
    assert isinstance(change.write, EndGame) and change.write.game_id == 1 and change.write.seats == ()
    assert after.status is RoomStatus.LOBBY and after.version == table.version + 1
    assert after.game_ended and after.seats == table.seats and after.game_number == 1
    assert after.playing is None  # nothing is due: no bot moves, no timer
    again = c.start_game(after, seed=5, public_id="bcdefghijkmn", at=T0).table
    assert again.status is RoomStatus.PLAYING and again.game_number == 2 and not again.game_ended


def test_ending_passes_approved_seats_and_keeps_pending_requests() -> None:
    table = started_table(bots=["easy", "easy"], timer=0, seats=3, seed=4)  # Host, Bot 2, Bot 3
    table = c.play(table, seat=_turn(table), action=Draw("stock"), at=T0).table
    asked = c.request_seat(table, index=1, name="Omid", token_hash="o", at=T0)
    assert asked is not None
    table = c.approve_seat(asked.table, index=1, at=T0).table  # waits for the next round
    assert table.seats[1].is_bot
    asked = c.request_seat(table, index=2, name="Sara", token_hash="s", at=T0)
    assert asked is not None
    table = asked.table
    change = c.end_game(table, at=T0)
    assert isinstance(change.write, EndGame)
    assert [s.index for s in change.write.seats] == [1] and change.seats_taken == (1,)
    assert change.table.seats[1].name == "Omid" and not change.table.seats[1].is_bot
    assert change.table.seats[2].claim is not None  # the host answers it in the lobby


def test_only_a_game_being_played_can_be_ended() -> None:
    over = replace(started_table(bots=["easy"], timer=0, seats=2, seed=4), status=RoomStatus.FINISHED)
    for table in (lobby_of("Omid"), over):
        with pytest.raises(Refusal) as refused:
            c.end_game(table, at=T0)
        assert refused.value.code == "wrong_status"
