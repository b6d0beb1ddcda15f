"""One-time device codes: eight letters of an alphabet with no look-alikes, good for ten minutes, kept only
as their hash (``app.rooms.tokens.hash_token``)."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta

from app.rooms.tokens import CODE_ALPHABET

DEVICE_CODE_LIFETIME = timedelta(minutes=10)
DEVICE_CODE_LENGTH = 8  # 31 ** 8 ≈ 2 ** 39.6; guesses are limited per address
_SHAPE = re.compile(f"[{CODE_ALPHABET}]{{{DEVICE_CODE_LENGTH}}}")


def new_device_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(DEVICE_CODE_LENGTH))


def normalize_device_code(code: str) -> str | None:
    """As typed (any case, spaces or dashes between groups) to the code; None: it cannot be one."""
    code = re.sub(r"[\s-]", "", code).upper()
    return code if _SHAPE.fullmatch(code) else None
