"""The pause between rounds, as plain function calls: the next round's first turn (its timer, the bots) waits
until every present player has pressed Continue, or until the countdown runs out."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from app.engine.bots import choose_action
from app.table import NO_PAUSE, Table, pause
from app.table import commands as c
from app.table.schedule import Timing, due_move, move_due, turn_deadline
from tests.table.tables import T0, started_table

BREAK = timedelta(seconds=20)
TIMING = Timing(grace=timedelta(seconds=60), bot_delay=timedelta(milliseconds=700), round_break=BREAK)
NO_BREAK = Timing(grace=timedelta(seconds=60), bot_delay=timedelta(milliseconds=700))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def started(*, bots: list[str], timer: int = 30, seats: int = 2, seed: int = 5) -> Table:
    return started_table(bots=bots, timer=timer, seats=seats, seed=seed)


def end_round(table: Table, when: datetime) -> Table:
    """Every seat plays as a bot at ``when`` until the current round ends (the next one is dealt)."""
    assert table.game is not None
    rounds = len(table.game.results)
    while len(table.game.results) == rounds:
        seat = table.game.turn
        action = choose_action(table.game, seat, "normal", table.game.moves)
        table = c.play(table, seat=seat, action=action, at=when).table
        assert table.game is not None
    return table


def test_the_first_round_has_no_pause_and_the_second_waits_for_it() -> None:
    table = started(bots=[])
    assert pause.pause_end(table, BREAK) is None  # round 1: nothing to read yet
    assert turn_deadline(table, TIMING) == at(30)
    table = end_round(table, at(100))
    assert table.game is not None and table.game.round == 2 and not table.game.round_log
    assert pause.pause_end(table, BREAK) == at(120)
    assert pause.pausing(table, BREAK, at(119.9)) == at(120)
    assert pause.pausing(table, BREAK, at(120)) is None
    # The turn timer starts when the pause ends, not when the round was dealt.
    assert turn_deadline(table, TIMING) == at(150)
    assert due_move(table, {}, at(130), TIMING) is None, "no turn is played for anyone during the pause"
    due = due_move(table, {}, at(150), TIMING)
    assert due is not None and due.seat == table.game.turn
    # Without a pause (ROUND_BREAK_SECONDS=0) everything is as before.
    assert pause.pause_end(table, timedelta(0)) is None
    assert turn_deadline(table, NO_BREAK) == at(130)


def test_bots_wait_for_the_pause_and_an_away_person_is_not_played_during_it() -> None:
    tables = [end_round(started(bots=["easy"], seed=seed), at(100)) for seed in range(12)]
    bot_first = next(t for t in tables if t.game is not None and t.game.turn == 1)
    assert move_due(bot_first, {}, TIMING) == at(120.7)
    assert due_move(bot_first, {}, at(119), TIMING) is None
    assert move_due(bot_first, {}, NO_BREAK) == at(100.7)
    person_first = next(t for t in tables if t.game is not None and t.game.turn == 0)
    away = {0: at(0)}  # away long past the grace period: still not played before the pause ends
    assert move_due(person_first, away, TIMING) == at(120.7)


def test_the_pause_ends_when_every_present_player_has_continued() -> None:
    table = end_round(started(bots=["easy"], seats=3), at(100))
    present = {0, 1, 2}  # seat 1 is the bot: never waited for
    assert pause.waiting_for(table, present) == {0, 2}
    one = pause.continue_round(table, seat=0, present=present, length=BREAK, now=at(103))
    assert one is not None and one.pause.continued == {0} and one.pause.ended is None
    assert pause.continue_round(one, seat=0, present=present, length=BREAK, now=at(104)) is None  # twice
    assert pause.continue_round(one, seat=1, present=present, length=BREAK, now=at(104)) is None  # a bot
    both = pause.continue_round(one, seat=2, present=present, length=BREAK, now=at(105))
    assert both is not None and both.pause.ended == at(105)
    assert pause.pausing(both, BREAK, at(105)) is None
    assert turn_deadline(both, TIMING) in (at(135), None)  # None: the bot's turn (no timer for bots)
    assert move_due(both, {}, TIMING) in (at(135), at(105.7))
    # Continue outside a pause changes nothing.
    assert pause.continue_round(both, seat=0, present=present, length=BREAK, now=at(106)) is None


def test_a_player_who_leaves_is_not_waited_for_but_nobody_present_is_not_everyone() -> None:
    table = end_round(started(bots=[], seats=3), at(100))
    one = pause.continue_round(table, seat=0, present={0, 1, 2}, length=BREAK, now=at(101))
    assert one is not None and one.pause.ended is None
    assert pause.settle(one, present={0, 1, 2}, length=BREAK, now=at(102)) is None
    left = pause.settle(one, present={0}, length=BREAK, now=at(103))  # the other two closed their tabs
    assert left is not None and left.pause.ended == at(103)
    # Nobody present and nobody pressed Continue (e.g. just after a restart): the countdown runs.
    assert pause.settle(table, present=set(), length=BREAK, now=at(104)) is None


def test_the_first_turns_clock_keeps_the_pause_after_the_draw_and_a_new_round_forgets_it() -> None:
    table = end_round(started(bots=[]), at(100))
    assert table.game is not None
    seat = table.game.turn
    draw = c.play(table, seat=seat, action=choose_action(table.game, seat, "normal", 0), at=at(125)).table
    assert turn_deadline(draw, TIMING) == at(150), "the draw does not restart the first turn's clock"
    ended = replace(table, pause=replace(table.pause, continued=frozenset({0, 1}), ended=at(104)))
    assert turn_deadline(ended, TIMING) == at(134)
    after_round = end_round(ended, at(200))
    assert after_round.pause == NO_PAUSE and pause.pause_end(after_round, BREAK) == at(220)


def test_tables_without_people_never_pause() -> None:
    table = c.new_table(
        code="ABCD2345", host="Host", token_hash="h", bots=["easy"], seat_count=2, options={}, now=T0
    )
    table = replace(table, seats=(replace(table.seats[0], is_program=True), table.seats[1]))
    started = c.start_game(table, seed=3, public_id="abcdefghijkm", at=T0)
    table = end_round(c.with_game_id(started, 1).table, at(100))
    assert pause.pause_end(table, BREAK) is None


def test_other_processes_word_is_merged_and_a_reload_keeps_what_memory_knew() -> None:
    table = end_round(started(bots=[], seats=3), at(100))
    key = pause.pause_key(table)
    merged = pause.heard(table, key=key, continued=[1], ended=None)
    assert merged is not None and merged.pause.continued == {1}
    assert pause.heard(merged, key=key, continued=[1], ended=None) is None  # nothing new
    assert pause.heard(table, key=[1, 1], continued=[1], ended=None) is None  # another round's pause
    ended = pause.heard(merged, key=key, continued=[0], ended=at(104))
    assert ended is not None and ended.pause == replace(NO_PAUSE, continued=frozenset({0, 1}), ended=at(104))
    reloaded = replace(table, version=table.version)  # as read back from the store: no pause known
    assert pause.carry(ended, reloaded).pause == ended.pause
    assert pause.carry(ended, end_round(table, at(200))).pause == NO_PAUSE
