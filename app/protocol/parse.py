"""Reading client frames: JSON → one validated client message, or a ProtocolError with a stable code."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from .errors import ProtocolError, describe_validation
from .messages import CLIENT_TYPES, ClientMessage, client_message_adapter


def parse_client_message(raw: str | bytes) -> ClientMessage:
    try:
        data: Any = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError("bad_message", f"a message is one JSON object: {exc}") from None
    except RecursionError:
        raise ProtocolError("bad_message", "a message is one JSON object, not nested this deep") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is one JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a 'type' (a string)")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind[:40]!r}; expected one of: {', '.join(CLIENT_TYPES)}"
        )
    try:
        return client_message_adapter.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError(
            "bad_message", f"bad {kind} message: {describe_validation(exc, skip=1)}"
        ) from None
