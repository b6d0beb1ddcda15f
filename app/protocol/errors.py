"""Wire errors: the stable codes, and the ONE function that turns any exception into a wire error."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from app.engine import GameError
from app.metrics import ERRORS

from .messages import ErrorMessage

log = logging.getLogger(__name__)

ENGINE_CODES = frozenset(
    {
        "not_your_turn",
        "wrong_phase",
        "card_not_in_hand",
        "cannot_go_out",
        "illegal_action",
        "game_over",
        "bad_card",
        "bad_options",
    }
)
PROTOCOL_CODES = frozenset(
    {
        "bad_message",
        "unknown_type",
        "too_large",
        "rate_limited",
        "room_not_found",
        "bad_token",
        "not_seated",
        "not_host",
        "wrong_status",
        "not_allowed",
        "seats_full",
        "game_not_started",
        "stale_version",
        "bad_request",
        "internal_error",
        "game_not_found",
        "round_not_finished",
        "game_not_finished",
    }
)
ERROR_CODES = ENGINE_CODES | PROTOCOL_CODES


class ProtocolError(Exception):
    """A refusal with a stable wire ``code`` and a message for people."""

    def __init__(self, code: str, message: str) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message


def describe_validation(exc: ValidationError, *, skip: int = 0) -> str:
    """A short message naming the bad fields, e.g. ``action.draw.source: Input should be 'stock'…``."""
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"][skip:])
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts) or "invalid message"


def wire_error(exc: BaseException, *, id: str | None = None) -> ErrorMessage:
    """Map any exception to the error a client gets. Unknown exceptions are logged and never leak."""
    if isinstance(exc, ProtocolError):
        code, message = exc.code, exc.message
    elif isinstance(exc, GameError):
        code, message = (exc.code if exc.code in ERROR_CODES else "illegal_action"), str(exc)
    elif isinstance(exc, ValidationError):
        code, message = "bad_message", describe_validation(exc)
    else:
        log.exception("unexpected error", exc_info=exc)
        code, message = "internal_error", "something went wrong on the server; nothing was changed"
    ERRORS.labels(code=code).inc()
    return ErrorMessage(code=code, message=message, id=id)
