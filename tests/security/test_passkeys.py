"""Names kept with passkeys, on a real server, with a software authenticator
(``tests.passkey_authenticator``): each refusal of a ceremony has its code (a wrong origin, a wrong or
replayed challenge, another name's passkey, a count that goes backwards, a challenge past five minutes);
the routes take JSON from this site only and are limited per address; the session cookie is HttpOnly,
SameSite=Lax, Secure behind https, and never logged; a kept name (any case, any look-alike) is refused at
every door to whoever has not proved it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.standings import PlayerStandingPublic
from tests.api.test_standings import new_game, play_out
from tests.api.wsclient import Client, join_room
from tests.conftest import at_head
from tests.passkey_authenticator import SoftPasskey, b64

from .conftest import LiveServer, assert_not_logged, serving

ROOMY = {"max_passkey_requests_per_minute": 6000}  # these tests are limited by the rules, not the budget


@pytest.fixture
async def live(sqlite_url: str, sqlite_at_head: Path) -> AsyncIterator[LiveServer]:
    async with serving(at_head(sqlite_url, sqlite_at_head), **ROOMY) as srv:
        yield srv


@pytest.fixture
async def live_any_db(db_url: str, sqlite_at_head: Path) -> AsyncIterator[LiveServer]:
    async with serving(at_head(db_url, sqlite_at_head), **ROOMY) as srv:
        yield srv


SARA_VARIANTS = ["Sara", "SARA", "sara", "S\u0251r\u0251", "\uff33\uff41\uff52\uff41", "  sArA "]


def browser(base: str, origin: str | None = None) -> httpx.AsyncClient:
    """A browser's fetches: this site's Origin on every request, its own cookie jar."""
    return httpx.AsyncClient(base_url=base, headers={"Origin": origin or base}, timeout=10)


async def claim(
    http: httpx.AsyncClient, name: str, key: SoftPasskey, label: str | None = None
) -> httpx.Response:
    options = await http.post("/api/passkeys/claim/options", json={"name": name})
    assert options.status_code == 200, options.text
    body: dict[str, Any] = {"credential": key.create(options.json())}
    if label:
        body["label"] = label
    return await http.post("/api/passkeys/register", json=body)


async def sign_in(http: httpx.AsyncClient, name: str | None, key: SoftPasskey, **get: Any) -> httpx.Response:
    options = await http.post("/api/passkeys/sign-in/options", json={} if name is None else {"name": name})
    assert options.status_code == 200, options.text
    return await http.post("/api/passkeys/sign-in", json={"credential": key.get(options.json(), **get)})


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert (response.status_code, response.json().get("code")) == (status, code), response.text


def session_cookie(response: httpx.Response) -> str:
    cookies = [c for c in response.headers.get_list("set-cookie") if c.startswith("tt_session=")]
    assert len(cookies) == 1, response.headers
    return cookies[0]


async def test_claim_add_a_device_sign_in_list_remove_and_sign_out(live_any_db: LiveServer) -> None:
    base = live_any_db.base
    phone, laptop = SoftPasskey(base), SoftPasskey(base)
    async with browser(base) as first, browser(base) as second:
        made = await claim(first, "Sara", phone, label="Phone")
        assert made.status_code == 200 and made.json() == {"name": "Sara"}, made.text
        me = (await first.get("/api/passkeys/me")).json()
        assert me["name"] == "Sara" and [p["label"] for p in me["passkeys"]] == ["Phone"]
        assert set(me["passkeys"][0]) == {
            "id",
            "label",
            "created_at",
            "last_used_at",
        }  # no key, no credential id
        refused(await second.get("/api/passkeys/me"), 401, "not_signed_in")
        # A look-alike of a kept name cannot be claimed again.
        again = await second.post("/api/passkeys/claim/options", json={"name": "SARA"})
        refused(again, 403, "name_kept")

        # The second device: a one-time code from the signed-in one.
        shown = await first.post("/api/passkeys/device-code", json={})
        assert shown.status_code == 200, shown.text
        code = shown.json()["code"]
        assert len(code) == 8
        options = await second.post("/api/passkeys/add/options", json={"code": code.lower()})
        assert options.status_code == 200, options.text
        assert options.json()["publicKey"]["excludeCredentials"][0]["id"] == b64(phone.credential_id)
        added = await second.post(
            "/api/passkeys/register", json={"credential": laptop.create(options.json())}
        )
        assert added.status_code == 200 and added.json() == {"name": "Sara"}, added.text
        reused = await second.post("/api/passkeys/add/options", json={"code": code})
        refused(reused, 400, "bad_device_code")
        labels = [p["label"] for p in (await second.get("/api/passkeys/me")).json()["passkeys"]]
        assert labels == ["Phone", "passkey 2"]

        # Sign out here; sign in again by name, and with no name (the passkey says whose it is).
        assert (await second.post("/api/passkeys/sign-out", json={})).status_code == 204
        refused(await second.get("/api/passkeys/me"), 401, "not_signed_in")
        assert (await sign_in(second, "sara", laptop)).json() == {"name": "Sara"}
        assert (await sign_in(second, None, laptop)).json() == {"name": "Sara"}
        used = (await second.get("/api/passkeys/me")).json()["passkeys"][1]
        assert used["last_used_at"] is not None

        # Sign out everywhere: both browsers lose their sessions, the passkeys stay.
        assert (await second.post("/api/passkeys/sign-out-everywhere", json={})).status_code == 204
        refused(await first.get("/api/passkeys/me"), 401, "not_signed_in")
        assert (await sign_in(first, "Sara", phone)).status_code == 200
        ids = [p["id"] for p in (await first.get("/api/passkeys/me")).json()["passkeys"]]
        assert len(ids) == 2

        # Remove one passkey, then the last: the name is free again, and its sessions are gone.
        removed = await first.delete(f"/api/passkeys/{ids[1]}")
        assert removed.json() == {"claimed": True}, removed.text
        refused(await first.delete(f"/api/passkeys/{ids[1]}"), 404, "passkey_not_found")
        refused(await sign_in_refused(second, laptop, "Sara"), 403, "wrong_passkey")
        last = await first.delete(f"/api/passkeys/{ids[0]}")
        assert last.json() == {"claimed": False}
        refused(await first.get("/api/passkeys/me"), 401, "not_signed_in")
        refused(await second.post("/api/passkeys/sign-in/options", json={"name": "Sara"}), 404, "not_kept")
        assert (await claim(second, "Sara", SoftPasskey(base))).status_code == 200


async def sign_in_refused(http: httpx.AsyncClient, key: SoftPasskey, name: str) -> httpx.Response:
    options = await http.post("/api/passkeys/sign-in/options", json={"name": name})
    return await http.post("/api/passkeys/sign-in", json={"credential": key.get(options.json())})


async def test_each_bad_ceremony_is_refused_with_its_code(live: LiveServer) -> None:
    base = live.base
    sara, omid = SoftPasskey(base), SoftPasskey(base)
    async with browser(base) as http:
        # A wrong origin in the passkey's own client data.
        options = await http.post("/api/passkeys/claim/options", json={"name": "Sara"})
        wrong = sara.create(options.json(), origin="https://evil.example")
        refused(await http.post("/api/passkeys/register", json={"credential": wrong}), 403, "bad_origin")
        # A challenge the server never gave.
        forged = {"publicKey": {**options.json()["publicKey"], "challenge": b64(b"x" * 32)}}
        refused(
            await http.post("/api/passkeys/register", json={"credential": sara.create(forged)}),
            400,
            "challenge_unknown",
        )
        # The right answer is taken once; the same answer again is a replay.
        options = await http.post("/api/passkeys/claim/options", json={"name": "Sara"})
        answer = sara.create(options.json())
        assert (await http.post("/api/passkeys/register", json={"credential": answer})).status_code == 200
        refused(
            await http.post("/api/passkeys/register", json={"credential": answer}), 400, "challenge_unknown"
        )
        # No user verification: refused by the library's checks.
        options = await http.post("/api/passkeys/claim/options", json={"name": "Nima"})
        unverified = SoftPasskey(base).create(options.json(), uv=False)
        refused(
            await http.post("/api/passkeys/register", json={"credential": unverified}), 400, "passkey_refused"
        )
        assert (await claim(http, "Omid", omid)).status_code == 200

        # An assertion of another name's passkey (Omid's, for Sara).
        refused(await sign_in_refused(http, omid, "Sara"), 403, "wrong_passkey")
        # A sign-in answer is taken once too.
        options = await http.post("/api/passkeys/sign-in/options", json={"name": "Sara"})
        assertion = sara.get(options.json(), count=5)
        assert (await http.post("/api/passkeys/sign-in", json={"credential": assertion})).status_code == 200
        refused(
            await http.post("/api/passkeys/sign-in", json={"credential": assertion}), 400, "challenge_unknown"
        )
        # A count that goes backwards (a copied key): 5 was seen, 3 comes.
        options = await http.post("/api/passkeys/sign-in/options", json={"name": "Sara"})
        backwards = sara.get(options.json(), count=3)
        refused(
            await http.post("/api/passkeys/sign-in", json={"credential": backwards}),
            403,
            "sign_count_backwards",
        )
        # A registration answer sent to sign in (the challenge was for another ceremony).
        options = await http.post("/api/passkeys/claim/options", json={"name": "Kian"})
        crossed = {"credential": sara.get(options.json())}
        refused(await http.post("/api/passkeys/sign-in", json=crossed), 400, "challenge_unknown")


async def test_a_challenge_older_than_five_minutes_is_refused(
    sqlite_url: str, sqlite_at_head: Path, tmp_path: Path
) -> None:
    offset = tmp_path / "offset"
    offset.write_text("0")
    async with serving(at_head(sqlite_url, sqlite_at_head), clock_offset_file=str(offset), **ROOMY) as srv:
        key = SoftPasskey(srv.base)
        async with browser(srv.base) as http:
            options = await http.post("/api/passkeys/claim/options", json={"name": "Sara"})
            offset.write_text("240")  # four minutes: still good
            await asyncio.sleep(0.1)
            fresh = await http.post("/api/passkeys/register", json={"credential": key.create(options.json())})
            assert fresh.status_code == 200, fresh.text
            options = await http.post("/api/passkeys/sign-in/options", json={"name": "Sara"})
            offset.write_text("541")  # five minutes and a second after it was given
            await asyncio.sleep(0.1)
            late = await http.post("/api/passkeys/sign-in", json={"credential": key.get(options.json())})
            refused(late, 400, "challenge_expired")


async def test_routes_take_json_from_this_site_only_and_are_limited_per_address(
    sqlite_url: str, sqlite_at_head: Path
) -> None:
    limited = serving(at_head(sqlite_url, sqlite_at_head), max_passkey_requests_per_minute=12)
    async with limited as srv, httpx.AsyncClient(base_url=srv.base) as http:
        url, body = "/api/passkeys/claim/options", {"name": "Sara"}
        refused(await http.post(url, json=body), 403, "bad_origin")  # no Origin at all
        evil = {"Origin": "https://evil.example"}
        refused(await http.post(url, json=body, headers=evil), 403, "bad_origin")
        form = {"Origin": srv.base, "Content-Type": "application/x-www-form-urlencoded"}
        refused(await http.post(url, content="name=Sara", headers=form), 415, "not_json")
        refused(
            await http.post(url, content='{"name": "Sara"}', headers={**form, "Content-Type": "text/plain"}),
            415,
            "not_json",
        )
        # 12 a minute, bursts of 4: four are spent above; the next is over the budget.
        over = await http.post(url, json=body, headers={"Origin": srv.base})
        refused(over, 429, "rate_limited")


async def test_the_session_cookie_is_httponly_lax_and_never_logged(live: LiveServer) -> None:
    key = SoftPasskey(live.base)
    async with browser(live.base) as http:
        made = await claim(http, "Sara", key)
        cookie = session_cookie(made)
        token = cookie.split(";", 1)[0].split("=", 1)[1]
        attributes = {a.strip().split("=", 1)[0].lower(): a.strip() for a in cookie.split(";")[1:]}
        assert "httponly" in attributes and attributes["samesite"].lower() == "samesite=lax"
        assert attributes["path"] == "Path=/" and "secure" not in attributes  # plain http on localhost
        assert 14 * 86400 <= int(attributes["max-age"].split("=")[1]) <= 400 * 86400  # weeks
        assert "domain" not in attributes  # this host only
        signed = session_cookie(await sign_in(http, "Sara", key))
        # The cookie rides on REST and on the socket's handshake; neither logs it.
        created = await http.post("/api/rooms", json={"name": "sara", "seats": 2})
        assert created.status_code == 201, created.text
        socket = await Client.connect(
            live.base, created.json()["code"], additional_headers={"Cookie": f"tt_session={token}"}
        )
        await socket.hello(created.json()["token"])
        await socket.close()
    second = signed.split(";", 1)[0].split("=", 1)[1]
    assert_not_logged(live.logs.text(), [token, second], "session cookie")


@pytest.mark.parametrize("how", ["public_base_url", "forwarded_proto"])
async def test_the_cookie_is_secure_behind_https(how: str, sqlite_url: str, sqlite_at_head: Path) -> None:
    site = "https://cards.example.org"
    settings: dict[str, Any] = (
        {"public_base_url": site} if how == "public_base_url" else {"trusted_proxies": "127.0.0.1"}
    )
    async with serving(at_head(sqlite_url, sqlite_at_head), **settings, **ROOMY) as srv:
        origin = site if how == "public_base_url" else srv.base.replace("http://", "https://")
        headers = {} if how == "public_base_url" else {"X-Forwarded-Proto": "https"}
        key = SoftPasskey(origin)
        async with browser(srv.base, origin) as http:
            http.headers.update(headers)
            made = await claim(http, "Sara", key)
            assert made.status_code == 200, made.text
            assert "; secure" in session_cookie(made).lower()
            # The relying party is the site's, not the address the request came to.
            refused(await claim(http, "Omid", SoftPasskey(srv.base)), 403, "bad_origin")


async def test_a_kept_name_is_refused_to_anyone_not_signed_in_as_it(live_any_db: LiveServer) -> None:
    base = live_any_db.base
    async with browser(base) as holder, browser(base) as stranger:
        assert (await claim(holder, "Sara", SoftPasskey(base))).status_code == 200
        open_for_all = await stranger.post("/api/rooms", json={"name": "Omid", "seats": 4, "bots": 2})
        code = open_for_all.json()["code"]
        for name in SARA_VARIANTS:
            refused(await stranger.post("/api/rooms", json={"name": name}), 403, "name_kept")
            refused(await stranger.post(f"/api/rooms/{code}/join", json={"name": name}), 403, "name_kept")
            asked = await stranger.post(f"/api/rooms/{code}/join", json={"name": name, "seat": 1})
            refused(asked, 403, "name_kept")
        message = (await stranger.post("/api/rooms", json={"name": "SARA"})).json()["message"]
        assert "passkey" in message and "another name" in message
        # On the socket: a spectator asking for a bot's seat under a kept name.
        watcher = await Client.connect(base, code)
        await watcher.hello()
        for name in ("sara", "S\u0251r\u0251"):  # a case variant, a look-alike
            await watcher.send({"type": "request_seat", "seat": 1, "name": name})
            error = await watcher.next("error")
            assert error["code"] == "name_kept", (name, error)
        await watcher.close()
        # The holder, in any case or look-alike spelling, on REST and on the socket.
        own = await holder.post("/api/rooms", json={"name": "SARA", "seats": 2})
        assert own.status_code == 201, own.text
        joined = await holder.post(f"/api/rooms/{own.json()['code']}/join", json={"name": "S\u0251r\u0251"})
        refused(joined, 400, "name_taken")  # she sits there already: the table's own rule, not the passkey's
        cookie = holder.cookies.get("tt_session")
        mine = await Client.connect(base, code, additional_headers={"Cookie": f"tt_session={cookie}"})
        await mine.hello()
        await mine.send({"type": "request_seat", "seat": 2, "name": "S\u0251r\u0251"})
        asked_ok = await mine.until(lambda m: m["type"] in ("seat_requested", "error"))
        assert asked_ok["type"] == "seat_requested", asked_ok
        await mine.close()
        # Unkept names work as before; a bot's name cannot be kept.
        assert (
            await stranger.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 1})
        ).status_code == 200
        refused(
            await stranger.post("/api/passkeys/claim/options", json={"name": "Bot 3"}), 422, "name_for_bots"
        )


async def test_the_record_and_the_boards_say_whether_a_name_is_kept(
    db_url: str, sqlite_at_head: Path
) -> None:
    async with serving(at_head(db_url, sqlite_at_head), trusted_proxies="127.0.0.1", **ROOMY) as srv:
        async with browser(srv.base) as holder:
            holder.headers["X-Forwarded-For"] = "198.51.100.1"  # friends from two homes: the game counts
            assert (await claim(holder, "Sara", SoftPasskey(srv.base))).status_code == 200
            created = (await holder.post("/api/rooms", json={"name": "SARA", "seats": 2})).json()
        joined = await join_room(srv.base, created["code"], "Omid", address="198.51.100.2")
        sara = await Client.connect(srv.base, created["code"])
        omid = await Client.connect(srv.base, created["code"])
        await sara.hello(created["token"])
        await omid.hello(joined["token"])
        await new_game(sara)
        await asyncio.gather(play_out(sara), play_out(omid))
        for client in (sara, omid):
            await client.close()
        async with httpx.AsyncClient(base_url=srv.base) as http:
            record = (await http.get("/api/players/sara")).json()
            assert record["claimed"] is True and record["games"] == 1, record
            assert set(record) == set(PlayerStandingPublic.model_fields)  # nothing about the passkeys
            assert (await http.get("/api/players/Omid")).json()["claimed"] is False
            every = (await http.get("/api/leaderboard")).json()
            assert {(r["name"], r["claimed"]) for r in every["items"]} == {("SARA", True), ("Omid", False)}
            kept = (await http.get("/api/leaderboard", params={"claimed": "true"})).json()
            assert [r["name"] for r in kept["items"]] == ["SARA"] and kept["total"] == 1
            table = (await http.get(f"/api/rooms/{created['code']}/leaderboard")).json()
            assert {(r["name"], r["claimed"]) for r in table["items"]} == {("SARA", True), ("Omid", False)}


def test_the_base64url_helpers_are_webauthns() -> None:
    """``app.passkeys`` keeps its own base64url (so ``webauthn`` loads at the first ceremony only): the same
    text and bytes as ``webauthn.helpers``' for every length and padding, and the same answer (bytes, or the
    same error) for what is not quite base64url."""
    import secrets

    from webauthn import helpers

    from app.passkeys import base64url_to_bytes, bytes_to_base64url

    for size in range(70):
        raw = secrets.token_bytes(size)
        text = bytes_to_base64url(raw)
        assert text == helpers.bytes_to_base64url(raw)
        for padded in (text, text + "=" * (-len(text) % 4), text + "==="):
            assert base64url_to_bytes(padded) == helpers.base64url_to_bytes(padded) == raw
    for odd in ("a", "abcde", "ab=cd", "a!b", "é"):
        try:
            theirs: bytes | str = helpers.base64url_to_bytes(odd)
        except ValueError as exc:
            theirs = repr(exc)
        try:
            ours: bytes | str = base64url_to_bytes(odd)
        except ValueError as exc:
            ours = repr(exc)
        assert ours == theirs, odd
