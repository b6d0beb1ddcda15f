"""Names kept with passkeys: the WebAuthn ceremonies (through Duo Labs' ``webauthn``), the relying party
this server is, and the one-time codes that add a device. ``webauthn`` itself is imported at the first
ceremony (``load_webauthn``), not with this package."""

from .ceremonies import (
    CHALLENGE_LIFETIME,
    Begun,
    NewPasskey,
    RelyingParty,
    base64url_to_bytes,
    bytes_to_base64url,
    check_age,
    creation_options,
    finish_registration,
    finish_sign_in,
    load_webauthn,
    read_challenge,
    request_options,
)
from .codes import DEVICE_CODE_LIFETIME, new_device_code, normalize_device_code

__all__ = [
    "base64url_to_bytes",
    "bytes_to_base64url",
    "CHALLENGE_LIFETIME",
    "DEVICE_CODE_LIFETIME",
    "Begun",
    "NewPasskey",
    "RelyingParty",
    "check_age",
    "creation_options",
    "finish_registration",
    "finish_sign_in",
    "load_webauthn",
    "new_device_code",
    "normalize_device_code",
    "read_challenge",
    "request_options",
]
