"""``python -m app``: run the server with uvicorn on the configured host and port."""

from __future__ import annotations

import argparse
import signal
import socket
from types import FrameType

import uvicorn
from fastapi import FastAPI

from app.config import Settings, get_settings
from app.logs import configure_logging
from app.main import create_app
from app.runtime import tune_gc
from app.store import upgrade_head


class Server(uvicorn.Server):
    """uvicorn that, on SIGTERM, stops accepting connections, lets moves in flight commit, tells every
    table's sockets the server is restarting, then shuts down (the lifespan closes the database)."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()  # no new connections while the tables drain
        manager = getattr(self.app.state, "manager", None)
        if manager is not None:
            await manager.announce_restart()
        await super().shutdown(sockets=sockets)


def build_server(settings: Settings) -> Server:
    app = create_app(settings)
    return Server(uvicorn_config(settings, app), app)


def uvicorn_config(settings: Settings, app: FastAPI) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        log_config=None,  # app.logs configures JSON lines for uvicorn's loggers too
        # Frames somewhat over the limit get a `too_large` error; far over it, the socket is closed (1009).
        ws_max_size=max(65536, 8 * settings.max_frame_bytes),
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=True,
        timeout_graceful_shutdown=15,
    )


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
    configure_logging(settings.log_level)
    signal.signal(signal.SIGTERM, _exit_cleanly)
    if args.command == "migrate":
        upgrade_head(settings.database_url)
        return
    server = build_server(settings)
    tune_gc()  # after the app is built: what it made at import and build time is frozen
    server.run()


if __name__ == "__main__":
    main()
