"""A two-person game played over WebSockets against a deployed server, as browsers would."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.api.wsclient import Client, create_room, join_room


@dataclass
class Game:
    base: str
    code: str
    tokens: dict[int, str]
    clients: dict[int, Client] = field(default_factory=dict)
    acked: list[int] = field(default_factory=list)  # the versions the server acknowledged moves at

    async def connect(self, seat: int, base: str | None = None, **kwargs: Any) -> Client:
        client = await Client.connect(base or self.base, self.code, **kwargs)
        welcome = await client.hello(self.tokens[seat])
        assert welcome["seat"] == seat, welcome
        self.clients[seat] = client
        return client

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()
        self.clients.clear()

    def latest(self) -> dict[str, Any]:
        states = [c.state for c in self.clients.values() if c.state]
        return max(states, key=lambda s: s["version"])

    async def play(self, moves: int) -> None:
        """``moves`` moves by whoever's turn it is (both seats are people here), each acknowledged."""
        for _ in range(moves):
            for _attempt in range(50):
                answer, version = await self._move()
                if answer["type"] == "ack":
                    break
                # The table moved on (a presence change) before this socket heard of it: look again.
                assert answer["code"] == "stale_version", answer
                await asyncio.sleep(0.1)
            assert answer["type"] == "ack", answer
            assert answer["version"] == version + 1, answer
            self.acked.append(answer["version"])
        for client in self.clients.values():
            await client.wait_version(self.acked[-1], timeout=15)

    async def _move(self) -> tuple[dict[str, Any], int]:
        """The move the seat to play would make now, sent; its answer and the version it was made at."""
        version = self.latest()["version"]
        for client in self.clients.values():
            await client.wait_version(version, timeout=15)
        turn = self.latest()["game"]["turn"]
        client = self.clients[turn]
        assert client.state is not None
        view = client.state["game"]
        legal = view["legal"]
        if "draw_stock" in legal:
            action = {"type": "draw", "source": "stock"}
        elif "draw_discard" in legal:
            action = {"type": "draw", "source": "discard"}
        else:
            assert "discard" in legal, view
            card = next(c for c in view["hand"] if c != view["drawn"])
            action = {"type": "discard", "card": card}
        return await client.act(action, version=version), version

    def public_state(self, base: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """What a spectator sees now (GET /api/rooms/{code}/state)."""
        response = httpx.get(f"{base or self.base}/api/rooms/{self.code}/state", timeout=10, **kwargs)
        assert response.status_code == 200, response.text
        return dict(response.json())


async def new_game(base: str) -> Game:
    """Ann opens a two-seat table, Bob joins, Ann starts: both are on sockets, the game is on."""
    created = await create_room(base, "Ann", seats=2)
    game = Game(base, created["code"], {0: created["token"]})
    game.tokens[1] = (await join_room(base, game.code, "Bob"))["token"]
    host = await game.connect(0)
    await game.connect(1)
    await host.send({"type": "start"})
    await host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing", timeout=15)
    return game
