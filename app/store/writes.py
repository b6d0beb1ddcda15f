"""Each kind of write's SQL: what a table change (``app.table.Write``) does to the rows.

A move inside a round has its own module (``moves``: the hot path); a move that ends a round starts with the
same statements and adds the game's snapshot here. Every write moves the room's ``version`` with an
optimistic check (``WHERE version = expected``), so two writers can never both win.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, assert_never

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.engine import action_to_dict
from app.table import (
    AddSeat,
    Change,
    EndGame,
    RecordMove,
    RemoveSeat,
    Reopen,
    ReplaceSeat,
    Seat,
    SetHost,
    SetLobby,
    StartGame,
    Table,
)
from app.table.schedule import stored_due, turn_seat
from app.table.text import name_key, name_skeleton

from . import push
from .errors import StoreError, VersionConflict
from .models import GamePlayerRow, GameRow, RoomRow, RoundScoreRow, SeatRow
from .moves import GAMES, ROOMS, MoveRow, log_move
from .standings_writes import record_game_end

SCORES: SqlTable = RoundScoreRow.__table__  # type: ignore[assignment]
PLAYERS: SqlTable = GamePlayerRow.__table__  # type: ignore[assignment]
SEATS: SqlTable = SeatRow.__table__  # type: ignore[assignment]

# The writes of a move that ends a round or the game, after the move's own (``moves.log_move``).
_MOVE_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_id"))
    .values(
        state=bindparam("state"),
        version=bindparam("version"),
        status=bindparam("status"),
        finished_at=bindparam("finished_at"),
    )
)
# The writes that change the room (and its seats) but no game.
RoomWrite = AddSeat | ReplaceSeat | RemoveSeat | SetHost | SetLobby | Reopen


def move_row(table: Table, move: RecordMove, now: datetime) -> MoveRow:
    """The move's own row values (its log row, the room's and game's new version, the wake columns)."""
    status = "finished" if move.state.is_over else "playing"
    action = action_to_dict(move.action)
    code, version = table.code, table.version
    return MoveRow(
        code, version, status, move.game_id, move.state.moves, move.seat, action, move.client_id, now,
        due=stored_due(table), turn=turn_seat(table),
    )  # fmt: skip


def ends_round(move: RecordMove) -> bool:
    """Whether the move writes the game's snapshot: it ends a round (one is dealt, seats may change hands)
    or the game. A move inside a round writes none: loading replays the round's logged moves onto it."""
    return bool(move.round_scores or move.final_totals or move.state.is_over or move.seats)


def plain_round_end(move: RecordMove) -> bool:
    """A move that ends a round and nothing more (not the game, no seat handed over): PostgreSQL writes it
    in one statement (``pg_moves``)."""
    return bool(move.round_scores) and not (move.final_totals or move.state.is_over or move.seats)


async def record_round_end(conn: AsyncConnection, row: MoveRow, move: RecordMove) -> None:
    """A move that ends a round, in the caller's ONE transaction: the move's own writes, the game's snapshot,
    the round's scores, the final totals, the seats handed over."""
    await log_move(conn, row)
    finished = move.state.is_over
    await conn.execute(
        _MOVE_GAME,
        {
            "b_id": move.game_id,
            "state": move.state.to_dict(),
            "version": row.version,
            "status": row.status,
            "finished_at": row.now if finished else None,
        },
    )
    if move.round_scores:
        await conn.execute(
            insert(SCORES),
            [
                {
                    "game_id": move.game_id,
                    "round": s.round,
                    "seat": s.seat,
                    "name": s.name,
                    "penalty": s.penalty,
                    "went_out": s.went_out,
                    "bot": s.bot,
                }
                for s in move.round_scores
            ],
        )
    if move.final_totals:
        await record_game_end(conn, move, row.now)
    for seat in move.seats:  # seats handed over at this new round (or this game's end)
        await _replace_seat(conn, row.code, seat)


async def create_room(session: AsyncSession, table: Table, now: datetime) -> None:
    """Insert a new room (in the lobby, with its first seats)."""
    session.add(
        RoomRow(
            code=table.code,
            created_at=now,
            status=table.status.value,
            options=table.options.to_dict(),
            seat_count=table.seat_count,
            host_seat=table.host_seat,
            current_game_id=None,
            version=table.version,
            origin_salt=table.origin_salt,
        )
    )
    await session.flush()
    session.add_all(_seat_row(table.code, seat, now) for seat in table.seats)


async def change_room(session: AsyncSession, change: Change, write: RoomWrite) -> None:
    """A write that changes the room and its seats: the room's version moves with what the write sets."""
    code, now = change.table.code, change.at
    match write:
        case SetLobby():
            await _bump(session, change.table, options=write.options.to_dict(), seat_count=write.seat_count)
        case Reopen():  # the finished game stays current: the next one's number goes on
            await _bump(session, change.table, status=change.table.status.value)
        case SetHost():
            await _bump(session, change.table, **_host(change.table))
        case RemoveSeat():  # a removal below the host moves the host down
            await _bump(session, change.table, **_host(change.table))
            await _remove_seat(session, code, write.index)
            await push.drop_unseated(session, code)
        case AddSeat():
            await _bump(session, change.table)
            session.add(_seat_row(code, write.seat, now))
        case ReplaceSeat():  # a person who left passes the host role in the same write
            await _bump(session, change.table, **_host(change.table))
            await _replace_seat(session, code, write.seat)
            await push.drop_unseated(session, code)
            if write.handed and change.table.game_id is not None:  # that game counts for nobody there
                await session.execute(
                    update(PLAYERS)
                    .where(PLAYERS.c.game_id == change.table.game_id, PLAYERS.c.seat == write.seat.index)
                    .values(handed=True)
                )
        case _:
            assert_never(write)


async def start_game(session: AsyncSession, table: Table, start: StartGame, now: datetime) -> int:
    """Create the room's next game and make it current (room: playing). Returns the game's id."""
    code, version = table.code, table.version
    players = [
        {"seat": s.index, "name": s.name, "bot": s.is_bot, "bot_level": s.bot_level} for s in start.players
    ]
    row = GameRow(
        room_code=code,
        public_id=start.public_id,
        number=start.number,
        options=start.options.to_dict(),
        seed=start.seed,
        players=players,
        status="playing",
        version=version,
        state=start.state.to_dict(),
        created_at=now,
        finished_at=None,
    )
    session.add(row)
    await session.flush()
    session.add_all(
        GamePlayerRow(
            game_id=row.id,
            seat=s.index,
            name=s.name,
            name_key=name_key(s.name),
            skeleton=name_skeleton(s.name),
            is_bot=s.is_bot,
            is_program=s.is_program,
            practice=s.practice,
            origin=s.origin,
            total=None,
            won=None,
        )
        for s in start.players
    )
    await _bump(
        session,
        table,
        status="playing",
        current_game_id=row.id,
        seat_count=len(players),
        options=start.options.to_dict(),
    )
    return row.id


async def end_game(session: AsyncSession, change: Change, end: EndGame) -> None:
    """The host ended the game before it was over: the game is recorded as ``ended`` (its totals and
    winners stay empty: ``standings_writes`` is never called, so it is in nobody's standings) and the room
    goes back to the lobby, with the seats handed over now."""
    code = change.table.code
    await _bump(session, change.table, status=change.table.status.value)
    result = await session.execute(
        update(GAMES)
        .where(GAMES.c.id == end.game_id, GAMES.c.status == "playing")
        .values(status="ended", finished_at=change.at)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(f"game {end.game_id} of room {code} is no longer being played")
    for seat in end.seats:
        await _replace_seat(session, code, seat)


def _seat_values(seat: Seat) -> dict[str, Any]:
    """A seat's row, as column values (the index and room aside)."""
    claim = seat.claim
    return {
        "name": seat.name,
        "token_hash": seat.token_hash,
        "is_bot": seat.is_bot,
        "bot_level": seat.bot_level,
        "is_program": seat.is_program,
        "former_token_hash": seat.former_token_hash,
        "claim_name": None if claim is None else claim.name,
        "claim_token_hash": None if claim is None else claim.token_hash,
        "claim_approved": claim is not None and claim.approved,
        "practice": seat.practice,
        "avatar": seat.avatar,
        "origin": seat.origin,
        "claim_origin": None if claim is None else claim.origin,
        "missed": seat.missed,
    }


def _seat_row(code: str, seat: Seat, now: datetime) -> SeatRow:
    return SeatRow(room_code=code, seat_index=seat.index, created_at=now, **_seat_values(seat))


def _host(table: Table) -> dict[str, Any]:
    """The room's host columns: its host's seat, and the host who was gone, to whom the role returns."""
    return {"host_seat": table.host_seat, "host_returns_to": table.host_returns_to}


def wake_values(table: Table) -> dict[str, Any]:
    """The room's columns every write sets from the new table: when a paced table must be woken, and whose
    turn it is (``schedule.stored_due``, ``schedule.turn_seat``)."""
    return {"due_at": stored_due(table), "turn_seat": turn_seat(table)}


async def _bump(db: AsyncSession | AsyncConnection, table: Table, **values: Any) -> None:
    """Move the room from ``version - 1`` to ``table.version`` (and set ``values`` and the wake columns), or
    raise VersionConflict."""
    code, version = table.code, table.version
    result = await db.execute(
        update(ROOMS)
        .where(ROOMS.c.code == code, ROOMS.c.version == version - 1)
        .values(version=version, **values, **wake_values(table))
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(f"room {code} is no longer at version {version - 1}")


async def _replace_seat(db: AsyncSession | AsyncConnection, code: str, seat: Seat) -> None:
    result = await db.execute(
        update(SEATS)
        .where(SEATS.c.room_code == code, SEATS.c.seat_index == seat.index)
        .values(**_seat_values(seat))
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise StoreError(f"room {code} has no seat {seat.index}")


async def _remove_seat(session: AsyncSession, code: str, index: int) -> None:
    """Remove a seat; the seats above it move down by one (the game needs seats 0..n-1)."""
    await session.execute(delete(SeatRow).where(SeatRow.room_code == code, SeatRow.seat_index == index))
    above = (
        await session.scalars(
            select(SeatRow)
            .where(SeatRow.room_code == code, SeatRow.seat_index > index)
            .order_by(SeatRow.seat_index)
        )
    ).all()
    for row in above:  # one by one, lowest first, so the unique (room, index) is never violated
        row.seat_index -= 1
        await session.flush()
