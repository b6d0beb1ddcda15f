"""A list of games reads its players and scores with a handful of statement texts, not one per length
(issue 39's soak).

``column IN (:ids)`` with a list is rendered with one placeholder per id, so every length is a statement text
of its own, and SQLite (``sqlite3``'s 128 statements per pooled connection) and asyncpg (100 per connection)
each keep one prepared statement for every text a connection has run: in the 30-minute soak, as rooms played
more games, new lengths kept coming and the prepared statements kept growing after everything else had
settled. The ids are now padded (their last repeated) to a power of two: at most one text per power.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event

from app.store import Store
from app.store.history import History, padded
from app.store.models import GameRow


def test_padded_repeats_the_last_id_to_a_power_of_two() -> None:
    assert padded([]) == []
    assert padded([7]) == [7]
    assert padded([1, 2, 3]) == [1, 2, 3, 3]
    assert padded([1, 2, 3, 4]) == [1, 2, 3, 4]
    assert padded(list(range(9))) == [*range(9), *[8] * 7]


async def test_summaries_of_one_to_nine_games_use_few_statement_texts(
    sqlite_at_head: Path, tmp_path: Path
) -> None:
    path = tmp_path / "history.db"
    shutil.copyfile(sqlite_at_head, path)
    store = Store(f"sqlite+aiosqlite:///{path}")
    texts: set[str] = set()

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        texts.add(statement)

    event.listen(store.engine.sync_engine, "before_cursor_execute", seen)
    now = datetime.now(UTC)
    try:
        for count in range(1, 10):
            rows = [
                GameRow(
                    id=i,
                    public_id=f"g{i}",
                    room_code="ABCD2345",
                    number=i,
                    status="finished",
                    created_at=now,
                    finished_at=now,
                )
                for i in range(1, count + 1)
            ]
            summaries = await History(store)._summaries(rows)
            assert [s.id for s in summaries] == [f"g{i}" for i in range(1, count + 1)]
    finally:
        await store.close()
    # two statements a list (its players, its scores), one text each per power of two: 1, 2, 4, 8, 16
    assert len(texts) <= 2 * 5, sorted(texts)
