"""seat origins: where each person joined a table from, as a keyed hash under the table's own secret salt
(``app.table.origins``), never the address; on seats (and on a seat request), and on each game's seats from
its start. The public records leave out a game whose people all joined from one address (``padded``: it
still counts in its table's own series). Tables and games
from before this revision have no salt and no origins: their games count as before.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Each added column, dropped in place going down (never a copy of ``rooms`` on SQLite: see 0010).
COLUMNS = (
    ("rooms", "origin_salt", 32),
    ("seats", "origin", 16),
    ("seats", "claim_origin", 16),
    ("game_players", "origin", 16),
)


def upgrade() -> None:
    for table, column, length in COLUMNS:
        op.add_column(table, sa.Column(column, sa.String(length), nullable=True))
    # A game left out of the public records only because its people joined from one address: it still
    # counts in its table's own series.
    op.add_column(
        "game_players", sa.Column("padded", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    op.execute("ALTER TABLE game_players DROP COLUMN padded")
    for table, column, _ in reversed(COLUMNS):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
