"""REST for Web Push: the server's public key, and a seat's subscription on one device switched on and off
(the seat's token in the body, never in a URL)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from app.push import MAX_ENDPOINT_LENGTH, Pusher, SubscriptionRefused, check_subscription
from app.rooms import hash_token, normalize_code
from app.store import PushSubscription
from app.table import Refusal

from .deps import ManagerDep, SettingsDep
from .errors import ErrorPublic, refusals
from .record_cache import address_allowed

router = APIRouter(
    prefix="/api",
    tags=["push"],
    responses=refusals(
        "bad_request: the body failed validation; bad_subscription: an endpoint the server will not push to "
        "(not https, a private address, too long) or keys of the wrong size"
    ),
)
DEVICES_PER_SEAT = 5  # a seat's subscriptions kept; a sixth device's replaces the oldest

Token = Annotated[str, Field(min_length=1, max_length=200, description="the seat's token")]
Device = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9_-]{8,64}$",
        description="a random id the browser made once and keeps (8–64 of A–Z a–z 0–9 _ -)",
    ),
]


class PushKey(BaseModel):
    key: str = Field(description="the server's VAPID public key, base64url: the `applicationServerKey`")


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")

    p256dh: str = Field(max_length=100, description="base64url of the 65-byte P-256 public key")
    auth: str = Field(max_length=32, description="base64url of the 16-byte auth secret")


class PushSubscriptionIn(BaseModel):
    """``PushSubscription.toJSON()`` as a browser gives it."""

    model_config = ConfigDict(extra="forbid")

    endpoint: str = Field(max_length=4 * MAX_ENDPOINT_LENGTH, description="https, at most 1024 characters")
    expirationTime: float | None = None  # noqa: N815 (the browser's own name)
    keys: PushKeys


class PushOn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: Token
    device: Device
    subscription: PushSubscriptionIn
    lang: Literal["en", "fa"] = "en"


class PushOff(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: Token
    device: Device


async def _pusher(connection: HTTPConnection) -> Pusher:
    pusher: Pusher = connection.app.state.pusher
    return pusher


async def _changes(request: Request, settings: SettingsDep, manager: ManagerDep) -> None:
    """Every subscription change spends one per-address budget (``MAX_PUSH_CHANGES_PER_MINUTE``)."""
    if not address_allowed(request, "push_rate", settings.max_push_changes_per_minute, manager.clock):
        raise Refusal("rate_limited", "too many notification changes from your address; wait a minute")


PusherDep = Annotated[Pusher, Depends(_pusher)]
CHANGES: list[Any] = [Depends(_changes)]
SEAT_REFUSALS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorPublic, "description": "the token holds no seat at this table (not_seated)"},
    404: {"model": ErrorPublic, "description": "unknown room code (room_not_found)"},
    429: {"model": ErrorPublic, "description": "too many changes from this address (rate_limited)"},
}


def _code(code: str) -> str:
    normal = normalize_code(code)
    if normal is None:
        raise Refusal("room_not_found", f"there is no room {code[:16]!r}; check the code or link")
    return normal


@router.get("/push/key", response_model=PushKey)
async def push_key(pusher: PusherDep) -> PushKey:
    """The key a browser subscribes with (``pushManager.subscribe({applicationServerKey})``)."""
    return PushKey(key=await pusher.public_key())


@router.post(
    "/rooms/{code}/push",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    dependencies=CHANGES,
    responses=SEAT_REFUSALS,
)
async def push_on(code: str, body: PushOn, settings: SettingsDep, manager: ManagerDep) -> Response:
    """Notify this seat on this device when it is its turn (again: the subscription is replaced)."""
    code = _code(code)
    keys = body.subscription.keys
    try:
        p256dh, auth = check_subscription(
            body.subscription.endpoint, keys.p256dh, keys.auth, settings.push_hosts
        )
    except SubscriptionRefused as refused:
        raise Refusal("bad_subscription", str(refused)) from None
    subscription = PushSubscription(
        room_code=code,
        token_hash=hash_token(body.token),
        device=body.device,
        endpoint=body.subscription.endpoint,
        p256dh=p256dh,
        auth=auth,
        lang=body.lang,
    )
    now = datetime.now(UTC)
    answer = await manager.store.push_subscribe(subscription, now=now, devices=DEVICES_PER_SEAT)
    if answer == "no_room":
        raise Refusal("room_not_found", f"there is no room {code!r}; check the code or link")
    if answer == "not_seated":
        raise Refusal("not_seated", "only a seated player is notified: this token holds no seat here")
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/rooms/{code}/push/off",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    dependencies=CHANGES,
    responses={429: SEAT_REFUSALS[429], 404: SEAT_REFUSALS[404]},
)
async def push_off(code: str, body: PushOff, manager: ManagerDep) -> Response:
    """No more notifications for this seat on this device (nothing to switch off is no error)."""
    await manager.store.push_unsubscribe(_code(code), hash_token(body.token), body.device)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
