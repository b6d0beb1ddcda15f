"""A browser's push subscription, checked before it is kept: an endpoint the server may push to
(``addresses``) and the keys its pushes are encrypted with (a P-256 public key and a 16-byte secret).
``cryptography`` is imported by the first check, not with this module (as in ``keys``)."""

from __future__ import annotations

import base64
import binascii
import re

from .addresses import EndpointRefused, parse_endpoint

_B64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
P256DH_BYTES = 65  # an uncompressed P-256 point
AUTH_BYTES = 16


class SubscriptionRefused(ValueError):
    """A subscription the server will not keep; the message says why."""


def _decoded(value: str, name: str, size: int) -> bytes:
    if len(value) > 2 * size or not _B64URL.fullmatch(value):
        raise SubscriptionRefused(f"keys.{name} is not base64url")
    try:
        raw = base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise SubscriptionRefused(f"keys.{name} is not base64url") from None
    if len(raw) != size:
        raise SubscriptionRefused(f"keys.{name} must be {size} bytes, not {len(raw)}")
    return raw


def checked_keys(p256dh: str, auth: str) -> tuple[str, str]:
    """The subscription's keys, base64url without padding, if ``p256dh`` is a point of P-256 and ``auth`` 16
    bytes; SubscriptionRefused otherwise."""
    from cryptography.hazmat.primitives.asymmetric import ec

    point = _decoded(p256dh, "p256dh", P256DH_BYTES)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise SubscriptionRefused("keys.p256dh is not a P-256 public key") from None
    _decoded(auth, "auth", AUTH_BYTES)
    return p256dh.rstrip("="), auth.rstrip("=")


def check_subscription(
    endpoint: str, p256dh: str, auth: str, allowed_hosts: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """The keys to keep (as ``checked_keys``) of a subscription the server may keep: SubscriptionRefused,
    saying why, for an endpoint it would never push to or keys of the wrong size."""
    try:
        parse_endpoint(endpoint, allowed_hosts)
    except EndpointRefused as refused:
        raise SubscriptionRefused(str(refused)) from None
    return checked_keys(p256dh, auth)
