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
    encode,
    parse_client_message,
    server_message_adapter,
    wire_error,
)
from app.table import Refusal

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()

GOOD = [
    {"type": "hello"},
    {"type": "hello", "token": "t", "last_version": 3},
    {"type": "hello", "token": "t", "acks": "in_state"},
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
    {"type": "make_host", "seat": 2},
    {"type": "request_seat", "seat": 1, "name": "Nima"},
    {"type": "request_seat", "seat": 1},
    {"type": "withdraw_request"},
    {"type": "approve_seat", "seat": 1},
    {"type": "decline_seat", "seat": 1},
    {"type": "start"},
    {"type": "continue"},
    {"type": "rematch"},
    {"type": "reopen"},
    {"type": "leave"},
    {"type": "end_game"},
    {"type": "ready"},
    {"type": "practice", "on": True},
    {"type": "avatar", "avatar": "fox"},
    {"type": "hint"},
    {"type": "react", "emoji": "👍"},
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
    checked = 0
    for line in example.splitlines():
        line = line.strip()
        if line.startswith("← {") and "…" not in line and line.endswith("}"):
            server_message_adapter.validate_json(line[2:])
            checked += 1
    assert checked >= 3, f"only {checked} complete server messages in the example: this check proves nothing"


def test_one_mapping_from_exceptions_to_wire_errors() -> None:
    assert wire_error(NotYourTurn("wait"), id="x") == ErrorMessage(
        code="not_your_turn", message="wait", id="x"
    )
    assert wire_error(CardNotInHand("no")).code == "card_not_in_hand"
    assert wire_error(Refusal("stale_version", "old")).code == "stale_version"
    bug = wire_error(KeyError("secret internals"))
    assert bug.code == "internal_error" and "secret" not in bug.message
    assert json.loads(encode(wire_error(Refusal("bad_token", "no")))) == {
        "type": "error",
        "code": "bad_token",
        "message": "no",
    }


def test_hello_says_how_acks_come_and_a_bad_value_is_refused_clearly() -> None:
    assert parse_client_message('{"type": "hello"}').acks == "frame"  # type: ignore[union-attr]
    assert parse_client_message('{"type": "hello", "acks": "frame"}').acks == "frame"  # type: ignore[union-attr]
    said = parse_client_message('{"type": "hello", "token": "t", "acks": "in_state"}')
    assert said.acks == "in_state"  # type: ignore[union-attr]
    for bad in ('"inline"', '"IN_STATE"', "true", "null", '["in_state"]'):
        with pytest.raises(Refusal) as info:
            parse_client_message('{"type": "hello", "token": "t", "acks": ' + bad + "}")
        assert info.value.code == "bad_message"
        assert info.value.message == "bad hello message: acks: Input should be 'frame' or 'in_state'", bad


def test_strict_types() -> None:
    with pytest.raises(Refusal) as info:
        parse_client_message('{"type": "remove_seat", "seat": true}')
    assert info.value.code == "bad_message"
    parsed = parse_client_message(
        '{"type": "action", "id": "x", "extra": 1, "action": {"type": "draw", "source": "discard"}}'
    )
    assert isinstance(parsed, ActionMessage) and parsed.action.type == "draw"


# A malformed action whose id can be read: the refusal carries that id (issue 16, "the one deviation").
MALFORMED_ACTIONS_WITH_ID = [
    '{"type": "action", "id": "m-1"}',
    '{"type": "action", "id": "m-1", "action": "draw"}',
    '{"type": "action", "id": "m-1", "action": {"type": "fly"}}',
    '{"type": "action", "id": "m-1", "action": {"type": 7}}',
    '{"type": "action", "id": "m-1", "action": {"type": "draw", "source": "hand"}}',
    '{"type": "action", "id": "m-1", "action": {"type": "draw"}}',
    '{"type": "action", "id": "m-1", "action": {"type": "discard", "card": ""}}',
    '{"type": "action", "id": "m-1", "version": "5", "action": {"type": "draw", "source": "stock"}}',
]


# ... and only a well-formed id of an action is echoed.
NO_READABLE_ID = [
    '{"type": "action", "id": "", "action": {"type": "draw", "source": "stock"}}',
    '{"type": "action", "id": 7, "action": {"type": "draw", "source": "stock"}}',
    '{"type": "action", "id": "has space", "action": {}}',
    '{"type": "action", "id": "' + "i" * 65 + '", "action": {}}',
    '{"type": "chat", "id": "m-1", "text": 5}',
]


@pytest.mark.parametrize("frame", MALFORMED_ACTIONS_WITH_ID)
def test_a_malformed_action_with_a_readable_id_is_refused_with_that_id(frame: str) -> None:
    for unreadable in NO_READABLE_ID:
        with pytest.raises(Refusal) as info:
            parse_client_message(unreadable)
        assert info.value.code == "bad_message"
        assert getattr(info.value, "action_id", None) is None, unreadable
    with pytest.raises(Refusal) as info:
        parse_client_message(frame)
    assert info.value.code == "bad_message"
    action_id = getattr(info.value, "action_id", None)
    assert json.loads(encode(wire_error(info.value, id=action_id))) == {
        "type": "error",
        "code": "bad_message",
        "message": info.value.message,
        "id": "m-1",
    }


def test_an_integer_too_long_to_convert_is_a_bad_message() -> None:
    for frame in ['{"type": "ping", "n": ' + "9" * 5000 + "}", "-" + "1" * 4301]:
        with pytest.raises(Refusal) as info:
            parse_client_message(frame)
        assert info.value.code == "bad_message"
