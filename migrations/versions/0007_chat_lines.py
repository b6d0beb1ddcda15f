"""chat lines: a table's recent chat lines and reactions, kept in the store (they were in one process's
memory), so a page that (re)connects to any process, or after a restart, is welcomed with them

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04 10:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_code", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("reaction", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["room_code"], ["rooms.code"], name=op.f("fk_chat_lines_room_code_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_lines")),
    )
    op.create_index("ix_chat_lines_room_code_id", "chat_lines", ["room_code", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_chat_lines_room_code_id", table_name="chat_lines")
    op.drop_table("chat_lines")
