"""One source per fact: the seat bounds come from one pair of constants, the client message union is one
list, and the client's fixed values (served at /api/client-config and in its page) are the Python ones."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest

from app.engine import BOT_LEVELS, BotLevel, Options
from app.engine.options import FACE_VALUES, MAX_DECKS, MAX_PLAYERS, MIN_PLAYERS, PACES, TURN_TIMERS
from app.protocol import CLIENT_TYPES, AddBot
from app.protocol.client_config import CLIENT_CONFIG_URL, PAGE_ELEMENT_ID
from app.protocol.messages import CLIENT_MESSAGES, ClientMessages, Reaction
from app.protocol.schema import protocol_schema
from app.table import AVATARS, BOT_AVATAR

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "static" / "js"


@pytest.fixture
async def http(sqlite_server: str):  # type: ignore[no-untyped-def]
    async with httpx.AsyncClient(base_url=sqlite_server) as client:
        yield client


def expected_config() -> dict[str, Any]:
    return {
        "seats": {"min": MIN_PLAYERS, "max": MAX_PLAYERS},
        "bot_levels": list(get_args(BotLevel)),
        "default_bot_level": AddBot.model_fields["level"].default,
        "reactions": list(get_args(Reaction)),
        "avatars": list(AVATARS),
        "bot_avatar": BOT_AVATAR,
        "options": Options().to_dict(),
        "option_choices": {
            "decks": list(range(1, MAX_DECKS + 1)),
            "face_values": list(FACE_VALUES),
            "turn_timer": list(TURN_TIMERS),
            "pace": list(PACES),
        },
    }


def page_config(page: str) -> Any:
    found = re.search(rf'<script type="application/json" id="{PAGE_ELEMENT_ID}">(.*?)</script>', page, re.S)
    assert found, "the page carries no client config"
    return json.loads(found.group(1))


async def test_the_client_config_is_the_python_sources_and_the_page_carries_it(
    http: httpx.AsyncClient,
) -> None:
    served = (await http.get(CLIENT_CONFIG_URL)).json()
    assert served == expected_config()
    for path in ("/", "/r/ABCD2345", "/r/ABCD2345/history"):
        assert page_config((await http.get(path)).text) == served, path
    openapi = (await http.get("/openapi.json")).json()
    assert CLIENT_CONFIG_URL in openapi["paths"]


def test_the_page_element_cannot_be_ended_by_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.protocol import client_config as module

    odd = module.client_config().model_copy(update={"reactions": ["</script><b>"]})
    monkeypatch.setattr(module, "client_config", lambda: odd)
    module.client_config_script.cache_clear()
    try:
        element = module.client_config_script()
    finally:
        module.client_config_script.cache_clear()
    assert element.count("</script>") == 1 and element.endswith("</script>")
    assert page_config(element)["reactions"] == ["</script><b>"]


def _copies(values: list[Any]) -> list[str]:
    """How a JS source would spell a copy of these values: strings quoted, runs of three numbers or more."""
    strings = [f"'{v}'" for v in values if isinstance(v, str)]
    numbers = [str(v) for v in values if isinstance(v, int)]
    runs = [", ".join(numbers[i:j]) for i in range(len(numbers)) for j in range(i + 3, len(numbers) + 1)]
    return strings + [f"[{run}]" for run in runs]


def test_the_js_client_keeps_no_copy_of_the_server_values() -> None:
    """The client reads these from static/js/config.js (its page); i18n.js only names them."""
    seat_counts = list(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    spellings = _copies(list(BOT_LEVELS)) + _copies(list(get_args(Reaction))) + _copies(seat_counts)
    spellings += [emoji for emoji in get_args(Reaction)] + _copies(list(TURN_TIMERS)[1:])
    spellings += _copies(list(AVATARS))
    found = []
    for path in sorted(CLIENT.rglob("*.js")):
        if path.name in ("config.js", "i18n.js"):
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}: {s}" for s in spellings if s in text]
    assert found == []


def test_the_client_message_union_is_the_one_list() -> None:
    models = get_args(ClientMessages)
    assert list(CLIENT_MESSAGES.values()) == list(models)
    assert set(CLIENT_TYPES) == set(CLIENT_MESSAGES)
    union = protocol_schema()["$defs"]["ClientMessage"]
    assert set(union["discriminator"]["mapping"]) == set(CLIENT_TYPES)
    assert sorted(ref["$ref"].rsplit("/", 1)[1] for ref in union["oneOf"]) == sorted(
        m.__name__ for m in models
    )


_OTHER_BOUNDS = """
import json
import app.engine.options as options
options.MIN_PLAYERS, options.MAX_PLAYERS = 3, 10
from datetime import UTC, datetime
from app.api.rooms import RoomCreate, RoomJoin
from app.protocol.client_config import client_config
from app.protocol.schema import protocol_schema
from app.table import commands
defs = protocol_schema()["$defs"]
def bounds(schema):
    schema = next((s for s in schema.get("anyOf", [schema]) if s.get("type") == "integer"), schema)
    return [schema.get("minimum"), schema.get("maximum")]
create = RoomCreate.model_json_schema()["properties"]
table = commands.new_table(
    code="ABCD2345", host="Sara", token_hash="x", bots=[], seat_count=10, options={}, now=datetime.now(UTC)
)
print(json.dumps({
    "config": client_config().seats.model_dump(),
    "set_options": bounds(defs["SetOptions"]["properties"]["seats"]),
    "seat_indexes": sorted({tuple(bounds(defs[m]["properties"]["seat"])) for m in (
        "RemoveSeat", "BotSeat", "MakeHost", "RequestSeat", "ApproveSeat", "DeclineSeat")}),
    "create": bounds(create["seats"]),
    "create_bots": bounds(create["bots"]),
    "join": bounds(RoomJoin.model_json_schema()["properties"]["seat"]),
    "table": table.seat_count,
}))
"""


def test_the_seat_bounds_have_one_source() -> None:
    """Other constants (3 to 10 seats, set before anything reads them) reach every bound: the protocol, the
    REST bodies, the JSON Schema, the table core and the client's config."""
    out = subprocess.run(
        [sys.executable, "-c", _OTHER_BOUNDS], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "config": {"min": 3, "max": 10},
        "set_options": [3, 10],
        "seat_indexes": [[0, 9]],
        "create": [3, 10],
        "create_bots": [0, 9],
        "join": [0, 9],
        "table": 10,
    }
