"""The answers to client messages, as plain calls (no socket, no store, no room): each message type's answer
function, picked by ``answers.answer``, with its refusals and the change, reply or update it comes to."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.protocol import ChatOut, HintOut, Pong, ReactionOut, SeatRequested, parse_client_message
from app.rooms import answers, leaving, seat_changes, talk
from app.rooms.answers import Terms
from app.rooms.outcomes import Answer, Asker, Reply, Said, Stored, Unstored
from app.rooms.tokens import hash_token
from app.table import Change, Refusal, ReplaceSeat, Table, pause
from app.table import commands as c

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TERMS = Terms(chat_max_length=20, max_name_length=12, round_break=timedelta(seconds=30), shared=False)
HOST = Asker(0, "h", socket=1, address="10.0.0.1")
GUEST = Asker(2, "g", socket=2, address="10.0.0.2")
SPECTATOR = Asker(None, None, socket=7, address="10.0.0.7")
SHARED = Terms(
    TERMS.chat_max_length, TERMS.max_name_length, TERMS.round_break, shared=True
)  # several processes


def lobby_table() -> Table:
    """Host (token "h") in seat 0, a bot in seat 1, a person "g" in seat 2 (3 seats), in the lobby."""
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=3, options={}, now=T0
    )
    return c.seat_person(table, name="Guest", token_hash="g", at=T0).table


def started(table: Table, **options: object) -> Table:
    if options:
        changed = c.set_options(table, options=dict(options), seats=None, at=T0)  # type: ignore[arg-type]
        table = changed.table if changed is not None else table
    return c.with_game_id(c.start_game(table, seed=4, public_id="abcdefghijkm", at=T0), 1).table


def no_one_away(table: Table) -> Mapping[int, datetime]:
    return {}


def answer(table: Table, message: dict[str, Any], asker: Asker, *, terms: Terms = TERMS) -> Answer:
    parsed = parse_client_message(json.dumps(message))
    return answers.answer(
        table,
        parsed,
        asker,
        now=T0,
        terms=terms,
        away=no_one_away,
        hints=talk.Hints(),  # type: ignore[arg-type]
    )


def refused(code: str, table: Table, message: dict[str, Any], asker: Asker, **kwargs: Any) -> None:
    with pytest.raises(Refusal) as caught:
        answer(table, message, asker, **kwargs)
    assert caught.value.code == code


def made(answer: Answer, table: Table) -> Change | None:
    assert isinstance(answer, Stored)
    return answer.make(table)


def test_a_ping_is_answered_with_a_pong_to_the_asker_only() -> None:
    assert answer(lobby_table(), {"type": "ping"}, SPECTATOR) == Reply(Pong())


def test_chat_is_said_to_the_table_by_seated_people_and_counted_per_seat() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "chat", "text": "hi"}, SPECTATOR)
    refused("bad_message", table, {"type": "chat", "text": "   "}, GUEST)
    refused("bad_message", table, {"type": "chat", "text": "x" * 21}, GUEST)  # the room's chat_max_length
    said = answer(table, {"type": "chat", "text": "  hello  "}, GUEST)
    line = ChatOut(seat=2, name="Guest", text="hello", at="2026-01-01T00:00:00.000Z")
    assert said == Said("chat", line, ("chat", 2))


def test_a_reaction_is_said_to_the_table_and_counted_with_the_chat() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "react", "emoji": "👍"}, SPECTATOR)
    assert answer(table, {"type": "react", "emoji": "👍"}, HOST) == Said(
        "reaction", ReactionOut(seat=0, emoji="👍", at="2026-01-01T00:00:00.000Z"), ("chat", 0)
    )


def test_a_hint_goes_to_the_asker_once_searched_per_seat_and_version() -> None:
    lobby = lobby_table()
    refused("not_seated", lobby, {"type": "hint"}, SPECTATOR)
    refused("wrong_status", lobby, {"type": "hint"}, HOST)
    table = started(lobby, hints=True)
    assert table.game is not None
    seat, hints = table.game.turn, talk.Hints()
    first = hints.of(table, seat)
    assert isinstance(first.message, HintOut) and first.limit is None
    assert hints.of(table, seat).message is first.message  # not searched again at this version
    moved = c.play(table, seat=seat, action=_draw(), at=T0).table
    assert hints.of(moved, seat).message is not first.message  # a new version: searched again


def _draw() -> Any:
    from app.engine import action_from_dict

    return action_from_dict({"type": "draw", "source": "stock"})


def test_a_spectator_asks_for_a_bots_seat_and_is_given_a_token_known_at_once() -> None:
    table = lobby_table()
    refused("already_seated", table, {"type": "request_seat", "seat": 1, "name": "Eve"}, GUEST)
    asked = answer(table, {"type": "request_seat", "seat": 1, "name": " Eve "}, SPECTATOR)
    assert isinstance(asked, Stored) and isinstance(asked.reply, SeatRequested)
    token = asked.reply.token
    assert token is not None and asked.known_as == hash_token(token)
    assert asked.budget == ("10.0.0.7", hash_token(token))
    assert asked.limit == ("request", -7)  # each spectator's socket is counted on its own
    change = asked.make(table)
    assert change is not None and isinstance(change.write, ReplaceSeat)
    claim = change.table.seats[1].claim
    assert claim is not None and claim.name == "Eve" and claim.token_hash == hash_token(token)


def test_a_spectator_with_a_token_keeps_it_and_a_bad_name_is_refused_once_counted() -> None:
    table = lobby_table()
    known = Asker(None, "e", socket=8)
    asked = answer(table, {"type": "request_seat", "seat": 1, "name": "Eve"}, known)
    assert isinstance(asked, Stored) and asked.reply == SeatRequested(seat=1, token=None)
    assert asked.known_as == "e"
    bad = answer(table, {"type": "request_seat", "seat": 1, "name": "x" * 13}, known)  # max_name_length 12
    with pytest.raises(Refusal) as caught:
        made(bad, table)
    assert caught.value.code == "bad_message"


def test_a_withdrawal_without_a_token_says_nothing_and_with_one_takes_the_request_back() -> None:
    table = lobby_table()
    refused("already_seated", table, {"type": "withdraw_request"}, HOST)
    assert answer(table, {"type": "withdraw_request"}, SPECTATOR) == Reply(None, ("request", -7))
    asked = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None
    withdrawn = made(answer(asked.table, {"type": "withdraw_request"}, Asker(None, "e")), asked.table)
    assert withdrawn is not None and withdrawn.table.seats[1].claim is None


def test_practice_is_a_seated_persons_own_and_counted_with_the_lobby() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "practice", "on": True}, SPECTATOR)
    practice = answer(table, {"type": "practice", "on": True}, GUEST)
    assert isinstance(practice, Stored) and practice.limit == ("lobby", 2)
    change = practice.make(table)
    assert change is not None and change.table.seats[2].practice
    assert not change.table.seats[0].practice


def test_an_avatar_goes_to_the_seat_the_token_holds_on_the_table_it_is_made_on() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "avatar", "avatar": "fox"}, SPECTATOR)
    refused("not_seated", table, {"type": "avatar", "avatar": "fox"}, Asker(2, None))
    chosen = answer(table, {"type": "avatar", "avatar": "fox"}, Asker(0, "g"))  # the socket's seat is stale
    change = made(chosen, table)
    assert change is not None and change.table.seats[2].avatar == "fox"
    assert change.table.seats[0].avatar is None
    gone = c.leave(table, index=2, at=T0, away={}).table
    with pytest.raises(Refusal) as caught:
        made(chosen, gone)
    assert caught.value.code == "not_seated"


def test_leaving_hands_the_seat_to_a_bot_and_is_nothing_once_it_is_not_theirs() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "leave"}, SPECTATOR)
    refused("not_seated", table, {"type": "leave"}, Asker(2, None))
    left = answer(table, {"type": "leave"}, GUEST)
    assert isinstance(left, Stored) and left.limit == ("lobby", 2)
    change = left.make(table)
    assert change is not None and change.table.seats[2].is_bot
    assert left.make(change.table) is None  # handed to a bot already (through another process, say)


def test_the_hosts_commands_are_the_hosts_judged_on_the_table_they_are_made_on() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "add_bot"}, SPECTATOR)
    refused("not_host", table, {"type": "add_bot"}, GUEST)
    shared = Terms(TERMS.chat_max_length, TERMS.max_name_length, TERMS.round_break, shared=True)
    maybe = answer(table, {"type": "remove_seat", "seat": 1}, GUEST, terms=shared)  # host elsewhere?
    assert isinstance(maybe, Stored) and maybe.host == 2
    with pytest.raises(Refusal) as caught:
        maybe.make(table)
    assert caught.value.code == "not_host"
    handed = c.make_host(table, index=2, at=T0).table
    assert made(maybe, handed) is not None
    removed = answer(table, {"type": "remove_seat", "seat": 2}, HOST)
    assert isinstance(removed, Stored) and removed.limit == ("lobby", 0) and removed.host is None
    change = removed.make(table)
    assert change is not None and len(change.table.seats) == 2


def test_a_declined_request_names_the_seat_whose_asker_cools_down() -> None:
    table = lobby_table()
    asked = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None
    declined = answer(asked.table, {"type": "decline_seat", "seat": 1}, HOST)
    assert isinstance(declined, Stored) and declined.declines == 1
    assert seat_changes.asker_of(asked.table, 1) == "e"
    assert seat_changes.asker_of(asked.table, 2) is None  # no request there
    assert seat_changes.asker_of(asked.table, 9) is None  # no such seat
    change = declined.make(asked.table)
    assert change is not None and change.table.seats[1].claim is None
    assert answer(asked.table, {"type": "start"}, HOST).declines is None  # type: ignore[union-attr]


def test_ready_is_a_seated_persons_and_changes_only_memory() -> None:
    table = lobby_table()
    refused("not_seated", table, {"type": "ready"}, SPECTATOR)
    ready = answer(table, {"type": "ready"}, GUEST)
    assert isinstance(ready, Unstored) and ready.limit == ("lobby", 2)
    after = ready.update(table, {0, 2}, T0)
    assert after is not None and pause.ready_seats(after) == [2] and after.version == table.version
    assert ready.update(after, {0, 2}, T0) is None  # said already


def test_continue_is_a_players_and_ends_the_pause_once_everyone_present_pressed_it() -> None:
    table = _between_rounds()
    refused("not_seated", table, {"type": "continue"}, SPECTATOR)
    pressed = answer(table, {"type": "continue"}, HOST)
    assert isinstance(pressed, Unstored) and pressed.limit is None
    at = table.last_move_at or T0
    first = pressed.update(table, {0, 2}, at)
    assert first is not None and first.pause.continued == frozenset({0})
    assert pause.pausing(first, TERMS.round_break, at) is not None  # Guest has not pressed it
    alone = pressed.update(table, {0}, at)  # Guest is away: the only one present pressed it
    assert alone is not None and pause.pausing(alone, TERMS.round_break, at) is None
    settled = leaving.settle(length=TERMS.round_break).update(first, {0}, at)  # Guest left
    assert settled is not None and pause.pausing(settled, TERMS.round_break, at) is None
    assert answer(lobby_table(), {"type": "continue"}, HOST).update(lobby_table(), {0}, T0) is None  # type: ignore[union-attr]


def _between_rounds() -> Table:
    """A started table played (by the bots' choices) until its first round ends."""
    from app.engine.bots import choose_action

    table = started(lobby_table())
    first_round = table.game.round  # type: ignore[union-attr]
    while table.game is not None and table.game.round == first_round:
        game = table.game
        action = choose_action(game, game.turn, "normal", game.moves)
        table = c.play(table, seat=game.turn, action=action, at=T0).table
    return table


def test_a_request_goes_with_its_askers_last_socket_unless_answered() -> None:
    table = lobby_table()
    asked = c.request_seat(table, index=1, name="Eve", token_hash="e", at=T0)
    assert asked is not None
    eve = Asker(None, "e", socket=9)
    assert leaving.requester_left(asked.table, eve, still_here=True, at=T0) is None  # another tab of hers
    assert leaving.requester_left(asked.table, Asker(None, None), still_here=False, at=T0) is None
    assert leaving.requester_left(asked.table, GUEST, still_here=False, at=T0) is None  # seated
    assert leaving.requester_left(table, eve, still_here=False, at=T0) is None  # nothing asked
    gone = leaving.requester_left(asked.table, eve, still_here=False, at=T0)
    change = made(gone, asked.table) if gone is not None else None
    assert change is not None and change.table.seats[1].claim is None
    approved = c.approve_seat(asked.table, index=1, at=T0).table
    assert leaving.requester_left(approved, eve, still_here=False, at=T0) is None  # answered already


def test_a_rest_join_takes_the_next_open_seat_or_asks_for_a_bots() -> None:
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=3, options={}, now=T0
    )
    joined = seat_changes.joining("Ann", None, token_hash="a", address="10.0.0.3", at=T0, program=False)
    assert joined.budget is None
    change = joined.make(table)
    assert change is not None and change.seats_taken == (2,)
    asking = seat_changes.joining("Ann", 1, token_hash="a", address="10.0.0.3", at=T0, program=False)
    assert asking.budget == ("10.0.0.3", "a")
    request = asking.make(table)
    assert request is not None and request.table.seats[1].claim is not None


def renumbered() -> tuple[Table, Table]:
    """A lobby of Host ("h", seat 0), Guest ("g", 1) and Kian ("k", 2); then Kian hosts and Host's seat is
    removed, so Guest is seat 0 and Kian, the host, seat 1: a socket that read Guest's seat before holds 1."""
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=[], seat_count=3, options={}, now=T0
    )
    table = c.seat_person(table, name="Guest", token_hash="g", at=T0).table
    before = c.seat_person(table, name="Kian", token_hash="k", at=T0).table
    moved = c.make_host(before, index=2, at=T0).table
    removed = c.remove_seat(moved, index=0, at=T0)
    assert removed is not None and removed.table.host_seat == 1 and removed.table.seats[0].name == "Guest"
    return before, removed.table


def test_practice_and_the_host_check_go_by_the_token_on_the_table_tried() -> None:
    """The index a socket read can be stale by the time the change is made (another process renumbered the
    seats): practice went to the seat at that index, someone else's, and a guest whose old index was now
    the host's passed as host once (issue 39). Both now look the seat up by token on the table tried."""
    before, after = renumbered()
    guest = Asker(1, "g", socket=3, address="10.0.0.3")  # Guest's index on ``before``
    made = answer(before, {"type": "practice", "on": True}, guest)
    assert isinstance(made, Stored)
    change = made.make(after)
    assert change is not None
    assert [s.practice for s in change.table.seats] == [True, False], "Guest's own seat, not Kian's"
    lobby = answer(before, {"type": "add_bot", "level": "easy"}, Asker(1, "g", socket=3), terms=SHARED)
    assert isinstance(lobby, Stored)
    with pytest.raises(Refusal) as refusal:
        lobby.make(after)  # seat 1 hosts now, but it is Kian's
    assert refusal.value.code == "not_host"
    kian = answer(after, {"type": "add_bot", "level": "easy"}, Asker(1, "k", socket=4), terms=SHARED)
    assert isinstance(kian, Stored) and kian.make(after) is not None, "the host by token still hosts"
