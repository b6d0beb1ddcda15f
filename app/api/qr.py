"""The room link's QR code, drawn on the server by segno (a maintained QR library) as a small SVG.

Only this server's own room links are drawn: the origin of ``PUBLIC_BASE_URL`` (else the request's own
origin) followed by ``/r/CODE``, so the route is neither a general QR service nor a drawer of phishing
links under this site's name. The image depends on nothing but the link, which is in its URL: it is cached
for a year.
"""

from __future__ import annotations

import io
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.config import origin_of
from app.rooms import normalize_code
from app.table import Refusal

from .deps import SettingsDep

router = APIRouter()
LINK_MAX_LENGTH = 256
_CACHE = "public, max-age=31536000, immutable"


def room_link_or_none(link: str, origin: str) -> str | None:
    """The link itself when it is a room link of ``origin`` (scheme://host[:port], exactly as
    ``origin_of`` writes it, with no user name, query or fragment, and the path ``/r/CODE``), else None."""
    parts = urlsplit(link)
    # The whole scheme://netloc must be the origin: a user name ("https://site@evil/"), another host or
    # port, even a default port spelled out, is another link.
    if parts.query or parts.fragment or f"{parts.scheme}://{parts.netloc}" != origin:
        return None
    prefix, _, code = parts.path.partition("/r/")
    if prefix or normalize_code(code) != code:
        return None
    return link


def qr_svg(link: str) -> bytes:
    """The QR code of ``link``: black modules on white with the standard 4-module quiet zone, medium error
    correction (a phone reads it off a scratched screen), one path, scaled by CSS."""
    import segno  # at the first QR code drawn, not at start: only a host sharing a link needs it

    out = io.BytesIO()
    segno.make(link, error="m", micro=False).save(
        out, kind="svg", border=4, dark="#000", light="#fff", xmldecl=False, omitsize=True, svgclass=None
    )
    return out.getvalue()


@router.get("/qr.svg", include_in_schema=False)
async def room_link_qr(
    link: Annotated[str, Query(max_length=LINK_MAX_LENGTH)], request: Request, settings: SettingsDep
) -> Response:
    """The QR code of one of this server's room links, as ``image/svg+xml``; anything else is refused
    with ``bad_request``."""
    origin = origin_of(settings.public_base_url) or origin_of(str(request.base_url))
    if origin is None or room_link_or_none(link, origin) is None:
        raise Refusal(
            "bad_request", f"only this server's room links ({origin}/r/CODE) are drawn as a QR code"
        )
    return Response(qr_svg(link), media_type="image/svg+xml", headers={"Cache-Control": _CACHE})
