"""Fixtures for the security suite: a real server whose every log line is captured, and seated tables."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.__main__ import build_server
from app.config import Settings
from app.store import Store
from tests.api.wsclient import Client, create_room, free_port, join_room, server_settings
from tests.conftest import at_head
from tests.reads import load_game_state
from tests.server_process import start_server_process, stop_process

LOGGERS = ("", "app", "uvicorn", "uvicorn.error", "uvicorn.access")


class LogCapture(logging.Handler):
    """Every formatted log line (with tracebacks) the server writes while it runs."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []
        self._mutex = threading.Lock()
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception as exc:  # a log call that cannot even be formatted is worth seeing
            line = f"UNFORMATTABLE {record.name} {record.msg!r}: {exc!r}"
        with self._mutex:
            self.lines.append(line)

    def text(self) -> str:
        with self._mutex:
            return "\n".join(self.lines)


def assert_not_logged(log_text: str, secrets: list[str], what: str = "seat token") -> None:
    """No secret (token, seed …) appears anywhere in the log text."""
    assert secrets, "nothing to look for: the test handed out no secrets"
    assert log_text.strip(), "no log line was captured: this check would prove nothing"
    for secret in secrets:
        assert secret not in log_text, f"a {what} was logged: …{secret[:6]}…"


@dataclass
class LiveServer:
    base: str
    db_url: str
    settings: Settings
    logs: LogCapture
    store: Store
    tokens: list[str] = field(default_factory=list)

    def remember(self, created: dict[str, Any]) -> dict[str, Any]:
        if created.get("token"):
            self.tokens.append(created["token"])
        return created


@contextlib.contextmanager
def live_server(db_url: str, **overrides: Any) -> Iterator[tuple[str, Settings, LogCapture]]:
    """uvicorn with the real app in a thread, logging at INFO (app.* at DEBUG) into a LogCapture."""
    values: dict[str, Any] = {"log_level": "info"}
    values.update(overrides)
    settings = server_settings(db_url, **values)
    server = build_server(settings)  # uvicorn configures its loggers here: attach afterwards
    capture = LogCapture()
    # app.* at DEBUG, uvicorn at INFO (its access lines), whatever logging set-up the server has.
    levels = {"app": logging.DEBUG, "uvicorn": logging.INFO, "uvicorn.error": logging.INFO}
    levels["uvicorn.access"] = logging.INFO
    saved = {name: logging.getLogger(name).level for name in levels}
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    for name in LOGGERS:
        logging.getLogger(name).addHandler(capture)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a guard against a hang (a loaded machine starts slowly)
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start:\n" + capture.text())
            time.sleep(0.02)
        yield f"http://127.0.0.1:{settings.port}", settings, capture
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(capture)
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


@contextlib.asynccontextmanager
async def serving(db_url: str, **overrides: Any) -> AsyncIterator[LiveServer]:
    with live_server(db_url, **overrides) as (base, settings, logs):
        store = Store(db_url)
        try:
            yield LiveServer(base, db_url, settings, logs, store)
        finally:
            await store.close()


@pytest.fixture
async def live(sqlite_url: str, sqlite_at_head: Path) -> AsyncIterator[LiveServer]:
    """A real server with a generous rate limit (so tests are limited by the rules, not the flood guard)."""
    async with serving(at_head(sqlite_url, sqlite_at_head)) as srv:
        yield srv


@pytest.fixture
async def live_any_db(db_url: str, sqlite_at_head: Path) -> AsyncIterator[LiveServer]:
    """``live`` on SQLite, then on PostgreSQL (the ``postgres`` marker; mandatory with REQUIRE_SERVICES=1)."""
    async with serving(at_head(db_url, sqlite_at_head)) as srv:
        yield srv


@pytest.fixture
async def strict_live(sqlite_url: str, sqlite_at_head: Path) -> AsyncIterator[LiveServer]:
    """A real server with the documented default rate limit (20 messages/s, bursts of 40)."""
    async with serving(at_head(sqlite_url, sqlite_at_head), max_messages_per_second=20) as srv:
        yield srv


# ----- tables ----------------------------------------------------------------------------------------------


@dataclass
class Table:
    code: str
    tokens: list[str]
    clients: list[Client]
    game_id: int | None

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


async def open_table(srv: LiveServer, people: int = 3, *, start: bool = True, **room: Any) -> Table:
    """A room with ``people`` seated humans, each on its own socket; started unless ``start`` is False."""
    created = srv.remember(await create_room(srv.base, "Ann", seats=people, **room))
    code = created["code"]
    tokens = [created["token"]]
    for name in ("Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal")[: people - 1]:
        joined = srv.remember(await join_room(srv.base, code, name))
        assert joined["spectator"] is False
        tokens.append(joined["token"])
    clients = [await Client.connect(srv.base, code) for _ in tokens]
    for seat, (client, token) in enumerate(zip(clients, tokens, strict=True)):
        assert (await client.hello(token))["seat"] == seat
    game_id = None
    if start:
        await clients[0].send({"type": "start"})
        started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        game_id = started["room"]["game_id"]
        for client in clients:
            await client.wait_version(started["version"])
    return Table(code, tokens, clients, game_id)


async def fresh_state(base: str, code: str, token: str | None = None) -> dict[str, Any]:
    """The table as a brand-new socket sees it (a spectator unless ``token``)."""
    client = await Client.connect(base, code)
    try:
        await client.send({"type": "hello", "token": token} if token else {"type": "hello"})
        await client.next("welcome")
        return await client.next("state")
    finally:
        await client.close()


async def snapshot(srv: LiveServer, table: Table) -> tuple[int, dict[str, Any], dict[str, Any] | None]:
    """(room version, the public game view, the stored game state) — all must survive hostile input."""
    state = await fresh_state(srv.base, table.code)
    stored = None
    if table.game_id is not None:
        loaded = await load_game_state(srv.store, table.game_id)
        assert loaded is not None
        assert loaded[0] == state["version"], "the store and the live room disagree on the version"
        stored = loaded[1]
    return state["version"], state["game"], stored


async def healthy(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=5) as http:
        response = await http.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


# ----- a server in its own process ------------------------------------------------------------------------


__all__ = ["free_port", "start_server_process", "stop_process"]
