"""``python -m app``: run the server with uvicorn on the configured host and port."""

from __future__ import annotations

import argparse
import logging
import socket

import uvicorn
from fastapi import FastAPI

from app.config import Settings, get_settings
from app.main import create_app
from app.store import upgrade_head


class Server(uvicorn.Server):
    """uvicorn that first tells every table's sockets the server is restarting, then shuts down."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
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
        # Frames somewhat over the limit get a `too_large` error; far over it, the socket is closed (1009).
        ws_max_size=max(65536, 8 * settings.max_frame_bytes),
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=True,
    )


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
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    if args.command == "migrate":
        upgrade_head(settings.database_url)
        return
    build_server(settings).run()


if __name__ == "__main__":
    main()
