"""Score history: read-only queries over finished and running games (scores of ended rounds only).

Nothing here reads what is hidden in a game in progress: totals come from the round_scores table (rounds
that ended), round details from the results of ended rounds, and the full record (seed and action log) only
from finished games.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, func, select

from app.table.text import name_skeleton

from .models import ActionRow, GamePlayerRow, GameRow, RoundScoreRow
from .store import Store


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    seat: int
    name: str
    is_bot: bool


@dataclass(frozen=True, slots=True)
class GameSummaryRecord:
    id: str  # the game's public id (random; the store's own id never leaves the server)
    room_code: str
    number: int
    status: str
    created_at: datetime
    finished_at: datetime | None
    players: list[PlayerRecord]
    rounds_played: int
    totals: list[int]
    winners: list[int]


@dataclass(frozen=True, slots=True)
class GameDetailRecord:
    summary: GameSummaryRecord
    options: dict[str, Any]
    scores: list[list[int]]  # rows: ended rounds; columns: seats
    went_out: list[int | None]  # per ended round: the seat that went out first (None: the turn limit)


@dataclass(frozen=True, slots=True)
class GameExportRecord:
    summary: GameSummaryRecord
    options: dict[str, Any]
    seed: int
    actions: list[tuple[int, dict[str, Any]]]
    scores: list[list[int]]
    went_out: list[int | None]
    final_state: dict[str, Any]


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    total: int


def _in_window(
    query: Select[Any], column: Any, since: datetime | None, until: datetime | None
) -> Select[Any]:
    if since is not None:
        query = query.where(column >= since)
    if until is not None:
        query = query.where(column < until)
    return query


class History:
    """History queries over one Store's database."""

    def __init__(self, store: Store) -> None:
        self.sessions = store.sessions

    async def _summaries(self, rows: list[GameRow]) -> list[GameSummaryRecord]:
        if not rows:
            return []
        ids = [row.id for row in rows]
        async with self.sessions() as session:
            players = (
                await session.scalars(
                    select(GamePlayerRow).where(GamePlayerRow.game_id.in_(ids)).order_by(GamePlayerRow.seat)
                )
            ).all()
            sums = (
                await session.execute(
                    select(
                        RoundScoreRow.game_id,
                        RoundScoreRow.seat,
                        func.sum(RoundScoreRow.penalty),
                        func.count(RoundScoreRow.round),
                    )
                    .where(RoundScoreRow.game_id.in_(ids))
                    .group_by(RoundScoreRow.game_id, RoundScoreRow.seat)
                )
            ).all()
        by_game: dict[int, list[PlayerRecord]] = {}
        for p in players:
            by_game.setdefault(p.game_id, []).append(PlayerRecord(p.seat, p.name, p.is_bot))
        totals: dict[int, dict[int, int]] = {}
        rounds: dict[int, int] = {}
        for game_id, seat, total, count in sums:
            totals.setdefault(game_id, {})[seat] = int(total)
            rounds[game_id] = max(rounds.get(game_id, 0), int(count))
        out = []
        for row in rows:
            seats = by_game.get(row.id, [])
            game_totals = [totals.get(row.id, {}).get(p.seat, 0) for p in seats]
            winners = []
            if row.status == "finished" and game_totals:
                low = min(game_totals)
                winners = [p.seat for p, t in zip(seats, game_totals, strict=True) if t == low]
            out.append(
                GameSummaryRecord(
                    id=row.public_id,
                    room_code=row.room_code,
                    number=row.number,
                    status=row.status,
                    created_at=row.created_at,
                    finished_at=row.finished_at,
                    players=seats,
                    rounds_played=rounds.get(row.id, 0),
                    totals=game_totals,
                    winners=winners,
                )
            )
        return out

    async def _page(self, query: Select[Any], limit: int, offset: int) -> Page[GameSummaryRecord]:
        async with self.sessions() as session:
            total = await session.scalar(select(func.count()).select_from(query.subquery()))
            rows = (
                await session.scalars(
                    query.order_by(GameRow.created_at.desc(), GameRow.id.desc()).limit(limit).offset(offset)
                )
            ).all()
        return Page(await self._summaries(list(rows)), int(total or 0))

    async def room_games(
        self,
        code: str,
        *,
        limit: int,
        offset: int,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> Page[GameSummaryRecord]:
        query = _in_window(select(GameRow).where(GameRow.room_code == code), GameRow.created_at, since, until)
        return await self._page(query, limit, offset)

    async def player_games(
        self,
        name: str,
        *,
        limit: int,
        offset: int,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> Page[GameSummaryRecord]:
        ids = select(GamePlayerRow.game_id).where(GamePlayerRow.skeleton == name_skeleton(name))
        query = _in_window(select(GameRow).where(GameRow.id.in_(ids)), GameRow.created_at, since, until)
        return await self._page(query, limit, offset)

    async def _row(self, session: Any, public_id: str) -> GameRow | None:
        """The game with this public id (sequential store ids are not looked up: they are never public)."""
        result: GameRow | None = await session.scalar(select(GameRow).where(GameRow.public_id == public_id))
        return result

    async def game(self, public_id: str) -> GameDetailRecord | None:
        async with self.sessions() as session:
            row = await self._row(session, public_id)
            if row is None:
                return None
            game_id = row.id
            scores = (
                await session.execute(
                    select(
                        RoundScoreRow.round, RoundScoreRow.seat, RoundScoreRow.penalty, RoundScoreRow.went_out
                    )
                    .where(RoundScoreRow.game_id == game_id)
                    .order_by(RoundScoreRow.round, RoundScoreRow.seat)
                )
            ).all()
        (summary,) = await self._summaries([row])
        sheet: dict[int, dict[int, int]] = {}
        out_first: dict[int, int] = {}
        for round_number, seat, penalty, went_out in scores:
            sheet.setdefault(round_number, {})[seat] = penalty
            if went_out:
                out_first[round_number] = seat
        rows = [[sheet[r].get(p.seat, 0) for p in summary.players] for r in sorted(sheet)]
        return GameDetailRecord(summary, dict(row.options), rows, [out_first.get(r) for r in sorted(sheet)])

    async def round_result(self, public_id: str, round_number: int) -> tuple[bool, dict[str, Any] | None]:
        """(game exists, the ended round's revealed hands or None while that round is not over)."""
        async with self.sessions() as session:
            row = await self._row(session, public_id)
            if row is None:
                return False, None
            results = row.state.get("results", [])
        ended = [r for r in results if r.get("round") == round_number]
        return True, (ended[0] if ended else None)

    async def export(self, public_id: str) -> GameExportRecord | None:
        """The complete record of a game (only meaningful, and only served, once it is finished)."""
        detail = await self.game(public_id)
        if detail is None:
            return None
        async with self.sessions() as session:
            row = await self._row(session, public_id)
            assert row is not None
            actions = (
                await session.execute(
                    select(ActionRow.seat, ActionRow.action)
                    .where(ActionRow.game_id == row.id)
                    .order_by(ActionRow.seq)
                )
            ).all()
            seed, state = int(row.seed), dict(row.state)
        return GameExportRecord(
            detail.summary,
            detail.options,
            seed,
            [(s, a) for s, a in actions],
            detail.scores,
            detail.went_out,
            state,
        )
