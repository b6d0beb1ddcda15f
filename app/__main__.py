"""``python -m app``: run the server with uvicorn on the configured host and port."""

from __future__ import annotations

import argparse
import logging
import resource
import signal
import socket
from types import FrameType
from typing import TYPE_CHECKING

import uvicorn

from app.api.request_deadline import deadline_protocol
from app.api.ws_deflate import websocket_protocol
from app.config import Settings, get_settings
from app.logs import configure_logging
from app.native_heap import limit_arenas
from app.runtime import tune_gc
from app.store import upgrade_head
from app.store.migrate import migrate_in_child
from app.waiting import wait_or_exit

if TYPE_CHECKING:
    from fastapi import FastAPI


class Server(uvicorn.Server):
    """uvicorn that, on SIGTERM, stops accepting connections, lets moves in flight commit, tells every
    table's sockets the server is restarting, then shuts down (the lifespan closes the database)."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            settings: Settings = self.app.state.settings
            logging.getLogger("app").info(
                "Three Thirteen is ready: open %s in a browser", where_to_open(settings)
            )

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()  # no new connections while the tables drain
        manager = getattr(self.app.state, "manager", None)
        if manager is not None:
            await manager.announce_restart()
        await super().shutdown(sockets=sockets)


def build_server(settings: Settings) -> Server:
    # The app (FastAPI, every route and model) only where it serves: ``python -m app migrate`` (the container
    # entrypoint's first step) starts in a third of the time without it.
    from app.main import create_app

    app = create_app(settings)
    return Server(uvicorn_config(settings, app), app)


def where_to_open(settings: Settings) -> str:
    """The address a person opens: PUBLIC_BASE_URL, else this host and port (localhost for any address)."""
    if settings.public_base_url.strip():
        return settings.public_base_url.strip()
    host = settings.host
    if host in ("0.0.0.0", "::", ""):
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


def uvicorn_config(settings: Settings, app: FastAPI) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        log_config=None,  # app.logs configures JSON lines for uvicorn's loggers too
        # Messages somewhat over MAX_FRAME_BYTES get a `too_large` error; over this, the socket is closed
        # (1009) before more of it is inflated.
        ws_max_size=settings.ws_max_message_bytes,
        # permessage-deflate in about 32 KiB per socket instead of 50, and at most WS_MAX_QUEUED_BYTES of a
        # socket's messages inflated ahead of the app (ws_deflate).
        ws=websocket_protocol(settings.ws_max_queued_bytes),
        ws_per_message_deflate=settings.ws_compression,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        # Connections that send no complete request or handshake in time are closed.
        http=deadline_protocol(settings.request_timeout_seconds),
        # Forwarding headers are believed only from TRUSTED_PROXIES, in one place: app.main (uvicorn's own
        # middleware would believe 127.0.0.1's by default).
        proxy_headers=False,
        timeout_graceful_shutdown=15,
    )


def raise_file_limit() -> tuple[int, int]:
    """Raise the soft limit on open files to the hard one (each socket is a file; the usual soft limit of
    1,024 is soon reached). Returns the (soft, hard) limits now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError) as exc:
            logging.getLogger(__name__).warning("could not raise the open-file limit: %s", exc)
    return soft, hard


def _exit_cleanly(sig: int, frame: FrameType | None) -> None:
    """SIGTERM outside uvicorn's own handler: before it starts, or re-raised by uvicorn after a graceful
    shutdown. Stopping on request is a clean exit (status 0), not a crash."""
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description="The Three Thirteen server.")
    parser.add_argument(
        "command",
        nargs="?",
        default="serve",
        choices=("serve", "migrate"),
        help="serve (the default: apply migrations, then serve) or migrate (apply migrations and exit)",
    )
    args = parser.parse_args(argv)
    settings = get_settings()
    limit_arenas(settings.malloc_arenas)  # before any thread starts (each would get an arena)
    configure_logging(settings.log_level, log_format=settings.log_format)
    signal.signal(signal.SIGTERM, _exit_cleanly)
    wait_or_exit(settings)  # the database (and Redis) may still be starting
    if args.command == "migrate":
        upgrade_head(settings.database_url)
        return
    if settings.run_migrations:  # in a child process: this one never loads Alembic (app.store.migrate)
        migrate_in_child()
        settings = settings.model_copy(update={"run_migrations": False})
    soft, _hard = raise_file_limit()
    logging.getLogger(__name__).info("open-file limit: %s", soft)
    server = build_server(settings)
    tune_gc()  # after the app is built: what it made at import and build time is frozen
    server.run()


if __name__ == "__main__":
    main()
