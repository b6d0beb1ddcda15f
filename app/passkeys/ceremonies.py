"""The WebAuthn ceremonies, through Duo Labs' ``webauthn`` (no cryptography here): the options a browser
gets, and the checks of what it answers, each failure a refusal with its own code. The challenge is read
from the answer's client data and looked up in the store by the caller (single use, five minutes), so any
process can finish a ceremony another began.

``webauthn`` (with ``cryptography``, pyOpenSSL, pyasn1 and cbor2 under it: about 13 MB of the serving
process's memory) is imported at the first ceremony, not with this module: the routes that run one await
``load_webauthn`` first, which imports it in a worker thread (about 0.1 s of work that would otherwise stall
every socket of the process once); each function here imports what it uses, found loaded by then
(``tests/ops/test_lean_imports.py``)."""

from __future__ import annotations

import asyncio
import importlib
import json
import threading
from base64 import urlsafe_b64decode, urlsafe_b64encode
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from app.config import origin_of
from app.table import Refusal

if TYPE_CHECKING:
    from webauthn.helpers.structs import (
        AuthenticationCredential,
        PublicKeyCredentialDescriptor,
        RegistrationCredential,
    )

CHALLENGE_LIFETIME = timedelta(minutes=5)
TIMEOUT_MS = 180_000  # what the browser is told; the server's own limit is CHALLENGE_LIFETIME
RP_NAME = "Three Thirteen"
_LOADED = threading.Event()


async def load_webauthn() -> None:
    """Import ``webauthn`` the first time, in a worker thread (the event loop goes on meanwhile); at once
    after that. Two first ceremonies at once both wait in threads for the one import."""
    if not _LOADED.is_set():
        await asyncio.to_thread(_import_webauthn)


def _import_webauthn() -> None:
    importlib.import_module("webauthn")
    _LOADED.set()


def base64url_to_bytes(value: str) -> bytes:
    """As ``webauthn.helpers.base64url_to_bytes``: padding optional (too much is ignored)."""
    return urlsafe_b64decode(f"{value}===")


def bytes_to_base64url(value: bytes) -> str:
    """As ``webauthn.helpers.bytes_to_base64url``: no padding."""
    return urlsafe_b64encode(value).decode("utf-8").rstrip("=")


@dataclass(frozen=True, slots=True)
class RelyingParty:
    """Who this server is to a passkey: its host name (the RP id) and the one origin its pages come from."""

    id: str
    origin: str

    @classmethod
    def of(cls, public_base_url: str, request_base_url: str) -> RelyingParty:
        """From ``PUBLIC_BASE_URL``; when that is empty (local use) from the request's own scheme and host."""
        origin = origin_of(public_base_url) if public_base_url.strip() else None
        origin = origin or origin_of(request_base_url) or "http://localhost"
        host = origin.split("://", 1)[1]
        host = host[1 : host.index("]")] if host.startswith("[") else host.rsplit(":", 1)[0]
        return cls(id=host, origin=origin)

    @property
    def secure(self) -> bool:
        return self.origin.startswith("https://")


@dataclass(frozen=True, slots=True)
class Begun:
    """A ceremony's options for the browser (JSON), and its challenge (base64url) to keep in the store."""

    options: dict[str, Any]
    challenge: str


def _begun(options: Any) -> Begun:
    from webauthn import options_to_json

    return Begun(json.loads(options_to_json(options)), bytes_to_base64url(options.challenge))


def creation_options(
    rp: RelyingParty, *, name: str, user_handle: bytes, exclude: list[str] | None = None
) -> Begun:
    """Make a passkey for ``name`` on this server: a discoverable credential, user verification required."""
    from webauthn import generate_registration_options
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    options = generate_registration_options(
        rp_id=rp.id,
        rp_name=RP_NAME,
        user_name=name,
        user_display_name=name,
        user_id=user_handle,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[_descriptor(c) for c in exclude or []],
    )
    return _begun(options)


def request_options(rp: RelyingParty, *, allow: list[str]) -> Begun:
    """Prove one of the passkeys ``allow`` (base64url ids; none: any of this server's, the browser offers)."""
    from webauthn import generate_authentication_options
    from webauthn.helpers.structs import UserVerificationRequirement

    options = generate_authentication_options(
        rp_id=rp.id,
        timeout=TIMEOUT_MS,
        allow_credentials=[_descriptor(c) for c in allow],
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return _begun(options)


def _descriptor(credential_id: str) -> PublicKeyCredentialDescriptor:
    from webauthn.helpers.structs import PublicKeyCredentialDescriptor

    return PublicKeyCredentialDescriptor(id=base64url_to_bytes(credential_id))


def read_challenge(
    credential: dict[str, Any], rp: RelyingParty, *, registration: bool
) -> tuple[RegistrationCredential | AuthenticationCredential, str]:
    """The browser's answer, parsed, and the challenge its client data names (base64url). A wrong origin is
    refused here (``bad_origin``), before anything is looked up."""
    from webauthn.helpers import (
        parse_authentication_credential_json,
        parse_client_data_json,
        parse_registration_credential_json,
    )
    from webauthn.helpers.exceptions import WebAuthnException

    try:
        text = json.dumps(credential)
        parsed: RegistrationCredential | AuthenticationCredential = (
            parse_registration_credential_json(text)
            if registration
            else parse_authentication_credential_json(text)
        )
        client_data = parse_client_data_json(parsed.response.client_data_json)
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise Refusal("passkey_refused", f"the passkey's answer could not be read: {exc}") from None
    if client_data.origin != rp.origin:
        raise Refusal("bad_origin", f"the passkey was used for {client_data.origin!r}, not for {rp.origin!r}")
    return parsed, bytes_to_base64url(client_data.challenge)


def check_age(created_at: datetime, now: datetime) -> None:
    if now - created_at > CHALLENGE_LIFETIME:
        raise Refusal("challenge_expired", "that took more than five minutes; start again")


@dataclass(frozen=True, slots=True)
class NewPasskey:
    credential_id: str
    public_key: bytes
    sign_count: int


def finish_registration(credential: RegistrationCredential, rp: RelyingParty, challenge: str) -> NewPasskey:
    """Check a new passkey (its origin, RP id, challenge, user presence and verification): its id and key."""
    from webauthn import verify_registration_response
    from webauthn.helpers.exceptions import WebAuthnException

    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            require_user_verification=True,
        )
    except WebAuthnException as exc:
        raise Refusal("passkey_refused", f"the new passkey was not accepted: {exc}") from None
    return NewPasskey(
        bytes_to_base64url(verified.credential_id), verified.credential_public_key, verified.sign_count
    )


def finish_sign_in(
    credential: AuthenticationCredential,
    rp: RelyingParty,
    challenge: str,
    *,
    public_key: bytes,
    sign_count: int,
) -> int:
    """Check an assertion by a kept passkey (count first: one that goes backwards is a cloned key); the new
    count."""
    from webauthn import verify_authentication_response
    from webauthn.helpers import parse_authenticator_data
    from webauthn.helpers.exceptions import WebAuthnException

    try:
        count = parse_authenticator_data(credential.response.authenticator_data).sign_count
    except WebAuthnException as exc:
        raise Refusal("passkey_refused", f"the passkey's answer could not be read: {exc}") from None
    if (count > 0 or sign_count > 0) and count <= sign_count:
        raise Refusal(
            "sign_count_backwards",
            f"this passkey says it was used {count} times, but {sign_count} were seen: it may be a copy",
        )
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=public_key,
            credential_current_sign_count=sign_count,
            require_user_verification=True,
        )
    except WebAuthnException as exc:
        raise Refusal("passkey_refused", f"the passkey's signature was not accepted: {exc}") from None
    return verified.new_sign_count
