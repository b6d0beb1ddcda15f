"""Wire errors: the ONE function that turns any exception into the error a client gets.

The codes themselves live in ``app.table.errors.REGISTRY`` (engine codes included); this module only maps.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

from app.engine import GameError
from app.table import REGISTRY, Refusal

from .messages import ErrorMessage

log = logging.getLogger(__name__)

ERROR_CODES = frozenset(REGISTRY)


def describe_validation(exc: ValidationError, *, skip: int = 0) -> str:
    """A short message naming the bad fields, e.g. ``action.draw.source: Input should be 'stock'…``."""
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"][skip:])
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts) or "invalid message"


def wire_error(exc: BaseException, *, id: str | None = None) -> ErrorMessage:
    """Map any exception to the error a client gets. Unknown exceptions are logged and never leak."""
    if isinstance(exc, Refusal):
        code, message = exc.code, exc.message
    elif isinstance(exc, GameError):
        code, message = (exc.code if exc.code in REGISTRY else "illegal_action"), str(exc)
    elif isinstance(exc, ValidationError):
        code, message = "bad_message", describe_validation(exc)
    else:
        log.exception("unexpected error", exc_info=exc)
        code, message = "internal_error", "something went wrong on the server; nothing was changed"
    return ErrorMessage(code=code, message=message, id=id)


def http_status(code: str) -> int:
    """The HTTP status of a REST answer with this wire code."""
    return REGISTRY[code].http_status
