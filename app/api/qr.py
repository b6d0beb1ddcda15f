"""The room link's QR code, drawn on the server by segno (a maintained QR library) as a small SVG.

Only a room link of the form ``http(s)://host/r/CODE`` is drawn, so the route is not a general QR service.
The image depends on nothing but the link, which is in its URL: it is cached for a year.
"""

from __future__ import annotations

import io
from typing import Annotated
from urllib.parse import urlsplit

import segno
from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.rooms import normalize_code
from app.table import Refusal

router = APIRouter()
LINK_MAX_LENGTH = 256
_CACHE = "public, max-age=31536000, immutable"


def room_link_or_none(link: str) -> str | None:
    """The link itself when it is a room link (http or https, a host, the path ``/r/CODE``), else None."""
    parts = urlsplit(link)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        return None
    prefix, _, code = parts.path.partition("/r/")
    if prefix or normalize_code(code) != code:
        return None
    return link


def qr_svg(link: str) -> bytes:
    """The QR code of ``link``: black modules on white with the standard 4-module quiet zone, medium error
    correction (a phone reads it off a scratched screen), one path, scaled by CSS."""
    out = io.BytesIO()
    segno.make(link, error="m", micro=False).save(
        out, kind="svg", border=4, dark="#000", light="#fff", xmldecl=False, omitsize=True, svgclass=None
    )
    return out.getvalue()


@router.get("/qr.svg", include_in_schema=False)
async def room_link_qr(link: Annotated[str, Query(max_length=LINK_MAX_LENGTH)]) -> Response:
    """The QR code of a room link, as ``image/svg+xml``; anything else is refused with ``bad_request``."""
    if room_link_or_none(link) is None:
        raise Refusal("bad_request", "only a room link (http(s)://host/r/CODE) is drawn as a QR code")
    return Response(qr_svg(link), media_type="image/svg+xml", headers={"Cache-Control": _CACHE})
