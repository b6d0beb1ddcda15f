"""Asking for a bot's seat, as pure commands: who may ask, the host's answer, and when the seat passes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.engine.bots import choose_action
from app.table import RecordMove, Refusal, ReplaceSeat, Table
from app.table import commands as c

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def table_with_bot() -> Table:
    """Host (token "h") in seat 0, a bot in seat 1, a person "g" in seat 2 (3 seats)."""
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=3, options={}, now=T0
    )
    return c.seat_person(table, name="Guest", token_hash="g", at=T0).table


def refused(code: str, call: object, /, **kwargs: object) -> None:
    with pytest.raises(Refusal) as caught:
        call(**kwargs)  # type: ignore[operator]
    assert caught.value.code == code


def started(table: Table) -> Table:
    start = c.start_game(table, seed=4, public_id="abcdefghijkm", at=T0)
    return c.with_game_id(start, 1).table


def move(table: Table) -> Table:
    assert table.game is not None
    action = choose_action(table.game, table.game.turn, "normal", table.game.moves)
    return c.play(table, seat=table.game.turn, action=action, at=T0).table


def test_nobody_takes_a_bots_seat_and_one_token_never_holds_two() -> None:
    table = table_with_bot()
    refused("already_seated", c.request_seat, table=table, index=1, name="Host", token_hash="h", at=T0)
    refused("already_seated", c.request_seat, table=table, index=1, name="G", token_hash="g", at=T0)
    refused("not_allowed", c.request_seat, table=table, index=2, name="Eve", token_hash="e", at=T0)
    refused("bad_request", c.request_seat, table=table, index=7, name="Eve", token_hash="e", at=T0)
    refused("bad_message", c.request_seat, table=table, index=1, name=None, token_hash="e", at=T0)
    asked = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None and isinstance(asked.write, ReplaceSeat)
    seat = asked.table.seats[1]
    assert seat.is_bot and seat.token_hash is None and seat.claim == c.Claim("Eve", "e", approved=False)
    assert c.request_seat(asked.table, index=1, name="Eve", token_hash="e", at=T0) is None  # asked already
    refused("seat_requested", c.request_seat, table=asked.table, index=1, name="Ali", token_hash="a", at=T0)


def test_the_host_approves_in_the_lobby_and_the_seat_passes_at_once() -> None:
    asked = c.request_seat(table_with_bot(), index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None
    approved = c.approve_seat(asked.table, index=1, at=T0)
    seat = approved.table.seats[1]
    assert (seat.name, seat.is_bot, seat.token_hash, seat.claim) == ("Eve", False, "e", None)
    assert approved.seats_taken == (1,)
    refused("no_request", c.approve_seat, table=approved.table, index=1, at=T0)


def test_declined_and_withdrawn_requests_are_gone() -> None:
    asked = c.request_seat(table_with_bot(), index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None
    declined = c.decline_seat(asked.table, index=1, at=T0)
    assert declined.table.seats[1].claim is None and declined.table.seats[1].is_bot
    again = c.request_seat(declined.table, index=1, name="Eve", token_hash="e", at=T0)
    assert again is not None
    withdrawn = c.withdraw_request(again.table, token_hash="e", at=T0)
    assert withdrawn is not None and withdrawn.table.seats[1].claim is None
    assert c.withdraw_request(withdrawn.table, token_hash="e", at=T0) is None


def test_mid_round_an_approved_seat_passes_with_the_move_that_deals_the_next_round() -> None:
    table = started(table_with_bot())
    table = move(table)  # round 1 is under way
    asked = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None
    table = c.approve_seat(asked.table, index=1, at=T0).table
    assert table.seats[1].is_bot and table.seats[1].claim is not None and table.seats[1].claim.approved
    assert table.game is not None
    while table.game.round == 1:
        before = table
        table = move(table)
        if table.game.round == 1:
            assert table.seats[1].is_bot, "never mid-round"
    last = c.play(
        before,
        seat=before.game.turn,
        action=choose_action(before.game, before.game.turn, "normal", before.game.moves),
        at=T0,
    )  # type: ignore[union-attr]
    assert isinstance(last.write, RecordMove)
    assert [(s.index, s.name, s.is_bot) for s in last.write.seats] == [(1, "Eve", False)]
    seat = table.seats[1]
    assert (seat.name, seat.is_bot, seat.token_hash, seat.claim) == ("Eve", False, "e", None)
    assert table.game.round == 2 and table.game.round_log == ()  # before the round's first move


def test_the_former_player_takes_the_seat_back_without_approval() -> None:
    table = started(table_with_bot())
    table = move(table)
    handed = c.hand_to_bot(table, index=2, level="easy", at=T0).table
    assert handed.seats[2].former_token_hash == "g" and handed.seats[2].token_hash is None
    back = c.request_seat(handed, index=2, name=None, token_hash="g", at=T0)
    assert back is not None
    claim = back.table.seats[2].claim
    assert claim is not None and claim.approved and claim.name == "Guest"  # mid-round: waits for the deal
    lobby = c.hand_to_bot(table_with_bot(), index=2, level="easy", at=T0).table
    now = c.request_seat(lobby, index=2, name=None, token_hash="g", at=T0)
    assert now is not None and not now.table.seats[2].is_bot and now.table.seats[2].token_hash == "g"


def test_the_games_end_passes_approved_seats_and_drops_the_others() -> None:
    lobby = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy", "easy"], seat_count=3, options={}, now=T0
    )
    table = started(lobby)
    assert table.game is not None
    while table.game.round < 11 or not table.game.round_log:
        table = move(table)
    for index, token in ((1, "e"), (2, "a")):
        asked = c.request_seat(table, index=index, name=token.upper(), token_hash=token, at=T0)
        assert asked is not None
        table = asked.table
    table = c.approve_seat(table, index=2, at=T0).table
    while not table.game.is_over:
        assert table.seats[2].is_bot
        table = move(table)
    assert table.seats[1].is_bot and table.seats[1].claim is None  # never approved: gone with the game
    assert (table.seats[2].name, table.seats[2].is_bot, table.seats[2].token_hash) == ("A", False, "a")
