"""Nobody joins a table under a name that reads as a seated or asking person's: the same name in another
letter case, with look-alike letters of another script, other digits or invisible characters is refused
with ``name_taken`` (REST join and seat requests, on a real server), and the table is unchanged."""

from __future__ import annotations

import httpx

from tests.api.wsclient import create_room

from .conftest import LiveServer

SARA_LOOKALIKES = [
    "Sara",  # the same name
    "SARA",  # another case
    "\u0405\u0430r\u0430",  # Cyrillic "Ѕ" and "а" for Latin "S" and "a" (refused: it mixes scripts)
    "S\u200dara",  # an invisible joiner inside (refused as a stray one or folded away)
    "\uff33\uff41\uff52\uff41",  # fullwidth
    "S\u0251r\u0251",  # Latin alpha: one script, Unicode's confusables fold it (issue 39, item 4)
    "\u13daara",  # Cherokee "Ꮪ" (refused: it mixes scripts)
]
# Refused before the table is looked at, at any table (name_mixes_scripts): names mixing scripts as spoofs do.
MIXED_SCRIPTS = {"\u0405\u0430r\u0430", "\u13daara"}
REFUSALS = ("name_taken", "name_mixes_scripts", "bad_request")


async def test_a_name_that_reads_as_a_seated_or_asking_persons_is_refused(live: LiveServer) -> None:
    # Sara at seat 0, bots at 1 and 2, seat 3 open.
    code = (await create_room(live.base, "Sara", seats=4, bots=["normal", "normal"]))["code"]
    async with httpx.AsyncClient(base_url=live.base) as http:
        for name in SARA_LOOKALIKES:
            joined = await http.post(f"/api/rooms/{code}/join", json={"name": name})
            asked = await http.post(f"/api/rooms/{code}/join", json={"name": name, "seat": 1})
            for response in (joined, asked):
                assert response.status_code in (400, 422), (name, response.text)
                assert response.json()["code"] in REFUSALS, (name, response.text)
            if name in MIXED_SCRIPTS:
                assert joined.json()["code"] == "name_mixes_scripts" and "scripts" in joined.json()["message"]
            else:
                assert joined.json()["code"] == "name_taken" or name == "S\u200dara", name
        # Persian written with Arabic letters and digits reads as the Persian name.
        seated = await http.post(f"/api/rooms/{code}/join", json={"name": "علی ۲"})
        assert seated.status_code == 200 and seated.json()["seat"] == 3
        asking = await http.post(f"/api/rooms/{code}/join", json={"name": "Omid", "seat": 1})
        assert asking.status_code == 200 and asking.json()["requested_seat"] == 1
        for name, seat in (("\u0639\u0644\u064a 2", 2), ("OMID", 2), ("0mid", 2), ("\u0555mid", 2)):
            refused = await http.post(f"/api/rooms/{code}/join", json={"name": name, "seat": seat})
            assert refused.status_code == 400 and refused.json()["code"] == "name_taken", (name, refused.text)
        other = await http.post(f"/api/rooms/{code}/join", json={"name": "Nima", "seat": 2})
        assert other.status_code == 200 and other.json()["requested_seat"] == 2
        room = (await http.get(f"/api/rooms/{code}")).json()
    names = [s["name"] for s in room["seats"]]
    assert names[0] == "Sara" and names[3] == "علی ۲"
    claims = [s.get("request") for s in room["seats"]]
    assert [c["name"] for c in claims if c] == ["Omid", "Nima"], claims
