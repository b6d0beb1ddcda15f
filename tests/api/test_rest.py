"""REST: create, join, room info, errors as JSON with stable codes, pages and health."""

from __future__ import annotations

import httpx
import pytest

from app.rooms import CODE_ALPHABET

from .wsclient import server_settings


@pytest.fixture
async def http(sqlite_server: str):  # type: ignore[no-untyped-def]
    async with httpx.AsyncClient(base_url=sqlite_server) as client:
        yield client


async def test_create_join_until_full_then_watch(http: httpx.AsyncClient) -> None:
    response = await http.post("/api/rooms", json={"name": "  Sara ", "seats": 3, "bots": 1})
    assert response.status_code == 201
    created = response.json()
    code = created["code"]
    assert len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    assert created["seat"] == 0 and len(created["token"]) >= 40 and created["url"] == f"/r/{code}"
    joined = (await http.post(f"/api/rooms/{code.lower()}/join", json={"name": "Omid"})).json()
    assert joined["spectator"] is False and joined["seat"] == 2 and joined["token"]
    full = (await http.post(f"/api/rooms/{code}/join", json={"name": "Nima"})).json()
    assert full == {"spectator": True, "seat": None, "token": None}
    info = await http.get(f"/api/rooms/{code}")
    assert info.status_code == 200
    body = info.json()
    assert body["status"] == "lobby" and body["seat_count"] == 3 and body["game"] is None
    assert [(s["seat"], s["name"], s["bot"]) for s in body["seats"]] == [
        (0, "Sara", False),
        (1, "Bot 2", True),
        (2, "Omid", False),
    ]
    assert body["version"] == 2
    assert "token" not in info.text and created["token"] not in info.text


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": ""}, "bad_request"),
        ({"name": "   "}, "bad_request"),
        ({"name": "x" * 33}, "bad_request"),
        ({"name": "a\nb"}, "bad_request"),
        ({"name": "a\u202eb"}, "bad_request"),
        ({}, "bad_request"),
        ({"name": "Sara", "seats": 9}, "bad_request"),
        ({"name": "Sara", "seats": 1}, "bad_request"),
        ({"name": "Sara", "seats": 2, "bots": 2}, "bad_request"),
        ({"name": "Sara", "bots": ["genius"]}, "bad_request"),
        ({"name": "Sara", "options": {"nope": 1}}, "bad_options"),
        ({"name": "Sara", "options": {"turn_timer": 45}}, "bad_options"),
        ({"name": "Sara", "seats": 8, "options": {"decks": 1}}, "bad_options"),
        ({"name": "Sara", "extra": 1}, "bad_request"),
    ],
)
async def test_create_refusals_are_json_with_codes(http: httpx.AsyncClient, body: dict, code: str) -> None:  # type: ignore[type-arg]
    response = await http.post("/api/rooms", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["code"] == code and response.json()["message"]


async def test_unknown_rooms_are_404_json(http: httpx.AsyncClient) -> None:
    for response in (
        await http.get("/api/rooms/ZZZZ2222"),
        await http.post("/api/rooms/ZZZZ2222/join", json={"name": "A"}),
        await http.get("/api/rooms/not-a-code!"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "room_not_found"


async def test_join_after_start_is_watching(http: httpx.AsyncClient, sqlite_server: str) -> None:
    from .wsclient import Client

    created = (await http.post("/api/rooms", json={"name": "Sara", "seats": 3, "bots": ["easy"]})).json()
    client = await Client.connect(sqlite_server, created["code"])
    await client.hello(created["token"])
    await client.send({"type": "start"})
    await client.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    joined = (await http.post(f"/api/rooms/{created['code']}/join", json={"name": "Late"})).json()
    assert joined == {"spectator": True, "seat": None, "token": None}
    info = (await http.get(f"/api/rooms/{created['code']}")).json()
    assert info["status"] == "playing" and info["game"]["number"] == 1 and info["seat_count"] == 2
    await client.close()


async def test_pages_health_and_openapi(http: httpx.AsyncClient) -> None:
    for path in ("/", "/r/ABCD2345"):
        response = await http.get(path)
        assert response.status_code == 200 and "text/html" in response.headers["content-type"]
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    schema = (await http.get("/openapi.json")).json()
    assert {"/api/rooms", "/api/rooms/{code}", "/api/rooms/{code}/join"} <= set(schema["paths"])


async def test_a_bug_is_a_json_500_without_details(sqlite_url: str) -> None:
    from app.main import create_app

    app = create_app(server_settings(sqlite_url))

    @app.get("/boom")
    async def boom() -> None:
        raise KeyError("secret internals")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/boom")
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error" and "secret" not in response.text


async def test_a_newcomer_takes_over_a_bots_seat(http: httpx.AsyncClient) -> None:
    created = (await http.post("/api/rooms", json={"name": "Sara", "seats": 2, "bots": ["hard"]})).json()
    code = created["code"]
    taken = await http.post(f"/api/rooms/{code}/join", json={"name": "Omid", "seat": 1})
    assert taken.status_code == 200 and taken.json()["seat"] == 1 and taken.json()["token"]
    seats = (await http.get(f"/api/rooms/{code}")).json()["seats"]
    assert [(s["name"], s["bot"], s["auto"]) for s in seats] == [
        ("Sara", False, False),
        ("Omid", False, False),
    ]
    person = await http.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 1})
    assert (person.status_code, person.json()["code"]) == (400, "not_allowed")
    missing = await http.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 5})
    assert (missing.status_code, missing.json()["code"]) == (422, "bad_request")
