"""REST: create, join, room info, errors as JSON with stable codes, pages and health."""

from __future__ import annotations

import json

import httpx
import pytest
import websockets

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
    assert full == {"spectator": True, "seat": None, "token": None, "requested_seat": None}
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
        ({"name": "\uff22\uff4f\uff54 \u06f2"}, "name_for_bots"),  # fullwidth "Ｂｏｔ" and a Persian two
        ({"name": "S\u0430ra"}, "name_mixes_scripts"),  # a Cyrillic "а" among Latin letters
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
    assert joined == {"spectator": True, "seat": None, "token": None, "requested_seat": None}
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


async def test_asking_for_a_bots_seat_over_rest_makes_a_request_and_takes_nothing(
    http: httpx.AsyncClient,
) -> None:
    created = (await http.post("/api/rooms", json={"name": "Sara", "seats": 2, "bots": ["hard"]})).json()
    code = created["code"]
    asked = await http.post(f"/api/rooms/{code}/join", json={"name": "Omid", "seat": 1})
    assert asked.status_code == 200
    body = asked.json()
    # Not a seat: a request (with a token that finds it again), waiting for the host.
    assert (
        body["spectator"] is True and body["seat"] is None and body["requested_seat"] == 1 and body["token"]
    )
    seats = (await http.get(f"/api/rooms/{code}")).json()["seats"]
    assert [(s["name"], s["bot"], s.get("request")) for s in seats] == [
        ("Sara", False, None),
        ("Bot 2", True, {"name": "Omid", "approved": False}),
    ]
    assert body["token"] not in (await http.get(f"/api/rooms/{code}")).text
    again = await http.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 1})
    assert (again.status_code, again.json()["code"]) == (400, "seat_requested")
    person = await http.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 0})
    assert (person.status_code, person.json()["code"]) == (400, "not_allowed")
    missing = await http.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 5})
    assert (missing.status_code, missing.json()["code"]) == (422, "bad_request")


async def test_the_spectator_state_over_rest_is_the_sockets_and_hides_every_hand(
    http: httpx.AsyncClient,
) -> None:
    # Two people (no bot, which could move before the state is read): nobody moves after the start.
    created = (await http.post("/api/rooms", json={"name": "Sara", "seats": 2})).json()
    await http.post(f"/api/rooms/{created['code']}/join", json={"name": "Omid"})
    lobby = (await http.get(f"/api/rooms/{created['code']}/state")).json()
    assert lobby["type"] == "state" and lobby["game"] is None and lobby["room"]["status"] == "lobby"
    async with websockets.connect(
        http.base_url.copy_with(scheme="ws").join(f"/ws/{created['code']}").__str__()
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "token": created["token"]}))
        await ws.send(json.dumps({"type": "start"}))
        while True:  # until the game has started (the host's own view)
            message = json.loads(await ws.recv())
            if message["type"] == "state" and message["game"] is not None:
                break
    watched = (await http.get(f"/api/rooms/{created['code']}/state")).json()
    game = watched["game"]
    assert (
        game["round"] == 1 and game["seat"] is None and game["hand"] is None and game["arrangement"] is None
    )
    assert game["legal"] == [] and game["can_go_out"] == [] and watched["events"] == []
    assert [p["card_count"] for p in game["players"]] == [3, 3]
    assert created["token"] not in json.dumps(watched)
    assert (await http.get("/api/rooms/ZZZZ2345/state")).json()["code"] == "room_not_found"


async def test_a_program_joins_by_the_link_and_its_seat_shows_as_a_program(http: httpx.AsyncClient) -> None:
    created = (await http.post("/api/rooms", json={"name": "Sara", "seats": 3})).json()
    code = created["code"]
    program = (await http.post(f"/api/rooms/{code}/join", json={"name": "Robo", "program": True})).json()
    person = (await http.post(f"/api/rooms/{code}/join", json={"name": "Omid"})).json()
    assert program["seat"] == 1 and person["seat"] == 2
    seats = (await http.get(f"/api/rooms/{code}")).json()["seats"]
    assert [(s["name"], s["bot"], s["program"]) for s in seats] == [
        ("Sara", False, False),
        ("Robo", False, True),
        ("Omid", False, False),
    ]


def test_new_sockets_per_address_are_rate_limited() -> None:
    from app.api.limits import AddressLimits
    from tests.rooms.fakes import ManualClock

    clock = ManualClock()
    limits = AddressLimits(max_sockets=100, max_rooms=60, clock=clock, connects_per_second=5.0)
    assert all(limits.connect("10.0.0.1") for _ in range(20))  # a burst of 4 seconds' worth
    assert not limits.connect("10.0.0.1")
    assert limits.connect("10.0.0.2"), "another address is counted apart"
    clock.t += 1.0
    assert [limits.connect("10.0.0.1") for _ in range(6)] == [True] * 5 + [False]
