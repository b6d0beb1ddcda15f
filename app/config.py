"""Settings: every knob is an environment variable with a safe default (pydantic-settings)."""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/three-thirteen.db"
_HOST_PORT = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


class Settings(BaseSettings):
    """Server configuration, read from the environment (and an optional ``.env`` file)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    database_url: str = DEFAULT_DATABASE_URL
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    public_base_url: str = ""  # e.g. https://cards.example.org; links are relative when empty
    # Comma-separated; empty: the origin of PUBLIC_BASE_URL when that is set, else any origin.
    allowed_origins: str = ""
    # Comma-separated addresses or networks (CIDR) of reverse proxies whose X-Forwarded-For/-Proto are
    # believed; empty: nobody's (the peer address is the client).
    trusted_proxies: str = ""
    log_level: str = "info"
    # json: one JSON object per line; text: plain lines for a person; auto: text when stdout is a terminal.
    log_format: Literal["auto", "json", "text"] = "auto"
    run_migrations: bool = True  # apply `alembic upgrade head` on start
    # Database connections kept open (no overflow: a connection opened and closed per burst costs more
    # than a short wait for one of these; a move holds one for about a millisecond).
    db_pool_size: int = Field(default=10, ge=1, le=200)
    # At start, how long to wait for the database (and Redis, with REDIS_URL) to answer, trying again with
    # a growing pause, before giving up with an error (a container may start before its database is up).
    startup_wait_seconds: float = Field(default=60, ge=0, le=3600)
    # glibc's heap (app.native_heap): at most this many malloc arenas (0: glibc's default, 8 per core; the
    # MALLOC_ARENA_MAX variable wins when set), and its free pages given back every this many seconds
    # (0: never).
    malloc_arenas: int = Field(default=2, ge=0, le=64)
    malloc_trim_seconds: float = Field(default=60, ge=0)

    # Several processes on one PostgreSQL: their shared Redis (pub/sub of table changes, driver leases), e.g.
    # redis://127.0.0.1:6379/0. Empty: one process, nothing else to run.
    redis_url: str = ""
    # A secret every process of one site shares: notices on Redis are signed with it (HMAC-SHA256) and one
    # without a good signature is dropped, so whoever reaches Redis cannot speak for a process. Empty: not
    # signed (keep Redis private: no public port, a password or ACL; see docs/security.md).
    redis_notice_key: str = Field(default="", repr=False)
    # How long a process's lease on a table's bots and timers lasts without renewal (its takeover time).
    lease_ms: int = Field(default=2000, ge=200, le=60_000)

    bot_delay_ms: int = Field(default=700, ge=0)
    grace_seconds: int = Field(default=60, ge=0)
    # How long the host's seat may have no open socket, while another person is here, before the host
    # role passes to that person (so somebody can always start the next game).
    host_away_seconds: float = Field(default=60, ge=0)
    # The pause between rounds: the next round's first turn (its timer, the bots) waits until every present
    # player has pressed Continue, or this many seconds. 0: no pause (the next round starts at once).
    round_break_seconds: int = Field(default=20, ge=0, le=300)

    max_frame_bytes: int = Field(default=8192, ge=256)
    # A message longer than this (after inflating) closes its socket with 1009, inflated no further; from
    # MAX_FRAME_BYTES up to this it gets a `too_large` error. At least MAX_FRAME_BYTES.
    ws_max_message_bytes: int = Field(default=16384, ge=256, le=1 << 20)
    # Inflated bytes of one socket's messages held for the app before the server stops reading that socket
    # (a compressed 64 KB message is about 100 bytes on the wire: without this, one read could hold 100 MB).
    ws_max_queued_bytes: int = Field(default=65536, ge=1024, le=16 << 20)
    # permessage-deflate on WebSockets: each socket's messages are compressed against the ones before, for
    # the last 4 KiB sent kept per socket (app.api.deflate_window) and CPU per message sent. Off: states
    # travel as plain JSON (a few KB each).
    ws_compression: bool = True
    max_messages_per_second: float = Field(default=20.0, gt=0)
    max_name_length: int = Field(default=32, ge=1, le=64)
    chat_max_length: int = Field(default=200, ge=1, le=2000)
    chat_max_per_10s: int = Field(default=5, ge=1)
    send_queue_size: int = Field(default=256, ge=8)  # per socket; a client this far behind is dropped
    max_sockets_per_address: int = Field(default=100, ge=1)  # open WebSockets from one client address
    max_rooms_per_address: int = Field(default=60, ge=1)  # rooms one client address may open per hour
    max_body_bytes: int = Field(default=16384, ge=1024)  # largest HTTP request body; larger ones get 413
    lobby_max_per_10s: int = Field(
        default=20, ge=1
    )  # lobby commands (options, seats, start) one seat may send
    max_spectators_per_table: int = Field(default=50, ge=0)  # sockets watching one table
    # Seat requests (socket or REST) a table commits per 10 seconds: in all, and from one client address.
    table_requests_per_10s: int = Field(default=10, ge=1)
    address_requests_per_10s: int = Field(default=4, ge=1)
    # After the host declines a request, its asker's address (and token) may not ask again for this long.
    declined_cool_down_seconds: float = Field(default=30, ge=0)
    # A pending request with no open socket of its asker at the table goes after this long.
    request_wait_seconds: float = Field(default=60, ge=0)
    max_connects_per_second: float = Field(
        default=5.0, gt=0
    )  # new WebSockets from one address (bursts of 4x)
    room_idle_seconds: int = Field(default=600, ge=1)  # a room no socket has used this long leaves memory
    # How often a process looks in the store for paced tables whose turn's time ran out and wakes them.
    pace_wake_seconds: float = Field(default=30.0, gt=0, le=3600)
    # For tests of real processes only: a file of seconds added to the server's clock (hours pass at once).
    clock_offset_file: str = ""
    # Seconds a connection may take to send a complete request (or WebSocket handshake) before it is closed.
    request_timeout_seconds: float = Field(default=5.0, gt=0, le=300)
    # Lists of a browser's tables (POST /api/my-tables) one client address may ask for per minute (bursts of a
    # third): a home page asks once when it opens and again whenever it is shown again.
    max_table_lists_per_minute: int = Field(default=60, ge=1)
    # Finished games' replays and exports are built once and kept as JSON, least recently read dropped first,
    # in at most this many bytes (a long game's replay is about 1 MB). 0: none kept.
    record_cache_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    # Replays and exports one client address may ask for per minute (bursts of a third of it).
    max_records_per_minute: int = Field(default=30, ge=1)
    # Standings (a player's record, the boards) one client address may ask for per minute (bursts of a third).
    max_standings_per_minute: int = Field(default=120, ge=1)

    # Web Push (turn notifications): comma-separated host[:port] of push services the server may reach even on
    # a private address or over plain http (a test's or an intranet's push service); every other endpoint must
    # be https on a public address. Empty: none.
    push_allowed_hosts: str = ""
    # Who runs this server, for the push services (the VAPID ``sub`` claim): a mailto: or https: URL.
    push_contact: str = "mailto:admin@localhost"
    # Subscription changes (on, off) one client address may make per minute (bursts of a third).
    max_push_changes_per_minute: int = Field(default=30, ge=1)

    # Names kept with passkeys: passkey requests (ceremonies, codes, sign-outs) one client address may make
    # per minute (bursts of a third), and how many days a browser stays signed in as a kept name.
    max_passkey_requests_per_minute: int = Field(default=60, ge=1)
    session_days: int = Field(default=30, ge=1, le=400)

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_addresses(cls, value: str) -> str:
        for item in (p.strip() for p in value.split(",")):
            if item:
                # ValueError: not an address or network, or a network with host bits set ("10.0.0.1/8"),
                # which uvicorn would otherwise take for a host name and silently never match.
                ipaddress.ip_network(item)
        return value

    @field_validator("push_allowed_hosts")
    @classmethod
    def _hosts_with_ports(cls, value: str) -> str:
        for item in (h.strip() for h in value.split(",")):
            if item and not _HOST_PORT.fullmatch(item):
                raise ValueError(f"{item!r} is not host or host:port (an IPv6 address in brackets)")
        return value

    @field_validator("push_contact")
    @classmethod
    def _contact_is_a_url(cls, value: str) -> str:
        if not value.startswith(("mailto:", "https://")):
            raise ValueError("PUSH_CONTACT must be a mailto: or https: URL")
        return value

    @model_validator(mode="after")
    def _messages_fit_the_socket(self) -> Settings:
        if self.ws_max_message_bytes < self.max_frame_bytes:
            raise ValueError("WS_MAX_MESSAGE_BYTES must be at least MAX_FRAME_BYTES")
        return self

    @property
    def origins(self) -> list[str]:
        """Origins allowed to open a WebSocket; empty means any."""
        listed = [o.strip().rstrip("/") for o in self.allowed_origins.split(",") if o.strip()]
        if listed or not self.public_base_url.strip():
            return listed
        return [origin] if (origin := origin_of(self.public_base_url)) else []

    @property
    def push_hosts(self) -> frozenset[str]:
        """The push services reached even on private addresses or over http: ``host`` or ``host:port``,
        lower-case."""
        return frozenset(h.strip().lower() for h in self.push_allowed_hosts.split(",") if h.strip())

    @property
    def proxies(self) -> list[str]:
        """Addresses and networks whose forwarding headers are believed."""
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]


# ``REDIS_URL`` names a Redis Cluster by its scheme (app.rooms.redis_link says why): the scheme redis-py reads
# for each.
REDIS_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_redis_cluster(url: str) -> bool:
    return urlsplit(url).scheme in REDIS_CLUSTER_SCHEMES


def plain_redis_url(url: str) -> str:
    """The URL as redis-py reads it (a cluster's scheme made plain)."""
    parts = urlsplit(url)
    return urlunsplit((REDIS_CLUSTER_SCHEMES.get(parts.scheme, parts.scheme), *parts[1:]))


def origin_of(url: str) -> str | None:
    """The origin a browser sends for pages under ``url`` (scheme://host[:port], default port left out)."""
    parts = urlsplit(url.strip())
    try:
        given_port = parts.port
    except ValueError:  # not a number
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default_port = 443 if parts.scheme == "https" else 80
    port = "" if given_port in (None, default_port) else f":{given_port}"
    return f"{parts.scheme}://{host}{port}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
