"""The WebSocket endpoint: frames in (size, rate, parse) → the room; queued messages out."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from app.config import Settings
from app.metrics import count_error
from app.protocol import MessageRefused, encode, parse_client_message, wire_error
from app.rooms import Clock, Connection, RoomManager
from app.rooms.connection import CLOSE_POLICY
from app.table import Refusal

from .limits import AddressLimits
from .session import proved_skeleton

log = logging.getLogger(__name__)
router = APIRouter()

CLOSE_ROOM_NOT_FOUND = 4404
# Refused messages count up and allowed ones count down (not back to zero: a flood paced to slip one
# message through each time the bucket refills must still be closed); at this count the socket is closed.
FLOOD_STRIKES = 50


class TokenBucket:
    """``rate`` messages per second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float, clock: Clock) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.at = clock.monotonic()

    def allow(self) -> bool:
        now = self.clock.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


async def _write(websocket: WebSocket, conn: Connection) -> None:
    """Send what the room queued for this socket, in order; close when the room says so."""
    try:
        while True:
            text = await conn.next_outgoing()
            if text is None:
                break
            await websocket.send_text(text)
        with contextlib.suppress(Exception):
            await websocket.close(conn.close_code or 1000)
    except Exception:  # the socket is gone; the reader notices too
        conn.close()


async def table_socket(websocket: WebSocket) -> None:
    """``/ws/{code}``: a Starlette route, not a FastAPI one. A socket's call lasts as long as the socket, and
    FastAPI's would keep its solved dependencies, their exit stacks and its own frames for that long (about
    6 KiB a socket, ``app.api.lanes``); this reads the three things it needs from the app's state, as
    ``app.api.deps`` does for the REST routes."""
    code: str = websocket.path_params["code"]
    state = websocket.app.state
    manager: RoomManager = state.manager
    settings: Settings = state.settings
    limits: AddressLimits = state.address_limits
    origin = websocket.headers.get("origin")
    if settings.origins and origin is not None and origin.rstrip("/") not in settings.origins:
        await websocket.close(CLOSE_POLICY)
        return
    address = websocket.client.host if websocket.client else "unknown"
    if not limits.connect(address) or not limits.open_socket(address):
        await websocket.accept()
        error = wire_error(Refusal("rate_limited", "too many connections from your address; wait a moment"))
        count_error(error.code)
        await websocket.send_text(encode(error))
        await websocket.close(CLOSE_POLICY)
        return
    try:
        await _serve(websocket, code, manager, settings, address)
    finally:
        limits.close_socket(address)


router.add_websocket_route("/ws/{code}", table_socket)


async def _serve(
    websocket: WebSocket, code: str, manager: RoomManager, settings: Settings, address: str
) -> None:
    await websocket.accept()
    room = await manager.get(code)
    if room is None:
        error = wire_error(Refusal("room_not_found", f"there is no room {code[:16]!r}"))
        count_error(error.code)
        await websocket.send_text(encode(error))
        await websocket.close(CLOSE_ROOM_NOT_FOUND)
        return
    # The kept name this browser's passkey session proves (the handshake carries its cookie: same origin).
    proved = await proved_skeleton(websocket)
    conn = Connection(max_queue=settings.send_queue_size, address=address, proved=proved)
    writer = asyncio.create_task(_write(websocket, conn))
    limiter = TokenBucket(
        settings.max_messages_per_second, 2 * settings.max_messages_per_second, manager.clock
    )
    strikes = 0
    await room.attach(conn)
    try:
        while not writer.done():
            try:
                frame = await websocket.receive()
            except RuntimeError:  # receiving after the writer closed the socket
                break
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if not limiter.allow():
                strikes += 1
                if strikes >= FLOOD_STRIKES:
                    conn.close(CLOSE_POLICY)
                    break
                conn.refuse(Refusal("rate_limited", "slow down: too many messages"))
                continue
            strikes = max(0, strikes - 1)
            if text is None:
                conn.refuse(Refusal("bad_message", "send text frames holding JSON"))
                continue
            if len(text) > settings.max_frame_bytes // 4 and len(text.encode()) > settings.max_frame_bytes:
                too_large = f"a message is at most {settings.max_frame_bytes} bytes"
                conn.refuse(Refusal("too_large", too_large))
                continue
            try:
                message = parse_client_message(text)
            except MessageRefused as exc:
                conn.refuse(exc, id=exc.action_id)
                continue
            await room.handle(conn, message)
    except WebSocketDisconnect:
        pass
    finally:
        await room.detach(conn)
        conn.close()
        with contextlib.suppress(asyncio.TimeoutError, Exception):
            await asyncio.wait_for(writer, timeout=5)
