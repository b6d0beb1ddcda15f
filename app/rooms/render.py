"""What clients see of a table: the room info, and each socket's state message (the one path by which any
client ever sees a game: the engine's view of its own seat, ``view_parts``).

A broadcast encodes the parts every socket shares once (the room info, built as plain values, and the
game view's shared fields) and per seat only that seat's own fields and events, with ``orjson``; the
pieces are joined as pre-encoded fragments, so the text is exactly what the protocol's pydantic models
would give (``tests/rooms/test_render.py`` holds the two equal). Pydantic stays off this path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import orjson

from app.engine import Event, GameState
from app.engine.views import view_parts
from app.protocol import (
    EventView,
    PresenceMessage,
    RoomInfo,
    encode,
)
from app.table import BOT_AVATAR, RoomStatus, Table
from app.table.pause import pausing, ready_seats
from app.table.schedule import Timing, auto_from, turn_deadline

from .connection import Connection
from .presence import Presence

EventsBySeat = Mapping[str, Sequence[Mapping[str, object]]]

# An event is sent with only the fields of its kind, in the protocol model's order.
EVENT_FIELDS: tuple[str, ...] = tuple(EventView.model_fields)


def iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seat_key(seat: int | None) -> str:
    return "spectator" if seat is None else str(seat)


RoomValues = dict[str, object]  # a room info as plain JSON values (and the options dataclass)


def room_values(table: Table, presence: Presence, now: datetime, timing: Timing) -> RoomValues:
    """The room part of every message, in ``RoomInfo``'s field order (a seat's ``request`` only when it has
    one, as the model leaves it out). Built from the table's own typed values on every broadcast and encoded
    with orjson, without the model (``tests/rooms/test_render.py`` holds the text equal to the validated
    model's)."""
    connected = presence.connected_seats()
    auto_at = auto_from(table, presence.away(table), timing)
    deadline = turn_deadline(table, timing)
    pause = pausing(table, timing.round_break, now)
    seats: list[dict[str, object]] = []
    for s in table.seats:
        seat: dict[str, object] = {
            "seat": s.index,
            "name": s.name,
            "bot": s.is_bot,
            "bot_level": s.bot_level,
            "connected": s.is_bot or s.index in connected,
            "auto": s.index in auto_at and auto_at[s.index] <= now,
        }
        if s.index in auto_at and auto_at[s.index] > now:  # away: played for from then on
            seat["auto_at"] = iso(auto_at[s.index])
        seat["program"] = s.is_program
        seat["practice"] = s.practice
        seat["avatar"] = BOT_AVATAR if s.is_bot else s.avatar
        if s.claim is not None:
            seat["request"] = {"name": s.claim.name, "approved": s.claim.approved}
        seats.append(seat)
    return {
        "code": table.code,
        "status": table.status.value,
        "host_seat": table.host_seat,
        "seat_count": table.seat_count,
        "seats": seats,
        "options": table.options,
        "spectators": presence.spectator_count(),
        "game_id": table.game_public_id,
        "game_number": table.game_number,
        "turn_deadline": None if deadline is None else iso(deadline),
        "server_time": iso(now),
        "break_until": None if pause is None else iso(pause),
        "continued": [] if pause is None else sorted(table.pause.continued),
        "ready": ready_seats(table),
    }


def room_info(table: Table, presence: Presence, now: datetime, timing: Timing) -> RoomInfo:
    """The room info as the protocol's model (presence messages, the hello, REST): ``room_values``
    validated."""
    return RoomInfo.model_validate(room_values(table, presence, now, timing))


AUTO_KINDS = frozenset({"draw", "discard", "go_out"})


def events_by_seat(
    table: Table, events: Sequence[Event], *, auto: bool = False
) -> dict[str, list[dict[str, object]]]:
    """Each seat's (and the spectators') own face of the events, as plain JSON for a notice. ``auto``: the
    server played this move for a person (their timer ran out, or they are away): its events say so."""
    if not events:
        return {}
    return {
        seat_key(seat): [face(e, seat, auto) for e in events] for seat in [None, *range(len(table.seats))]
    }


def face(event: Event, seat: int | None, auto: bool = False) -> dict[str, object]:
    """One event as ``seat`` (None: a spectator) sees it; ``auto``: the server played it for a person."""
    shown = event.for_seat(seat)
    return {**shown, "auto": True} if auto and shown.get("kind") in AUTO_KINDS else shown


def event_fields(event: Mapping[str, object]) -> dict[str, object]:
    """An event as the protocol's ``EventView`` writes it: the fields of its kind, in the model's order."""
    return {name: event[name] for name in EVENT_FIELDS if event.get(name) is not None}


def _state_bytes(
    version: int,
    room: orjson.Fragment,
    game: orjson.Fragment | None,
    events: Iterable[Mapping[str, object]],
) -> bytes:
    """One seat's state message: the shared room fragment, that seat's game view, that seat's events."""
    return orjson.dumps(
        {
            "type": "state",
            "version": version,
            "room": room,
            "game": game,
            "events": [event_fields(e) for e in events],
        }
    )


def game_fragments(
    game: GameState | None, seats: Iterable[int | None]
) -> dict[int | None, orjson.Fragment | None]:
    """Each seat's game view, encoded: the fields every seat shares are encoded once and each seat's own
    fields are joined to them (``view_parts``), so a broadcast encodes the round lines, the players and
    the options once, not once per socket."""
    seats = list(seats)
    if game is None:
        return dict.fromkeys(seats)
    shared, own = view_parts(game, seats)
    head = orjson.dumps(shared)[:-1] + b","  # '{...shared fields,' then '...own fields}'
    return {seat: orjson.Fragment(head + orjson.dumps(fields)[1:]) for seat, fields in own.items()}


def room_fragment(room: RoomValues) -> orjson.Fragment:
    """The room info, encoded once per broadcast and shared by every socket's message."""
    return orjson.Fragment(orjson.dumps(room))


def shown_game(table: Table) -> GameState | None:
    """The game a state shows: none in the lobby (a table sent back to it keeps its last game, for the
    history and the next game's number, but nobody plays it)."""
    return None if table.status is RoomStatus.LOBBY else table.game


def state_text(
    table: Table, seat: int | None, room: RoomValues, events: Iterable[Mapping[str, object]] = ()
) -> str:
    """The encoded state message for one seat (None: spectator)."""
    game = game_fragments(shown_game(table), [seat])[seat]
    return _state_bytes(table.version, room_fragment(room), game, events).decode()


def with_ack(text: str, version: int, action_id: str) -> str:
    """A state's text (``_state_bytes``) with ``"ack": action_id`` after its version, as the protocol's model
    writes it: spliced into the seat's encoded text, not encoded again (the id JSON-escaped by orjson)."""
    head = f'{{"type":"state","version":{version},'
    if not text.startswith(head):  # pragma: no cover - every state text starts so
        raise ValueError("not a state message of this version")
    return f'{head}"ack":{orjson.dumps(action_id).decode()},{text[len(head) :]}'


def send_states(
    table: Table,
    connections: Iterable[Connection],
    room_values: RoomValues,
    events: EventsBySeat,
    ack: tuple[Connection, str] | None = None,
) -> bool:
    """Every socket gets its seat's state: the room and the views' shared part encoded once, each seat's
    message encoded once. ``ack`` (a socket that takes acks in the state, and its action's id): that socket's
    copy carries the id. True if that socket was among ``connections`` (its ack is sent)."""
    connections = list(connections)
    seats = list(dict.fromkeys(conn.seat for conn in connections))
    games = game_fragments(shown_game(table), seats)
    room = room_fragment(room_values)
    rendered = {
        seat: _state_bytes(table.version, room, games[seat], events.get(seat_key(seat), ())).decode()
        for seat in seats
    }
    acked = ack is None
    for conn in connections:
        if ack is not None and conn is ack[0]:
            conn.send_text(with_ack(rendered[conn.seat], table.version, ack[1]))
            acked = True
        else:
            conn.send_text(rendered[conn.seat])
    return acked


def presence_text(table: Table, info: RoomInfo) -> str:
    return encode(PresenceMessage(version=table.version, room=info))


def send_presence(table: Table, connections: Iterable[Connection], info: RoomInfo) -> None:
    text = presence_text(table, info)
    for conn in connections:
        conn.send_text(text)
