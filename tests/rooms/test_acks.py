"""How a committed move is acknowledged: a separate ``ack`` message (the default), or, for a socket whose
hello said ``"acks": "in_state"``, the ``ack`` field of the state the move produced (one frame fewer)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine import action_to_dict
from app.engine.bots import choose_action
from app.protocol import StateMessage, encode
from app.rooms import Room, RoomManager

from .fakes import FakeSocket

Message = dict[str, Any]


def codes(messages: list[Message]) -> list[str]:
    return [m["code"] for m in messages if m["type"] == "error"]


class Table:
    """A started table of four people, one socket each, plus a second tab of seat 0 and a spectator."""

    def __init__(self, room: Room, players: list[FakeSocket], tab: FakeSocket, watcher: FakeSocket) -> None:
        self.room, self.players, self.tab, self.watcher = room, players, tab, watcher

    @property
    def everyone(self) -> list[FakeSocket]:
        return [*self.players, self.tab, self.watcher]

    def texts(self) -> dict[FakeSocket, list[str]]:
        """Each socket's frames since the last call, as they would be written."""
        return {sock: sock.conn.drain() for sock in self.everyone}

    def move(self, action_id: str, version: int | None = None) -> Message:
        """The move a bot would make for the seat on turn, as an action message."""
        game = self.room.table.game
        assert game is not None
        action = action_to_dict(choose_action(game, game.turn, "normal", game.moves))
        at = self.room.table.version if version is None else version
        return {"type": "action", "id": action_id, "version": at, "action": action}

    async def turn_of(self, seat: int) -> FakeSocket:
        """The others play until it is ``seat``'s turn (their frames dropped); ``seat``'s socket."""
        while (game := self.room.table.game) is not None and game.turn != seat:
            await self.players[game.turn].say(self.move(f"p{self.room.table.version}"))
        self.texts()
        return self.players[seat]


async def table_of_four(manager: RoomManager, acks: list[str | None], tab_acks: str = "in_state") -> Table:
    """``acks``: what each seat's hello says of acks (None: nothing, as clients before the field)."""
    room, token = await manager.create(name="Host", seat_count=4, bots=[], options={})
    tokens = [token] + [(await room.join(f"P{k}"))[1] for k in range(1, 4)]
    players = [FakeSocket(room) for _ in tokens]
    for sock, seat_token, said in zip(players, tokens, acks, strict=True):
        hello: Message = {"type": "hello", "token": seat_token}
        await sock.say(hello if said is None else {**hello, "acks": said})
    tab, watcher = FakeSocket(room), FakeSocket(room)
    await tab.say({"type": "hello", "token": tokens[0], "acks": tab_acks})
    await watcher.say({"type": "hello", "acks": "in_state"})
    await players[0].say({"type": "start"})
    table = Table(room, players, tab, watcher)
    table.texts()
    return table


def without_ack(text: str, action_id: str) -> str:
    return text.replace(f'"ack":{json.dumps(action_id)},', "", 1)


async def test_a_sender_that_asked_gets_its_ack_inside_its_state_and_no_ack_message(
    manager: RoomManager,
) -> None:
    table = await table_of_four(manager, ["in_state", None, None, None])
    for turn in ("draw", "discard"):  # each acknowledged by the state it made
        sender = await table.turn_of(0)
        version = table.room.table.version
        action_id = f'{turn}-"quoted"\\end'  # a quote and a backslash: the id is JSON-escaped
        await table.room.handle(sender.conn, parse(table.move(action_id)))
        texts = table.texts()
        # One frame to the sender: its state, carrying the ack; no ack message.
        assert len(texts[sender]) == 1, texts[sender]
        mine = json.loads(texts[sender][0])
        assert mine["type"] == "state" and mine["ack"] == action_id and mine["version"] == version + 1
        # Exactly what the protocol's model writes: the ack right after the version.
        assert texts[sender][0] == encode(StateMessage.model_validate(mine))
        assert texts[sender][0].startswith(
            f'{{"type":"state","version":{version + 1},"ack":{json.dumps(action_id)},"room":{{'
        )
        # The seat's other tab asked for acks in the state too, but did not send the move: the same state,
        # without the ack. Every other socket: its own state, no ack, no ack message.
        assert texts[table.tab] == [without_ack(texts[sender][0], action_id)]
        for sock in [*table.players[1:], table.watcher]:
            assert [json.loads(text)["type"] for text in texts[sock]] == ["state"]
            assert "ack" not in json.loads(texts[sock][0])


@pytest.mark.parametrize("said", [None, "frame"])
async def test_each_sender_is_answered_the_way_its_hello_asked(
    manager: RoomManager, said: str | None
) -> None:
    """A socket that did not ask (or said ``frame``) gets the ack message, then the state, as before."""
    table = await table_of_four(manager, [said, "in_state", None, None])
    old = await table.turn_of(0)
    version = table.room.table.version
    await old.say(table.move("old-1"))  # FakeSocket.say drains the sender's frames
    texts = table.texts()
    assert old.seen[-2:] == [
        {"type": "ack", "id": "old-1", "version": version + 1},
        {"type": "state", **{k: v for k, v in old.seen[-1].items() if k != "type"}},
    ]
    assert "ack" not in old.seen[-1]
    assert texts[table.tab] == [json.dumps(old.seen[-1], separators=(",", ":"), ensure_ascii=False)]
    new = await table.turn_of(1)
    version = table.room.table.version
    answer = await new.say(table.move("new-1"))
    assert [(m["type"], m.get("ack"), m["version"]) for m in answer] == [("state", "new-1", version + 1)]
    assert all("ack" not in json.loads(t) for sock, ts in table.texts().items() for t in ts)


async def test_a_retried_id_is_still_answered_by_an_ack_message_and_refusals_are_unchanged(
    manager: RoomManager,
) -> None:
    table = await table_of_four(manager, ["in_state", None, None, None])
    sender = await table.turn_of(0)
    version = table.room.table.version
    move = table.move("once")
    first = await sender.say(move)
    assert [(m["type"], m.get("ack")) for m in first] == [("state", "once")]
    table.texts()
    # The same id again (a client unsure it arrived): the ack from the acks kept, alone; nothing changes.
    again = await sender.say(move)
    assert again == [{"type": "ack", "id": "once", "version": version + 1}]
    assert table.room.table.version == version + 1
    assert all(texts == [] for texts in table.texts().values())
    # A stale move: the error, then the current state (no ack in it: nothing was committed).
    stale = await sender.say(table.move("late", version=version))
    assert codes(stale) == ["stale_version"] and stale[0]["id"] == "late"
    assert [m["type"] for m in stale] == ["error", "state"] and "ack" not in stale[1]


def parse(message: Message):  # type: ignore[no-untyped-def]
    from app.protocol import parse_client_message

    return parse_client_message(json.dumps(message))
