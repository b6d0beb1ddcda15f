"""Score history: read-only queries over finished and running games (scores of ended rounds only).

Nothing here reads what is hidden in a game in progress: totals come from the round_scores table (rounds
that ended), round details from the results of ended rounds, and the full record (seed and action log) only
from finished games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, and_, false, func, or_, select

from app.table.text import name_skeleton

from .models import ActionRow, GamePlayerRow, GameRow, RoundScoreRow
from .store import Store


@dataclass(frozen=True, slots=True)
class Holder:
    """Who played a seat from a round on: a name, and whether it was a bot (a seat handed over or left keeps
    its person's name, played by a bot)."""

    from_round: int
    name: str
    bot: bool


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    seat: int
    name: str
    is_bot: bool  # at the game's start
    handed: bool = False  # the host handed the seat to a bot during the game
    counted: bool = False  # the game counts in this name's standings
    holders: tuple[Holder, ...] = ()  # the start's holder, then each change, by the rounds' ends


def holders_of(player: PlayerRecord, rounds: list[tuple[int, str, bool]]) -> tuple[Holder, ...]:
    """The seat's holders: who sat at the start (from round 1), then each other holder from the first round
    whose end found them there (``rounds``: the round, the name and whether a bot played it, in order)."""
    held = [Holder(1, player.name, player.is_bot)]
    for round_number, name, bot in rounds:
        if (name, bot) != (held[-1].name, held[-1].bot):
            held.append(Holder(round_number, name, bot))
    return tuple(held)


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
    server_turns: list[int]  # per seat: moves nobody sent (a bot's, or the server's for someone away)


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


def padded(ids: Sequence[T]) -> list[T]:
    """``ids`` with its last repeated up to a power of two in length: ``IN`` reads the same, and a list of
    any length is one of a few statement texts. Each text is a prepared statement kept by every pooled
    connection that runs it (``sqlite3`` keeps 128 a connection, asyncpg 100): one text per length kept
    adding some as rooms played more games (docs/benchmarks.md, "the soak, where the last megabytes go")."""
    out = list(ids)
    if out:
        out += [out[-1]] * ((1 << (len(out) - 1).bit_length()) - len(out))
    return out


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
                    select(GamePlayerRow)
                    .where(GamePlayerRow.game_id.in_(padded(ids)))
                    .order_by(GamePlayerRow.seat)
                )
            ).all()
            ended = (
                await session.execute(
                    select(
                        RoundScoreRow.game_id,
                        RoundScoreRow.seat,
                        RoundScoreRow.round,
                        RoundScoreRow.name,
                        RoundScoreRow.bot,
                        RoundScoreRow.penalty,
                    )
                    .where(RoundScoreRow.game_id.in_(padded(ids)))
                    .order_by(RoundScoreRow.game_id, RoundScoreRow.seat, RoundScoreRow.round)
                )
            ).all()
        totals: dict[int, dict[int, int]] = {}
        rounds: dict[int, int] = {}
        held: dict[tuple[int, int], list[tuple[int, str, bool]]] = {}
        for game_id, seat, round_number, name, bot, penalty in ended:
            totals.setdefault(game_id, {})[seat] = totals.get(game_id, {}).get(seat, 0) + penalty
            rounds[game_id] = max(rounds.get(game_id, 0), round_number)
            held.setdefault((game_id, seat), []).append((round_number, name, bool(bot)))
        by_game: dict[int, list[PlayerRecord]] = {}
        for p in players:
            player = PlayerRecord(p.seat, p.name, p.is_bot, p.handed, p.counted)
            holders = holders_of(player, held.get((p.game_id, p.seat), []))
            by_game.setdefault(p.game_id, []).append(replace(player, holders=holders))
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
        after: tuple[datetime, str] | None = None,
    ) -> Page[GameSummaryRecord]:
        """A name's finished games (never one being played, nor a game its seat played for practice), the
        last finished first, read from ``ix_game_players_by_name``: the cost follows the name's own games,
        never the whole history. ``after`` (a finish time and a game's public id, the last of a page) starts
        the page after that game, so deep pages are not counted off from the first (keyset paging)."""
        seats = _in_window(
            select(GamePlayerRow.game_id).where(
                GamePlayerRow.skeleton == name_skeleton(name),
                GamePlayerRow.practice == false(),
                GamePlayerRow.finished_at.is_not(None),
            ),
            GamePlayerRow.finished_at,
            since,
            until,
        )
        newest = (GamePlayerRow.finished_at.desc(), GamePlayerRow.game_id.desc())
        async with self.sessions() as session:
            total = await session.scalar(select(func.count()).select_from(seats.subquery()))
            page = seats
            if after is not None:
                finished, public_id = after
                last = select(GameRow.id).where(GameRow.public_id == public_id).scalar_subquery()
                page = page.where(
                    or_(
                        GamePlayerRow.finished_at < finished,
                        and_(GamePlayerRow.finished_at == finished, GamePlayerRow.game_id < last),
                    )
                )
            ids = (await session.scalars(page.order_by(*newest).limit(limit).offset(offset))).all()
            rows = {
                row.id: row
                for row in await session.scalars(select(GameRow).where(GameRow.id.in_(padded(ids))))
            }
        return Page(await self._summaries([rows[i] for i in ids]), int(total or 0))

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
            unsent = dict(
                (
                    await session.execute(
                        select(ActionRow.seat, func.count())
                        .where(ActionRow.game_id == game_id, ActionRow.client_id.is_(None))
                        .group_by(ActionRow.seat)
                    )
                ).all()
            )
        (summary,) = await self._summaries([row])
        sheet: dict[int, dict[int, int]] = {}
        out_first: dict[int, int] = {}
        for round_number, seat, penalty, out in scores:
            sheet.setdefault(round_number, {})[seat] = penalty
            if out:
                out_first[round_number] = seat
        rows = [[sheet[r].get(p.seat, 0) for p in summary.players] for r in sorted(sheet)]
        firsts = [out_first.get(r) for r in sorted(sheet)]
        server_turns = [int(unsent.get(p.seat, 0)) for p in summary.players]
        return GameDetailRecord(summary, dict(row.options), rows, firsts, server_turns)

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
