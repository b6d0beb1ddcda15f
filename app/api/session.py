"""The passkey session: an opaque random token in an HttpOnly, SameSite=Lax cookie (``Secure`` when the site
is https), kept in the store only as its SHA-256, for ``SESSION_DAYS``. Routes and the WebSocket read from
it which kept name (if any) the browser proved."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import Depends, Response
from starlette.requests import HTTPConnection

from app.config import Settings
from app.passkeys import RelyingParty
from app.rooms import RoomManager, hash_token
from app.store.passkeys import NameClaim

COOKIE = "tt_session"
_LONGEST = 100  # a token is 43 characters; anything much longer is not one


def relying_party(connection: HTTPConnection) -> RelyingParty:
    """This server as a passkey knows it: from ``PUBLIC_BASE_URL``, else the request's own scheme and host
    (a trusted proxy's ``X-Forwarded-Proto`` counts)."""
    settings: Settings = connection.app.state.settings
    return RelyingParty.of(settings.public_base_url, str(connection.base_url))


def session_hash(connection: HTTPConnection) -> str | None:
    token = connection.cookies.get(COOKIE)
    return hash_token(token) if token and len(token) <= _LONGEST else None


async def signed_in_as(connection: HTTPConnection) -> NameClaim | None:
    """The kept name this browser's session proves (None: no cookie, or signed out, or lapsed)."""
    token_hash = session_hash(connection)
    if token_hash is None:
        return None
    manager: RoomManager = connection.app.state.manager
    return await manager.store.session_claim(token_hash, manager.clock.now())


async def proved_skeleton(connection: HTTPConnection) -> str | None:
    """The skeleton of the kept name this browser proved, for the seat checks (None: not signed in)."""
    claim = await signed_in_as(connection)
    return None if claim is None else claim.skeleton


def set_session(response: Response, token: str, *, rp: RelyingParty, settings: Settings) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(timedelta(days=settings.session_days).total_seconds()),
        path="/",
        secure=rp.secure,
        httponly=True,
        samesite="lax",
    )


def clear_session(response: Response, *, rp: RelyingParty) -> None:
    response.delete_cookie(COOKIE, path="/", secure=rp.secure, httponly=True, samesite="lax")


SignedInDep = Annotated[NameClaim | None, Depends(signed_in_as)]
ProvedDep = Annotated[str | None, Depends(proved_skeleton)]
