"""Which database a store runs on: the one value its write scheduling and reads branch on."""

from __future__ import annotations

import enum

from sqlalchemy.engine import make_url

from .db import normalize_url


class Dialect(enum.Enum):
    """The databases the store supports."""

    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"

    @classmethod
    def of(cls, url: str) -> Dialect:
        """The dialect of a database URL (ValueError for a database the store does not support)."""
        backend = make_url(normalize_url(url)).get_backend_name()
        try:
            return cls(backend)
        except ValueError:
            raise ValueError(f"unsupported database {backend!r}: use sqlite or postgresql") from None
