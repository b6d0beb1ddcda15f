"""honest records: an index over every seat's name skeleton, practice flag, finish time and game, so a
player's public history (finished games that were not practice, newest first) is counted and paged from the
index alone, whatever the size of the history (the only index on the skeleton covered counted seats alone,
so each lookup scanned every seat); whether a bot played each seat at each round's end
(``round_scores.bot``), and whether the host handed a person's seat to a bot during the game
(``game_players.handed``: that seat counts for nobody). Games before this migration cannot tell: each of
their rounds is marked as its seat's kind at the game's start, and no seat as handed.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05 01:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_players") as batch:
        batch.add_column(sa.Column("handed", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("round_scores") as batch:
        batch.add_column(sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute(
        "UPDATE round_scores SET bot = true WHERE EXISTS (SELECT 1 FROM game_players p"
        " WHERE p.game_id = round_scores.game_id AND p.seat = round_scores.seat AND p.is_bot)"
    )
    op.create_index(
        "ix_game_players_by_name", "game_players", ["skeleton", "practice", "finished_at", "game_id"]
    )


def downgrade() -> None:
    with op.batch_alter_table("round_scores") as batch:
        batch.drop_column("bot")
    with op.batch_alter_table("game_players") as batch:
        batch.drop_column("handed")
    op.drop_index("ix_game_players_by_name", table_name="game_players")
