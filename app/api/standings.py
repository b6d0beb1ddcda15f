"""REST standings: a player's record on this server (with its rating and the rating's latest history), the
players' board (by rating too), the best and worst finished games (hall of fame and of shame), and a table's
standings across its games. Public on this server, limited per
client address (``MAX_STANDINGS_PER_MINUTE``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from app.store.rating import HISTORY, PROVISIONAL
from app.store.standings import MAX_OFFSET, GameOrder, PlayerOrder, PlayerSummary, Standings
from app.table import Refusal

from .deps import ManagerDep, SettingsDep
from .errors import refusals
from .history import LIMITED, NOT_FOUND, Limit, PlayerName, name_reads, vars_of

router = APIRouter(
    prefix="/api",
    tags=["standings"],
    responses={
        **refusals("bad_request: a path or query parameter is out of range or of the wrong type"),
        **LIMITED,
    },
)


async def _standings(request: Request, settings: SettingsDep, manager: ManagerDep) -> Standings:
    """The standings, for an address within its per-minute budget (shared with the games by name)."""
    name_reads(request, settings, manager)
    return Standings(request.app.state.store)


StandingsDep = Annotated[Standings, Depends(_standings)]
Offset = Annotated[
    int, Query(ge=0, le=MAX_OFFSET, description="rows to skip (boards show their first 10,000)")
]

RATING_EXAMPLE: dict[str, Any] = {
    "ordinal": 14.27,
    "mu": 27.9,
    "sigma": 4.54,
    "games": 9,
    "provisional": False,
}
SUMMARY_EXAMPLE: dict[str, Any] = {
    "name": "Sara",
    "games": 12,
    "wins": 4.5,
    "win_rate": 0.375,
    "average_total": 63.5,
    "best_total": 21,
    "worst_total": 140,
    "rounds_out_first": 17,
    "perfect_games": 0,
    "last_played": "2026-12-01T21:40:12Z",
    "rating": RATING_EXAMPLE,
    "claimed": True,
}


class RatingPublic(BaseModel):
    """A name's rating: openskill's Plackett-Luce estimate of its skill from the rated games (a counted
    finished game with at least one other counted person in it), by place among them (lower total better)."""

    ordinal: float = Field(
        description="mu - 3 sigma: the conservative figure shown and ranked by (a new name starts at 0)"
    )
    mu: float = Field(description="the estimated skill (a new name starts at 25)")
    sigma: float = Field(
        description="the estimate's uncertainty (a new name starts at 25/3; narrows with games)"
    )
    games: int = Field(description="the rated games")
    provisional: bool = Field(description=f"fewer than {PROVISIONAL} rated games")

    model_config = {"json_schema_extra": {"examples": [RATING_EXAMPLE]}}


class RatingPointPublic(BaseModel):
    """The rating after one rated game."""

    game: str = Field(description="the game's public id")
    finished_at: datetime
    ordinal: float
    mu: float
    sigma: float


class PlayerSummaryPublic(BaseModel):
    """A name's figures over its counted finished games (bots, programs and practice seats never count)."""

    name: str = Field(
        description="the name as it was first played: a look-alike spelling (any case, other scripts) shares"
        " the record but never renames it"
    )
    games: int
    wins: float = Field(description="wins; a win tied between k players counts 1/k for each")
    win_rate: float = Field(description="wins / games")
    average_total: float = Field(description="the average final total (lower is better)")
    best_total: int
    worst_total: int
    rounds_out_first: int = Field(description="rounds in which this player went out first")
    perfect_games: int = Field(description="games in which this player went out first in every round")
    last_played: datetime
    rating: RatingPublic | None = Field(
        description="null until a game against another counted person rates the name (always null in a"
        " table's own standings)"
    )
    claimed: bool = Field(
        description="the name is kept with a passkey: only its holder's browsers sit down under it (or a "
        "look-alike of it)"
    )

    model_config = {"json_schema_extra": {"examples": [SUMMARY_EXAMPLE]}}


class GameMarkPublic(BaseModel):
    total: int
    game: str = Field(description="the game's public id (/api/games/{id}, its replay)")
    finished_at: datetime


class RecentGamePublic(BaseModel):
    game: str = Field(description="the game's public id")
    finished_at: datetime
    total: int
    place: int = Field(description="1 + the players with a lower total")
    players: int
    win: float = Field(description="this player's share of the win: 1, 1/k of a k-way tie, or 0")
    rounds_out_first: int
    perfect: bool


class PlayerStandingPublic(PlayerSummaryPublic):
    """A name's record on this server, with the games behind its figures."""

    first_played: datetime
    best: GameMarkPublic
    worst: GameMarkPublic
    recent: list[RecentGamePublic] = Field(description="the latest counted games, newest first (at most 20)")
    rating_history: list[RatingPointPublic] = Field(
        description=f"the rating after each of the latest rated games, newest first (at most {HISTORY})"
    )

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    **SUMMARY_EXAMPLE,
                    "first_played": "2026-11-02T19:02:00Z",
                    "best": {"total": 21, "game": "k3m9xq2wz7ab", "finished_at": "2026-11-20T22:10:00Z"},
                    "worst": {"total": 140, "game": "p4t8vn6rc2de", "finished_at": "2026-11-03T20:31:00Z"},
                    "recent": [
                        {
                            "game": "w7y2hb5jk9mn",
                            "finished_at": "2026-12-01T21:40:12Z",
                            "total": 54,
                            "place": 1,
                            "players": 3,
                            "win": 0.5,
                            "rounds_out_first": 2,
                            "perfect": False,
                        }
                    ],
                    "rating_history": [
                        {
                            "game": "w7y2hb5jk9mn",
                            "finished_at": "2026-12-01T21:40:12Z",
                            "ordinal": 14.27,
                            "mu": 27.9,
                            "sigma": 4.54,
                        }
                    ],
                }
            ]
        }
    }


class PlayerBoard(BaseModel):
    items: list[PlayerSummaryPublic]
    total: int
    limit: int
    offset: int


class GameStandingPublic(BaseModel):
    """One player's finished game on the hall of fame (lowest totals) or of shame (highest)."""

    game: str = Field(description="the game's public id")
    name: str
    total: int
    players: int
    place: int
    finished_at: datetime

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "game": "k3m9xq2wz7ab",
                    "name": "Sara",
                    "total": 21,
                    "players": 3,
                    "place": 1,
                    "finished_at": "2026-11-20T22:10:00Z",
                }
            ]
        }
    }


class GameBoard(BaseModel):
    items: list[GameStandingPublic]
    total: int
    limit: int
    offset: int


def _summary(summary: PlayerSummary) -> dict[str, Any]:
    return {**vars_of(summary), "rating": vars_of(summary.rating) if summary.rating else None}


def _page(items: list[Any], total: int, limit: int, offset: int) -> dict[str, Any]:
    rows = [_summary(i) if isinstance(i, PlayerSummary) else vars_of(i) for i in items]
    return {"items": rows, "total": total, "limit": limit, "offset": offset}


@router.get("/players/{name:path}", response_model=PlayerStandingPublic, responses=NOT_FOUND)
async def player(name: PlayerName, standings: StandingsDep) -> dict[str, Any]:
    """A player's record on this server: names are matched after case folding and look-alike folding (the
    table's own rule), so "Sara", "SARA" and "Ѕаrа" (Cyrillic) share one record. 404 until the name has a
    counted finished game."""
    record = await standings.player(name)
    if record is None:
        raise Refusal("player_not_found", "no finished game counts for this name on this server")
    return {
        **_summary(record.summary),
        "first_played": record.first_played,
        "best": vars_of(record.best),
        "worst": vars_of(record.worst),
        "recent": [vars_of(g) for g in record.recent],
        "rating_history": [vars_of(p) for p in record.rating_history],
    }


@router.get("/leaderboard", response_model=PlayerBoard)
async def leaderboard(
    standings: StandingsDep,
    by: Annotated[
        PlayerOrder,
        Query(description="wins, win_rate, games, rating: most first (rating: rated names); average: lowest"),
    ] = PlayerOrder.WINS,
    min_games: Annotated[int, Query(ge=1, le=10_000, description="only players with this many games")] = 1,
    limit: Limit = 20,
    offset: Offset = 0,
    claimed: Annotated[bool, Query(description="only names kept with a passkey")] = False,
) -> dict[str, Any]:
    """Every player on this server with at least ``min_games`` counted finished games, best first; by
    ``rating``: the names a game has rated, the highest rating (ordinal) first."""
    page = await standings.players(by, min_games=min_games, limit=limit, offset=offset, claimed=claimed)
    return _page(page.items, page.total, limit, offset)


@router.get("/leaderboard/games", response_model=GameBoard)
async def game_board(
    standings: StandingsDep,
    order: Annotated[GameOrder, Query(description="best: the lowest final totals; worst: the highest")] = (
        GameOrder.BEST
    ),
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """The hall of fame (``best``) and of shame (``worst``): each player's finished games by final total."""
    page = await standings.games(order, limit=limit, offset=offset)
    return _page(page.items, page.total, limit, offset)


@router.get("/rooms/{code}/leaderboard", response_model=PlayerBoard, responses=NOT_FOUND)
async def table_standings(
    code: str, standings: StandingsDep, manager: ManagerDep, limit: Limit = 20, offset: Offset = 0
) -> dict[str, Any]:
    """A table's standings across its finished games (rematches make a series): most wins first."""
    room = await manager.require(code)  # room_not_found (404) for unknown codes
    page = await standings.table(room.code, limit=limit, offset=offset)
    return _page(page.items, page.total, limit, offset)
