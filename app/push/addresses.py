"""Where a push may go: a subscription's endpoint is a URL a browser sent, so the server reaches only https
endpoints on public addresses (never loopback, private, link-local, metadata or other special ranges),
judged on the addresses its name resolves to, except push services named in ``PUSH_ALLOWED_HOSTS``."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_ENDPOINT_LENGTH = 1024
# Ranges that ``ipaddress`` calls global but no push service lives in, or that embed an IPv4 address.
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # well-known NAT64 prefix: the last 32 bits are an IPv4 address
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # local-use NAT64 (RFC 8215)
_METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-.")
# A last label no top-level domain has, that resolvers read as an address ("127.1", "0x7f000001").
_NUMERIC = re.compile(r"[0-9]*|0x[0-9a-f]*")


class EndpointRefused(ValueError):
    """An endpoint the server will not push to; the message says why (it never holds the URL's path)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A push endpoint taken apart: what to connect to and what to ask for there."""

    scheme: str  # https (http only for an allowed host)
    host: str  # a lower-case name, or an IP address (no brackets)
    port: int
    target: str  # the path and query (the subscription's secret part: never logged)

    @property
    def netloc(self) -> str:
        """``host[:port]``, the port left out when it is the scheme's default: the Host header."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        """``scheme://host[:port]``: the VAPID token's audience."""
        return f"{self.scheme}://{self.netloc}"

    def allowed(self, hosts: frozenset[str]) -> bool:
        """Whether ``PUSH_ALLOWED_HOSTS`` names this host, or this host and port."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host in hosts or f"{host}:{self.port}" in hosts


def literal(host: str) -> IPAddress | None:
    """The address a host is written as (None: a name)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def is_public(address: IPAddress) -> bool:
    """Whether an address is on the public Internet: not loopback, private (IPv6 unique-local included),
    link-local, multicast, reserved, unspecified, shared (carrier-grade NAT) or a cloud's metadata service,
    nor an IPv6 address that carries such an IPv4 address (IPv4-mapped, 6to4, NAT64)."""
    if address in _METADATA:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and not is_public(embedded):
            return False
        if address in _NAT64_LOCAL or address.teredo is not None:
            return False
    elif address in _SHARED:
        return False
    special = (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )
    return address.is_global and not special


def parse_endpoint(url: str, allowed_hosts: frozenset[str] = frozenset()) -> Endpoint:
    """The endpoint a subscription names, if it is one the server may push to as far as the URL alone says
    (https, no credentials, a host name or a public address); EndpointRefused otherwise. A name is judged
    again on what it resolves to, when a push goes out (``checked_addresses``)."""
    if len(url) > MAX_ENDPOINT_LENGTH:
        raise EndpointRefused(f"the endpoint is longer than {MAX_ENDPOINT_LENGTH} characters")
    if not url.isascii() or any(c in url for c in " \t\r\n\\"):
        raise EndpointRefused("the endpoint is not a plain URL")
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        raise EndpointRefused("the endpoint's port is not a number from 1 to 65535") from None
    host = (parts.hostname or "").rstrip(".")
    if not host or parts.username is not None or parts.password is not None or parts.fragment:
        raise EndpointRefused("the endpoint must be a URL with a host and no credentials or fragment")
    if port == 0:
        raise EndpointRefused("the endpoint's port is not a number from 1 to 65535")
    if parts.scheme not in ("https", "http"):
        raise EndpointRefused("the endpoint must be an https URL")
    address = literal(host)
    if address is None and (not set(host) <= _NAME or _NUMERIC.fullmatch(host.rpartition(".")[2])):
        raise EndpointRefused("the endpoint's host is not a host name")
    endpoint = Endpoint(
        scheme=parts.scheme,
        host=host if address is None else str(address),
        port=port or (443 if parts.scheme == "https" else 80),
        target=(parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
    )
    if endpoint.allowed(allowed_hosts):
        return endpoint
    if endpoint.scheme != "https":
        raise EndpointRefused("the endpoint must be an https URL")
    if address is not None and not is_public(address):
        raise EndpointRefused("the endpoint's address is not a public one")
    return endpoint


async def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an address: itself), in the resolver's order."""
    address = literal(host)
    if address is not None:
        return [address]
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        resolved = ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])  # no IPv6 zone
        if resolved not in found:
            found.append(resolved)
    return found


def checked_addresses(endpoint: Endpoint, found: list[IPAddress], allowed_hosts: frozenset[str]) -> IPAddress:
    """The address to connect to, of those the endpoint's host resolved to: only when every one of them is
    public (or the host is allowed); EndpointRefused otherwise. The push connects to this very address, so
    a name that resolves differently a moment later changes nothing."""
    if not found:
        raise EndpointRefused("the endpoint's host has no address")
    if not endpoint.allowed(allowed_hosts) and not all(is_public(a) for a in found):
        raise EndpointRefused("the endpoint's host resolves to an address that is not a public one")
    return found[0]
