"""Structured logs: JSON lines with the context's request id and room, level from LOG_LEVEL, no secrets."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.logs import JsonFormatter, configure_logging, redact, request_id, room_code
from tests.server_process import ROOT


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


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_plain_lines_and_a_pipe_gets_json(restore_logging: None) -> None:
    terminal, pipe = Terminal(), io.StringIO()
    configure_logging("info", terminal, log_format="auto")
    room = room_code.set("ABCD2345")
    try:
        logging.getLogger("app.test").warning("seat %d left, token=abc123secret", 2, extra={"seat": 2})
    finally:
        room_code.reset(room)
    line = terminal.getvalue().rstrip("\n")
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d warning seat 2 left, token=\[redacted\]  \[room=ABCD2345 seat=2\]", line
    )
    configure_logging("info", pipe, log_format="auto")
    logging.getLogger("app.test").info("hello")
    assert json.loads(pipe.getvalue())["message"] == "hello"
    configure_logging("info", Terminal(), log_format="json")
    configure_logging("info", pipe, log_format="text")
    logging.getLogger("app.test").info("by the setting")
    assert pipe.getvalue().splitlines()[-1].endswith("info    by the setting")


def test_alembic_set_up_chatter_is_left_out_and_migrations_are_shown(restore_logging: None) -> None:
    stream = io.StringIO()
    configure_logging("info", stream, log_format="text")
    logging.getLogger("alembic.runtime.plugins").info("setup plugin alembic.autogenerate.schemas")
    logging.getLogger("alembic.runtime.migration").info("Context impl SQLiteImpl.")
    logging.getLogger("alembic.runtime.migration").info("Will assume non-transactional DDL.")
    logging.getLogger("alembic.runtime.migration").info("Running upgrade  -> 0001, rooms")
    assert [line[9:] for line in stream.getvalue().splitlines()] == [
        "info    Running upgrade  -> 0001, rooms"
    ]


def test_python_m_app_at_a_terminal_greets_with_where_to_open_the_game(tmp_path: Path) -> None:
    """The README's run command, in a terminal: readable lines ending with the address to open."""
    import pty

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'game.db'}",
        "PORT": str(port),
        "HOST": "127.0.0.1",
    }
    env.pop("LOG_FORMAT", None)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=follower, stderr=follower, stdin=follower
    )
    os.close(follower)
    output = b""
    try:
        deadline = time.monotonic() + 60
        while b"in a browser" not in output and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1)
            if ready:
                output += os.read(leader, 65536)
    finally:
        proc.terminate()
        proc.wait(30)
        os.close(leader)
    lines = output.decode().replace("\r\n", "\n").splitlines()
    assert lines[-1].endswith(f"info    Three Thirteen is ready: open http://127.0.0.1:{port} in a browser")
    assert not [line for line in lines if line.startswith("{")], "no JSON at a terminal"
    assert not [line for line in lines if "setup plugin" in line or "Context impl" in line]
    assert any("Running upgrade  -> 0001" in line for line in lines), "a fresh database's migrations"
