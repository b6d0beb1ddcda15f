"""The committed machine-readable documents (docs/protocol.schema.json, docs/openapi.json) are what the code
generates, the schema is served, and it describes the messages the models read and write."""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema_rs
import pytest

from app.api.documents.writer import DOCS, REGENERATE, documents
from app.protocol import Ack, ChatOut, ErrorMessage, RoomInfo, SeatInfo, StateMessage, Welcome, encode
from app.protocol.schema import SCHEMA_URL, definition_schema, protocol_schema

from .test_protocol import GOOD


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return documents()


@pytest.mark.parametrize("name", ["protocol.schema.json", "openapi.json"])
def test_the_committed_document_is_what_the_code_generates(generated: dict[str, str], name: str) -> None:
    path = DOCS / name
    assert path.is_file(), f"docs/{name} is missing: run `{REGENERATE}` and commit it"
    assert path.read_text(encoding="utf-8") == generated[name], (
        f"docs/{name} no longer matches the code: run `{REGENERATE}` and commit the result"
    )


def _validator(definition: str) -> Any:
    return jsonschema_rs.validator_for(definition_schema(protocol_schema(), definition))


def test_the_schema_reads_every_client_message_and_refuses_malformed_ones() -> None:
    client = _validator("ClientMessage")
    for message in GOOD:
        assert client.is_valid(message), message
    for bad in [
        {"type": "dance"},
        {"type": "action", "id": "a", "action": {"type": "draw", "source": "hand"}},
        {"type": "action", "id": "has space", "action": {"type": "draw", "source": "stock"}},
        {"type": "remove_seat", "seat": 9},
        {"type": "hello", "last_version": "3"},
    ]:
        assert not client.is_valid(bad), bad


def test_the_schema_describes_what_the_server_writes() -> None:
    server = _validator("ServerMessage")
    seat = SeatInfo(seat=0, name="Sara", bot=False, bot_level=None, connected=True)
    room = RoomInfo(
        code="K7QX3MPA",
        status="lobby",
        host_seat=0,
        seat_count=2,
        seats=[seat],
        options={},
        spectators=0,
        game_id=None,
        game_number=None,
    )
    written = [
        Welcome(room="K7QX3MPA", seat=0, you_are_host=True),
        StateMessage(version=1, room=room, game=None),
        Ack(id="a", version=2),
        ErrorMessage(code="bad_message", message="no"),
        ErrorMessage(code="stale_version", message="old", id="a"),
        ChatOut(seat=0, name="Sara", text="hi", at="2026-11-29T12:03:04.512Z"),
    ]
    for message in written:
        assert server.is_valid(json.loads(encode(message))), message
    # Every field is always written, so a message without one is not what the server sends.
    assert not server.is_valid({"type": "welcome", "room": "K7QX3MPA", "seat": 0})
    assert not server.is_valid({"type": "ack", "id": "a"})


async def test_the_schema_is_served(sqlite_server: str) -> None:
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        answer = await http.get(SCHEMA_URL)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/schema+json")
    assert answer.json() == protocol_schema()
