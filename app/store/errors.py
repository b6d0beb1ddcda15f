"""The store's own errors."""

from __future__ import annotations


class StoreError(Exception):
    """Base of the store's own errors."""


class CodeTaken(StoreError):
    """A room with this code exists already (pick another code)."""


class VersionConflict(StoreError):
    """The room moved on in the store since it was loaded (another writer): reload it."""


class WriteRefused(StoreError):
    """The database answered but refused what was written (a value too long, a broken constraint): a bug
    of ours, not the database being away, so it is never reported as one."""
