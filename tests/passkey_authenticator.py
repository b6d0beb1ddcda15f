"""A software passkey for tests only: an EC P-256 key, 'none' attestation, authenticator data laid out as the
WebAuthn spec says (rpIdHash, flags, signCount, attested credential data), built on ``cryptography`` and
``cbor2``. It answers the server's ``publicKey`` options as a browser's ``PublicKeyCredential.toJSON()``."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftPasskey:
    """One credential on one authenticator, for relying party ``rp_id`` at ``origin``."""

    def __init__(self, origin: str, rp_id: str | None = None) -> None:
        self.origin = origin
        self.rp_id = rp_id or origin.split("://", 1)[1].rsplit(":", 1)[0]
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.sign_count = 0
        self.user_handle: bytes | None = None

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        )

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}
        return json.dumps(data).encode()

    def _rp_hash(self) -> bytes:
        return hashlib.sha256(self.rp_id.encode()).digest()

    def create(
        self, options: dict[str, Any], *, origin: str | None = None, uv: bool = True
    ) -> dict[str, Any]:
        """``navigator.credentials.create({publicKey})``: a new credential, as JSON."""
        public_key = options["publicKey"]
        self.user_handle = unb64(public_key["user"]["id"])
        client_data = self._client_data("webauthn.create", public_key["challenge"], origin)
        flags = UP | AT | (UV if uv else 0)
        attested = bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + self._cose()
        auth_data = self._rp_hash() + bytes([flags]) + self.sign_count.to_bytes(4, "big") + attested
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(
        self, options: dict[str, Any], *, origin: str | None = None, count: int | None = None
    ) -> dict[str, Any]:
        """``navigator.credentials.get({publicKey})``: an assertion, as JSON (the count moves on by one, or
        is ``count``)."""
        self.sign_count = self.sign_count + 1 if count is None else count
        client_data = self._client_data("webauthn.get", options["publicKey"]["challenge"], origin)
        auth_data = self._rp_hash() + bytes([UP | UV]) + self.sign_count.to_bytes(4, "big")
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(self.user_handle or b""),
            },
            "clientExtensionResults": {},
        }
