"""A test client for the table protocol over a real WebSocket, plus the in-process server harness."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from app.__main__ import build_server
from app.config import Settings
from app.engine import GameState, action_to_dict
from app.engine.bots import choose_action
from app.store import Store
from tests.reads import load_game_state
from tests.server_process import free_port

__all__ = ["free_port"]  # tests import it from here too

Message = dict[str, Any]


def server_settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": database_url,
        "host": "127.0.0.1",
        "port": free_port(),
        "bot_delay_ms": 0,
        "log_level": "warning",
        "max_messages_per_second": 1000,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@contextlib.contextmanager
def running_server(settings: Settings) -> Iterator[str]:
    """uvicorn with the real app in a background thread (its own event loop); yields the base URL."""
    server = build_server(settings)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a guard against a hang (a loaded machine starts slowly)
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{settings.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


class Client:
    """One socket: a reader task collects messages; helpers wait for the ones a test expects."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.received: list[Message] = []
        self.raw: list[str] = []
        self.state: Message | None = None
        self.welcome: Message | None = None
        self.closed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, base: str, code: str, **kwargs: Any) -> Client:
        ws = await websockets.connect(base.replace("http", "ws", 1) + f"/ws/{code}", **kwargs)
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                assert isinstance(raw, str)
                self.raw.append(raw)
                message = json.loads(raw)
                self.received.append(message)
                if message["type"] == "state" and (
                    self.state is None or message["version"] >= self.state["version"]
                ):
                    self.state = message
                current = self.state
                if message["type"] == "presence" and current and message["version"] >= current["version"]:
                    self.state = {**current, "room": message["room"]}  # the game part stays
                if message["type"] == "welcome":
                    self.welcome = message
                await self.inbox.put(message)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()

    async def send(self, message: Message | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def next(self, kind: str | None = None, timeout: float = 10) -> Message:
        """The next message (of ``kind``), skipping others."""

        async def find() -> Message:
            while True:
                message = await self.inbox.get()
                if kind is None or message["type"] == kind:
                    return message

        return await asyncio.wait_for(find(), timeout)

    async def until(self, check: Callable[[Message], bool], timeout: float = 10) -> Message:
        async def find() -> Message:
            while True:
                message = await self.inbox.get()
                if check(message):
                    return message

        return await asyncio.wait_for(find(), timeout)

    async def hello(self, token: str | None = None) -> Message:
        await self.send({"type": "hello", "token": token} if token else {"type": "hello"})
        welcome = await self.next("welcome")
        await self.next("state")
        return welcome

    async def wait_version(self, version: int, timeout: float = 10) -> Message:
        deadline = asyncio.get_running_loop().time() + timeout
        while self.state is None or self.state["version"] < version:
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(
                    f"no state with version {version} (have {self.state and self.state['version']})"
                )
            await asyncio.sleep(0.005)
        return self.state

    async def act(self, action: Message, version: int | None = None, action_id: str | None = None) -> Message:
        """Send a move; return the ack or error that answers it."""
        action_id = action_id or uuid.uuid4().hex
        message: Message = {"type": "action", "id": action_id, "action": action}
        if version is not None:
            message["version"] = version
        await self.send(message)
        return await self.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == action_id)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def _from(address: str | None) -> dict[str, str]:
    """Headers saying the request comes from ``address`` (heard by a server trusting loopback's proxy)."""
    return {} if address is None else {"X-Forwarded-For": address}


async def create_room(base: str, name: str = "Ann", *, address: str | None = None, **body: Any) -> Message:
    async with httpx.AsyncClient(base_url=base, headers=_from(address)) as http:
        response = await http.post("/api/rooms", json={"name": name, **body})
        assert response.status_code == 201, response.text
        return dict(response.json())


async def join_room(base: str, code: str, name: str, *, address: str | None = None) -> Message:
    async with httpx.AsyncClient(base_url=base, headers=_from(address)) as http:
        response = await http.post(f"/api/rooms/{code}/join", json={"name": name})
        assert response.status_code == 200, response.text
        return dict(response.json())


async def stored_game(store: Store, game_id: int | str) -> tuple[int, GameState]:
    loaded = await load_game_state(store, game_id)
    assert loaded is not None
    return loaded[0], GameState.from_dict(loaded[1])


def pick_move(state: GameState) -> Message:
    """What a 'normal' bot would play for the seat to act (the humans of the tests play like bots)."""
    return action_to_dict(choose_action(state, state.turn, "normal", seed=state.moves))
