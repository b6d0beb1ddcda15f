"""seat requests and public game ids: a bot's seat keeps its former player's token hash and one request for
it; every game gets a random public id (existing games are given one), the only id public routes accept

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 23:40:00
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ALPHABET = "abcdefghijkmnopqrstuvwxyz23456789"  # the store's own alphabet (app/store/store.py PUBLIC_ID)


def _public_id() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(12))


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("former_token_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("claim_name", sa.String(64), nullable=True))
        batch.add_column(sa.Column("claim_token_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("claim_approved", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("public_id", sa.String(16), nullable=True))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("public_id", sa.String))
    conn = op.get_bind()
    for (game_id,) in conn.execute(sa.select(games.c.id)).all():
        conn.execute(sa.update(games).where(games.c.id == game_id).values(public_id=_public_id()))
    with op.batch_alter_table("games") as batch:
        batch.alter_column("public_id", existing_type=sa.String(16), nullable=False)
        batch.create_unique_constraint("uq_games_public_id", ["public_id"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("uq_games_public_id", type_="unique")
        batch.drop_column("public_id")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("claim_approved")
        batch.drop_column("claim_token_hash")
        batch.drop_column("claim_name")
        batch.drop_column("former_token_hash")
