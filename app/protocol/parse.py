"""Reading client frames: JSON → one validated client message, or a Refusal with a stable code."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from app.table import Refusal

from .errors import describe_validation
from .messages import CLIENT_TYPES, ClientMessage, client_message_adapter


class MessageRefused(Refusal):
    """A frame that is not a valid client message. ``action_id`` is the id of a malformed action when that
    id itself is well-formed, so the client can match the refusal to the move it sent."""

    def __init__(self, code: str, message: str, *, action_id: str | None = None) -> None:
        super().__init__(code, message)
        self.action_id = action_id


def parse_client_message(raw: str | bytes) -> ClientMessage:
    try:
        data: Any = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MessageRefused("bad_message", f"a message is one JSON object: {exc}") from None
    except RecursionError:
        raise MessageRefused("bad_message", "a message is one JSON object, not nested this deep") from None
    except ValueError:  # an integer too long to convert (over sys.get_int_max_str_digits() digits)
        raise MessageRefused("bad_message", "a message holds a number with too many digits") from None
    if not isinstance(data, dict):
        raise MessageRefused("bad_message", "a message is one JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise MessageRefused("bad_message", "a message needs a 'type' (a string)")
    if kind not in CLIENT_TYPES:
        raise MessageRefused(
            "unknown_type", f"unknown message type {kind[:40]!r}; expected one of: {', '.join(CLIENT_TYPES)}"
        )
    try:
        return client_message_adapter.validate_python(data)
    except ValidationError as exc:
        raise MessageRefused(
            "bad_message",
            f"bad {kind} message: {describe_validation(exc, skip=1)}",
            action_id=_readable_action_id(kind, data, exc),
        ) from None


def _readable_action_id(kind: str, data: dict[str, Any], exc: ValidationError) -> str | None:
    """The action's ``id`` when the action is malformed but its id is not (no error points at the id)."""
    action_id = data.get("id")
    if kind != "action" or not isinstance(action_id, str):
        return None
    if any(tuple(err["loc"][1:2]) == ("id",) for err in exc.errors()):
        return None
    return action_id
