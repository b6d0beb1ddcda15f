"""Standings: a player's record on this server (with its rating and the rating's latest history) and the
boards, read from the summary the finishing move writes (``standings_writes``) with indexed queries; nothing
here replays or adds up games."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, cast, func, or_, select, true
from sqlalchemy.orm import aliased

from app.table.text import name_skeleton

from .history import Page
from .models import GamePlayerRow, GameRow, NameClaimRow, PlayerStandingRow, RatingHistoryRow
from .rating import HISTORY, PROVISIONAL
from .store import Store

RECENT = 20  # a player's record lists this many of their latest games
# The boards page through their first rows only: an offset costs a walk of that many index entries.
MAX_OFFSET = 10_000


class PlayerOrder(enum.Enum):
    """How the players' board is sorted (best first)."""

    WINS = "wins"
    WIN_RATE = "win_rate"
    AVERAGE = "average"  # the lowest average total first
    GAMES = "games"
    RATING = "rating"  # the highest rating (ordinal) first; rated names only


class GameOrder(enum.Enum):
    """The finished games' boards: the lowest final totals (hall of fame) or the highest (hall of shame)."""

    BEST = "best"
    WORST = "worst"


@dataclass(frozen=True, slots=True)
class GameMark:
    """One figure's game: a total and the (public id of the) game it was made in."""

    total: int
    game: str
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class RecentGame:
    game: str
    finished_at: datetime
    total: int
    place: int
    players: int
    win: float
    rounds_out_first: int
    perfect: bool


@dataclass(frozen=True, slots=True)
class RatingFigure:
    """A name's rating: the ordinal shown and ranked by (mu - 3 sigma), its parts, and how many games made it
    (fewer than ``PROVISIONAL``: provisional)."""

    ordinal: float
    mu: float
    sigma: float
    games: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A name's rating after one rated game."""

    game: str
    finished_at: datetime
    ordinal: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """A name's figures (the boards' rows); ``rating`` is None until a game rates the name (and on a table's
    own standings, which have none)."""

    name: str
    games: int
    wins: float
    win_rate: float
    average_total: float
    best_total: int
    worst_total: int
    rounds_out_first: int
    perfect_games: int
    last_played: datetime
    rating: RatingFigure | None = None
    claimed: bool = False  # the name is kept with a passkey (``app.store.passkeys``)


@dataclass(frozen=True, slots=True)
class PlayerStanding:
    """A name's record: its figures, the games behind the best and worst, its latest games."""

    summary: PlayerSummary
    first_played: datetime
    best: GameMark
    worst: GameMark
    recent: list[RecentGame]
    rating_history: list[RatingPoint]  # the latest ``HISTORY`` rated games, newest first


@dataclass(frozen=True, slots=True)
class GameStanding:
    """One seat's finished game on a board."""

    game: str
    name: str
    total: int
    players: int
    place: int
    finished_at: datetime


def _rating(row: PlayerStandingRow) -> RatingFigure | None:
    if row.rating is None or row.rating_mu is None or row.rating_sigma is None:
        return None
    return RatingFigure(
        round(row.rating, 2),
        round(row.rating_mu, 2),
        round(row.rating_sigma, 2),
        row.rated_games,
        row.rated_games < PROVISIONAL,
    )


def _summary(row: Any, rating: RatingFigure | None = None, claimed: bool = False) -> PlayerSummary:
    return PlayerSummary(
        row.name,
        row.games,
        round(float(row.wins), 4),
        round(float(row.win_rate), 4),
        round(float(row.average_total), 2),
        row.best_total,
        row.worst_total,
        row.rounds_out_first,
        row.perfect_games,
        row.last_played,
        rating,
        bool(claimed),
    )


# Whether a record's name is kept with a passkey: its skeleton is claimed (the claims' unique index).
_CLAIMED = (
    select(NameClaimRow.id)
    .where(NameClaimRow.skeleton == PlayerStandingRow.skeleton)
    .correlate(PlayerStandingRow)
    .exists()
)


_PLAYER_ORDER = {
    PlayerOrder.WINS: (PlayerStandingRow.wins.desc(), PlayerStandingRow.average_total),
    PlayerOrder.WIN_RATE: (PlayerStandingRow.win_rate.desc(), PlayerStandingRow.games.desc()),
    PlayerOrder.AVERAGE: (PlayerStandingRow.average_total, PlayerStandingRow.games.desc()),
    PlayerOrder.GAMES: (PlayerStandingRow.games.desc(), PlayerStandingRow.wins.desc()),
    PlayerOrder.RATING: (PlayerStandingRow.rating.desc(), PlayerStandingRow.rated_games.desc()),
}

# A seat that counts, as the partial indexes on game_players say it (the same expression, so they are used).
COUNTED = GamePlayerRow.counted == true()

# How many seats each game had: a correlated count over the game's (indexed) seats.
_SEATS_IN_GAME = (
    select(func.count(GamePlayerRow.id))
    .where(GamePlayerRow.game_id == GameRow.id)
    .correlate(GameRow)
    .scalar_subquery()
)


# A record with the games behind its best and worst totals (made once: an alias of a table costs a copy of
# its columns).
_BEST, _WORST = aliased(GameRow), aliased(GameRow)
_RECORD = (
    select(PlayerStandingRow, _BEST.public_id, _BEST.finished_at, _WORST.public_id, _WORST.finished_at)
    .join(_BEST, _BEST.id == PlayerStandingRow.best_game_id)
    .join(_WORST, _WORST.id == PlayerStandingRow.worst_game_id)
)


class Standings:
    """Standings queries over one Store's database."""

    def __init__(self, store: Store) -> None:
        self.sessions = store.sessions

    async def player(self, name: str) -> PlayerStanding | None:
        """The record of ``name`` (or a look-alike of it); None when it has no counted finished game."""
        skeleton = name_skeleton(name)
        if not skeleton:
            return None
        async with self.sessions() as session:
            # The record and the games behind its best and worst totals in one read (a round trip less for
            # the rating history's own).
            found = (await session.execute(_RECORD.where(PlayerStandingRow.skeleton == skeleton))).first()
            if found is None:
                return None
            row, best_id, best_at, worst_id, worst_at = found
            recent = (
                await session.execute(
                    select(
                        GameRow.public_id,
                        GamePlayerRow.finished_at,
                        GamePlayerRow.total,
                        GamePlayerRow.place,
                        _SEATS_IN_GAME,
                        GamePlayerRow.win,
                        GamePlayerRow.rounds_out_first,
                        GamePlayerRow.perfect,
                    )
                    .join(GameRow, GameRow.id == GamePlayerRow.game_id)
                    .where(GamePlayerRow.skeleton == skeleton, COUNTED)
                    .order_by(GamePlayerRow.finished_at.desc())
                    .limit(RECENT)
                )
            ).all()
            history = (
                await session.execute(
                    select(
                        GameRow.public_id,
                        RatingHistoryRow.finished_at,
                        RatingHistoryRow.rating,
                        RatingHistoryRow.mu,
                        RatingHistoryRow.sigma,
                    )
                    .join(GameRow, GameRow.id == RatingHistoryRow.game_id)
                    .where(RatingHistoryRow.skeleton == skeleton)
                    .order_by(RatingHistoryRow.finished_at.desc(), RatingHistoryRow.game_id.desc())
                    .limit(HISTORY)
                )
            ).all()
            kept = await session.scalar(select(NameClaimRow.id).where(NameClaimRow.skeleton == skeleton))
        assert best_at is not None and worst_at is not None  # a counted game is a finished one
        return PlayerStanding(
            _summary(row, _rating(row), kept is not None),
            row.first_played,
            GameMark(row.best_total, best_id, best_at),
            GameMark(row.worst_total, worst_id, worst_at),
            [
                RecentGame(game, at, total, place, players, round(float(win), 4), outs, bool(perfect))
                for game, at, total, place, players, win, outs, perfect in recent
            ],
            [
                RatingPoint(game, at, round(ordinal, 2), round(mu, 2), round(sigma, 2))
                for game, at, ordinal, mu, sigma in history
            ],
        )

    async def players(
        self, order: PlayerOrder, *, min_games: int, limit: int, offset: int, claimed: bool = False
    ) -> Page[PlayerSummary]:
        """The players' board: every name with at least ``min_games`` counted games, best first (by rating:
        the rated names only; ``claimed``: only names kept with a passkey). The one query of every order."""
        where = [PlayerStandingRow.games >= min_games]
        if order is PlayerOrder.RATING:
            # Every record has a game: without that always-true test, the rated names are counted from the
            # rating's index alone, and the page read from it (not every record read and sorted).
            rated = PlayerStandingRow.rating.is_not(None)
            where = [rated] if min_games <= 1 else [*where, rated]
        if claimed:
            where.append(_CLAIMED)
        async with self.sessions() as session:
            total = await session.scalar(select(func.count()).select_from(PlayerStandingRow).where(*where))
            rows = (
                await session.execute(
                    select(PlayerStandingRow, _CLAIMED)
                    .where(*where)
                    .order_by(*_PLAYER_ORDER[order], PlayerStandingRow.skeleton)
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return Page([_summary(r, _rating(r), kept) for r, kept in rows], int(total or 0))

    async def games(self, order: GameOrder, *, limit: int, offset: int) -> Page[GameStanding]:
        """The finished games' board: each counted seat's final total, the lowest (or highest) first. Its
        size is the sum of the records' games (one row per counted seat), read without counting seats."""
        ranking: tuple[Any, ...]
        if order is GameOrder.BEST:
            ranking = (GamePlayerRow.total, GamePlayerRow.finished_at, GamePlayerRow.id)
        else:
            ranking = (GamePlayerRow.total.desc(), GamePlayerRow.finished_at.desc(), GamePlayerRow.id.desc())
        # The page's seats first, from the index alone; only then their games and names.
        page = (
            select(GamePlayerRow.id).where(COUNTED).order_by(*ranking).limit(limit).offset(offset).subquery()
        )
        async with self.sessions() as session:
            total = await session.scalar(select(func.coalesce(func.sum(PlayerStandingRow.games), 0)))
            rows = (
                await session.execute(
                    select(
                        GameRow.public_id,
                        GamePlayerRow.name,
                        GamePlayerRow.total,
                        _SEATS_IN_GAME,
                        GamePlayerRow.place,
                        GamePlayerRow.finished_at,
                    )
                    .join(page, page.c.id == GamePlayerRow.id)
                    .join(GameRow, GameRow.id == GamePlayerRow.game_id)
                    .order_by(*ranking)
                )
            ).all()
        return Page([GameStanding(*r) for r in rows], int(total or 0))

    async def table(self, code: str, *, limit: int, offset: int) -> Page[PlayerSummary]:
        """A table's standings across its finished games (a table that plays rematches is a series): per
        name, its counted games there, and those left out of the public records only because everyone
        joined from one address; most wins first."""
        wins = func.sum(GamePlayerRow.win)
        average = func.avg(cast(GamePlayerRow.total, Integer) * 1.0)
        query = (
            select(
                func.max(GamePlayerRow.name).label("name"),
                func.count(GamePlayerRow.id).label("games"),
                wins.label("wins"),
                (wins / func.count(GamePlayerRow.id)).label("win_rate"),
                average.label("average_total"),
                func.min(GamePlayerRow.total).label("best_total"),
                func.max(GamePlayerRow.total).label("worst_total"),
                func.sum(GamePlayerRow.rounds_out_first).label("rounds_out_first"),
                func.sum(cast(GamePlayerRow.perfect, Integer)).label("perfect_games"),
                func.max(GamePlayerRow.finished_at).label("last_played"),
                select(NameClaimRow.id)
                .where(NameClaimRow.skeleton == GamePlayerRow.skeleton)
                .exists()
                .label("claimed"),
            )
            .where(
                GamePlayerRow.game_id.in_(select(GameRow.id).where(GameRow.room_code == code)),
                or_(COUNTED, GamePlayerRow.padded == true()),  # friends on one network: their own series
            )
            .group_by(GamePlayerRow.skeleton)
        )
        async with self.sessions() as session:
            total = await session.scalar(select(func.count()).select_from(query.subquery()))
            rows = (
                await session.execute(
                    query.order_by(wins.desc(), average, GamePlayerRow.skeleton).limit(limit).offset(offset)
                )
            ).all()
        return Page([_summary(r, claimed=r.claimed) for r in rows], int(total or 0))
