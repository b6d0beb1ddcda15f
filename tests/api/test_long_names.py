"""Names whose folded forms are longer than the names (ligatures, "ß"): every name the door accepts is
stored in every column made from it, on both databases, through a whole game and its records; a name that
would not fit is refused at the door with a clear answer, never later as "the database did not answer"."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest

from app.table.text import STORED_NAME_LENGTH, clean_name, name_key, name_skeleton

from .test_history import get, play_with_a_bot
from .wsclient import Client, create_room

LIGATURES = "\ufb03"  # "ﬃ": NFKC and case folding spell it "ffi"
LONGEST_LIGATURES = LIGATURES * (STORED_NAME_LENGTH // 3)  # 21 of them fold to 63 letters
TOO_MANY_LIGATURES = LIGATURES * 22  # 66 letters once folded: refused, although only 22 characters


def test_a_name_is_accepted_only_when_its_folded_forms_fit() -> None:
    for name in (LONGEST_LIGATURES, "\u00df" * 32, "\ufdfa" * 3, "Sara"):
        assert clean_name(name, max_length=32) == name
        assert max(len(name_skeleton(name)), len(name_key(name))) <= STORED_NAME_LENGTH
    for name in (TOO_MANY_LIGATURES, "\u00df" * 33, "\ufdfa" * 5):  # "ﷺ" spelled out is 15 letters and spaces
        try:
            clean_name(name, max_length=64)
        except Exception as refused:
            assert "too long" in str(refused)
        else:
            raise AssertionError(f"{name!r} was accepted")


@pytest.mark.slow  # a whole game over a socket
async def test_the_longest_folding_name_plays_a_whole_game_and_has_a_record(server: str) -> None:
    """On PostgreSQL the game's start wrote the folded name into VARCHAR(64) columns: 22 ligatures were
    accepted and then every start failed with "the database did not answer"."""
    code, game_id = await play_with_a_bot(server, LONGEST_LIGATURES)
    game = (await get(server, f"/api/games/{game_id}")).json()
    assert game["status"] == "finished" and game["players"][0]["name"] == LONGEST_LIGATURES
    games = (await get(server, f"/api/players/{quote(LONGEST_LIGATURES)}/games")).json()
    assert [g["id"] for g in games["items"]] == [game_id]
    async with httpx.AsyncClient(base_url=server) as http:
        refused = await http.post("/api/rooms", json={"name": TOO_MANY_LIGATURES})
        assert refused.status_code == 422 and "too long" in refused.json()["message"]
        refused = await http.post(f"/api/rooms/{code}/join", json={"name": TOO_MANY_LIGATURES})
        assert refused.status_code == 422 and "too long" in refused.json()["message"]


async def test_a_seat_request_with_a_name_that_would_not_fit_is_refused_on_the_socket(server: str) -> None:
    created = await create_room(server, "Ann", seats=2, bots=["easy"])
    ann, guest = await Client.connect(server, created["code"]), await Client.connect(server, created["code"])
    await ann.hello(created["token"])
    await guest.send({"type": "hello"})
    await guest.next("welcome")
    await ann.send({"type": "start"})
    await ann.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    await guest.send({"type": "request_seat", "seat": 1, "name": TOO_MANY_LIGATURES})
    answer = await guest.next("error")
    assert answer["code"] == "bad_message" and "too long" in answer["message"]
    room = (await get(server, f"/api/rooms/{created['code']}")).json()
    assert room["status"] == "playing" and "request" not in room["seats"][1]
    for client in (ann, guest):
        await client.close()
