"""Security headers on every HTTP response: a strict Content-Security-Policy (no inline script or style,
nothing from other origins, never framed), ``nosniff``, ``X-Frame-Options`` and ``Referrer-Policy``. A script
or stylesheet of the client (under /static/: a page's modules and its stylesheet, never a document nor a
worker) gets only ``nosniff`` and ``Referrer-Policy``: the others apply to documents and workers (what they
may load, who may frame them, their browsing context group), and on a slow phone link each of the client's
files carried them (about 300 bytes a file). The service worker (/sw.js) is a worker: it keeps them all."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Everything the client and the API page load comes from this origin; the favicon is a data: URL.
# 'self' in connect-src covers the WebSocket to this origin (ws:/wss:, CSP level 3).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
_NAMES = {name for name, _ in SECURITY_HEADERS}
# What a script or stylesheet gets (the headers that act on the file itself, or on what a stylesheet loads).
_SUBRESOURCE_NAMES = (b"x-content-type-options", b"referrer-policy")
SUBRESOURCE_HEADERS: tuple[tuple[bytes, bytes], ...] = tuple(
    (name, value) for name, value in SECURITY_HEADERS if name in _SUBRESOURCE_NAMES
)
_SUBRESOURCE_TYPES = (b"text/javascript", b"application/javascript", b"text/css")
_SUBRESOURCE_PATH = "/static/"


def csp_allowing_script(*digests: str) -> str:
    """The policy, also allowing the inline scripts whose SHA-256 (base64) are ``digests``: the client's page
    has two, its import map (it maps modules to URLs and runs no code) and its boot script (static/js/boot.js:
    it loads the page again if the client fails to start)."""
    allowed = "".join(f" 'sha256-{digest}'" for digest in digests)
    return CONTENT_SECURITY_POLICY.replace("script-src 'self'", f"script-src 'self'{allowed}")


class SecurityHeadersMiddleware:
    """Add ``SECURITY_HEADERS`` to every HTTP response (a route's own value of one is replaced, except a
    Content-Security-Policy, which a page may set for itself: ``csp_allowing_script``); to the client's
    scripts and stylesheets (under /static/), ``SUBRESOURCE_HEADERS``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        subresource_path = str(scope.get("path", "")).startswith(_SUBRESOURCE_PATH)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                # A page may name its own CSP (the client's page allows its one import map by hash).
                own_csp = [(k, v) for k, v in headers if k.lower() == b"content-security-policy"]
                kept = [(k, v) for k, v in headers if k.lower() not in _NAMES]
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if subresource_path and content_type.lower().startswith(_SUBRESOURCE_TYPES):
                    message["headers"] = [*kept, *SUBRESOURCE_HEADERS]
                else:
                    added = [
                        (k, v)
                        for k, v in SECURITY_HEADERS
                        if not (own_csp and k == b"content-security-policy")
                    ]
                    message["headers"] = [*kept, *own_csp[:1], *added]
            await send(message)

        await self.app(scope, receive, send_with_headers)
