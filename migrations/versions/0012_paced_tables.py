"""paced tables: when each table must next be woken (``rooms.due_at``: the deadline of the turn at a table
played at its own pace, indexed so that any process finds the due tables with one read), whose turn it is
(``rooms.turn_seat``: a list of many tables reads it without a game's secret state), and how many turns
in a row the server has played for each seat because its time ran out (``seats.missed``; at three the seat
goes to a bot until its person is back).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_rooms_due_at", "rooms", ["due_at"])
    op.add_column("rooms", sa.Column("turn_seat", sa.Integer(), nullable=True))
    op.add_column("seats", sa.Column("missed", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    # Dropped in place, never a copy of ``rooms`` on SQLite (a batch copy cascades away every seat: 0010).
    op.execute("ALTER TABLE seats DROP COLUMN missed")
    op.execute("ALTER TABLE rooms DROP COLUMN turn_seat")
    op.drop_index("ix_rooms_due_at", table_name="rooms")
    op.execute("ALTER TABLE rooms DROP COLUMN due_at")
