"""The pure table commands: each returns the next table (version + 1) and its write, or refuses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.engine import Draw
from app.table import (
    AddSeat,
    RecordMove,
    Refusal,
    RemoveSeat,
    Reopen,
    ReplaceSeat,
    RoomStatus,
    StartGame,
    pause,
)
from app.table import commands as c
from app.table.changes import final_totals

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def lobby(seats: int = 4) -> c.Table:
    return c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=seats, options={}, now=T0
    )


def test_seats_are_added_and_removed_with_their_sockets_moved() -> None:
    table = lobby()
    guest = c.seat_person(table, name="Guest", token_hash="g", at=T0)
    assert isinstance(guest.write, AddSeat) and guest.table.version == table.version + 1
    removed = c.remove_seat(guest.table, index=1, at=T0)
    assert isinstance(removed.write, RemoveSeat)
    assert [(s.index, s.name) for s in removed.table.seats] == [(0, "Host"), (1, "Guest")]
    assert removed.seat_moves == {1: None, 2: 1}
    with pytest.raises(Refusal) as refused:
        c.remove_seat(removed.table, index=0, at=T0)
    assert refused.value.code == "not_allowed"


def test_a_game_starts_then_a_move_is_recorded_and_a_stale_one_refused() -> None:
    start = c.start_game(lobby(), seed=3, public_id="abcdefghijkm", at=T0)
    assert isinstance(start.write, StartGame) and start.table.status is RoomStatus.PLAYING
    table = c.with_game_id(start, 9).table
    assert table.game is not None
    move = c.play(
        table, seat=table.game.turn, action=Draw("stock"), at=T0, client_id="a", version=table.version
    )
    assert isinstance(move.write, RecordMove) and move.write.game_id == 9 and move.write.client_id == "a"
    assert move.table.version == table.version + 1 and [e.kind for e in move.events] == ["draw"]
    with pytest.raises(Refusal) as stale:
        c.play(move.table, seat=table.game.turn, action=Draw("stock"), at=T0, version=table.version)
    assert stale.value.code == "stale_version"
    with pytest.raises(c.WrongStatus):
        c.start_game(table, seed=1, public_id="abcdefghijkm", at=T0)


def test_options_are_checked_by_the_engine() -> None:
    with pytest.raises(Exception) as bad:
        c.set_options(lobby(), options={"decks": 9}, seats=None, at=T0)
    assert getattr(bad.value, "code", None) == "bad_options"
    three = c.seat_person(lobby(), name="G", token_hash="g", at=T0).table
    with pytest.raises(Refusal) as refused:
        c.set_options(three, options={}, seats=2, at=T0)  # fewer seats than are taken
    assert refused.value.code == "not_allowed"


def finished(table: c.Table) -> c.Table:
    """``table``'s game played to its end by the server's own bots' moves."""
    from app.engine.bots import choose_action

    table = c.with_game_id(c.start_game(table, seed=5, public_id="abcdefghijkm", at=T0), 1).table
    while table.status is RoomStatus.PLAYING:
        assert table.game is not None
        game = table.game
        table = c.play(
            table, seat=game.turn, action=choose_action(game, game.turn, "easy", game.moves), at=T0
        ).table
    return table


def test_a_finished_table_goes_back_to_the_lobby_to_change_seats_and_rules_then_the_next_game_starts() -> (
    None
):
    done = finished(lobby(seats=2))
    assert done.status is RoomStatus.FINISHED and done.game_number == 1
    with pytest.raises(Refusal) as refused:
        c.reopen(lobby(), at=T0)
    assert refused.value.code == "wrong_status"
    back = c.reopen(done, at=T0)
    assert isinstance(back.write, Reopen) and back.table.version == done.version + 1
    table = back.table
    assert table.status is RoomStatus.LOBBY and table.seats == done.seats and table.options == done.options
    assert table.game is done.game and table.game_number == 1  # the last game stays (history, numbering)
    # What the host may change there: the rules, the seat count, the seats.
    table = c.set_options(table, options={"jokers": True}, seats=3, at=T0).table  # type: ignore[union-attr]
    table = c.remove_seat(table, index=1, at=T0).table
    table = c.seat_person(table, name="Nima", token_hash="n", at=T0).table
    assert [s.name for s in table.seats] == ["Host", "Nima"] and table.options.jokers
    nxt = c.start_game(table, seed=8, public_id="bcdefghijkmn", at=T0)
    assert (
        isinstance(nxt.write, StartGame) and nxt.write.number == 2 and nxt.table.status is RoomStatus.PLAYING
    )
    with pytest.raises(Refusal):
        c.reopen(nxt.table, at=T0)  # not while a game is on


def test_the_ready_check_in_the_lobby_starts_afresh_when_the_seats_change() -> None:
    table = c.seat_person(lobby(seats=4), name="Nima", token_hash="n", at=T0).table  # Host, Bot 2, Nima
    assert pause.ready_seats(table) == []
    table = pause.ready(table, seat=2)  # type: ignore[assignment]
    assert table is not None and pause.ready_seats(table) == [2]
    assert pause.ready(table, seat=2) is None  # said already
    with pytest.raises(Refusal) as refused:
        pause.ready(table, seat=1)  # the bot's seat
    assert refused.value.code == "not_allowed"
    # Another process's word on the same lobby is merged; on another lobby (seats changed) it is not.
    heard = pause.heard(table, key=pause.pause_key(table), continued=[0], ended=None)
    assert heard is not None and pause.ready_seats(heard) == [0, 2]
    joined = c.seat_person(heard, name="Sara", token_hash="s", at=T0).table
    assert pause.ready_seats(joined) == []
    assert pause.heard(joined, key=pause.pause_key(heard), continued=[0, 2], ended=None) is None
    # Outside the lobby there is no ready check.
    started = c.start_game(joined, seed=1, public_id="abcdefghijkm", at=T0).table
    assert pause.ready_seats(started) == []
    with pytest.raises(Refusal) as refused:
        pause.ready(started, seat=0)
    assert refused.value.code == "wrong_status"


def test_practice_is_chosen_for_a_persons_seat_before_a_game_and_fixed_while_it_is_played() -> None:
    table = lobby()
    chosen = c.set_practice(table, index=0, on=True, at=T0)
    assert chosen is not None and isinstance(chosen.write, ReplaceSeat) and chosen.write.seat.practice
    assert c.set_practice(chosen.table, index=0, on=True, at=T0) is None  # so already: nothing to write
    with pytest.raises(Refusal) as bot:
        c.set_practice(table, index=1, on=True, at=T0)
    assert bot.value.code == "not_allowed"
    playing = c.start_game(chosen.table, seed=3, public_id="abcdefghijkm", at=T0).table
    with pytest.raises(Refusal) as during:
        c.set_practice(playing, index=0, on=False, at=T0)
    assert during.value.code == "wrong_status"
    assert playing.seats[0].practice, "the game is dealt with the seat as it was chosen"


def test_a_finished_games_totals_say_the_place_the_shared_win_and_the_rounds_out_first() -> None:
    table = finished(lobby())
    game = table.game
    assert game is not None and game.is_over
    finals = final_totals(game)
    totals, winners = game.totals(), game.winners()
    for final in finals:
        assert final.total == totals[final.seat] and final.won == (final.seat in winners)
        assert final.win == (1 / len(winners) if final.won else 0.0)
        assert final.place == 1 + sum(1 for t in totals if t < final.total)
        assert final.rounds_out_first == sum(1 for r in game.results if r.went_out == final.seat)
        assert final.perfect == (final.rounds_out_first == len(game.results))
    assert sum(f.win for f in finals) == pytest.approx(1.0)
    assert sum(f.rounds_out_first for f in finals) == sum(1 for r in game.results if r.went_out is not None)


def test_a_face_is_a_persons_own_pick_among_the_fixed_few_and_never_a_bots() -> None:
    table = lobby()
    chosen = c.set_avatar(table, index=0, avatar="fox", at=T0)
    assert chosen is not None and isinstance(chosen.write, ReplaceSeat) and chosen.write.seat.avatar == "fox"
    assert c.set_avatar(chosen.table, index=0, avatar="fox", at=T0) is None  # so already: nothing to write
    with pytest.raises(Refusal, match="not an avatar"):
        c.set_avatar(table, index=0, avatar="dragon", at=T0)
    with pytest.raises(Refusal, match="robot"):
        c.set_avatar(table, index=1, avatar="fox", at=T0)
