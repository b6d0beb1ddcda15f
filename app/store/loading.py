"""Reading rooms and games back: a room as a table, a game replayed from its snapshot and log, and the cheap
checks of a cached table (stored versions, a client action's ack)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, assert_never

from sqlalchemy import Select, and_, bindparam, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.engine import Event, GameState, Options, action_from_dict, apply
from app.table import Claim, RoomStatus, Seat, Table

from .dialect import Dialect
from .models import GameRow, RoomRow, SeatRow
from .moves import ACTIONS, ROOMS


@dataclass(frozen=True, slots=True)
class AckRecord:
    """What an accepted client action produced, to answer its retries."""

    seat: int
    version: int


@dataclass(frozen=True, slots=True)
class ReplayedMove:
    """One move of the current round as loading replayed it from the log: who made it, its client id (None:
    the server played it), and the events the engine gave (what a page that connects is shown of it)."""

    seat: int
    client_id: str | None
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class LoadedTable:
    """A room read back from the store: the table, the acks of its current game's client actions, and the
    current round's moves, oldest first, as replayed from the log onto the round's snapshot."""

    table: Table
    acks: dict[str, AckRecord]
    round_moves: tuple[ReplayedMove, ...] = ()


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move as the action log holds it."""

    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None
    version: int
    at: datetime


@dataclass(frozen=True, slots=True)
class Tail:
    """A room's stored version, its current game, and that game's moves after a given one (``Store.tail``)."""

    version: int
    game_id: int | None
    moves: tuple[LoggedMove, ...]


async def one_snapshot(session: AsyncSession, dialect: Dialect) -> None:
    """Make every read of the session see one moment: another process may be writing. (SQLite reads each
    statement at its own moment; its writers are serialised per process.)"""
    match dialect:
        case Dialect.POSTGRESQL:
            await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        case Dialect.SQLITE:
            pass
        case _:
            assert_never(dialect)


async def versions(engine: AsyncEngine, codes: Iterable[str]) -> dict[str, int]:
    """The stored version of each of these rooms (one indexed read; a code with no room is left out)."""
    wanted = list(dict.fromkeys(codes))
    if not wanted:
        return {}
    async with engine.connect() as conn:
        rows = await conn.execute(select(ROOMS.c.code, ROOMS.c.version).where(ROOMS.c.code.in_(wanted)))
        return {code: version for code, version in rows}


def due_query(now: datetime, limit: int) -> Select[Any]:
    """The rooms whose stored wake time (``rooms.due_at``: a paced table's turn deadline) is past, the most
    overdue first: a read of the ``due_at`` index."""
    return select(ROOMS.c.code).where(ROOMS.c.due_at <= now).order_by(ROOMS.c.due_at).limit(limit)


async def due_rooms(engine: AsyncEngine, now: datetime, limit: int) -> list[str]:
    """The codes of ``due_query``, in one read."""
    async with engine.connect() as conn:
        return list((await conn.execute(due_query(now, limit))).scalars())


async def ack_of(engine: AsyncEngine, code: str, client_id: str) -> AckRecord | None:
    """The ack of a client action of the room's current game, read from its log (None: never applied)."""
    query = (
        select(ACTIONS.c.seat, ACTIONS.c.version)
        .join(ROOMS, ROOMS.c.current_game_id == ACTIONS.c.game_id)
        .where(ROOMS.c.code == code, ACTIONS.c.client_id == client_id)
    )
    async with engine.connect() as conn:
        row = (await conn.execute(query)).first()
    return None if row is None else AckRecord(row.seat, row.version)


# A room's version and the moves of one of its games after a given one: one statement (the room joined with
# its log), so one snapshot on either database and one round trip. A game that is not the room's current
# one (or none, ``t_game`` NULL) joins no move.
_TAIL = (
    select(
        ROOMS.c.version,
        ROOMS.c.current_game_id,
        ACTIONS.c.seq,
        ACTIONS.c.seat,
        ACTIONS.c.action,
        ACTIONS.c.client_id,
        ACTIONS.c.version,
        ACTIONS.c.created_at,
    )
    .select_from(
        ROOMS.outerjoin(
            ACTIONS,
            and_(
                ACTIONS.c.game_id == ROOMS.c.current_game_id,
                ACTIONS.c.game_id == bindparam("t_game"),
                ACTIONS.c.seq > bindparam("t_after"),
            ),
        )
    )
    .where(ROOMS.c.code == bindparam("t_code"))
    .order_by(ACTIONS.c.seq)
)


async def tail(reader: AsyncEngine, code: str, *, game_id: int | None, after_seq: int) -> Tail | None:
    """The room's stored version and the moves of its game ``game_id`` logged after ``after_seq``, read at one
    moment (None: no such room). ``reader`` runs it without a transaction around it (one statement is its own
    snapshot): a process following a table another one moves reads this once a move."""
    async with reader.connect() as conn:
        rows = (await conn.execute(_TAIL, {"t_game": game_id, "t_after": after_seq, "t_code": code})).all()
    if not rows:
        return None
    version, current_game_id = rows[0][0], rows[0][1]
    moves = tuple(LoggedMove(*row[2:]) for row in rows if row[2] is not None)
    return Tail(version, current_game_id, moves)


async def load_game(
    sessions: async_sessionmaker[AsyncSession], dialect: Dialect, game_id: int
) -> tuple[int, GameState] | None:
    """(version, state) of one game as it is now: its snapshot with the round's logged moves replayed.
    The version is that of the last move replayed."""
    async with sessions() as session:
        await one_snapshot(session, dialect)  # the snapshot and the log read at one moment
        game = await session.get(GameRow, game_id)
        if game is None:
            return None
        log = (
            await session.execute(
                select(ACTIONS.c.seq, ACTIONS.c.seat, ACTIONS.c.action, ACTIONS.c.version)
                .where(ACTIONS.c.game_id == game_id, ACTIONS.c.seq > game.state["moves"])
                .order_by(ACTIONS.c.seq)
            )
        ).all()
        version = log[-1].version if log else game.version
        return version, replay_round(game.state, [(seq, seat, action) for seq, seat, action, _ in log])


async def load_table(
    sessions: async_sessionmaker[AsyncSession], dialect: Dialect, code: str
) -> LoadedTable | None:
    """The room as a table: its seats, its current game (snapshot), and when its turn and last move
    began (the commit times in the game's log), with the acks of the game's client actions."""
    async with sessions() as session:
        await one_snapshot(session, dialect)
        room = await session.get(RoomRow, code)
        if room is None:
            return None
        seat_rows = (
            await session.scalars(
                select(SeatRow).where(SeatRow.room_code == code).order_by(SeatRow.seat_index)
            )
        ).all()
        seats = tuple(_seat(s) for s in seat_rows)
        started = last_move = room.created_at
        game: GameRow | None = None
        acks: dict[str, AckRecord] = {}
        replayed: list[ReplayedMove] = []
        if room.current_game_id is not None:
            game = await session.get(GameRow, room.current_game_id)
        if game is not None:
            started = last_move = game.created_at
            log = await session.execute(
                select(ACTIONS.c.client_id, ACTIONS.c.seat, ACTIONS.c.version, ACTIONS.c.created_at)
                .add_columns(ACTIONS.c.action, ACTIONS.c.seq)
                .where(ACTIONS.c.game_id == game.id)
                .order_by(ACTIONS.c.seq)
            )
            moves: list[tuple[int, int, dict[str, Any]]] = []
            client_ids: dict[int, str | None] = {}
            for client_id, seat, version, created_at, action, seq in log:
                last_move = created_at
                if action.get("type") != "draw":  # a discard hands the turn on
                    started = last_move
                if client_id:
                    acks[client_id] = AckRecord(seat, version)
                moves.append((seq, seat, action))
                client_ids[seq] = client_id
        state: GameState | None = None
        if game is not None:

            def seen(seq: int, seat: int, events: tuple[Event, ...]) -> None:
                replayed.append(ReplayedMove(seat, client_ids[seq], events))

            state = replay_round(game.state, moves, seen)
        table = Table(
            code=room.code,
            status=RoomStatus(room.status),
            version=room.version,
            host_seat=room.host_seat,
            host_returns_to=room.host_returns_to,
            origin_salt=room.origin_salt,
            seat_count=room.seat_count,
            options=Options.from_dict(room.options),
            seats=seats,
            turn_started=started,
            last_move_at=last_move,
            game=state,
            game_id=None if game is None else game.id,
            game_number=None if game is None else game.number,
            game_seed=0 if game is None else game.seed,
            game_public_id=None if game is None else game.public_id,
            play_version=0 if game is None else game.version,  # set by its start and by every move
        )
        return LoadedTable(table, acks, tuple(replayed))


Replayed = Callable[[int, int, tuple[Event, ...]], None]  # (seq, seat, events) of each move replayed


def replay_round(
    snapshot: dict[str, Any], log: Iterable[tuple[int, int, dict[str, Any]]], seen: Replayed | None = None
) -> GameState:
    """The game as it is now: its snapshot (written at the start and at every round's end) with the logged
    moves made since (``seq`` after the snapshot's move count) applied by the deterministic engine; ``seen``
    hears each move replayed with its events."""
    state = GameState.from_dict(snapshot)
    for seq, seat, action in log:
        if seq > state.moves:
            state, events = apply(state, seat, action_from_dict(action))
            if seen is not None:
                seen(seq, seat, tuple(events))
    return state


def _seat(row: SeatRow) -> Seat:
    claim = None
    if row.claim_token_hash is not None and row.claim_name is not None:
        claim = Claim(row.claim_name, row.claim_token_hash, row.claim_approved, origin=row.claim_origin)
    return Seat(
        row.seat_index,
        row.name,
        row.is_bot,
        row.bot_level,
        row.token_hash,
        row.is_program,
        former_token_hash=row.former_token_hash,
        claim=claim,
        practice=row.practice,
        avatar=row.avatar,
        origin=row.origin,
        missed=row.missed,
    )
