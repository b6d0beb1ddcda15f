"""game players: who sat where, with totals and wins for the score history

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 12:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_players_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_players")),
        sa.UniqueConstraint("game_id", "seat", name="uq_game_players_game_seat"),
    )
    with op.batch_alter_table("game_players", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_players_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_players_name_key"), ["name_key"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("game_players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_players_name_key"))
        batch_op.drop_index(batch_op.f("ix_game_players_game_id"))
    op.drop_table("game_players")
