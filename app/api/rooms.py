"""REST: create a room, join it, read its public info."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from app.config import Settings
from app.engine import BotLevel, Options
from app.engine.options import MAX_PLAYERS
from app.protocol import SeatInfo, StateMessage
from app.protocol.messages import OptionValue, SeatCount, SeatIndex
from app.rooms import kept_from
from app.table import Refusal
from app.table.commands import refuse_kept
from app.table.text import clean_name

from .deps import LimitsDep, ManagerDep, SettingsDep
from .errors import ErrorPublic, refusals
from .session import ProvedDep

router = APIRouter(
    prefix="/api",
    tags=["rooms"],
    responses=refusals(
        "bad_request: the body or a path parameter failed validation; bad_options: a bad option; "
        "name_for_bots, name_mixes_scripts: a name that passes for a bot's, or mixes scripts as spoofs do"
    ),
)
KEPT: dict[int | str, dict[str, Any]] = {
    403: {
        "model": ErrorPublic,
        "description": "name_kept: the name (or a look-alike, any case) is kept with a passkey and this "
        "browser is not signed in as it",
    }
}
# Enforced after trimming (``MAX_NAME_LENGTH``, default 32); 200 only bounds what is read before that.
NAME_LIMIT: int = Settings.model_fields["max_name_length"].default
Name = Annotated[
    str,
    Field(
        max_length=200,
        description=f"1–{NAME_LIMIT} characters after trimming (MAX_NAME_LENGTH), no control characters",
        json_schema_extra={"minLength": 1, "maxLength": NAME_LIMIT},
    ),
]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorPublic, "description": "unknown room code"}}


class RoomCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name
    seats: SeatCount = 4
    bots: list[BotLevel] | Annotated[int, Field(ge=0, le=MAX_PLAYERS - 1)] = Field(default_factory=list)
    options: dict[str, OptionValue] = Field(default_factory=dict)


class RoomCreated(BaseModel):
    code: str
    seat: int
    token: str
    url: str


class RoomJoin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name
    # Ask for this bot's seat: a request the host approves (the answer has a token and no seat yet).
    seat: SeatIndex | None = None
    program: bool = False  # a program joins (e.g. examples/bot.py): the table shows the seat as a program


class JoinResult(BaseModel):
    spectator: bool
    seat: int | None
    token: str | None
    requested_seat: int | None = Field(
        default=None,
        description="the bot's seat asked for: it passes once the host approves (say hello with token)",
    )


class GameSummary(BaseModel):
    id: str  # the game's public id
    number: int
    status: Literal["playing", "finished", "ended"]  # ended: by the host before it was over


class RoomPublic(BaseModel):
    code: str
    status: Literal["lobby", "playing", "finished"]
    version: int
    host_seat: int
    seat_count: int
    seats: list[SeatInfo]
    options: Options
    spectators: int
    game: GameSummary | None


def _name(name: str, max_length: int) -> str:
    return clean_name(name, max_length=max_length, code="bad_request")


@router.post(
    "/rooms",
    status_code=status.HTTP_201_CREATED,
    response_model=RoomCreated,
    responses={429: {"model": ErrorPublic, "description": "too many rooms opened from this address"}, **KEPT},
)
async def create_room(
    body: RoomCreate,
    request: Request,
    manager: ManagerDep,
    settings: SettingsDep,
    limits: LimitsDep,
    proved: ProvedDep,
) -> RoomCreated:
    name = _name(body.name, settings.max_name_length)
    refuse_kept(name, kept=await kept_from(manager.store, name, proved))
    address = request.client.host if request.client else "unknown"
    if not limits.open_room(address):
        raise Refusal("rate_limited", "too many rooms opened from your address; try again later")
    bots: list[str] = ["normal"] * body.bots if isinstance(body.bots, int) else list(body.bots)
    room, token = await manager.create(
        name=name, seat_count=body.seats, bots=bots, options=body.options, address=address
    )
    base = settings.public_base_url.rstrip("/")
    return RoomCreated(code=room.code, seat=0, token=token, url=f"{base}/r/{room.code}")


@router.post(
    "/rooms/{code}/join",
    response_model=JoinResult,
    responses={
        **NOT_FOUND,
        **KEPT,
        400: {
            "model": ErrorPublic,
            "description": "seat: a person's (not_allowed), or someone asked for it already "
            "(seat_requested); the name reads as a seated or asking person's (name_taken)",
        },
    },
)
async def join_room(
    code: str, body: RoomJoin, request: Request, manager: ManagerDep, settings: SettingsDep, proved: ProvedDep
) -> JoinResult:
    name = _name(body.name, settings.max_name_length)
    room = await manager.require(code)
    refuse_kept(name, kept=await kept_from(manager.store, name, proved))
    address = request.client.host if request.client else "unknown"  # a trusted proxy's forwarded one
    seat, token = await room.join(name, body.seat, program=body.program, address=address)
    return JoinResult(spectator=seat is None, seat=seat, token=token, requested_seat=body.seat)


@router.get("/rooms/{code}", response_model=RoomPublic, responses=NOT_FOUND)
async def get_room(code: str, manager: ManagerDep) -> RoomPublic:
    room = await manager.require_fresh(code)
    info, table = room.room_info(), room.table
    game = None
    if table.game_public_id is not None and table.game_number is not None:
        game = GameSummary(
            id=table.game_public_id,
            number=table.game_number,
            status="ended"
            if table.game_ended
            else "finished"
            if table.game is not None and table.game.is_over
            else "playing",
        )
    return RoomPublic(
        code=info.code,
        status=info.status,
        version=table.version,
        host_seat=info.host_seat,
        seat_count=info.seat_count,
        seats=info.seats,
        options=info.options,
        spectators=info.spectators,
        game=game,
    )


@router.get("/rooms/{code}/state", response_model=StateMessage, responses=NOT_FOUND)
async def room_state(code: str, manager: ManagerDep) -> Response:
    """What a spectator sees now: the room and, during a game, its view with no hand: exactly the
    WebSocket's ``state`` message for a spectator (documented here with every field of the game view)."""
    room = await manager.require_fresh(code)
    return Response(room.state_for(None), media_type="application/json")
