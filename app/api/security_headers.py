"""Security headers on every HTTP response: a strict Content-Security-Policy (no inline script or style,
nothing from other origins, never framed), ``nosniff``, ``X-Frame-Options`` and ``Referrer-Policy``."""

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


def csp_allowing_script(digest: str) -> str:
    """The policy, also allowing the one inline script (an import map) whose SHA-256 is ``digest``
    (base64): it maps modules to URLs and runs no code."""
    return CONTENT_SECURITY_POLICY.replace("script-src 'self'", f"script-src 'self' 'sha256-{digest}'")


class SecurityHeadersMiddleware:
    """Add ``SECURITY_HEADERS`` to every HTTP response (a route's own value of one is replaced, except a
    Content-Security-Policy, which a page may set for itself: ``csp_allowing_script``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                # A page may name its own CSP (the client's page allows its one import map by hash).
                own_csp = [(k, v) for k, v in headers if k.lower() == b"content-security-policy"]
                kept = [(k, v) for k, v in headers if k.lower() not in _NAMES]
                added = [
                    (k, v) for k, v in SECURITY_HEADERS if not (own_csp and k == b"content-security-policy")
                ]
                message["headers"] = [*kept, *own_csp[:1], *added]
            await send(message)

        await self.app(scope, receive, send_with_headers)
