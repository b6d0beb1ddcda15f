"""Logs: one JSON object per line (for machines), or short plain lines at a terminal (for people), with the
request id and room code of the current context."""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
room_code: ContextVar[str | None] = ContextVar("room_code", default=None)

# Seat tokens travel only inside the hello message and REST bodies, never in URLs, and the passkey session
# only in its cookie; this is a second line of defence for anything that logs a frame, a body or headers
# (e.g. a library at DEBUG).
_SECRET = re.compile(
    r"""(?i)(["']?\b(?:token|authorization|cookie|tt_session)["']?\s*[:=]\s*["']?)([^"'\s,&};]+)"""
)
_ROOM_PATH = re.compile(r"^/(?:api/rooms|r|ws)/([A-Za-z0-9]{4,16})(?:/|$)")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName", "color_message"}
# Libraries that log whole frames at DEBUG; their frames carry hello tokens.
_CHATTY = ("websockets", "uvicorn.protocols", "httpcore", "aiosqlite", "asyncio")


def redact(text: str) -> str:
    return _SECRET.sub(r"\1[redacted]", text)


class JsonFormatter(logging.Formatter):
    """time, level, logger, message, then request_id/room when known, extras, and any exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(_message(record)),
        }
        rid, room = request_id.get(), room_code.get()
        if rid:
            entry["request_id"] = rid
        if room:
            entry["room"] = room
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and key not in entry:
                entry[key] = value if isinstance(value, int | float | bool | None) else redact(str(value))
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


def _message(record: logging.LogRecord) -> str:
    """The record's message; an incoming WebSocket frame (websockets logs them at DEBUG) is only described,
    since a client's frames carry its seat token."""
    if record.msg == "< %s" and isinstance(record.args, tuple) and record.args:
        frame = record.args[0]
        if type(frame).__name__ == "Frame":
            opcode = getattr(getattr(frame, "opcode", None), "name", "?")
            return f"< {opcode} [{len(getattr(frame, 'data', b''))} bytes, not logged]"
    return record.getMessage()


class TextFormatter(logging.Formatter):
    """One short line for a person: local time, level, message, then the room and extras as key=value."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        line = f"{when} {record.levelname.lower():<7} {redact(_message(record))}"
        extras = [f"room={room}"] if (room := room_code.get()) else []
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                extras.append(f"{key}={redact(str(value))}")
        if extras:
            line += "  [" + " ".join(extras) + "]"
        if record.exc_info:
            line += "\n" + redact(self.formatException(record.exc_info))
        return line


class _DropNoise(logging.Filter):
    """Alembic's lines that tell an operator nothing: its plugin set-up and the dialect it picked."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "alembic.runtime.plugins" and record.levelno < logging.WARNING:
            return False
        return not (record.name == "alembic.runtime.migration" and str(record.msg).startswith(_NOISE))


_NOISE = ("Context impl ", "Will assume ")
LOG_FORMATS = ("auto", "json", "text")


def wants_text(log_format: str, stream: Any) -> bool:
    """``text`` or ``json`` as asked; ``auto``: plain lines when the stream is a terminal, else JSON."""
    if log_format == "auto":
        isatty = getattr(stream, "isatty", None)
        return bool(isatty and isatty())
    return log_format == "text"


def configure_logging(level: str = "info", stream: Any = None, log_format: str = "json") -> None:
    """Log lines on ``stream`` (stdout) for everything (uvicorn's loggers included), at ``level``: JSON, or
    plain text for a person (``log_format``: json, text, or auto: text at a terminal)."""
    stream = stream or sys.stdout
    handler = logging.StreamHandler(stream)
    handler.setFormatter(TextFormatter() if wants_text(log_format, stream) else JsonFormatter())
    handler.addFilter(_DropNoise())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    numeric = logging.getLevelName(level.upper())
    root.setLevel(numeric if isinstance(numeric, int) else logging.INFO)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    for name in _CHATTY:
        logging.getLogger(name).setLevel(max(root.level, logging.INFO))


class RequestContextMiddleware:
    """Give each HTTP request and WebSocket a request id (``X-Request-ID``) and note its room code."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        rid = incoming if _REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex[:16]
        match = _ROOM_PATH.match(scope.get("path", ""))
        rid_token = request_id.set(rid)
        room_token = room_code.set(match.group(1).upper() if match else None)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            # A WebSocket has no response headers to add to: its messages go straight through.
            await self.app(scope, receive, send if scope["type"] == "websocket" else send_with_id)
        finally:
            request_id.reset(rid_token)
            room_code.reset(room_token)
