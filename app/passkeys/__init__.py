"""Names kept with passkeys: the WebAuthn ceremonies (through Duo Labs' ``webauthn``), the relying party
this server is, and the one-time codes that add a device."""

from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

from .ceremonies import (
    CHALLENGE_LIFETIME,
    Begun,
    NewPasskey,
    RelyingParty,
    check_age,
    creation_options,
    finish_registration,
    finish_sign_in,
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
    "new_device_code",
    "normalize_device_code",
    "read_challenge",
    "request_options",
]
