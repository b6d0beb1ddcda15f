"""Tables played at their own pace (issue 35, part 1), on a manual clock so that hours pass at once: nobody
away is played for before their turn's time runs out, then the server plays that one turn and says so; three
turns missed in a row give the seat to a bot; there is no pause between rounds; the deadline is in the store,
so a table no process holds (after an eviction or a restart) is woken and moved at its deadline, and with two
processes the turn is played once."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.config import Settings
from app.engine import Options
from app.engine.errors import OptionsError
from app.rooms import Room, RoomManager, paced
from app.store import Store
from app.store.loading import due_query
from app.table import pause
from app.table.schedule import MISSED_TURNS, pace_of, stored_due, turn_deadline
from tests.conftest import at_head
from tests.reads import list_actions

from .fakes import FakeSocket, ManualClock
from .test_timers import play_turn, settle, two_people

HOUR = 3600.0


async def paced_pair(manager: RoomManager, hours: int = 8) -> tuple[Room, list[FakeSocket], list[str]]:
    """Host and Guest at a table played at ``hours`` a turn, both connected, game started."""
    room, sockets, tokens = await two_people(manager, pace=hours)
    assert room.table.game is not None
    return room, sockets, tokens


def stored(sqlite_url: str, code: str) -> dict[str, Any]:
    """The room's wake columns and its seats' missed turns, as the store holds them."""
    engine = create_engine(sqlite_url.replace("+aiosqlite", ""))
    try:
        with engine.connect() as conn:
            room = conn.execute(
                text("select due_at, turn_seat, version from rooms where code = :c"), {"c": code}
            ).one()
            missed = conn.execute(
                text("select seat_index, missed, is_bot from seats where room_code = :c order by seat_index"),
                {"c": code},
            ).all()
    finally:
        engine.dispose()
    due = None if room.due_at is None else datetime.fromisoformat(str(room.due_at)).replace(tzinfo=None)
    return {"due": due, "turn": room.turn_seat, "version": room.version, "seats": [tuple(r) for r in missed]}


def naive(when: datetime | None) -> datetime | None:
    return None if when is None else when.replace(tzinfo=None)


@pytest.mark.parametrize("pace", ["live", 1, 8, 24, 72])
def test_a_pace_is_live_or_hours_a_turn(pace: str | int) -> None:
    assert Options(pace=pace).pace == pace
    assert Options.from_dict({"pace": pace}).paced is (pace != "live")


@pytest.mark.parametrize("pace", [0, 2, 1.5, "fast", True, None, "8"])
def test_any_other_pace_is_refused(pace: object) -> None:
    with pytest.raises(OptionsError, match="pace"):
        Options.from_dict({"pace": pace})


def test_an_older_client_that_sends_no_pace_gets_live() -> None:
    assert Options.from_dict({"turn_timer": 30}).pace == "live"


async def test_someone_away_is_not_played_for_until_their_turn_runs_out(
    manager: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, _ = await paced_pair(manager, hours=8)
    assert room.table.game is not None
    away = room.table.game.turn
    here = 1 - away
    deadline = clock.now() + timedelta(hours=8)
    assert turn_deadline(room.table, room.timing) == deadline
    assert naive(stored(sqlite_url, room.code)["due"]) == naive(deadline)
    assert stored(sqlite_url, room.code)["turn"] == away
    sockets[here].drain()
    start = [m for m in sockets[here].seen if m["type"] == "state"][-1]
    shown = deadline.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert start["room"]["turn_deadline"] == shown
    version = room.table.version

    await room.detach(sockets[away].conn)
    await clock.advance(room.timing.grace.total_seconds() + 60)  # a live table would play for them now
    await settle()
    assert room.table.version == version
    assert sockets[here].drain()[-1]["room"]["seats"][away].get("auto") is False  # never "played for"

    await clock.advance(8 * HOUR - room.timing.grace.total_seconds() - 61)  # a second before the deadline
    await settle()
    assert room.table.version == version

    sockets[here].drain()
    await clock.advance(2)
    await settle()
    assert room.table.game.turn == here, "the server played the whole turn, and it passed"
    events = [e for m in sockets[here].drain() if m["type"] == "state" for e in m["events"]]
    kinds = [e["kind"] for e in events if e.get("auto")]
    assert kinds[0] == "draw" and kinds[1] in ("discard", "go_out") and len(kinds) == 2, events
    actions = await list_actions(manager.store, room.table.game_id)
    assert [a.client_id for a in actions] == [None, None]  # the server's moves, in the log
    after = stored(sqlite_url, room.code)
    assert after["turn"] == here
    assert naive(after["due"]) == naive(room.table.turn_started + timedelta(hours=8))
    assert (away, 1, False) in after["seats"], "one turn missed, kept in the store"


async def test_three_turns_missed_in_a_row_give_the_seat_to_a_bot_and_a_move_of_ones_own_starts_again(
    manager: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, tokens = await paced_pair(manager, hours=1)
    assert room.table.game is not None
    host = 0
    guest = 1
    await room.detach(sockets[guest].conn)

    async def to_guests_turn_run_out() -> None:
        assert room.table.game is not None
        while room.table.game.turn == host:  # a round the host ends may start with the host again
            await play_turn(room, sockets[host])
        await clock.advance(HOUR + 1)
        await settle()

    await to_guests_turn_run_out()
    await to_guests_turn_run_out()
    assert room.table.seats[guest].missed == 2 and not room.table.seats[guest].is_bot

    back = FakeSocket(room)  # the guest is back and plays a turn of their own: the count starts again
    await back.say({"type": "hello", "token": tokens[guest]})
    while room.table.game.turn == host:
        await play_turn(room, sockets[host])
    await play_turn(room, back)
    assert room.table.seats[guest].missed == 0
    assert (guest, 0, False) in stored(sqlite_url, room.code)["seats"]
    await room.detach(back.conn)

    for _ in range(MISSED_TURNS - 1):
        await to_guests_turn_run_out()
    assert room.table.seats[guest].missed == MISSED_TURNS - 1
    await to_guests_turn_run_out()
    seat = room.table.seats[guest]
    assert seat.is_bot and seat.name == "Guest", "the third in a row: a bot plays the seat"
    assert seat.former_token_hash is not None, "and its person may take it back without asking"
    assert room.table.host_seat == host
    assert (guest, 0, True) in stored(sqlite_url, room.code)["seats"]
    # the bot's turns are due at once (a bot moves whenever a process holds the table)
    if room.table.game.turn == guest:
        assert naive(stored(sqlite_url, room.code)["due"]) == naive(room.table.last_move_at)


async def test_the_only_person_at_a_paced_table_keeps_their_seat_however_many_turns_run_out(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host_token = await manager.create(name="Host", seat_count=2, bots=["easy"], options={"pace": 1})
    sock = FakeSocket(room)
    await sock.say({"type": "hello", "token": host_token})
    await sock.say({"type": "start"})
    await room.detach(sock.conn)
    for _ in range(100):
        if room.table.seats[0].missed > MISSED_TURNS or room.table.game is None or room.table.game.is_over:
            break
        await clock.advance(HOUR / 4)
        await settle()
    assert not room.table.seats[0].is_bot
    assert room.table.seats[0].missed > MISSED_TURNS


async def test_a_paced_round_starts_at_once(manager: RoomManager, clock: ManualClock) -> None:
    """No pause between rounds, however long the server's pause is: the next round's clock starts when the
    last one ended."""
    room, _sockets, _ = await paced_pair(manager, hours=8)
    game = room.table.game
    assert game is not None
    ended = replace(room.table, game=replace(game, results=((0, 0),)))  # as after round 1
    assert pause.pause_end(ended, timedelta(seconds=20)) is None
    live = replace(ended, game=replace(ended.game, options=Options()))  # type: ignore[arg-type]
    assert pause.pause_end(live, timedelta(seconds=20)) is not None


async def test_the_host_role_stays_with_an_away_host_at_a_paced_table(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, sockets, _ = await paced_pair(manager, hours=24)
    await room.detach(sockets[0].conn)
    await clock.advance(2 * HOUR)
    await settle()
    assert room.table.host_seat == 0


async def test_a_paced_table_left_alone_leaves_memory_and_its_deadline_wakes_it(
    manager: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, _ = await paced_pair(manager, hours=8)
    assert room.table.game is not None
    code, turn, version = room.code, room.table.game.turn, room.table.version
    for sock in sockets:
        await room.detach(sock.conn)
    await clock.advance(manager.settings.room_idle_seconds + 1)
    assert await manager.evict_idle() == 1, "nothing due for hours: it leaves memory"
    assert code not in manager.rooms
    assert await paced.wake_due(manager) == 0, "not due yet: nothing is loaded"

    await clock.advance(8 * HOUR)
    assert await paced.wake_due(manager) == 1
    woken = manager.rooms[code]
    await clock.advance(1)
    await settle()
    assert woken.table.game is not None and woken.table.game.turn == 1 - turn
    assert woken.table.version == version + 3  # draw, discard, one turn missed
    assert stored(sqlite_url, code)["version"] == version + 3


@pytest.fixture
async def two_processes(sqlite_url: str, sqlite_at_head: Path) -> Any:
    """Two managers on one database, each with its own clock (as two processes would be)."""
    at_head(sqlite_url, sqlite_at_head)
    made = []
    for _ in range(2):
        store = Store(sqlite_url)
        settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=700)  # type: ignore[call-arg]
        made.append((RoomManager(store=store, settings=settings, clock=ManualClock()), store))
    yield made
    for manager, store in made:
        await manager.close()
        await store.close()


async def test_after_a_restart_two_processes_play_a_due_turn_once(
    two_processes: Any, sqlite_url: str
) -> None:
    (first, _), (second, _) = two_processes
    room, sockets, _ = await paced_pair(first, hours=1)
    assert room.table.game is not None and room.table.game_id is not None
    code, game_id, version = room.code, room.table.game_id, room.table.version
    for sock in sockets:
        await room.detach(sock.conn)
    await room.close()
    first.rooms.clear()  # the process died: nothing of it in memory

    assert await first.get(code) is not None and await second.get(code) is not None  # both hold it
    for manager in (first, second):
        await manager.clock.advance(HOUR + 1)  # due on both at once: each driver tries
    for _ in range(3):
        await settle()
        for manager in (first, second):
            await manager.clock.advance(1)
    actions = await list_actions(first.store, game_id)
    assert len(actions) == 2, actions  # one turn, played once: a draw and a discard
    assert stored(sqlite_url, code)["version"] == version + 3


def test_the_store_keeps_no_deadline_for_a_live_table_or_outside_a_game() -> None:
    from app.table.commands import new_table

    at = datetime(2026, 1, 1)
    table = new_table(
        code="ABCDEFGH", host="Host", token_hash="0" * 64, bots=["easy"], seat_count=2,
        options={"pace": 24}, now=at, salt=None, address="",
    )  # fmt: skip
    assert pace_of(table) == timedelta(hours=24)
    assert stored_due(table) is None  # the lobby
    live = replace(table, options=Options())
    assert pace_of(live) is None and stored_due(live) is None


def test_wakes_are_read_by_the_due_index(sqlite_url: str, sqlite_at_head: Path) -> None:
    at_head(sqlite_url, sqlite_at_head)
    engine = create_engine(sqlite_url.replace("+aiosqlite", ""))
    query = due_query(datetime(2026, 1, 1, tzinfo=UTC), 100).compile(
        dialect=engine.dialect, compile_kwargs={"literal_binds": True}
    )
    try:
        with engine.connect() as conn:
            plan = conn.execute(text(f"explain query plan {query}")).all()
    finally:
        engine.dispose()
    assert any("ix_rooms_due_at" in str(row) for row in plan), plan
