"""Every WebSocket message: one pydantic model per type and direction, a discriminated union per direction."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
)

from app.engine import Action, BotLevel, Card, Discard, Draw, GoOut, Options
from app.engine.options import DEFAULT_BOT_LEVEL, MAX_PLAYERS, MIN_PLAYERS
from app.engine.views import SeatView
from app.table import Avatar, BotAvatar

# A house-rule value as a client sends it; the engine's Options says which are valid (code bad_options).
OptionValue = int | bool | str | None
# How many seats a table has, and one seat's index: bounded by the engine's one pair of constants.
SeatCount = Annotated[int, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)]
SeatIndex = Annotated[int, Field(ge=0, le=MAX_PLAYERS - 1)]


class _In(BaseModel):
    """Client messages: strict types (no "5" for 5), unknown fields ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


# ----- client → server: moves --------------------------------------------------------------------------


class DrawMove(_In):
    type: Literal["draw"]
    source: Literal["stock", "discard"]

    def to_action(self) -> Action:
        return Draw(self.source)


class DiscardMove(_In):
    type: Literal["discard"]
    card: Annotated[str, Field(min_length=1, max_length=8)]

    def to_action(self) -> Action:
        return Discard(Card.parse(self.card))


class GoOutMove(_In):
    type: Literal["go_out"]
    card: Annotated[str, Field(min_length=1, max_length=8)]

    def to_action(self) -> Action:
        return GoOut(Card.parse(self.card))


Move = Annotated[DrawMove | DiscardMove | GoOutMove, Field(discriminator="type")]


# ----- client → server -----------------------------------------------------------------------------------


# How a socket is told that its move was committed: "frame", a separate ``ack`` message before the state the
# move produced (the default: what every client before this field understood); "in_state", no ``ack``
# message but that state carrying the action's id as ``ack`` (one frame fewer per move).
Acks = Literal["frame", "in_state"]


class Hello(_In):
    type: Literal["hello"]
    token: Annotated[str, Field(max_length=200)] | None = None
    last_version: int | None = None
    acks: Acks = "frame"


class ActionMessage(_In):
    type: Literal["action"]
    id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[\x21-\x7e]+$")]  # printable ASCII
    version: int | None = None
    action: Move


class ChatIn(_In):
    type: Literal["chat"]
    text: Annotated[str, Field(max_length=4000)]


# Quick reactions beside the chat: a fixed few, so a reaction can carry nothing but itself.
Reaction = Literal["👍", "👏", "😂", "😮", "😢", "🤔"]
REACTIONS: tuple[str, ...] = get_args(Reaction)


class ReactIn(_In):
    """A quick reaction from a seated player, heard by the whole table (rate-limited with the chat)."""

    type: Literal["react"]
    emoji: Reaction


class Resync(_In):
    type: Literal["resync"]


class Ping(_In):
    type: Literal["ping"]


class SetOptions(_In):
    type: Literal["set_options"]
    options: dict[str, OptionValue] | None = None
    seats: SeatCount | None = None


class AddBot(_In):
    type: Literal["add_bot"]
    level: BotLevel = DEFAULT_BOT_LEVEL


class RemoveSeat(_In):
    type: Literal["remove_seat"]
    seat: SeatIndex


class BotSeat(_In):
    """Host: hand a seat to a bot (a person's seat: their token stops working; a bot's: a new level)."""

    type: Literal["bot_seat"]
    seat: SeatIndex
    level: BotLevel = DEFAULT_BOT_LEVEL


class MakeHost(_In):
    """Host: hand the host role to another person's seat (any status)."""

    type: Literal["make_host"]
    seat: SeatIndex


class RequestSeat(_In):
    """A spectator asks for a bot's seat (any time); the host approves, unless it was the asker's seat."""

    type: Literal["request_seat"]
    seat: SeatIndex
    name: Annotated[str, Field(max_length=200)] | None = None  # needed unless the seat was the asker's


class WithdrawRequest(_In):
    """The asker takes back a request the host has not answered yet."""

    type: Literal["withdraw_request"]


class ApproveSeat(_In):
    """Host: the request for this bot's seat stands; the seat passes at the next moment the rules allow."""

    type: Literal["approve_seat"]
    seat: SeatIndex


class DeclineSeat(_In):
    """Host: no to the request for this bot's seat."""

    type: Literal["decline_seat"]
    seat: SeatIndex


class Start(_In):
    type: Literal["start"]


class Continue(_In):
    """A player has read the round's results: the pause between rounds may end (see ``RoomInfo``)."""

    type: Literal["continue"]


class Rematch(_In):
    """Host, once a game is finished: the next game at once, with the same seats and rules."""

    type: Literal["rematch"]


class Reopen(_In):
    """Host, once a game is finished: back to the lobby with the same seats and rules, to change them
    (seats, bots, house rules) before starting the next game."""

    type: Literal["reopen"]


class Leave(_In):
    """A seated person leaves the table: a bot plays their seat from now on (under their name) and their tabs
    watch; the host role passes at once to another person. The only person at a table cannot leave it."""

    type: Literal["leave"]


class EndGameIn(_In):
    """Host, during a game: end it for everyone. It is recorded as ended, not won (no winners, left out of
    the standings), and the table goes back to the lobby with the same seats and rules."""

    type: Literal["end_game"]


class Ready(_In):
    """A seated person, in the lobby: "I am in for the next game" (the ready check: ``RoomInfo.ready``)."""

    type: Literal["ready"]


class Practice(_In):
    """A seated person, before a game starts: play my seat for practice (``on``), so that its games are left
    out of the standings; or count them again. Fixed while a game is played (``SeatInfo.practice``)."""

    type: Literal["practice"]
    on: bool


class AvatarIn(_In):
    """A seated person, at any time: show this face at my seat, to everyone (``SeatInfo.avatar``). One of a
    fixed few ids (the client config's ``avatars``); rate-limited like the lobby's commands."""

    type: Literal["avatar"]
    avatar: Avatar


class HintIn(_In):
    """Ask for the best move: before the draw, the pile to draw from; after it, the discard that leaves the
    fewest points (where the table's ``hints`` option is on; at any table for a seat played for practice)."""

    type: Literal["hint"]


# The one list of client messages: the union, the parser's known types and the JSON Schema all come from it.
ClientMessages = (
    Hello
    | ActionMessage
    | ChatIn
    | Resync
    | Ping
    | SetOptions
    | AddBot
    | RemoveSeat
    | BotSeat
    | MakeHost
    | RequestSeat
    | WithdrawRequest
    | ApproveSeat
    | DeclineSeat
    | Start
    | Continue
    | Rematch
    | Reopen
    | Leave
    | EndGameIn
    | Ready
    | Practice
    | AvatarIn
    | HintIn
    | ReactIn
)
ClientMessage = Annotated[ClientMessages, Field(discriminator="type")]
client_message_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def message_type(model: type[BaseModel]) -> str:
    """The ``type`` a message model carries (its one ``Literal`` value)."""
    annotation: Any = model.model_fields["type"].annotation
    (kind,) = get_args(annotation)
    return str(kind)


# type -> model, in the union's order: what a dispatcher can check itself against.
CLIENT_MESSAGES: dict[str, type[BaseModel]] = {message_type(m): m for m in get_args(ClientMessages)}
CLIENT_TYPES: tuple[str, ...] = tuple(sorted(CLIENT_MESSAGES))


# ----- server → client -----------------------------------------------------------------------------------


def _unset(value: object) -> bool:
    return value is None


# A field that is left out of the JSON when it does not apply.
Only = Field(default=None, exclude_if=_unset)


class ChatOut(_Out):
    type: Literal["chat"] = "chat"
    seat: int
    name: str
    text: str
    at: str


class ChatLine(ChatOut):
    """One line of the table's recent chat as a welcome gives it: a ``chat`` message as it was said, or a
    reaction shown as the line a client puts in its chat log for it (``reaction``: true, ``text``: the emoji,
    ``name``: the seat's name then). ``reaction`` is left out for a typed line, so a client that knows only
    ``chat`` lines shows a reaction as it showed it live."""

    reaction: bool | None = Only


class Welcome(_Out):
    type: Literal["welcome"] = "welcome"
    room: str
    seat: int | None
    you_are_host: bool
    requested_seat: int | None = Only  # a spectator whose token asked for this bot's seat
    # A spectator whose own seat a bot plays under their name (they left, or it was handed to a bot): they may
    # take it back without the host (a ``request_seat`` without a name), from the next round.
    former_seat: int | None = Only
    # The table's recent chat lines and reactions, oldest first, read from the store: only in the welcome
    # that answers a hello, when there is some.
    chat: list[ChatLine] | None = Only
    # The current round's moves so far, as everyone sees them (no card of another's stock draw), oldest
    # first: only in the welcome that answers a hello, during a round.
    moves: list[EventView] | None = Only


class SeatRequested(_Out):
    """To the asker only: the request stands (see the seat's ``request``). ``token`` is new when the asker
    had none: keep it; it opens the seat once it passes (and finds the request again after a reconnect)."""

    type: Literal["seat_requested"] = "seat_requested"
    seat: int
    token: str | None = Only


class SeatRequest(_Out):
    """Someone asks for this bot's seat (everyone sees it; the host answers)."""

    name: str
    approved: bool  # approved (or the seat's former player): it passes at the next round (or now)


class SeatInfo(_Out):
    seat: int
    name: str
    bot: bool
    bot_level: str | None
    connected: bool
    auto: bool = False  # a person away longer than the grace period: the server plays their turns
    # A person away during a game, not yet played for: when (ISO 8601 UTC) the server starts playing their
    # turns, unless they come back first (left out otherwise).
    auto_at: str | None = Only
    program: bool = False  # a seat played by a program its player runs (not one of the server's bots)
    practice: bool = False  # played for practice: this seat's games are left out of the standings
    # The face the seat shows: its person's pick (null: none yet), or "robot" on every bot's seat.
    avatar: Avatar | BotAvatar | None = None
    request: SeatRequest | None = Only  # a bot's seat somebody asked for (left out when nobody did)


class RoomInfo(_Out):
    code: str
    status: Literal["lobby", "playing", "finished"]
    host_seat: int
    seat_count: int
    seats: list[SeatInfo]
    options: Options
    spectators: int
    game_id: str | None  # the current game's public id (the one history and replay URLs take)
    game_number: int | None
    turn_deadline: str | None = None  # ISO 8601 UTC: when the server plays the current turn (turn timer)
    server_time: str | None = None  # ISO 8601 UTC when this state was made, to correct client clocks
    # The pause between rounds: when it ends at the latest (ISO 8601 UTC; null: no pause on), and the seats
    # whose players pressed Continue. The round's first turn starts when it ends.
    break_until: str | None = None
    continued: list[int] = []
    # The lobby's ready check: the seats whose players said they are in for the next game.
    ready: list[int] = []


class EventView(_Out):
    """Something that just happened at the table, as this seat may see it (another seat's stock draw has
    no ``card``). Only the fields of its ``kind`` are sent."""

    kind: Literal["draw", "discard", "go_out", "reshuffle", "round_end", "game_end", "round_start"]
    seat: int | None = Only
    source: Literal["stock", "discard"] | None = Only
    card: str | None = Only
    stock_count: int | None = Only  # reshuffle: the new stock
    final_turns: int | None = Only  # go_out: turns still owed
    round: int | None = Only  # round_end, round_start
    penalties: list[int] | None = Only  # round_end
    reason: Literal["turn_limit"] | None = Only  # round_end: nobody went out; the turn limit ended it
    dealer: int | None = Only  # round_start
    winners: list[int] | None = Only  # game_end
    totals: list[int] | None = Only  # game_end
    auto: bool | None = Only  # draw, discard, go_out: true when the server played it for a person


class StateMessage(_Out):
    type: Literal["state"] = "state"
    version: int
    # The id of this socket's action that made ``version``: only in the state that follows a committed move,
    # only to the socket that sent it, and only if its hello said ``"acks": "in_state"`` (it stands for the
    # ``ack`` message, which is then not sent). Left out otherwise.
    ack: str | None = Only
    room: RoomInfo
    game: SeatView | None  # exactly the engine's view_for for this connection's seat (None: spectator)
    events: list[EventView] = Field(default_factory=list)


class PresenceMessage(_Out):
    """Who is at the table changed (or a tab reconnected already holding the current version): the room
    part of a state, without the game."""

    type: Literal["presence"] = "presence"
    version: int
    room: RoomInfo


class Ack(_Out):
    type: Literal["ack"] = "ack"
    id: str
    version: int


class ErrorMessage(_Out):
    type: Literal["error"] = "error"
    code: str
    message: str
    id: str | None = None


class ReactionOut(_Out):
    type: Literal["reaction"] = "reaction"
    seat: int
    emoji: Reaction
    # When it was made (as a chat line's ``at``): a page marks the chat read up to a time. Left out by a
    # process of an older build during a rolling deploy.
    at: str | None = Only


class HintOut(_Out):
    """The answer to ``hint``, to the asking socket only. After the draw: throw ``card`` (going out with it
    when ``go_out``), leaving ``penalty`` points unmelded. Before the draw (``draw`` is set): draw from that
    pile (``card``: the discard pile's top card, when the hint is to take it); ``go_out``: going out is then
    possible; ``penalty``: the points left after that draw and the best discard (at most, for the stock).
    Fields without a value are left out, so the answer after the draw is the same as before draw hints."""

    type: Literal["hint"] = "hint"
    draw: Literal["stock", "discard"] | None = None
    card: str | None = None
    go_out: bool
    penalty: int


class Pong(_Out):
    type: Literal["pong"] = "pong"


class Restarting(_Out):
    type: Literal["restarting"] = "restarting"


ServerMessage = Annotated[
    Welcome
    | SeatRequested
    | StateMessage
    | PresenceMessage
    | Ack
    | ErrorMessage
    | ChatOut
    | ReactionOut
    | HintOut
    | Pong
    | Restarting,
    Field(discriminator="type"),
]
server_message_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def encode(message: _Out) -> str:
    """The JSON text of a server message (an error's ``id`` is left out when it has none)."""
    return message.model_dump_json(exclude_none=isinstance(message, (ErrorMessage, HintOut)))
