"""A push service for tests: a real HTTP server on 127.0.0.1 that takes a push only with a valid VAPID token
(RFC 8292: ES256-signed by the key it names, for this service's own origin, not expired), decrypts its
aes128gcm body (RFC 8291) with the subscription's private key, and records what arrived. A path can be told
to answer with a status (410: the subscription is gone) or to hang for some seconds first.

The VAPID check is written here with ``cryptography`` alone, not with the library the server signs with."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.server_process import free_port


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Keys:
    """A subscription's keys, as a browser makes them: a P-256 key pair and a 16-byte auth secret."""

    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def json(self) -> dict[str, str]:
        return {"p256dh": self.p256dh, "auth": b64url(self.auth)}


@dataclass(frozen=True)
class Received:
    """One push the service took: its path, the decrypted JSON, the request's headers (lower-case names) and
    the VAPID token's claims and key."""

    path: str
    payload: dict[str, Any]
    headers: dict[str, str]
    claims: dict[str, Any]
    key: str


def vapid_claims(authorization: str, audience: str) -> tuple[dict[str, Any], str]:
    """The claims and key of a valid ``vapid t=<JWT>, k=<key>`` header for ``audience``; ValueError if not."""
    scheme, _, rest = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError(f"not a vapid authorization: {scheme!r}")
    parts = dict(part.strip().split("=", 1) for part in rest.split(","))
    token, key = parts["t"], parts["k"]
    header_b64, claims_b64, signature_b64 = token.split(".")
    header = json.loads(unb64url(header_b64))
    if header.get("alg") != "ES256":
        raise ValueError(f"not ES256: {header!r}")
    signature = unb64url(signature_b64)
    if len(signature) != 64:
        raise ValueError("an ES256 signature is 64 bytes")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    try:
        public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("the token is not signed by its key") from None
    claims = json.loads(unb64url(claims_b64))
    if claims.get("aud") != audience:
        raise ValueError(f"the token is for {claims.get('aud')!r}, not {audience!r}")
    if not time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600:
        raise ValueError("the token has expired, or lasts more than 24 hours")
    return claims, key


class PushService:
    """The service's state: subscriptions it knows (path -> keys), what arrived, what it was told to do."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"
        self.keys: dict[str, Keys] = {}
        self.received: list[Received] = []
        self.refused: list[tuple[str, str]] = []  # (path, why)
        self.answers: dict[str, int] = {}  # path -> status to answer instead of taking the push
        self.hangs: dict[str, float] = {}  # path -> seconds to wait before answering
        self.connections = 0  # every connection accepted, pushes or not
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)

    def subscription(self, name: str) -> dict[str, Any]:
        """A new subscription at ``/push/<name>``: what a browser's ``PushSubscription.toJSON()`` gives."""
        path = f"/push/{name}"
        self.keys[path] = Keys()
        return {"endpoint": f"{self.origin}{path}", "expirationTime": None, "keys": self.keys[path].json()}

    def at(self, path_or_name: str) -> list[Received]:
        path = path_or_name if path_or_name.startswith("/") else f"/push/{path_or_name}"
        with self.lock:
            return [r for r in self.received if r.path == path]

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Wait until ``count`` pushes have arrived in all (AssertionError after ``timeout``)."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.received) >= count, timeout):
                raise AssertionError(f"{len(self.received)} pushes arrived, not {count}: {self.refused}")
            return list(self.received)

    def take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        """The status to answer a push with, recording it when it is good."""
        if path in self.hangs:
            time.sleep(self.hangs[path])
        if path in self.answers:
            return self.answers[path]
        try:
            claims, key = vapid_claims(headers.get("authorization", ""), self.origin)
            if headers.get("content-encoding") != "aes128gcm" or "ttl" not in headers:
                raise ValueError("a push is aes128gcm with a TTL")
            keys = self.keys[path]
            plain = http_ece.decrypt(
                body, private_key=keys.private, auth_secret=keys.auth, version="aes128gcm"
            )
            payload = json.loads(plain)
        except Exception as exc:  # refused: recorded with why
            with self.lock:
                self.refused.append((path, repr(exc)))
            return 401 if isinstance(exc, ValueError) else 400
        with self.arrived:
            self.received.append(Received(path, payload, headers, claims, key))
            self.arrived.notify_all()
        return 201


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a hanging request does not hold the test's end
    service: PushService

    def get_request(self) -> Any:
        request = super().get_request()
        with self.service.lock:
            self.service.connections += 1
        return request


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        status = self.server.service.take(self.path, headers, body)
        self.send_response(status)
        if status == 201:
            self.send_header("Location", f"{self.server.service.origin}/message/1")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def push_service() -> Iterator[PushService]:
    """A push service on a free port of 127.0.0.1, for the length of the block."""
    port = free_port()
    server = _Server(("127.0.0.1", port), _Handler)
    server.service = service = PushService(port)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
