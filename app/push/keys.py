"""The server's VAPID key pair (RFC 8292): made once, at its first need, and kept in the database (so every
process signs with the same key, and a backup of the database holds it); and the signed token that names
this server to a push service.

The cryptography behind it (``cryptography``'s elliptic curves, py_vapid) is imported when a key is first
made or read, not with this module: about 9 MB of the serving process's memory that a server whose players
never turn on notifications does not need (``tests/ops/test_lean_imports.py``)."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any

from app.store import Store

KEY_NAME = "vapid"  # the server_keys row: the private key as base64url of its 32 bytes
TOKEN_SECONDS = 12 * 3600  # how long a signed token holds (RFC 8292: at most 24 hours)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_private_key() -> str:
    """A new P-256 private key, as base64url of its 32 bytes."""
    from cryptography.hazmat.primitives.asymmetric import ec

    private = ec.generate_private_key(ec.SECP256R1())
    return b64url(private.private_numbers().private_value.to_bytes(32, "big"))


@dataclass(frozen=True)
class VapidKey:
    """The server's key pair: ``public`` is what a browser's ``pushManager.subscribe`` takes as its
    ``applicationServerKey`` (base64url of the uncompressed point)."""

    vapid: Any  # py_vapid's Vapid (untyped)
    public: str

    @classmethod
    def from_private(cls, private: str) -> VapidKey:
        from cryptography.hazmat.primitives import serialization
        from py_vapid import Vapid

        vapid = Vapid.from_raw(private.encode("ascii"))
        point = vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return cls(vapid, b64url(point))

    def authorization(self, audience: str, contact: str, *, now: float | None = None) -> str:
        """The ``Authorization`` header for a push to a service at origin ``audience``:
        ``vapid t=<JWT>, k=<public key>``, the JWT signed with ES256."""
        expires = int(now if now is not None else time.time()) + TOKEN_SECONDS
        headers = self.vapid.sign({"aud": audience, "sub": contact, "exp": expires})
        return str(headers["Authorization"])


async def load_key(store: Store) -> VapidKey:
    """The server's key pair, made and kept at the first call on this database."""
    return VapidKey.from_private(await store.server_key(KEY_NAME, new_private_key))
