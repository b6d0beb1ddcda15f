"""uvicorn's HTTP protocol with a deadline: a connection that has not sent a complete request (or WebSocket
handshake) within ``timeout`` seconds of opening, or of starting its next request, is closed."""

from __future__ import annotations

import asyncio
import logging

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger(__name__)


class DeadlineProtocol(HttpToolsProtocol):
    """Idle and half-sent connections would otherwise hold a file descriptor each until the client leaves
    (uvicorn's keep-alive timeout starts only after a first response)."""

    request_timeout: float = 5.0
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._deadline is None:  # a later request on a kept-alive connection: a new deadline
            self._arm()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # the handshake is complete; the WebSocket protocol takes the connection over
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            log.debug("closing a connection that sent no complete request in %s s", self.request_timeout)
            self.transport.close()


def deadline_protocol(timeout: float) -> type[DeadlineProtocol]:
    """The protocol class for uvicorn's ``http`` setting, with this deadline."""
    return type("DeadlineProtocol", (DeadlineProtocol,), {"request_timeout": timeout})
