"""Reads of the store that only tests need (the app reads its tables through ``Store.load_table`` and the
history module): a game's action log, its snapshot, and its round scores. A game is named by the store's id
(``Table.game_id``) or by its public id (what clients see as ``room.game_id``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from app.store import Store
from app.store.models import ActionRow, GameRow, RoundScoreRow
from app.table import RoundScore


@dataclass(frozen=True, slots=True)
class ActionRecord:
    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None
    version: int
    created_at: datetime


GameKey = int | str  # the store's id, or the public id


async def _internal(session: Any, game_id: GameKey) -> int:
    if isinstance(game_id, int):
        return game_id
    found = await session.scalar(select(GameRow.id).where(GameRow.public_id == game_id))
    return -1 if found is None else int(found)


async def list_actions(store: Store, game_id: GameKey) -> list[ActionRecord]:
    async with store.sessions() as session:
        game_id = await _internal(session, game_id)
        rows = (
            await session.scalars(
                select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.seq)
            )
        ).all()
        return [
            ActionRecord(
                r.seq,
                r.seat,
                r.action,
                r.client_id,
                r.version,
                r.created_at if r.created_at.tzinfo else r.created_at.replace(tzinfo=UTC),
            )
            for r in rows
        ]


async def list_round_scores(store: Store, game_id: GameKey) -> list[RoundScore]:
    async with store.sessions() as session:
        game_id = await _internal(session, game_id)
        rows = (
            await session.scalars(
                select(RoundScoreRow)
                .where(RoundScoreRow.game_id == game_id)
                .order_by(RoundScoreRow.round, RoundScoreRow.seat)
            )
        ).all()
        return [RoundScore(r.round, r.seat, r.name, r.penalty) for r in rows]


async def load_game_state(store: Store, game_id: GameKey) -> tuple[int, dict[str, Any]] | None:
    """(version, state) of one game as it is now (its last snapshot with the round's moves replayed)."""
    async with store.sessions() as session:
        internal = await _internal(session, game_id)
    loaded = await store.load_game(internal)
    return None if loaded is None else (loaded[0], loaded[1].to_dict())
