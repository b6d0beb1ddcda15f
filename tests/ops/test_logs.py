"""Structured logs: JSON lines with the context's request id and room, level from LOG_LEVEL, no secrets."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from app.logs import JsonFormatter, configure_logging, redact, request_id, room_code


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_a_line_is_one_json_object_with_the_context() -> None:
    record = logging.makeLogRecord(
        {"name": "app.rooms.room", "levelno": logging.WARNING, "levelname": "WARNING", "msg": "room %s: x"}
    )
    record.args = ("ABCD2345",)
    rid, room = request_id.set("req-1"), room_code.set("ABCD2345")
    try:
        line = JsonFormatter().format(record)
    finally:
        request_id.reset(rid)
        room_code.reset(room)
    entry = json.loads(line)
    assert entry["level"] == "warning" and entry["logger"] == "app.rooms.room"
    assert entry["message"] == "room ABCD2345: x"
    assert entry["request_id"] == "req-1" and entry["room"] == "ABCD2345"
    assert entry["time"].endswith("+00:00")


def test_tokens_are_redacted_wherever_they_appear() -> None:
    secret = "Zk3v_9-secret-token-value"
    for text in (
        f'{{"type": "hello", "token": "{secret}"}}',
        f"GET /ws/ABCD2345?token={secret} HTTP/1.1",
        f"token: {secret}",
        f"Authorization: {secret}",
    ):
        assert secret not in redact(text), text
    assert redact("error bad_token: this token is not a seat") == "error bad_token: this token is not a seat"


def test_level_comes_from_the_setting(restore_logging: None) -> None:
    stream = io.StringIO()
    configure_logging("warning", stream)
    logging.getLogger("app.test").info("quiet")
    logging.getLogger("app.test").warning("loud", extra={"seat": 2})
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(e["message"], e.get("seat")) for e in lines] == [("loud", 2)]
    configure_logging("DEBUG", stream)
    assert logging.getLogger().level == logging.DEBUG
    assert logging.getLogger("websockets").level == logging.INFO, "frame dumps stay off"
