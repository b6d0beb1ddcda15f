"""Seat tokens and room codes: secret tokens are handed out once and stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

# No 0/O, 1/I/L: easy to read aloud and to type. 31 letters ** 8 ≈ 2**39.6 codes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
_CODE_SHAPE = re.compile(r"[A-Z0-9]{4,16}")


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str | None:
    """Codes are case-insensitive; anything that cannot be a code is None."""
    code = code.strip().upper()
    return code if _CODE_SHAPE.fullmatch(code) else None


# A game's public id: 12 characters of 33 (≈ 2**60), no look-alikes; never in sequence (issue: guessable ids).
PUBLIC_ID_ALPHABET = "abcdefghijkmnopqrstuvwxyz23456789"
PUBLIC_ID_LENGTH = 12


def new_public_id() -> str:
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(PUBLIC_ID_LENGTH))


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    # surrogatepass: a hostile "token" with lone surrogates still hashes (to something that matches nothing).
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token_hash: str | None, candidate_hash: str) -> bool:
    return token_hash is not None and hmac.compare_digest(token_hash, candidate_hash)
