"""REST under fuzzing: schemathesis generates requests from the app's own OpenAPI schema; no 5xx, ever."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from websockets.sync.client import connect

from app.config import Settings
from app.main import create_app

from .conftest import live_server

CALLS = {"n": 0}  # requests the fuzz made (a fuzz that makes almost none proves nothing)
# One worker runs the whole module (pytest-xdist --dist loadgroup), so the count above is the whole fuzz's.
pytestmark = pytest.mark.xdist_group("rest-fuzz")


def start_game(base: str, code: str, token: str) -> str:
    with connect(base.replace("http", "ws", 1) + f"/ws/{code}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "start"}))
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "state" and message["room"]["game_id"] is not None:
                return str(message["room"]["game_id"])


@pytest.fixture(scope="module")
def fuzz_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """A live server with one room and one started game, so generated requests can hit real ones."""
    db = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    with live_server(f"sqlite+aiosqlite:///{db}", log_level="warning", bot_delay_ms=0) as (base, _, logs):
        with httpx.Client(base_url=base) as http:
            room = http.post("/api/rooms", json={"name": "Fuzz", "seats": 2, "bots": ["random"]}).json()
        game_id = start_game(base, room["code"], room["token"])
        yield base, room["code"], game_id
        assert CALLS["n"] == 0 or CALLS["n"] >= 60, f"the fuzz made only {CALLS['n']} requests"
        errors = [line for line in logs.lines if line.startswith(("ERROR", "CRITICAL"))]
        assert not errors, "the fuzz made the server log errors:\n" + "\n".join(errors[:5])


def app_schema() -> dict[str, object]:
    """The OpenAPI schema the app serves at /openapi.json (built at collection: the routes are static)."""
    return create_app(Settings(_env_file=None)).openapi()  # type: ignore[call-arg]


schema = schemathesis.openapi.from_dict(app_schema())


@schema.parametrize()
@settings(
    max_examples=30,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_generated_requests_never_get_a_server_error(
    case: schemathesis.Case, fuzz_target: tuple[str, str, str]
) -> None:
    base, code, game_id = fuzz_target
    responses = [case.call(base_url=base)]
    # The same request against a room and a game that exist (generated codes almost never do).
    real = {"code": code, "game_id": game_id}
    if case.path_parameters and set(case.path_parameters) & set(real):
        case.path_parameters = {
            **case.path_parameters,
            **{k: v for k, v in real.items() if k in case.path_parameters},
        }
        responses.append(case.call(base_url=base))
    CALLS["n"] += len(responses)
    for response in responses:
        assert response.status_code < 500, (
            case.method,
            case.formatted_path,
            response.status_code,
            response.text,
        )
        content_type = response.headers.get("content-type") or [""]
        if response.status_code >= 400 and content_type[0].startswith("application/json"):
            body = response.json()
            assert isinstance(body, dict) and isinstance(body.get("code"), str), body


HOSTILE_BODIES = [
    ("/api/rooms", '{"name": "\\ud800"}'),
    ("/api/rooms", '{"name": "a\\u0000b"}'),
    ("/api/rooms", '{"name": "rtl\\u202e"}'),
    ("/api/rooms", '{"name": "' + "n" * 10_000 + '"}'),
    ("/api/rooms", '{"name": "Ann", "seats": 1e309}'),
    ("/api/rooms", '{"name": "Ann", "seats": 99999999999999999999999}'),
    ("/api/rooms", '{"name": "Ann", "bots": 99}'),
    ("/api/rooms", '{"name": "Ann", "options": {"decks": 1e308}}'),
    ("/api/rooms", '{"name": "Ann", "options": {"jokers": "yes"}}'),
    ("/api/rooms", '{"name": "Ann", "options": {"__class__": 1}}'),
    ("/api/rooms", '{"name": "Ann", "options": []}'),
    ("/api/rooms", "[" * 5000 + "]" * 5000),
    ("/api/rooms", "not json"),
    ("/api/rooms", ""),
    ("/api/rooms/{code}/join", '{"name": "\\udfff"}'),
    ("/api/rooms/{code}/join", '{"name": "' + "j" * (Settings(_env_file=None).max_name_length + 1) + '"}'),
    ("/api/rooms/{code}/join", '{"name": "Bob", "token": "x"}'),
    ("/api/my-tables", '{"tables": [{"code": "ABCD2345", "token": "\\ud800"}]}'),
    ("/api/my-tables", '{"tables": [{"code": "ABCD2345", "token": "abc", "chat_read": 1e309}]}'),
    ("/api/my-tables", '{"tables": {"code": "ABCD2345"}}'),
]


@pytest.mark.parametrize(("path", "body"), HOSTILE_BODIES, ids=range(len(HOSTILE_BODIES)))
def test_hostile_bodies_get_a_clear_4xx(fuzz_target: tuple[str, str, str], path: str, body: str) -> None:
    base, code, _ = fuzz_target
    with httpx.Client(base_url=base) as http:
        response = http.post(
            path.format(code=code), content=body.encode("utf-8"), headers={"content-type": "application/json"}
        )
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    assert json.loads(response.text)["code"] in ("bad_request", "bad_options"), response.text[:300]


def test_the_fuzzed_schema_is_the_served_one(fuzz_target: tuple[str, str, str]) -> None:
    """Guard against a fuzz of nothing: the schema fuzzed is the one served, with the REST operations."""
    with httpx.Client(base_url=fuzz_target[0]) as http:
        served = http.get("/openapi.json").json()
    assert served == json.loads(json.dumps(app_schema()))
    paths = served["paths"]
    assert {"/api/rooms", "/api/rooms/{code}", "/api/rooms/{code}/join"} <= set(paths)
