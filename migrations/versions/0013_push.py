"""web push: the server's keys (``server_keys``: the VAPID key pair, made once at first need and kept, so a
backup of the database holds it) and each seat's push subscriptions (``push_subscriptions``: one per seat and
device, with the turn last notified, so at most one notification goes out per turn whichever process sends
it); a subscription goes with its room.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_server_keys")),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_code", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("device", sa.String(64), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(32), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_turn_key", sa.String(64), nullable=True),
        sa.Column("last_reminder_key", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(
            ["room_code"],
            ["rooms.code"],
            name=op.f("fk_push_subscriptions_room_code_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscriptions")),
        sa.UniqueConstraint("room_code", "token_hash", "device", name="uq_push_subscriptions_seat_device"),
    )


def downgrade() -> None:
    op.drop_table("push_subscriptions")
    op.drop_table("server_keys")
