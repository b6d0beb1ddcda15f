"""REST: a browser's tables. ``POST /api/my-tables`` takes the (room code, seat token) pairs a browser keeps
and answers, for each table where the token holds a seat, what a list of tables shows: the players, whose
turn it is, the turn's deadline at a table played at its own pace, and the chat lines not read yet. Tokens
travel in the body only (never in a URL or a log); the store reads every table in one statement; limited
per client address (``MAX_TABLE_LISTS_PER_MINUTE``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from app.engine.options import LIVE, PACES
from app.rooms import hash_token
from app.store import MyTableRecord, TableAsk
from app.table import Refusal

from .deps import ManagerDep, SettingsDep
from .errors import ErrorPublic, refusals
from .record_cache import address_allowed

MAX_TABLES = 50  # tables one request asks about: more than a browser keeps, fewer than a body's limit holds

router = APIRouter(
    prefix="/api",
    tags=["rooms"],
    responses={
        **refusals(
            f"bad_request: the body failed validation (at most {MAX_TABLES} tables, each code once, a code "
            "of 4–16 letters and digits, a token as the server gave it, chat_read a time with its offset)"
        ),
        429: {"model": ErrorPublic, "description": "too many lists of tables asked for from this address"},
    },
)

Code = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{4,16}$", description="the room's code (any case)")]
Token = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="the seat token the server gave when this browser joined (or asked for a seat)",
    ),
]


class TableHeld(BaseModel):
    """One table a browser keeps a seat token for."""

    model_config = ConfigDict(extra="forbid")

    code: Code
    token: Token
    chat_read: AwareDatetime | None = Field(
        default=None,
        description="the `at` of the newest chat line this browser has read at the table (none: nothing read)"
        ": only lines said after it, by others, count as unread",
    )


class MyTablesAsk(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "tables": [
                        {
                            "code": "K7QX3MPA",
                            "token": "q2n8Yw3yH1c5rQm0fJx7kT4pZ9vLs6bE2aU8dG1hN0o",
                            "chat_read": "2026-12-06T08:12:40.512Z",
                        },
                        {"code": "P4TQ8N2X", "token": "Vb7Kp2Qw9Zr4Tn6Ys1Lm3Xc8Hd5Jf0Ga2Ue7Io4Sa9w"},
                    ]
                }
            ]
        },
    )

    tables: list[TableHeld] = Field(max_length=MAX_TABLES)

    @field_validator("tables")
    @classmethod
    def _each_code_once(cls, tables: list[TableHeld]) -> list[TableHeld]:
        codes = [t.code.upper() for t in tables]
        if len(set(codes)) != len(codes):
            raise ValueError("each table's code at most once")
        return tables


class TablePlayer(BaseModel):
    seat: int
    name: str
    bot: bool = Field(description="a bot plays the seat (a person's who left keeps their name)")
    program: bool = Field(description="a program someone runs with the protocol")
    avatar: str | None = Field(description="the face its person picked (none yet: none)")
    you: bool = Field(description="the asking token's seat (played by a bot when `held` is `bot`)")


class TableChatPublic(BaseModel):
    latest: datetime | None = Field(description="when the newest kept chat line was said (none: no chat)")
    unread: int = Field(description="lines said by others after `chat_read`")


class MyTablePublic(BaseModel):
    """One table where the asking token holds a seat."""

    code: str
    status: Literal["lobby", "playing", "finished"]
    host: str = Field(description="the host's name: whose table it is")
    seat: int = Field(description="the token's seat")
    held: Literal["you", "bot", "asked"] = Field(
        description="you: the token plays the seat; bot: a bot plays it for the token's person (they left, "
        "or their turns ran out at a paced table), who may take it back; asked: the token asked for this "
        "bot's seat and waits for the host"
    )
    players: list[TablePlayer] = Field(description="every seat, in order")
    pace: str | int = Field(
        description="`live`, or the hours a turn may take", json_schema_extra={"enum": list(PACES)}
    )
    game: int | None = Field(description="the current (or last) game's number at the table")
    round: int | None = Field(description="that game's round (1–11)")
    turn: int | None = Field(description="the seat whose turn it is while a game is on")
    your_turn: bool = Field(description="it is the token's turn, and the token plays its seat")
    due_at: datetime | None = Field(
        description="at a paced table, when the person to move runs out of time (the server then plays the "
        "turn for them); none at live tables, between games, and while a bot is to move"
    )
    chat: TableChatPublic


class MyTablesPublic(BaseModel):
    tables: list[MyTablePublic] = Field(description="the tables asked about where the token holds a seat")
    gone: list[str] = Field(
        description="the codes asked about where the token holds no seat, or the table is no more: a client "
        "may forget those tokens"
    )
    server_time: datetime = Field(description="the server's clock now, to count down `due_at` with")

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "tables": [
                        {
                            "code": "K7QX3MPA",
                            "status": "playing",
                            "host": "Sara",
                            "seat": 1,
                            "held": "you",
                            "players": [
                                {
                                    "seat": 0,
                                    "name": "Sara",
                                    "bot": False,
                                    "program": False,
                                    "avatar": "owl",
                                    "you": False,
                                },
                                {
                                    "seat": 1,
                                    "name": "Omid",
                                    "bot": False,
                                    "program": False,
                                    "avatar": "fox",
                                    "you": True,
                                },
                                {
                                    "seat": 2,
                                    "name": "Bot 3",
                                    "bot": True,
                                    "program": False,
                                    "avatar": None,
                                    "you": False,
                                },
                            ],
                            "pace": 24,
                            "game": 1,
                            "round": 4,
                            "turn": 1,
                            "your_turn": True,
                            "due_at": "2026-12-07T08:00:00Z",
                            "chat": {"latest": "2026-12-06T08:40:02.118Z", "unread": 2},
                        }
                    ],
                    "gone": ["P4TQ8N2X"],
                    "server_time": "2026-12-06T09:00:00Z",
                }
            ]
        }
    }


def _table(record: MyTableRecord) -> dict[str, Any]:
    """What the list shows of one table (the store's record, read at one moment)."""
    names = {p.seat: p for p in record.players}
    pace = record.options.get("pace", LIVE)
    playing = record.status == "playing" and record.turn_seat is not None
    turn = record.turn_seat if playing else None
    mover = names.get(turn) if turn is not None else None
    host = names.get(record.host_seat)
    yours = record.held != "asked"
    return {
        "code": record.code,
        "status": record.status,
        "host": host.name if host else "",
        "seat": record.seat,
        "held": record.held,
        "players": [
            {
                "seat": p.seat,
                "name": p.name,
                "bot": p.bot,
                "program": p.program,
                "avatar": p.avatar,
                "you": yours and p.seat == record.seat,
            }
            for p in record.players
        ],
        "pace": pace,
        "game": record.game_number,
        "round": record.round,
        "turn": turn,
        "your_turn": record.held == "you" and turn == record.seat,
        "due_at": record.due_at if pace != LIVE and mover is not None and not mover.bot else None,
        "chat": {"latest": record.chat_latest, "unread": record.chat_unread},
    }


@router.post("/my-tables", response_model=MyTablesPublic)
async def my_tables(
    body: MyTablesAsk, request: Request, manager: ManagerDep, settings: SettingsDep
) -> dict[str, Any]:
    """The tables where this browser's seat tokens hold a seat, in the order asked, for a list of "your
    tables": one request for many tables, each answered only with what its own token may see there. A token
    that holds nothing at its table (or a table that is no more) is answered in ``gone``: that is all it
    tells. The tokens are in the body, never in a URL; nothing logs a body."""
    if not address_allowed(request, "table_lists_rate", settings.max_table_lists_per_minute, manager.clock):
        raise Refusal("rate_limited", "too many lists of tables asked for from your address; wait a minute")
    asks = [TableAsk(t.code.upper(), hash_token(t.token), t.chat_read) for t in body.tables]
    found = await manager.store.my_tables(asks)
    held = {record.code for record in found}
    return {
        "tables": [_table(record) for record in found],
        "gone": [ask.code for ask in asks if ask.code not in held],
        "server_time": manager.clock.now(),
    }
