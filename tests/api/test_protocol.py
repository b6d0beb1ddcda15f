"""The wire models: parsing of every client message, encoding, the one error mapping, and the doc."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.engine import CardNotInHand, NotYourTurn
from app.protocol import (
    CLIENT_TYPES,
    ERROR_CODES,
    ActionMessage,
    ErrorMessage,
    ProtocolError,
    encode,
    parse_client_message,
    server_message_adapter,
    wire_error,
)

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()

GOOD = [
    {"type": "hello"},
    {"type": "hello", "token": "t", "last_version": 3},
    {"type": "action", "id": "a1", "version": 4, "action": {"type": "draw", "source": "stock"}},
    {"type": "action", "id": "a2", "action": {"type": "discard", "card": "10H"}},
    {"type": "action", "id": "a3", "action": {"type": "go_out", "card": "JK"}},
    {"type": "chat", "text": "hi"},
    {"type": "resync"},
    {"type": "ping"},
    {"type": "set_options", "options": {"jokers": True}, "seats": 5},
    {"type": "add_bot", "level": "hard"},
    {"type": "add_bot"},
    {"type": "remove_seat", "seat": 2},
    {"type": "bot_seat", "seat": 1, "level": "hard"},
    {"type": "start"},
    {"type": "rematch"},
]


@pytest.mark.parametrize("message", GOOD, ids=lambda m: m["type"])
def test_every_client_message_parses(message: dict) -> None:  # type: ignore[type-arg]
    parsed = parse_client_message(json.dumps(message))
    assert parsed.type == message["type"]


def test_every_client_type_is_tested_and_documented() -> None:
    assert {m["type"] for m in GOOD} == set(CLIENT_TYPES)
    for kind in CLIENT_TYPES:
        assert f"| `{kind}` |" in DOC, kind


def test_every_error_code_is_documented_and_nothing_else() -> None:
    table = DOC.split("## Error codes", 1)[1].split("##", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M))
    assert documented == set(ERROR_CODES)


def test_every_server_message_in_the_example_is_valid() -> None:
    example = DOC.split("## A complete example exchange", 1)[1]
    for line in example.splitlines():
        line = line.strip()
        if line.startswith("← {") and "…" not in line and line.endswith("}"):
            server_message_adapter.validate_json(line[2:])


def test_one_mapping_from_exceptions_to_wire_errors() -> None:
    assert wire_error(NotYourTurn("wait"), id="x") == ErrorMessage(
        code="not_your_turn", message="wait", id="x"
    )
    assert wire_error(CardNotInHand("no")).code == "card_not_in_hand"
    assert wire_error(ProtocolError("stale_version", "old")).code == "stale_version"
    bug = wire_error(KeyError("secret internals"))
    assert bug.code == "internal_error" and "secret" not in bug.message
    assert json.loads(encode(wire_error(ProtocolError("bad_token", "no")))) == {
        "type": "error",
        "code": "bad_token",
        "message": "no",
    }


def test_strict_types() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client_message('{"type": "remove_seat", "seat": true}')
    assert info.value.code == "bad_message"
    parsed = parse_client_message(
        '{"type": "action", "id": "x", "extra": 1, "action": {"type": "draw", "source": "discard"}}'
    )
    assert isinstance(parsed, ActionMessage) and parsed.action.type == "draw"
