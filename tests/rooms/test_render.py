"""The fast state encoder gives exactly the text the protocol's pydantic models give, for every seat."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson

from app.engine import Options, apply, new_game, view_for
from app.engine.bots import choose_action
from app.protocol import EventView, RoomInfo, SeatInfo, StateMessage, encode
from app.rooms import render
from app.table import Claim, RoomStatus, Seat, Table

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def pydantic_text(table: Table, seat: int | None, info: RoomInfo, events: list[dict[str, object]]) -> str:
    """The reference: the message as the protocol's models encode it."""
    game = None if table.game is None else view_for(table.game, seat)
    message = StateMessage.model_construct(
        version=table.version,
        room=info,
        game=game,
        events=[EventView.model_construct(**e) for e in events],  # type: ignore[arg-type]
    )
    return encode(message)


def as_values(info: RoomInfo) -> render.RoomValues:
    return info.model_dump(mode="json")


def info_for(table: Table) -> RoomInfo:
    return RoomInfo(
        code=table.code,
        status=table.status.value,
        host_seat=0,
        seat_count=len(table.seats),
        seats=[
            SeatInfo(seat=s.index, name=s.name, bot=s.is_bot, bot_level=s.bot_level, connected=True)
            for s in table.seats
        ],
        options=table.options,
        spectators=1,
        game_id="abcdefghijkm",
        game_number=1,
        turn_deadline=None,
        server_time=render.iso(WHEN),
    )


def test_every_seat_gets_the_same_text_as_the_pydantic_encoder() -> None:
    options = Options(jokers=True)
    seats = (Seat(0, "Ana ✨"), Seat(1, 'Bo "B"'), Seat(2, "عمر", True, "hard"))
    game = new_game(3, options, seed=11)
    table = Table(
        code="ABCDEFGH",
        status=RoomStatus.PLAYING,
        version=1,
        host_seat=0,
        seat_count=3,
        options=options,
        seats=seats,
        turn_started=WHEN,
        last_move_at=WHEN,
        game=game,
    )
    info = info_for(table)
    checked = 0
    while True:
        events: list = []  # type: ignore[type-arg]
        if not game.is_over:
            game, events = apply(game, game.turn, choose_action(game, game.turn, "normal", 11))
        table = Table(**{**{f: getattr(table, f) for f in Table.__slots__}, "game": game})  # type: ignore[arg-type]
        faces = render.events_by_seat(table, events)
        for seat in (None, 0, 1, 2):
            seat_events = list(faces.get(render.seat_key(seat), ()))
            assert render.state_text(table, seat, as_values(info), seat_events) == pydantic_text(
                table, seat, info, seat_events
            )
            checked += 1
        if game.is_over:
            break
    assert checked > 400


def test_a_lobby_state_has_no_game() -> None:
    table = Table(
        code="ABCDEFGH",
        status=RoomStatus.LOBBY,
        version=3,
        host_seat=0,
        seat_count=2,
        options=Options(),
        seats=(Seat(0, "Ana"),),
        turn_started=WHEN,
        last_move_at=WHEN,
    )
    info = info_for(table)
    assert render.state_text(table, 0, as_values(info)) == pydantic_text(table, 0, info, [])


def test_room_values_are_what_the_validated_model_gives() -> None:
    """``room_values`` skips the model on the hot path; its JSON is the validated model's, for seats with
    and without a request, a turn timer and a bot."""
    from app.rooms.presence import Presence
    from app.table.schedule import Timing

    asked = Seat(1, "Bot", True, "easy", claim=Claim("Zoë", "b" * 64, approved=False))
    table = Table(
        code="ABCDEFGH",
        status=RoomStatus.PLAYING,
        version=3,
        host_seat=0,
        seat_count=3,
        options=Options(turn_timer=30),
        seats=(Seat(0, "Ana"), asked, Seat(2, "عمر", True, "hard")),
        turn_started=WHEN,
        last_move_at=WHEN,
        game=new_game(3, Options(turn_timer=30), seed=1),
        game_id=4,
        game_number=1,
    )
    timing = Timing.of(grace_seconds=30, bot_delay_ms=0)
    values = render.room_values(table, Presence(WHEN), WHEN, timing)
    validated = RoomInfo.model_validate(values)
    assert orjson.dumps(values).decode() == validated.model_dump_json()
    assert render.room_info(table, Presence(WHEN), WHEN, timing) == validated
    seats = validated.model_dump(mode="json")["seats"]
    assert "request" not in seats[0] and seats[1]["request"] == {"name": "Zoë", "approved": False}
    assert validated.turn_deadline is not None
