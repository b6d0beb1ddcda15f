"""Every WebSocket message: one pydantic model per type and direction, a discriminated union per direction."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

BotLevel = Literal["easy", "normal", "hard", "random"]


class _In(BaseModel):
    """Client messages: strict types (no "5" for 5), unknown fields ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


# ----- client → server: moves --------------------------------------------------------------------------


class DrawMove(_In):
    type: Literal["draw"]
    source: Literal["stock", "discard"]


class DiscardMove(_In):
    type: Literal["discard"]
    card: Annotated[str, Field(min_length=1, max_length=8)]


class GoOutMove(_In):
    type: Literal["go_out"]
    card: Annotated[str, Field(min_length=1, max_length=8)]


Move = Annotated[DrawMove | DiscardMove | GoOutMove, Field(discriminator="type")]


# ----- client → server -----------------------------------------------------------------------------------


class Hello(_In):
    type: Literal["hello"]
    token: Annotated[str, Field(max_length=200)] | None = None
    last_version: int | None = None


class ActionMessage(_In):
    type: Literal["action"]
    id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[\x21-\x7e]+$")]  # printable ASCII
    version: int | None = None
    action: Move


class ChatIn(_In):
    type: Literal["chat"]
    text: Annotated[str, Field(max_length=4000)]


class Resync(_In):
    type: Literal["resync"]


class Ping(_In):
    type: Literal["ping"]


class SetOptions(_In):
    type: Literal["set_options"]
    options: dict[str, Any] | None = None
    seats: Annotated[int, Field(ge=2, le=8)] | None = None


class AddBot(_In):
    type: Literal["add_bot"]
    level: BotLevel = "normal"


class RemoveSeat(_In):
    type: Literal["remove_seat"]
    seat: Annotated[int, Field(ge=0, le=7)]


class BotSeat(_In):
    """Host: hand a seat to a bot (a person's seat: their token stops working; a bot's: a new level)."""

    type: Literal["bot_seat"]
    seat: Annotated[int, Field(ge=0, le=7)]
    level: BotLevel = "normal"


class Start(_In):
    type: Literal["start"]


class Rematch(_In):
    type: Literal["rematch"]


ClientMessage = Annotated[
    Hello
    | ActionMessage
    | ChatIn
    | Resync
    | Ping
    | SetOptions
    | AddBot
    | RemoveSeat
    | BotSeat
    | Start
    | Rematch,
    Field(discriminator="type"),
]
client_message_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
CLIENT_TYPES: tuple[str, ...] = tuple(
    sorted(
        m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
        for m in (
            Hello,
            ActionMessage,
            ChatIn,
            Resync,
            Ping,
            SetOptions,
            AddBot,
            RemoveSeat,
            BotSeat,
            Start,
            Rematch,
        )
    )
)


# ----- server → client -----------------------------------------------------------------------------------


class Welcome(_Out):
    type: Literal["welcome"] = "welcome"
    room: str
    seat: int | None
    you_are_host: bool


class SeatInfo(_Out):
    seat: int
    name: str
    bot: bool
    bot_level: str | None
    connected: bool
    auto: bool = False  # a person away longer than the grace period: the server plays their turns


class RoomInfo(_Out):
    code: str
    status: Literal["lobby", "playing", "finished"]
    host_seat: int
    seat_count: int
    seats: list[SeatInfo]
    options: dict[str, Any]
    spectators: int
    game_id: int | None
    game_number: int | None
    turn_deadline: str | None = None  # ISO 8601 UTC: when the server plays the current turn (turn timer)
    server_time: str | None = None  # ISO 8601 UTC when this state was made, to correct client clocks


class StateMessage(_Out):
    type: Literal["state"] = "state"
    version: int
    room: RoomInfo
    game: dict[str, Any] | None  # exactly the engine's view_for / spectator_view for this connection
    events: list[dict[str, Any]] = Field(default_factory=list)


class Ack(_Out):
    type: Literal["ack"] = "ack"
    id: str
    version: int


class ErrorMessage(_Out):
    type: Literal["error"] = "error"
    code: str
    message: str
    id: str | None = None


class ChatOut(_Out):
    type: Literal["chat"] = "chat"
    seat: int
    name: str
    text: str
    at: str


class Pong(_Out):
    type: Literal["pong"] = "pong"


class Restarting(_Out):
    type: Literal["restarting"] = "restarting"


ServerMessage = Annotated[
    Welcome | StateMessage | Ack | ErrorMessage | ChatOut | Pong | Restarting, Field(discriminator="type")
]
server_message_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def encode(message: _Out) -> str:
    """The JSON text of a server message (an error's ``id`` is left out when it has none)."""
    return message.model_dump_json(exclude_none=isinstance(message, ErrorMessage))
