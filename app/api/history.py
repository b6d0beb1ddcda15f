"""REST score history: games per room and per player, score sheets, ended rounds, exports and replays (the
standings are ``standings.py``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.engine.frames import ReplayFrame, replay_steps
from app.engine.views import HandView
from app.store.history import GameDetailRecord, GameExportRecord, GameSummaryRecord, History
from app.table import Refusal

from .deps import ManagerDep, SettingsDep
from .errors import ErrorPublic, refusals
from .record_cache import AddressRate, RecordCache, address_allowed

router = APIRouter(
    prefix="/api",
    tags=["history"],
    responses=refusals("bad_request: a path or query parameter is out of range or of the wrong type"),
)

EXPORT_FORMAT = "three-thirteen/game-record@1"
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorPublic, "description": "unknown id or code"}
}
NOT_YET: dict[int | str, dict[str, Any]] = {
    **NOT_FOUND,
    409: {"model": ErrorPublic, "description": "not available until it has ended"},
}
LIMITED: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorPublic, "description": "too many reads by name or standings from this address"}
}
RECORD: dict[int | str, dict[str, Any]] = {
    **NOT_YET,
    429: {"model": ErrorPublic, "description": "too many replays or exports asked for from this address"},
}


async def _history(request: Request) -> History:
    return History(request.app.state.store)


HistoryDep = Annotated[History, Depends(_history)]


@dataclass(frozen=True, slots=True)
class Records:
    """This process's encoded finished records and its per-address limit on asking for them."""

    cache: RecordCache
    rate: AddressRate


async def _records(request: Request, settings: SettingsDep, manager: ManagerDep) -> Records:
    """Made on first use (one per app; no await between the look and the store, so no race)."""
    records: Records | None = getattr(request.app.state, "records", None)
    if records is None:
        cache = RecordCache(settings.record_cache_bytes)
        records = Records(cache, AddressRate(settings.max_records_per_minute, manager.clock))
        request.app.state.records = records
    address = request.client.host if request.client else "unknown"
    if not records.rate.allow(address):
        raise Refusal(
            "rate_limited", "too many replays or exports asked for from your address; wait a minute"
        )
    return records


RecordsDep = Annotated[Records, Depends(_records)]
Limit = Annotated[int, Query(ge=1, le=100, description="page size")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="items to skip")]
Since = Annotated[
    datetime | None, Query(description="only games started (leaderboard: finished) at or after")
]
Until = Annotated[datetime | None, Query(description="only games started (leaderboard: finished) before")]
# A game's public id: random, 12 characters (sequential store ids are never accepted, nor given out).
GameId = Annotated[str, Path(min_length=1, max_length=32, description="the game's public id")]


@dataclass(frozen=True, slots=True)
class Window:
    """The paging and date filters every history list takes (one dependency, the same query names)."""

    limit: Limit = 20
    offset: Offset = 0
    since: Since = None
    until: Until = None

    def page(self, items: list[Any], total: int) -> dict[str, Any]:
        return {"items": items, "total": total, "limit": self.limit, "offset": self.offset}

    def filters(self) -> dict[str, Any]:
        return {"limit": self.limit, "offset": self.offset, "since": self.since, "until": self.until}


WindowDep = Annotated[Window, Depends()]


class HolderPublic(BaseModel):
    from_round: int = Field(
        description="the first round whose end found this holder at the seat (1: from the start)"
    )
    name: str
    bot: bool = Field(description="a bot played the seat (one handed over or left keeps its person's name)")


class PlayerPublic(BaseModel):
    seat: int
    name: str
    bot: bool = Field(description="the seat was a bot's at the game's start")
    handed_to_bot: bool = Field(
        description="the host handed this person's seat to a bot during the game: it counts for nobody"
    )
    counted: bool = Field(
        description="the game counts in this name's standings (a finished game; a person's own seat, not"
        " played for practice nor handed to a bot; held by one name all game)"
    )
    holders: list[HolderPublic] = Field(
        description="who played the seat: the start's holder, then each change, by the ended rounds"
    )


class GameSummaryPublic(BaseModel):
    id: str = Field(description="the game's public id (random): what /api/games/{id} and replay links take")
    room: str | None = Field(
        description="the table's code, only in the table's own list (/api/rooms/{code}/games) once the game "
        "has ended; null elsewhere: public records never lead to a table"
    )
    number: int
    status: Literal["playing", "finished", "ended"] = Field(
        description="finished: played to its end; ended: ended by the host before it was over (no winners, "
        "never in the standings)"
    )
    created_at: datetime
    finished_at: datetime | None
    players: list[PlayerPublic]
    rounds_played: int
    totals: list[int]
    winners: list[int]


class GamePage(BaseModel):
    items: list[GameSummaryPublic]
    total: int
    limit: int
    offset: int
    next: str | None = Field(
        default=None, description="a player's list: pass as `after` for the page after this one (null: none)"
    )


class GamePublic(GameSummaryPublic):
    options: dict[str, Any]
    scores: list[list[int]]
    server_turns: list[int] | None = Field(
        default=None,
        description="per seat: the moves nobody at the table sent (a bot's, or the server's for a player who"
        " was away or out of time); in the game's own record only",
    )
    went_out: list[int | None] = Field(
        description="per ended round (as in scores): the seat that went out first; null: the round reached "
        "the turn limit"
    )


class RoundPublic(BaseModel):
    game_id: str
    round: int
    wild_rank: str
    dealer: int
    went_out: int | None = Field(description="null: nobody went out; the round reached the turn limit")
    hands: list[HandView]


class ActionPublic(BaseModel):
    seat: int
    action: dict[str, Any]


class GameExport(BaseModel):
    format: str
    game: GamePublic
    players: int
    options: dict[str, Any]
    seed: int
    actions: list[ActionPublic]
    final_state: dict[str, Any]


class GameReplay(BaseModel):
    game: GamePublic
    players: int
    options: dict[str, Any]
    steps: list[ReplayFrame]  # the engine's frames: the shared table view plus every hand


def _summary(record: GameSummaryRecord, *, named_room: bool = False) -> dict[str, Any]:
    """A game's public record. Its room code is given only where the caller named that room (the table's
    own list): a table lives on after a game (rematch, reopen), so a record found by a player's name or a
    game id must never lead to one."""
    return {
        "id": record.id,
        "room": record.room_code if named_room and record.status != "playing" else None,
        "number": record.number,
        "status": record.status,
        "created_at": record.created_at,
        "finished_at": record.finished_at,
        "players": [
            {
                "seat": p.seat,
                "name": p.name,
                "bot": p.is_bot,
                "handed_to_bot": p.handed,
                "counted": p.counted,
                "holders": [vars_of(h) for h in p.holders],
            }
            for p in record.players
        ],
        "rounds_played": record.rounds_played,
        "totals": record.totals,
        "winners": record.winners,
    }


def _game(record: GameDetailRecord | GameExportRecord) -> dict[str, Any]:
    """A game's public record with its options and the score sheet of its ended rounds."""
    return {
        **_summary(record.summary),
        "options": record.options,
        "scores": record.scores,
        "went_out": record.went_out,
        **({"server_turns": record.server_turns} if isinstance(record, GameDetailRecord) else {}),
    }


def _game_not_found(game_id: str) -> Refusal:
    return Refusal("game_not_found", f"no game with id {game_id}")


@router.get("/rooms/{code}/games", response_model=GamePage, responses=NOT_FOUND)
async def room_games(
    code: str, history: HistoryDep, manager: ManagerDep, window: WindowDep
) -> dict[str, Any]:
    """Every game played at the table, newest first, with totals and winners."""
    room = await manager.require(code)  # room_not_found (404) for unknown codes
    page = await history.room_games(room.code, **window.filters())
    return window.page([_summary(r, named_room=True) for r in page.items], page.total)


def vars_of(record: Any) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__slots__}


def name_reads(request: Request, settings: SettingsDep, manager: ManagerDep) -> None:
    """Every read by a player's name (the record, the games) spends one per-address budget
    (``MAX_STANDINGS_PER_MINUTE``, made on first use)."""
    if not address_allowed(request, "standings_rate", settings.max_standings_per_minute, manager.clock):
        raise Refusal("rate_limited", "too many standings asked for from your address; wait a minute")


PlayerName = Annotated[
    str, Path(min_length=1, max_length=64, description="a player's name (any case, look-alikes; may hold /)")
]
After = Annotated[
    str | None,
    Query(
        max_length=64,
        pattern=r"^[0-9]{1,20}\.[A-Za-z0-9_-]{1,32}$",
        description="the page after this one: the `next` of the page before (deep pages need no offset)",
    ),
]


def _cursor(record: GameSummaryRecord) -> str:
    assert record.finished_at is not None  # a name's games are finished games
    return f"{round(record.finished_at.timestamp() * 1_000_000)}.{record.id}"


def _after(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    micros, public_id = cursor.split(".", 1)
    return datetime.fromtimestamp(int(micros) / 1_000_000, tz=UTC), public_id


@router.get(
    "/players/{name:path}/games",
    response_model=GamePage,
    dependencies=[Depends(name_reads)],
    responses=LIMITED,
)
async def player_games(
    name: PlayerName, history: HistoryDep, window: WindowDep, after: After = None
) -> dict[str, Any]:
    """The finished games a player of that name (any letter case, look-alikes) played, the last finished
    first: never a game being played, nor one their seat played for practice. ``since``/``until`` filter on
    the finish time. For deep pages pass the last page's ``next`` as ``after`` rather than an offset."""
    page = await history.player_games(name, **window.filters(), after=_after(after))
    items = [_summary(r) for r in page.items]
    more = len(page.items) == window.limit
    return {**window.page(items, page.total), "next": _cursor(page.items[-1]) if more else None}


@router.get("/games/{game_id}", response_model=GamePublic, responses=NOT_FOUND)
async def game(game_id: GameId, history: HistoryDep) -> dict[str, Any]:
    """Options, players, the score sheet of ended rounds, totals, winners and status."""
    detail = await history.game(game_id)
    if detail is None:
        raise _game_not_found(game_id)
    return _game(detail)


@router.get("/games/{game_id}/rounds/{round_number}", response_model=RoundPublic, responses=NOT_YET)
async def game_round(
    game_id: GameId, round_number: Annotated[int, Path(ge=1, le=11)], history: HistoryDep
) -> dict[str, Any]:
    """After round n ended: every hand as it ended, with its best melds and penalty."""
    exists, result = await history.round_result(game_id, round_number)
    if not exists:
        raise _game_not_found(game_id)
    if result is None:
        raise Refusal("round_not_finished", f"round {round_number} of game {game_id} has not ended")
    return {"game_id": game_id, **result}


def _json(model: type[BaseModel], payload: dict[str, Any]) -> bytes:
    """``payload`` as the route's ``response_model`` sends it (validated, then encoded)."""
    return model.model_validate(payload).model_dump_json().encode()


async def _finished(history: History, game_id: str, what: str) -> Any:
    record = await history.export(game_id)
    if record is None:
        raise _game_not_found(game_id)
    if record.summary.status == "ended":
        raise Refusal("game_not_finished", f"game {game_id} was ended by its host before it was over")
    if record.summary.status != "finished":
        raise Refusal("game_not_finished", f"game {game_id} is still being played; {what} it when it ends")
    return record


@router.get("/games/{game_id}/export", response_model=GameExport, responses=RECORD)
async def export(game_id: GameId, history: HistoryDep, records: RecordsDep) -> Response:
    """The complete record of a finished game: replay it with ``app.engine.replay(players, options, seed,
    actions)``. A game still being played is never exported (its seed would reveal every hidden card).
    Rate-limited per address (``MAX_RECORDS_PER_MINUTE``); a finished game's export is built once."""

    async def build() -> bytes:
        record = await _finished(history, game_id, "export")
        payload = {
            "format": EXPORT_FORMAT,
            "game": _game(record),
            "players": len(record.summary.players),
            "options": record.options,
            "seed": record.seed,
            "actions": [{"seat": seat, "action": action} for seat, action in record.actions],
            "final_state": record.final_state,
        }
        return await asyncio.to_thread(_json, GameExport, payload)

    body = await records.cache.get_or_build(("export", game_id), build)
    return Response(body, media_type="application/json")


@router.get("/games/{game_id}/replay", response_model=GameReplay, responses=RECORD)
async def game_replay(game_id: GameId, history: HistoryDep, records: RecordsDep) -> Response:
    """A finished game turn by turn with every hand open: its export replayed through the engine, one
    frame per deal, move and round end. Like the export, never for a game still being played; rate-limited
    the same way, and built once per finished game."""

    async def build() -> bytes:
        record = await _finished(history, game_id, "replay")
        players = len(record.summary.players)

        def encode() -> bytes:
            steps = replay_steps(players, record.options, record.seed, record.actions)
            payload = {"game": _game(record), "players": players, "options": record.options, "steps": steps}
            return _json(GameReplay, payload)

        return await asyncio.to_thread(encode)

    body = await records.cache.get_or_build(("replay", game_id), build)
    return Response(body, media_type="application/json")
