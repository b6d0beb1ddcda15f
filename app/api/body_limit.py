"""Request-body limit: bodies over ``max_bytes`` get 413 ``too_large`` before they are read (chunked too)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.table import Refusal

from .errors import error_response


class BodySizeLimitMiddleware:
    """Refuse an HTTP request whose declared ``Content-Length`` is over the limit without reading its body,
    and one whose body grows past the limit as it streams in (chunked): the app is told the client left,
    and whatever it would answer is replaced by the 413."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        received, over, started = 0, False, False

        async def counting_receive() -> Message:
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if over:
                return  # the 413 below is the answer
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not over:
                raise
        if over and not started:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = Refusal("too_large", f"a request body is at most {self.max_bytes} bytes")
        response = error_response(refusal)
        response.headers["connection"] = "close"  # the rest of the body is never read
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    """The declared body length; an unreadable one counts as too large (it is refused, never guessed)."""
    for name, value in scope.get("headers") or []:
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() and len(text) <= 18 else 2**63
    return None
