"""names folded by Unicode's confusables data: every seat's name skeleton is made again by the new fold
(``app.table.text.name_skeleton``: UTS #39 skeletons through ICU's spoof checker, where a hand-kept table of
look-alikes was), and the players' records are made again from the counted seats, so that records whose names
now read the same come together (under the first spelling played, as a record always is). A game where two
counted seats now share a skeleton counts only the lower seat, as a game ending today would
(``standings_writes.counted_seats``). Going down keeps the new skeletons: the old fold is gone with its table.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05 08:10:00
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from app.table.text import name_skeleton

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 5000

players = sa.table(
    "game_players",
    sa.column("id", sa.Integer),
    sa.column("game_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("name", sa.String),
    sa.column("skeleton", sa.String),
    sa.column("counted", sa.Boolean),
    sa.column("total", sa.Integer),
    sa.column("win", sa.Float),
    sa.column("rounds_out_first", sa.Integer),
    sa.column("perfect", sa.Boolean),
    sa.column("finished_at", sa.DateTime(timezone=True)),
)
standings = sa.table(
    "player_standings",
    *(
        sa.column(name)
        for name in (
            "skeleton",
            "name",
            "games",
            "wins",
            "win_rate",
            "total_sum",
            "average_total",
            "best_total",
            "best_game_id",
            "worst_total",
            "worst_game_id",
            "rounds_out_first",
            "perfect_games",
            "first_played",
            "last_played",
        )
    ),
)


def upgrade() -> None:
    conn = op.get_bind()
    _fold_again(conn)
    _count_one_seat_per_name(conn)
    _records_again(conn)


def downgrade() -> None:
    """Nothing to undo in the schema; the skeletons stay as the new fold made them."""


def _fold_again(conn: sa.Connection) -> None:
    """Each seat's skeleton by the new fold, a batch of rows at a time (only the rows that change)."""
    last = 0
    update = (
        sa.update(players)
        .where(players.c.id == sa.bindparam("b_id"))
        .values(skeleton=sa.bindparam("b_skeleton"))
    )
    while True:
        rows = conn.execute(
            sa.select(players.c.id, players.c.name, players.c.skeleton)
            .where(players.c.id > last)
            .order_by(players.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        changed = [
            {"b_id": row.id, "b_skeleton": new}
            for row in rows
            if (new := name_skeleton(row.name)) != row.skeleton
        ]
        if changed:
            conn.execute(update, changed)
        last = rows[-1].id


def _count_one_seat_per_name(conn: sa.Connection) -> None:
    """Where two counted seats of one game now share a skeleton, the higher seat no longer counts."""
    rows = conn.execute(
        sa.select(players.c.id, players.c.game_id, players.c.seat, players.c.skeleton)
        .where(players.c.counted == sa.true())
        .order_by(players.c.game_id, players.c.seat)
    ).all()
    seen: set[tuple[int, str]] = set()
    doubles = []
    for row in rows:
        key = (row.game_id, row.skeleton)
        if key in seen:
            doubles.append(row.id)
        seen.add(key)
    if doubles:
        conn.execute(sa.update(players).where(players.c.id.in_(doubles)).values(counted=False))


def _records_again(conn: sa.Connection) -> None:
    """Every record from its counted seats, oldest game first, as the games' ends built them one by one:
    the first spelling's name, the first game to reach the best and the worst total."""
    records: dict[str, dict[str, Any]] = {}
    for row in conn.execute(
        sa.select(
            players.c.skeleton,
            players.c.name,
            players.c.game_id,
            players.c.total,
            players.c.win,
            players.c.rounds_out_first,
            players.c.perfect,
            players.c.finished_at,
        )
        .where(players.c.counted == sa.true())
        .order_by(players.c.finished_at, players.c.game_id)
    ).all():
        record = records.get(row.skeleton)
        if record is None:
            records[row.skeleton] = record = {
                "skeleton": row.skeleton,
                "name": row.name,
                "games": 0,
                "wins": 0.0,
                "total_sum": 0,
                "best_total": row.total,
                "best_game_id": row.game_id,
                "worst_total": row.total,
                "worst_game_id": row.game_id,
                "rounds_out_first": 0,
                "perfect_games": 0,
                "first_played": row.finished_at,
            }
        record["games"] += 1
        record["wins"] += row.win or 0.0
        record["total_sum"] += row.total
        if row.total < record["best_total"]:
            record["best_total"], record["best_game_id"] = row.total, row.game_id
        if row.total > record["worst_total"]:
            record["worst_total"], record["worst_game_id"] = row.total, row.game_id
        record["rounds_out_first"] += row.rounds_out_first or 0
        record["perfect_games"] += int(bool(row.perfect))
        record["last_played"] = row.finished_at
    conn.execute(sa.delete(standings))
    rows = [
        {**r, "win_rate": r["wins"] / r["games"], "average_total": r["total_sum"] / r["games"]}
        for r in records.values()
    ]
    for start in range(0, len(rows), BATCH):
        conn.execute(sa.insert(standings), rows[start : start + BATCH])
