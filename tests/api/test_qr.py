"""The room link's QR code (GET /qr.svg): drawn for this server's own room links only, cached, and never
for other text or other hosts. That the picture decodes to the link, as a phone reads it, is checked in the
browser suite (zbarimg)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import at_head

from .wsclient import running_server, server_settings

PUBLIC = "https://cards.example.org"


def _module_server(
    tmp_path_factory: pytest.TempPathFactory, template: Path, **overrides: str
) -> Iterator[str]:
    """One server for the module: drawing a link or refusing one changes nothing a later case could see."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('qr') / 'test.db'}"
    with running_server(server_settings(at_head(url, template), **overrides)) as base:
        yield base


@pytest.fixture(scope="module")
def public_server(tmp_path_factory: pytest.TempPathFactory, sqlite_at_head: Path) -> Iterator[str]:
    """A server whose PUBLIC_BASE_URL is ``PUBLIC`` (the address its room links carry)."""
    yield from _module_server(tmp_path_factory, sqlite_at_head, public_base_url=PUBLIC + "/")


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory, sqlite_at_head: Path) -> Iterator[str]:
    """A server without a PUBLIC_BASE_URL (room links of the origin a page came from)."""
    yield from _module_server(tmp_path_factory, sqlite_at_head)


async def test_a_room_link_is_drawn_as_an_svg_with_a_quiet_zone(sqlite_server: str) -> None:
    link = f"{sqlite_server}/r/ABCD2345"  # no PUBLIC_BASE_URL: the links of the origin the page came from
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        response = await http.get("/qr.svg", params={"link": link})
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert "immutable" in response.headers["cache-control"]
    svg = ET.fromstring(response.content)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    # About 32 characters need a version-3 symbol (29 modules) at level M; 4 modules of quiet zone each side.
    assert svg.attrib["viewBox"] == "0 0 37 37"
    assert link not in response.text  # the picture, not the text: nothing here a browser would follow


async def test_with_a_public_base_url_only_its_room_links_are_drawn(public_server: str) -> None:
    async with httpx.AsyncClient(base_url=public_server) as http:
        ours = await http.get("/qr.svg", params={"link": f"{PUBLIC}/r/ABCD2345"})
        request_origin = await http.get("/qr.svg", params={"link": f"{public_server}/r/ABCD2345"})
    assert ours.status_code == 200
    assert request_origin.status_code == 422 and request_origin.json()["code"] == "bad_request"


@pytest.mark.parametrize(
    "link",
    [
        f"{PUBLIC}@evil.example/r/ABCD2345",  # a user name before another host: the example
        "https://evil.example/r/ABCD2345",  # another host's room-shaped link
        "http://cards.example.org/r/ABCD2345",  # another scheme
        "https://cards.example.org:8443/r/ABCD2345",  # another port
        "https://cards.example.org:443/r/ABCD2345",  # the default port spelled out: not the link we give
        "https://cards.example.org.evil.example/r/ABCD2345",
        "https://evil.example/phishing",  # not a room link
        "javascript:alert(1)",
        f"{PUBLIC}/r/ABCD2345?next=https://evil.example",  # a query rides along
        f"{PUBLIC}/r/ABCD2345#x",
        f"{PUBLIC}/x/r/ABCD2345",  # /r/ not at the start
        f"{PUBLIC}/r/abcd2345",  # codes are drawn as the client shows them: upper case
        f"{PUBLIC}/r/AB",  # too short to be a code
        "/r/ABCD2345",  # no scheme or host: a phone could not open it
        f"{PUBLIC}/r/" + "A" * 300,  # over the length limit
    ],
)
async def test_anything_but_this_servers_room_link_is_refused(public_server: str, link: str) -> None:
    async with httpx.AsyncClient(base_url=public_server) as http:
        response = await http.get("/qr.svg", params={"link": link})
    assert response.status_code == 422
    assert response.json()["code"] == "bad_request"
    assert "cache-control" not in response.headers or "immutable" not in response.headers["cache-control"]


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example"])
async def test_without_a_public_base_url_another_host_is_refused(sqlite_server: str, host: str) -> None:
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        response = await http.get("/qr.svg", params={"link": f"https://{host}/r/ABCD2345"})
        user = await http.get("/qr.svg", params={"link": f"{sqlite_server}@{host}/r/ABCD2345"})
    assert response.status_code == 422 and user.status_code == 422
