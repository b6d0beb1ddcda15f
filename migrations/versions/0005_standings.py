"""standings: who went out first each round, practice seats, each seat's outcome, every player's record

Existing games are filled in: a round's ``went_out`` from the game's own results, and each finished game's
outcomes and its players' records by the rules of ``app/store/standings_writes.py`` (a person's seat held by
one name all game; bots never count; no seat was played for practice before this revision).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 08:40:00
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from app.table.text import name_skeleton

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FALSE = sa.false()


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("practice", sa.Boolean(), nullable=False, server_default=FALSE))
    with op.batch_alter_table("round_scores") as batch:
        batch.add_column(sa.Column("went_out", sa.Boolean(), nullable=False, server_default=FALSE))
    with op.batch_alter_table("game_players") as batch:
        batch.add_column(sa.Column("skeleton", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("is_program", sa.Boolean(), nullable=False, server_default=FALSE))
        batch.add_column(sa.Column("practice", sa.Boolean(), nullable=False, server_default=FALSE))
        batch.add_column(sa.Column("counted", sa.Boolean(), nullable=False, server_default=FALSE))
        batch.add_column(sa.Column("win", sa.Float(), nullable=True))
        batch.add_column(sa.Column("place", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("rounds_out_first", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("perfect", sa.Boolean(), nullable=True))
        batch.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
    # Counted seats only (partial indexes): a player's latest games, and the boards by final total.
    for name, columns in (("record", ["skeleton", "finished_at"]), ("board", ["total", "finished_at", "id"])):
        op.create_index(
            f"ix_game_players_{name}",
            "game_players",
            columns,
            unique=False,
            sqlite_where=sa.text("counted = 1"),
            postgresql_where=sa.text("counted = true"),
        )
    op.create_table(
        "player_standings",
        sa.Column("skeleton", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Float(), nullable=False),
        sa.Column("win_rate", sa.Float(), nullable=False),
        sa.Column("total_sum", sa.BigInteger(), nullable=False),
        sa.Column("average_total", sa.Float(), nullable=False),
        sa.Column("best_total", sa.Integer(), nullable=False),
        sa.Column("best_game_id", sa.Integer(), nullable=False),
        sa.Column("worst_total", sa.Integer(), nullable=False),
        sa.Column("worst_game_id", sa.Integer(), nullable=False),
        sa.Column("rounds_out_first", sa.Integer(), nullable=False),
        sa.Column("perfect_games", sa.Integer(), nullable=False),
        sa.Column("first_played", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("skeleton", name=op.f("pk_player_standings")),
    )
    for column in ("wins", "win_rate", "average_total", "games"):
        op.create_index(f"ix_player_standings_{column}", "player_standings", [column], unique=False)
    _fill_in(op.get_bind())


def downgrade() -> None:
    for column in ("wins", "win_rate", "average_total", "games"):
        op.drop_index(f"ix_player_standings_{column}", table_name="player_standings")
    op.drop_table("player_standings")
    op.drop_index("ix_game_players_board", table_name="game_players")
    op.drop_index("ix_game_players_record", table_name="game_players")
    with op.batch_alter_table("game_players") as batch:
        for column in (
            "finished_at",
            "perfect",
            "rounds_out_first",
            "place",
            "win",
            "counted",
            "practice",
            "is_program",
            "skeleton",
        ):
            batch.drop_column(column)
    with op.batch_alter_table("round_scores") as batch:
        batch.drop_column("went_out")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("practice")


games = sa.table(
    "games",
    sa.column("id", sa.Integer),
    sa.column("status", sa.String),
    sa.column("state", sa.JSON),
    sa.column("finished_at", sa.DateTime(timezone=True)),
)
players = sa.table(
    "game_players",
    sa.column("id", sa.Integer),
    sa.column("game_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("name", sa.String),
    sa.column("is_bot", sa.Boolean),
    sa.column("skeleton", sa.String),
    sa.column("total", sa.Integer),
    sa.column("won", sa.Boolean),
    sa.column("counted", sa.Boolean),
    sa.column("win", sa.Float),
    sa.column("place", sa.Integer),
    sa.column("rounds_out_first", sa.Integer),
    sa.column("perfect", sa.Boolean),
    sa.column("finished_at", sa.DateTime(timezone=True)),
)
scores = sa.table(
    "round_scores",
    sa.column("game_id", sa.Integer),
    sa.column("round", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("name", sa.String),
    sa.column("penalty", sa.Integer),
    sa.column("went_out", sa.Boolean),
)
standings = sa.table(
    "player_standings",
    sa.column("skeleton", sa.String),
    sa.column("name", sa.String),
    sa.column("games", sa.Integer),
    sa.column("wins", sa.Float),
    sa.column("win_rate", sa.Float),
    sa.column("total_sum", sa.BigInteger),
    sa.column("average_total", sa.Float),
    sa.column("best_total", sa.Integer),
    sa.column("best_game_id", sa.Integer),
    sa.column("worst_total", sa.Integer),
    sa.column("worst_game_id", sa.Integer),
    sa.column("rounds_out_first", sa.Integer),
    sa.column("perfect_games", sa.Integer),
    sa.column("first_played", sa.DateTime(timezone=True)),
    sa.column("last_played", sa.DateTime(timezone=True)),
)


def _fill_in(conn: sa.Connection) -> None:
    """Every existing game's rounds, outcomes and records, oldest game first."""
    for row in conn.execute(sa.select(players.c.id, players.c.name)).all():
        conn.execute(
            sa.update(players).where(players.c.id == row.id).values(skeleton=name_skeleton(row.name))
        )
    records: dict[str, dict[str, Any]] = {}
    for game in conn.execute(
        sa.select(games.c.id, games.c.status, games.c.state, games.c.finished_at).order_by(games.c.id)
    ).all():
        results = (game.state or {}).get("results", [])
        for result in results:
            if result.get("went_out") is not None:
                conn.execute(
                    sa.update(scores)
                    .where(
                        scores.c.game_id == game.id,
                        scores.c.round == result["round"],
                        scores.c.seat == result["went_out"],
                    )
                    .values(went_out=True)
                )
        if game.status == "finished" and game.finished_at is not None:
            _finished(conn, game.id, results, game.finished_at, records)
    for record in records.values():
        conn.execute(sa.insert(standings).values(**record))


def _finished(
    conn: sa.Connection, game_id: int, results: list[Any], at: Any, records: dict[str, Any]
) -> None:
    seats = conn.execute(
        sa.select(players.c.seat, players.c.name, players.c.skeleton, players.c.is_bot).where(
            players.c.game_id == game_id
        )
    ).all()
    held: dict[int, set[str]] = {}
    totals: dict[int, int] = {}
    for seat, name, penalty in conn.execute(
        sa.select(scores.c.seat, scores.c.name, scores.c.penalty).where(scores.c.game_id == game_id)
    ).all():
        held.setdefault(seat, set()).add(name)
        totals[seat] = totals.get(seat, 0) + penalty
    if not totals:
        return
    low = min(totals.values())
    winners = [s for s, t in totals.items() if t == low]
    seen: set[str] = set()
    for seat, name, skeleton, is_bot in sorted(seats):
        total = totals.get(seat, 0)
        outs = sum(1 for r in results if r.get("went_out") == seat)
        win = 1 / len(winners) if seat in winners else 0.0
        perfect = bool(results) and outs == len(results)
        counted = not is_bot and bool(skeleton) and held.get(seat, {name}) == {name} and skeleton not in seen
        conn.execute(
            sa.update(players)
            .where(players.c.game_id == game_id, players.c.seat == seat)
            .values(
                total=total,
                won=seat in winners,
                win=win,
                place=1 + sum(1 for t in totals.values() if t < total),
                rounds_out_first=outs,
                perfect=perfect,
                counted=counted,
                finished_at=at,
            )
        )
        if not counted:
            continue
        seen.add(skeleton)
        record = records.setdefault(
            skeleton,
            {
                "skeleton": skeleton,
                "games": 0,
                "wins": 0.0,
                "total_sum": 0,
                "best_total": total,
                "best_game_id": game_id,
                "worst_total": total,
                "worst_game_id": game_id,
                "rounds_out_first": 0,
                "perfect_games": 0,
                "first_played": at,
            },
        )
        record["name"], record["last_played"] = name, at
        record["games"] += 1
        record["wins"] += win
        record["total_sum"] += total
        record["win_rate"] = record["wins"] / record["games"]
        record["average_total"] = record["total_sum"] / record["games"]
        record["rounds_out_first"] += outs
        record["perfect_games"] += int(perfect)
        if total < record["best_total"]:
            record["best_total"], record["best_game_id"] = total, game_id
        if total > record["worst_total"]:
            record["worst_total"], record["worst_game_id"] = total, game_id
