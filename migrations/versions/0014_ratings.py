"""ratings: a rating per name (``player_standings.rating``: the ordinal mu - 3 sigma the board ranks by, its
``rating_mu`` and ``rating_sigma``, ``rated_games``) and each name's rating after each rated game
(``rating_history``, the record's chart).

Existing finished games are rated here, in the order they finished (ties broken by the game's id), by the
app's own ``app.store.rating.rate_game`` over each game's counted seats, as the writes rate a game that ends
now (``app/store/standings_writes.py``): a game with fewer than two counted seats rates nobody.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

import sqlalchemy as sa
from alembic import op

from app.store.rating import NEW, Rating, rate_game

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 5_000  # history lines per insert, records per update


def upgrade() -> None:
    with op.batch_alter_table("player_standings") as batch:
        batch.add_column(sa.Column("rating", sa.Float(), nullable=True))
        batch.add_column(sa.Column("rating_mu", sa.Float(), nullable=True))
        batch.add_column(sa.Column("rating_sigma", sa.Float(), nullable=True))
        batch.add_column(sa.Column("rated_games", sa.Integer(), nullable=False, server_default="0"))
    op.create_index("ix_player_standings_rating", "player_standings", ["rating"], unique=False)
    op.create_table(
        "rating_history",
        sa.Column("skeleton", sa.String(64), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rating_history_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("skeleton", "game_id", name=op.f("pk_rating_history")),
    )
    op.create_index(
        "ix_rating_history_skeleton", "rating_history", ["skeleton", "finished_at", "game_id"], unique=False
    )
    _rate_finished_games(op.get_bind())


def downgrade() -> None:
    op.drop_index("ix_rating_history_skeleton", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_player_standings_rating", table_name="player_standings")
    with op.batch_alter_table("player_standings") as batch:
        for column in ("rated_games", "rating_sigma", "rating_mu", "rating"):
            batch.drop_column(column)


players = sa.table(
    "game_players",
    sa.column("game_id", sa.Integer),
    sa.column("skeleton", sa.String),
    sa.column("total", sa.Integer),
    sa.column("counted", sa.Boolean),
    sa.column("finished_at", sa.DateTime(timezone=True)),
)
history = sa.table(
    "rating_history",
    sa.column("skeleton", sa.String),
    sa.column("game_id", sa.Integer),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    sa.column("mu", sa.Float),
    sa.column("sigma", sa.Float),
    sa.column("rating", sa.Float),
)
standings = sa.table(
    "player_standings",
    sa.column("skeleton", sa.String),
    sa.column("rating", sa.Float),
    sa.column("rating_mu", sa.Float),
    sa.column("rating_sigma", sa.Float),
    sa.column("rated_games", sa.Integer),
)


def _rate_finished_games(conn: sa.Connection) -> None:
    """Every counted seat of every finished game, read once in finish order (the seats of one game
    together), rated in memory; the history written in batches, then each rated name's record once."""
    seats = conn.execute(
        sa.select(players.c.game_id, players.c.finished_at, players.c.skeleton, players.c.total)
        .where(players.c.counted == sa.true())
        .order_by(players.c.finished_at, players.c.game_id, players.c.skeleton)
    )
    ratings: dict[str, tuple[Rating, int]] = {}
    lines: list[dict[str, Any]] = []
    for (game_id, finished_at), game in groupby(seats, key=lambda seat: (seat.game_id, seat.finished_at)):
        totals = [(seat.skeleton, seat.total) for seat in game]
        if len(totals) < 2:
            continue
        after = rate_game([(ratings.get(skeleton, (NEW, 0))[0], total) for skeleton, total in totals])
        for (skeleton, _), rating in zip(totals, after, strict=True):
            ratings[skeleton] = (rating, ratings.get(skeleton, (NEW, 0))[1] + 1)
            lines.append(
                {
                    "skeleton": skeleton,
                    "game_id": game_id,
                    "finished_at": finished_at,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                    "rating": rating.ordinal,
                }
            )
        if len(lines) >= BATCH:
            conn.execute(sa.insert(history), lines)
            lines = []
    if lines:
        conn.execute(sa.insert(history), lines)
    update = (
        sa.update(standings)
        .where(standings.c.skeleton == sa.bindparam("b_skeleton"))
        .values(
            rating=sa.bindparam("b_rating"),
            rating_mu=sa.bindparam("b_mu"),
            rating_sigma=sa.bindparam("b_sigma"),
            rated_games=sa.bindparam("b_games"),
        )
    )
    records = [
        {
            "b_skeleton": skeleton,
            "b_rating": rating.ordinal,
            "b_mu": rating.mu,
            "b_sigma": rating.sigma,
            "b_games": games,
        }
        for skeleton, (rating, games) in ratings.items()
    ]
    for start in range(0, len(records), BATCH):
        conn.execute(update, records[start : start + BATCH])
