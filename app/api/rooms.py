"""REST: create a room, join it, read its public info."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, status
from pydantic import BaseModel, ConfigDict, Field

from app.protocol import ProtocolError, SeatInfo
from app.rooms import clean_text

from .deps import ManagerDep, SettingsDep
from .errors import ErrorPublic
from .limits import address_limits

router = APIRouter(prefix="/api", tags=["rooms"])
BotLevel = Literal["easy", "normal", "hard", "random"]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorPublic, "description": "unknown room code"}}


class RoomCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(max_length=200)]
    seats: Annotated[int, Field(ge=2, le=8)] = 4
    bots: list[BotLevel] | Annotated[int, Field(ge=0, le=7)] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict)


class RoomCreated(BaseModel):
    code: str
    seat: int
    token: str
    url: str


class RoomJoin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(max_length=200)]
    seat: Annotated[int, Field(ge=0, le=7)] | None = None  # take over this bot's seat (lobby, between rounds)


class JoinResult(BaseModel):
    spectator: bool
    seat: int | None
    token: str | None


class GameSummary(BaseModel):
    id: int
    number: int
    status: Literal["playing", "finished"]


class RoomPublic(BaseModel):
    code: str
    status: Literal["lobby", "playing", "finished"]
    version: int
    host_seat: int
    seat_count: int
    seats: list[SeatInfo]
    options: dict[str, Any]
    spectators: int
    game: GameSummary | None


def _name(name: str, max_length: int) -> str:
    return clean_text(name, max_length=max_length, what="name", code="bad_request")


@router.post(
    "/rooms",
    status_code=status.HTTP_201_CREATED,
    response_model=RoomCreated,
    responses={429: {"model": ErrorPublic, "description": "too many rooms opened from this address"}},
)
async def create_room(
    body: RoomCreate, request: Request, manager: ManagerDep, settings: SettingsDep
) -> RoomCreated:
    name = _name(body.name, settings.max_name_length)
    address = request.client.host if request.client else "unknown"
    if not address_limits(request.app, settings, manager.clock).open_room(address):
        raise ProtocolError("rate_limited", "too many rooms opened from your address; try again later")
    bots: list[str] = ["normal"] * body.bots if isinstance(body.bots, int) else list(body.bots)
    room, token = await manager.create(name=name, seat_count=body.seats, bots=bots, options=body.options)
    base = settings.public_base_url.rstrip("/")
    return RoomCreated(code=room.code, seat=0, token=token, url=f"{base}/r/{room.code}")


@router.post("/rooms/{code}/join", response_model=JoinResult, responses=NOT_FOUND)
async def join_room(code: str, body: RoomJoin, manager: ManagerDep, settings: SettingsDep) -> JoinResult:
    name = _name(body.name, settings.max_name_length)
    room = await manager.require(code)
    seat, token = await room.join(name, body.seat)
    return JoinResult(spectator=seat is None, seat=seat, token=token)


@router.get("/rooms/{code}", response_model=RoomPublic, responses=NOT_FOUND)
async def get_room(code: str, manager: ManagerDep) -> RoomPublic:
    room = await manager.require(code)
    info = room.room_info()
    game = None
    if room.game_id is not None and room.game_number is not None:
        game = GameSummary(
            id=room.game_id,
            number=room.game_number,
            status="finished" if room.game is not None and room.game.is_over else "playing",
        )
    return RoomPublic(
        code=info.code,
        status=info.status,
        version=room.version,
        host_seat=info.host_seat,
        seat_count=info.seat_count,
        seats=info.seats,
        options=info.options,
        spectators=info.spectators,
        game=game,
    )
