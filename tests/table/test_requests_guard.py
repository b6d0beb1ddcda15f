"""Issue 23: seat requests cannot make the players' moves stale, a request nobody is behind goes, and a host
who was gone gets the role back (pure commands and schedule)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.engine.bots import choose_action
from app.table import Refusal, Table
from app.table import commands as c
from app.table.schedule import Timing, host_handover, next_wake, unanswered_requests

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TIMING = Timing(
    grace=timedelta(seconds=60),
    bot_delay=timedelta(0),
    host_away=timedelta(seconds=60),
    request_wait=timedelta(seconds=60),
)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def playing() -> Table:
    """Host ("h") in seat 0, a bot in seat 1, a guest ("g") in seat 2; the game started."""
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=3, options={}, now=T0
    )
    table = c.seat_person(table, name="Guest", token_hash="g", at=T0).table
    return c.with_game_id(c.start_game(table, seed=7, public_id="abcdefghijkm", at=T0), 1).table


def move(table: Table, *, version: int | None) -> Table:
    assert table.game is not None
    seat = table.game.turn
    action = choose_action(table.game, seat, "easy", seed=table.game.moves)
    return c.play(table, seat=seat, action=action, at=T0, version=version).table


def test_requests_withdrawals_and_declines_never_make_a_move_stale() -> None:
    table = playing()
    seen = table.version  # what the player to move saw
    assert table.play_version == seen
    for name in ("Eve", "Fay", "Gus"):
        table = c.request_seat(table, index=1, name=name, token_hash=name, at=T0).table  # type: ignore[union-attr]
        table = c.withdraw_request(table, token_hash=name, at=T0).table  # type: ignore[union-attr]
    table = c.request_seat(table, index=1, name="Hal", token_hash="hal", at=T0).table  # type: ignore[union-attr]
    table = c.decline_seat(table, index=1, at=T0).table
    assert table.version == seen + 8 and table.play_version == seen
    after = move(table, version=seen)
    assert after.version == table.version + 1 and after.play_version == after.version


def test_a_move_against_a_version_before_the_last_move_or_past_the_table_is_stale() -> None:
    table = playing()
    before = table.version
    table = move(table, version=before)
    table = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0).table  # type: ignore[union-attr]
    for version in (before, table.version + 1):
        with pytest.raises(Refusal) as caught:
            move(table, version=version)
        assert caught.value.code == "stale_version"
    assert move(table, version=table.play_version).version == table.version + 1


def test_a_request_nobody_is_behind_goes_after_the_wait_an_approved_one_stays() -> None:
    table = playing()
    table = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0).table  # type: ignore[union-attr]
    waiting = {1: at(10)}
    assert unanswered_requests(table, waiting, at(69), TIMING) == ()
    assert next_wake(table, {}, T0, TIMING, waiting) == at(70)
    assert unanswered_requests(table, waiting, at(70), TIMING) == (1,)
    dropped = c.drop_request(table, index=1, at=at(70)).table
    assert dropped.seats[1].claim is None and dropped.seats[1].is_bot
    approved = c.approve_seat(table, index=1, at=T0).table
    assert unanswered_requests(approved, waiting, at(600), TIMING) == ()


def lobby_of_three() -> Table:
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=[], seat_count=4, options={}, now=T0
    )
    table = c.seat_person(table, name="Stranger", token_hash="s", at=T0).table
    return c.seat_person(table, name="Friend", token_hash="f", at=T0).table


def test_a_host_made_by_handover_cannot_remove_the_host_who_was_gone_who_gets_the_role_back() -> None:
    table = lobby_of_three()
    host_gone = {0: T0}
    successor = host_handover(table, host_gone, at(60), TIMING)
    assert successor == 1
    table = c.make_host(table, index=1, at=at(60), handover=True).table
    assert table.host_seat == 1 and table.host_returns_to == "h"
    with pytest.raises(Refusal) as caught:
        c.remove_seat(table, index=0, at=at(61))
    assert caught.value.code == "not_allowed"
    # Handing the role on by choice does not free the acting host's hands.
    table = c.make_host(table, index=2, at=at(62)).table
    assert table.host_returns_to == "h"
    with pytest.raises(Refusal):
        c.remove_seat(table, index=0, at=at(63))
    assert c.remove_seat(table, index=1, at=at(63)).table.host_returns_to == "h"  # others may go
    # Still away: nothing is due. Back: the role returns to them at once.
    assert host_handover(table, host_gone, at(64), TIMING) is None
    assert host_handover(table, {}, at(64), TIMING) == 0
    back = c.make_host(table, index=0, at=at(64), handover=True).table
    assert back.host_seat == 0 and back.host_returns_to is None
    assert c.remove_seat(back, index=1, at=at(65)).table.host_seat == 0


def test_the_role_handed_back_by_choice_forgets_and_a_chain_of_handovers_returns_to_the_first() -> None:
    table = c.make_host(lobby_of_three(), index=1, at=T0, handover=True).table
    assert c.make_host(table, index=0, at=T0).table.host_returns_to is None
    chained = c.make_host(table, index=2, at=T0, handover=True).table  # the acting host was gone too
    assert chained.host_returns_to == "h"
    assert host_handover(chained, {1: T0}, at(1), TIMING) == 0
    # A host who never left hands the role on by choice: nothing to return.
    assert c.make_host(lobby_of_three(), index=1, at=T0).table.host_returns_to is None
