#!/usr/bin/env python3
"""A small Three Thirteen bot: joins a table by its link and plays legal moves from its own view.

    pip install websockets httpx
    python examples/bot.py https://cards.example.org/r/K7QX3MPA --name Robo

It takes a seat the way a friend would (``POST /api/rooms/{code}/join``), opens the table's WebSocket, says
``hello`` with its seat token (asking for its acks inside the state: one frame fewer per move), and plays
whenever its ``state`` says it may: from the ``legal``, ``hand``,
``arrangement`` and ``can_go_out`` fields of its own view, nothing else. When the connection drops it
reconnects with a backoff, says ``hello`` again with its token and ``last_version``, and resends a move that
was never answered with the same id, so nothing is played twice. It stops when the game is over.

Standard library + ``websockets`` + ``httpx`` only. The protocol: docs/protocol.md ("Writing a bot").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import uuid
from typing import Any
from urllib.parse import urlsplit

import httpx
import websockets

log = logging.getLogger("bot")
Message = dict[str, Any]

FACE = {"A": 1, "J": 10, "Q": 10, "K": 10}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


# ----- the table's link ----------------------------------------------------------------------------------


def parse_link(link: str) -> tuple[str, str]:
    """``https://host/r/CODE`` → (``https://host``, ``CODE``)."""
    parts = urlsplit(link)
    path = parts.path.rstrip("/").split("/")
    if parts.scheme not in ("http", "https") or len(path) < 3 or path[-2] != "r":
        raise ValueError(f"not a table link: {link!r} (expected http(s)://host/r/CODE)")
    return f"{parts.scheme}://{parts.netloc}", path[-1].upper()


async def take_seat(base: str, code: str, name: str) -> tuple[int, str]:
    """Join the table as a friend would; returns (seat, token)."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        # "program": true: the table shows this seat as a program, not a person.
        answer = await http.post(f"/api/rooms/{code}/join", json={"name": name, "program": True})
    if answer.status_code != 200:
        raise RuntimeError(f"could not join {code}: {answer.status_code} {answer.text}")
    joined = answer.json()
    if joined["spectator"]:
        raise RuntimeError(f"table {code} has no open seat (or its game has started)")
    return joined["seat"], joined["token"]


# ----- deciding a move from the bot's own view -----------------------------------------------------------


def rank(card: str) -> str:
    return "JK" if card == "JK" else card[:-1]


def points(card: str, game: Message) -> int:
    """What the card costs if it is left unmelded (the options change faces and aces)."""
    if card == "JK":
        return int(game["options"]["joker_points"])
    r = rank(card)
    if r == "A" and game["options"]["ace_high_low"]:
        return 15
    if r in ("J", "Q", "K") and game["options"]["face_values"] == "rank":
        return RANKS.index(r) + 1
    return FACE.get(r) or int(r)


def is_wild(card: str, game: Message) -> bool:
    return card == "JK" or rank(card) == game["wild_rank"]


def wants(card: str, game: Message) -> bool:
    """Worth taking from the discard pile: a wild card, or one that pairs or neighbours a loose card."""
    if is_wild(card, game):
        return True
    for loose in game["arrangement"]["deadwood"]:
        if loose == "JK" or is_wild(loose, game):
            continue
        if rank(loose) == rank(card):
            return True
        near = abs(RANKS.index(rank(loose)) - RANKS.index(rank(card))) <= 2
        if loose[-1] == card[-1] and near:
            return True
    return False


def throwaway(game: Message) -> str:
    """The costliest loose card that is not wild; else the costliest card that is not wild; else any."""
    for cards in (game["arrangement"]["deadwood"], game["hand"]):
        tame = [c for c in cards if not is_wild(c, game)]
        if tame:
            return max(tame, key=lambda c: points(c, game))
    return str(game["hand"][0])


def choose_move(game: Message) -> Message | None:
    """A legal move for this view, or None when it is not this seat's turn."""
    legal = game["legal"]
    if "go_out" in legal:
        return {"type": "go_out", "card": game["can_go_out"][0]}
    top = game["discard_top"]
    if "draw_discard" in legal and ("draw_stock" not in legal or wants(top, game)):
        return {"type": "draw", "source": "discard"}
    if "draw_stock" in legal:
        return {"type": "draw", "source": "stock"}
    if "discard" in legal:
        return {"type": "discard", "card": throwaway(game)}
    return None


# ----- the connection ------------------------------------------------------------------------------------


class Bot:
    """One seat on one table, across as many connections as it takes."""

    def __init__(self, link: str, *, name: str = "Robo", token: str | None = None) -> None:
        self.base, self.code = parse_link(link)
        self.ws_url = self.base.replace("http", "ws", 1) + f"/ws/{self.code}"
        self.name, self.token = name, token
        self.state: Message | None = None  # the newest state received
        self.pending: Message | None = None  # the action sent and not answered yet
        self.acted_at: int | None = None  # the version the last action was decided on
        self.refusals = 0  # refused moves in a row
        self.reconnects = 0
        self.done = False

    async def run(self) -> Message | None:
        """Play until the game is over (or the seat is lost); returns the last state."""
        if self.token is None:
            seat, self.token = await take_seat(self.base, self.code, self.name)
            log.info("took seat %d at %s", seat, self.code)
        delay = 0.5
        while not self.done:
            try:
                async with websockets.connect(self.ws_url, open_timeout=10) as ws:
                    delay = 0.5
                    await self.session(ws)
            except (OSError, TimeoutError, websockets.ConnectionClosed, websockets.InvalidHandshake) as exc:
                log.info("connection lost (%s)", type(exc).__name__)
            if not self.done:
                self.reconnects += 1
                await asyncio.sleep(delay)
                delay = min(10.0, delay * 2)
        return self.state

    async def session(self, ws: Any) -> None:
        """One connection: hello (resuming from the last version seen), then answer what arrives."""
        # "acks": "in_state": the state a move of ours produced carries its id as "ack" (no ack message).
        hello: Message = {"type": "hello", "token": self.token, "acks": "in_state"}
        if self.state is not None:
            hello["last_version"] = self.state["version"]
        await ws.send(json.dumps(hello))
        resend = self.pending is not None  # unanswered when the last connection dropped
        async for raw in ws:
            message = json.loads(raw)
            self.on_message(message)
            kind = message["type"]
            if kind == "state" and self.pending and message.get("ack") == self.pending["id"]:
                self.pending = None  # committed: its ack came inside the state it made
                self.refusals = 0
            if kind == "welcome" and message["seat"] is None:
                log.warning("this seat was taken away (handed to a bot or removed)")
                self.done = True
            elif kind == "error" and message["code"] == "bad_token":
                log.warning("the token is no longer a seat of this table")
                self.done = True
            elif kind == "state" and (self.state is None or message["version"] >= self.state["version"]):
                self.state = message
                game = message["game"]
                self.done = game is not None and game["phase"] == "game_over"
            elif kind == "presence" and self.state and message["version"] >= self.state["version"]:
                # Who is connected changed (or we reconnected already holding this version): keep the game.
                self.state = {**self.state, "room": message["room"]}
            elif kind in ("ack", "error") and self.pending and message.get("id") == self.pending["id"]:
                # An ack message: a resent move that was made before the drop (or an older server).
                self.pending = None
                self.refusals = 0 if kind == "ack" else self.refusals + 1
                if kind == "error":
                    log.info("move refused: %s %s", message["code"], message["message"])
                # stale_version comes with the current state; after another refusal, think again (a
                # few times: a bot that keeps making the same mistake waits for the next state).
                if kind == "error" and message["code"] != "stale_version" and self.refusals < 3:
                    self.acted_at = None
            if self.done:
                return
            if resend and self.pending and kind in ("state", "presence"):
                await ws.send(json.dumps(self.pending))  # the same id: applied at most once
                resend = False
            else:
                await self.act(ws)

    async def act(self, ws: Any) -> None:
        """Send a move when the newest state is this seat's turn and nothing is in flight."""
        state = self.state
        if self.pending or state is None or state["game"] is None or state["version"] == self.acted_at:
            return
        move = choose_move(state["game"])
        if move is None:
            return
        self.acted_at = state["version"]
        self.pending = {"type": "action", "id": uuid.uuid4().hex, "version": state["version"], "action": move}
        await ws.send(json.dumps(self.pending))

    def on_message(self, message: Message) -> None:
        """Called with every message received (a hook for logging or tests)."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Play Three Thirteen at a table, given its link.")
    parser.add_argument("link", help="the table's link, e.g. https://cards.example.org/r/K7QX3MPA")
    parser.add_argument("--name", default="Robo", help="the name to sit down with")
    parser.add_argument("--token", help="resume a seat this bot already holds (its token)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    final = asyncio.run(Bot(args.link, name=args.name, token=args.token).run())
    if final and final["game"]:
        print(json.dumps({"totals": final["game"]["totals"], "winners": final["game"]["winners"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
