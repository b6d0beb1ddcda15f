"""One Web Push request (RFC 8030): the payload encrypted for the subscription (RFC 8291, aes128gcm, through
pywebpush), the server named by its VAPID token (RFC 8292), sent on our own HTTP client to the one address
that was checked (the host name kept for TLS and the Host header), never following a redirect.

httpx and pywebpush (with requests, http_ece and cryptography under it) are imported when the first
``Sender`` is made, not with this module: about 20 MB of the serving process's memory, needed only once
a push is sent (``tests/ops/test_lean_imports.py``)."""

from __future__ import annotations

import asyncio
import enum
import logging
import ssl
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from app.store import PushSubscription

from .addresses import (
    Endpoint,
    EndpointRefused,
    IPAddress,
    checked_addresses,
    literal,
    parse_endpoint,
    resolve,
)
from .keys import VapidKey

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

Resolve = Callable[[str, int], Awaitable[list[IPAddress]]]
Urgency = str  # very-low | low | normal | high (RFC 8030 section 5.3)
MAX_TTL = 28 * 24 * 3600  # push services keep a message at most about four weeks


class Outcome(enum.Enum):
    """What became of one push."""

    SENT = "sent"  # the push service took it (201)
    GONE = "gone"  # the push service says the subscription is no more (404, 410): drop it
    REFUSED = "refused"  # an endpoint the server may not reach: never contacted
    FAILED = "failed"  # anything else (a timeout, a refusal, a broken connection): logged


class Sender:
    """Sends pushes for one server key. ``allowed_hosts``: ``PUSH_ALLOWED_HOSTS``; ``timeout``: seconds for
    the whole request (the name's look-up, connecting, sending, the answer)."""

    def __init__(
        self,
        key: VapidKey,
        *,
        contact: str,
        allowed_hosts: frozenset[str] = frozenset(),
        timeout: float = 10.0,
        resolver: Resolve = resolve,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        self.key, self.contact, self.allowed_hosts = key, contact, allowed_hosts
        self.timeout, self.resolve = timeout, resolver
        import httpx

        # No proxy from the environment (it would connect elsewhere than the address checked), no redirects,
        # and no connection kept: a kept one is found by address alone, and could serve another host name.
        self.client: httpx.AsyncClient = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
            verify=verify,
            limits=httpx.Limits(max_keepalive_connections=0),
        )

    async def close(self) -> None:
        await self.client.aclose()

    async def send(
        self, subscription: PushSubscription, data: bytes, *, ttl: int, urgency: Urgency = "normal"
    ) -> Outcome:
        """Push ``data`` to the subscription; what became of it (every failure is logged with the endpoint's
        host only, and answered as an outcome, never raised)."""
        import httpx

        try:
            endpoint = parse_endpoint(subscription.endpoint, self.allowed_hosts)
        except EndpointRefused as refused:
            log.warning("push refused: %s", refused)
            return Outcome.REFUSED
        try:
            async with asyncio.timeout(self.timeout):
                address = checked_addresses(
                    endpoint, await self.resolve(endpoint.host, endpoint.port), self.allowed_hosts
                )
                return await self._post(endpoint, address, subscription, data, ttl=ttl, urgency=urgency)
        except EndpointRefused as refused:
            log.warning("push to %s refused: %s", endpoint.host, refused)
            return Outcome.REFUSED
        except (TimeoutError, OSError, httpx.HTTPError) as exc:
            log.warning("push to %s failed: %s", endpoint.host, type(exc).__name__)
            return Outcome.FAILED

    async def _post(
        self,
        endpoint: Endpoint,
        address: IPAddress,
        subscription: PushSubscription,
        data: bytes,
        *,
        ttl: int,
        urgency: Urgency,
    ) -> Outcome:
        from pywebpush import WebPusher

        keys = {"p256dh": subscription.p256dh, "auth": subscription.auth}
        body = WebPusher({"endpoint": subscription.endpoint, "keys": keys}).encode(data, "aes128gcm")["body"]
        headers = {
            "Host": endpoint.netloc,
            "Authorization": self.key.authorization(endpoint.origin, self.contact),
            "TTL": str(max(0, min(ttl, MAX_TTL))),
            "Urgency": urgency,
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
        }
        at = f"[{address}]" if address.version == 6 else str(address)
        url = f"{endpoint.scheme}://{at}:{endpoint.port}{endpoint.target}"
        # TLS checks the certificate against the host name, sent as SNI, while the connection goes to the
        # address that was checked.
        named = endpoint.scheme == "https" and literal(endpoint.host) is None
        extensions = {"sni_hostname": endpoint.host} if named else {}
        response = await self.client.post(url, content=body, headers=headers, extensions=extensions)
        if response.status_code in (200, 201, 202):
            return Outcome.SENT
        if response.status_code in (404, 410):
            return Outcome.GONE
        log.warning("push to %s answered %d", endpoint.host, response.status_code)
        return Outcome.FAILED
