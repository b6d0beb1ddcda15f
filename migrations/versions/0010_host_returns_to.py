"""the host's return in the store: a room keeps whose the host role becomes again when the host who was gone
is back (the hashed token, as seats keep theirs), where it lived in one process's memory; so any process, and
a process after a restart, gives the role back

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 11:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("host_returns_to", sa.String(64), nullable=True))


def downgrade() -> None:
    # Not a batch (a copy of the table) on SQLite: dropping ``rooms`` there would cascade to every seat, game
    # and chat line. SQLite 3.35 and later drop a column in place, as PostgreSQL does.
    op.execute("ALTER TABLE rooms DROP COLUMN host_returns_to")
