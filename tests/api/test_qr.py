"""The room link's QR code (GET /qr.svg): drawn for a room link only, cached, and never for other text.
That the picture decodes to the link, as a phone reads it, is checked in the browser suite (zbarimg)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest

LINK = "https://cards.example/r/ABCD2345"


async def test_a_room_link_is_drawn_as_an_svg_with_a_quiet_zone(sqlite_server: str) -> None:
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        response = await http.get("/qr.svg", params={"link": LINK})
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert "immutable" in response.headers["cache-control"]
    svg = ET.fromstring(response.content)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    # 33 characters need a version-3 symbol (29 modules) at level M; 4 modules of quiet zone each side.
    assert svg.attrib["viewBox"] == "0 0 37 37"
    assert LINK not in response.text  # the picture, not the text: nothing here a browser would follow


@pytest.mark.parametrize(
    "link",
    [
        "https://evil.example/phishing",  # not a room link
        "javascript:alert(1)",
        "https://cards.example/r/ABCD2345?next=https://evil.example",  # a query rides along
        "https://cards.example/r/ABCD2345#x",
        "https://cards.example/x/r/ABCD2345",  # /r/ not at the start
        "https://cards.example/r/abcd2345",  # codes are drawn as the client shows them: upper case
        "https://cards.example/r/AB",  # too short to be a code
        "/r/ABCD2345",  # no scheme or host: a phone could not open it
        "https://cards.example/r/" + "A" * 300,  # over the length limit
    ],
)
async def test_anything_but_a_room_link_is_refused(sqlite_server: str, link: str) -> None:
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        response = await http.get("/qr.svg", params={"link": link})
    assert response.status_code == 422
    assert response.json()["code"] == "bad_request"
