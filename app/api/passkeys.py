"""REST for names kept with passkeys: claim a name, add a device with a one-time code, sign in, and a
name's holder's list of passkeys, removal and sign-outs. JSON bodies only, the site's own ``Origin`` only,
limited per client address (``MAX_PASSKEY_REQUESTS_PER_MINUTE``); the ceremonies are ``app.passkeys``'s."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from app.passkeys import (
    CHALLENGE_LIFETIME,
    DEVICE_CODE_LIFETIME,
    Begun,
    RelyingParty,
    base64url_to_bytes,
    bytes_to_base64url,
    check_age,
    creation_options,
    finish_registration,
    finish_sign_in,
    load_webauthn,
    new_device_code,
    normalize_device_code,
    read_challenge,
    request_options,
)
from app.rooms import hash_token
from app.rooms.tokens import new_token
from app.store.passkeys import Challenge, NameClaim, NewKey, NewSession
from app.table import Refusal
from app.table.text import clean_name, clean_text, name_skeleton

from .deps import ManagerDep, SettingsDep
from .errors import ErrorPublic
from .record_cache import address_allowed
from .session import SignedInDep, clear_session, relying_party, session_hash, set_session

RpDep = Annotated[RelyingParty, Depends(relying_party)]


async def _guard(request: Request, settings: SettingsDep, manager: ManagerDep) -> None:
    """Every passkey request spends the address's budget; a change must come from this site's own pages
    (``Origin``) with a JSON body, so no other site's form or script can make one."""
    if not address_allowed(request, "passkey_rate", settings.max_passkey_requests_per_minute, manager.clock):
        raise Refusal("rate_limited", "too many passkey requests from your address; wait a minute")
    if request.method == "GET":
        return
    rp = relying_party(request)
    origin = request.headers.get("origin")
    if origin is None or origin.rstrip("/") != rp.origin:
        raise Refusal("bad_origin", f"passkey requests come from this site's own pages ({rp.origin}) only")
    if request.method == "POST":
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            raise Refusal("not_json", "send the request's body as JSON (Content-Type: application/json)")


def _refused(*codes: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    return {status_: {"model": ErrorPublic, "description": text} for status_, text in codes}


GUARDED: dict[int | str, dict[str, Any]] = _refused(
    (
        403,
        "bad_origin: not this site's Origin (or the passkey was made for another); wrong_passkey; "
        "sign_count_backwards; name_kept",
    ),
    (415, "not_json: the body is not application/json"),
    (422, "bad_request: the body failed validation; name_for_bots, name_mixes_scripts"),
    (429, "rate_limited: too many passkey requests from this address"),
)
router = APIRouter(
    prefix="/api/passkeys", tags=["passkeys"], dependencies=[Depends(_guard)], responses=GUARDED
)
# The routes that run a ceremony: ``webauthn`` is imported (once, in a worker thread) after the guard let the
# request in and before the route runs.
CEREMONY = [Depends(load_webauthn)]


class NameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=200, description="the name to keep (the table's rules for names)")


class SignInIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(
        default=None,
        max_length=200,
        description="the kept name (none: any passkey of this site the browser has)",
    )


class CodeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(max_length=32, description="the one-time code a signed-in device shows")


class CredentialIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    credential: dict[str, Any] = Field(
        description="the browser's PublicKeyCredential as JSON (toJSON(): id, rawId, type, response, …)"
    )
    label: str | None = Field(default=None, max_length=100, description="what to call this passkey")


class Empty(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CeremonyOptions(BaseModel):
    """``publicKey`` for ``navigator.credentials.create`` or ``.get`` (binary fields base64url, as
    ``PublicKeyCredential.parseCreationOptionsFromJSON`` takes them); good for five minutes, once."""

    publicKey: dict[str, Any]  # noqa: N815 (the browser's own name)


class SignedIn(BaseModel):
    name: str = Field(description="the kept name this browser is now signed in as")


class PasskeyPublic(BaseModel):
    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None


class HolderPublic(BaseModel):
    name: str
    passkeys: list[PasskeyPublic]


class DeviceCode(BaseModel):
    code: str = Field(description="8 letters and digits; good for ten minutes, once")
    expires_at: datetime


class Removed(BaseModel):
    claimed: bool = Field(description="false: that was the name's last passkey, so the name is free again")


def _options(begun: Begun) -> CeremonyOptions:
    return CeremonyOptions(publicKey=begun.options)


async def _begin(manager: ManagerDep, begun: Begun, **challenge: Any) -> CeremonyOptions:
    now = manager.clock.now()
    kept = Challenge(challenge=begun.challenge, created_at=now, **challenge)
    await manager.store.begin_ceremony(kept, forget_before=now - CHALLENGE_LIFETIME)
    return _options(begun)


def _holder(claim: NameClaim | None) -> NameClaim:
    if claim is None:
        raise Refusal("not_signed_in", "this browser is not signed in as a kept name")
    return claim


def _label(label: str | None) -> str | None:
    if label is None or not label.strip():
        return None
    return clean_text(label, max_length=40, what="label", code="bad_request")


def _new_session(response: Response, rp: RelyingParty, settings: SettingsDep, now: datetime) -> NewSession:
    token = new_token()
    set_session(response, token, rp=rp, settings=settings)
    return NewSession(hash_token(token), now, timedelta(days=settings.session_days))


async def _taken(manager: ManagerDep, challenge: str, *purposes: str) -> Challenge:
    begun = await manager.store.take_ceremony(challenge)
    if begun is None or begun.purpose not in purposes:
        raise Refusal(
            "challenge_unknown", "this server did not ask that (or it was answered already); start again"
        )
    check_age(begun.created_at, manager.clock.now())
    return begun


@router.post("/claim/options", response_model=CeremonyOptions, dependencies=CEREMONY)
async def claim_options(
    body: NameIn, rp: RpDep, settings: SettingsDep, manager: ManagerDep
) -> CeremonyOptions:
    """Begin keeping a name: the options for a new passkey. ``name_kept`` if it (or a look-alike) is kept."""
    name = clean_name(body.name, max_length=settings.max_name_length, code="bad_request")
    if await manager.store.name_claim(name_skeleton(name)) is not None:
        raise Refusal("name_kept", f"{name!r} (or a name that reads the same) is kept already")
    handle = secrets.token_bytes(32)
    begun = creation_options(rp, name=name, user_handle=handle)
    return await _begin(
        manager, begun, purpose="claim", name=name, claim_id=None, user_handle=bytes_to_base64url(handle)
    )


@router.post("/add/options", response_model=CeremonyOptions, dependencies=CEREMONY)
async def add_options(body: CodeIn, rp: RpDep, manager: ManagerDep) -> CeremonyOptions:
    """Begin adding this device's passkey to a kept name, with the one-time code another device shows (used
    up by this call)."""
    code = normalize_device_code(body.code)
    claim_id = (
        None if code is None else await manager.store.take_device_code(hash_token(code), manager.clock.now())
    )
    claim = None if claim_id is None else await manager.store.name_claim_by_id(claim_id)
    if claim is None:
        raise Refusal(
            "bad_device_code", "that code is wrong, used or more than ten minutes old; ask for a new one"
        )
    kept = [p.credential_id for p in await manager.store.passkeys_of(claim.id)]
    begun = creation_options(
        rp, name=claim.name, user_handle=base64url_to_bytes(claim.user_handle), exclude=kept
    )
    return await _begin(
        manager, begun, purpose="add", name=claim.name, claim_id=claim.id, user_handle=claim.user_handle
    )


@router.post("/register", response_model=SignedIn, dependencies=CEREMONY)
async def register(
    body: CredentialIn, response: Response, rp: RpDep, settings: SettingsDep, manager: ManagerDep
) -> SignedIn:
    """Finish a claim or an added device: the new passkey is kept and this browser is signed in (the
    session cookie)."""
    parsed, challenge = read_challenge(body.credential, rp, registration=True)
    begun = await _taken(manager, challenge, "claim", "add")
    new = finish_registration(parsed, rp, challenge)  # type: ignore[arg-type]
    key = NewKey(new.credential_id, new.public_key, new.sign_count, _label(body.label))
    session = _new_session(response, rp, settings, manager.clock.now())
    assert begun.name is not None
    if begun.purpose == "claim":
        assert begun.user_handle is not None
        made = await manager.store.claim_name(
            name=begun.name,
            skeleton=name_skeleton(begun.name),
            user_handle=begun.user_handle,
            key=key,
            session=session,
        )
        if made is None:
            raise Refusal("name_kept", f"{begun.name!r} (or a name that reads the same) was kept first")
    else:
        assert begun.claim_id is not None
        if not await manager.store.add_device(begun.claim_id, key, session):
            raise Refusal(
                "not_kept", "that name is no longer kept, or this passkey is one of its own already"
            )
    return SignedIn(name=begun.name)


@router.post(
    "/sign-in/options",
    response_model=CeremonyOptions,
    responses=_refused((404, "not_kept")),
    dependencies=CEREMONY,
)
async def sign_in_options(body: SignInIn, rp: RpDep, manager: ManagerDep) -> CeremonyOptions:
    """Begin signing in as a kept name (with no name: as whichever name the passkey the browser offers
    keeps)."""
    claim_id = None
    allow: list[str] = []
    if body.name is not None:
        claim = await manager.store.name_claim(name_skeleton(body.name.strip()))
        if claim is None:
            raise Refusal("not_kept", "nobody keeps that name here; anyone may play under it")
        claim_id = claim.id
        allow = [p.credential_id for p in await manager.store.passkeys_of(claim.id)]
    begun = request_options(rp, allow=allow)
    return await _begin(manager, begun, purpose="sign_in", name=None, claim_id=claim_id, user_handle=None)


@router.post("/sign-in", response_model=SignedIn, dependencies=CEREMONY)
async def sign_in(
    body: CredentialIn, response: Response, rp: RpDep, settings: SettingsDep, manager: ManagerDep
) -> SignedIn:
    """Finish signing in: the passkey must be one the name asked for keeps, and its count must move on."""
    parsed, challenge = read_challenge(body.credential, rp, registration=False)
    begun = await _taken(manager, challenge, "sign_in")
    passkey = await manager.store.passkey(bytes_to_base64url(parsed.raw_id))
    if passkey is None or (begun.claim_id is not None and passkey.claim_id != begun.claim_id):
        raise Refusal("wrong_passkey", "that passkey does not keep this name")
    count = finish_sign_in(
        parsed,  # type: ignore[arg-type]
        rp,
        challenge,
        public_key=passkey.public_key,
        sign_count=passkey.sign_count,
    )
    session = _new_session(response, rp, settings, manager.clock.now())
    if not await manager.store.passkey_sign_in(passkey, count, session):
        raise Refusal("sign_count_backwards", "this passkey was used again meanwhile; sign in again")
    claim = await manager.store.name_claim_by_id(passkey.claim_id)
    if claim is None:
        raise Refusal("not_kept", "that name is no longer kept")
    return SignedIn(name=claim.name)


@router.get("/me", response_model=HolderPublic, responses=_refused((401, "not_signed_in")))
async def me(signed_in: SignedInDep, manager: ManagerDep) -> HolderPublic:
    """The kept name this browser is signed in as, and its passkeys (no keys, no ids of credentials)."""
    claim = _holder(signed_in)
    keys = await manager.store.passkeys_of(claim.id)
    return HolderPublic(
        name=claim.name,
        passkeys=[
            PasskeyPublic(id=k.id, label=k.label, created_at=k.created_at, last_used_at=k.last_used_at)
            for k in keys
        ],
    )


@router.delete(
    "/{passkey_id}",
    response_model=Removed,
    responses=_refused((401, "not_signed_in"), (404, "passkey_not_found")),
)
async def remove(
    passkey_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    response: Response,
    signed_in: SignedInDep,
    rp: RpDep,
    manager: ManagerDep,
) -> Removed:
    """Remove one of the name's passkeys. Its last one frees the name and signs every browser out."""
    claim = _holder(signed_in)
    removed = await manager.store.remove_passkey(claim.id, passkey_id)
    if removed == "not_found":
        raise Refusal("passkey_not_found", "this name has no such passkey")
    if removed == "last":
        clear_session(response, rp=rp)
    return Removed(claimed=removed == "removed")


@router.post("/device-code", response_model=DeviceCode, responses=_refused((401, "not_signed_in")))
async def device_code(_body: Empty, signed_in: SignedInDep, manager: ManagerDep) -> DeviceCode:
    """A one-time code for another device to add its own passkey to this name (ten minutes, once)."""
    claim = _holder(signed_in)
    code, now = new_device_code(), manager.clock.now()
    await manager.store.add_device_code(hash_token(code), claim.id, now=now, lasts=DEVICE_CODE_LIFETIME)
    return DeviceCode(code=code, expires_at=now + DEVICE_CODE_LIFETIME)


@router.post("/sign-out", status_code=status.HTTP_204_NO_CONTENT, response_class=Response)
async def sign_out(_body: Empty, request: Request, rp: RpDep, manager: ManagerDep) -> Response:
    """This browser is signed out (its session is forgotten; signed out already is no error)."""
    token_hash = session_hash(request)
    if token_hash is not None:
        await manager.store.sign_out(token_hash)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    clear_session(response, rp=rp)
    return response


@router.post(
    "/sign-out-everywhere",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=_refused((401, "not_signed_in")),
)
async def sign_out_everywhere(
    _body: Empty, signed_in: SignedInDep, rp: RpDep, manager: ManagerDep
) -> Response:
    """Every browser signed in as this name is signed out (its passkeys stay)."""
    claim = _holder(signed_in)
    await manager.store.sign_out_everywhere(claim.id)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    clear_session(response, rp=rp)
    return response
