"""SQLAlchemy 2 table models: rooms, seats, games, the ordered action log, per-round scores, a table's
recent chat, the standings and ratings, Web Push (the server's key, the seats' subscriptions), and names kept
with passkeys."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Explicit constraint names keep migrations identical on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A moment, always read back as an aware UTC datetime: SQLite keeps no offset and hands back naive
    values; everything stored is UTC, so every time the store returns (and the API and sockets send) says
    so."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class RoomRow(Base):
    """One table of friends. ``version`` grows with every move and lobby change (the wire version)."""

    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    status: Mapped[str] = mapped_column(String(16))  # lobby | playing | finished
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seat_count: Mapped[int] = mapped_column(Integer)
    host_seat: Mapped[int] = mapped_column(Integer, default=0)
    # No foreign key: games point at rooms, and a cycle would complicate migrations on SQLite.
    current_game_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    # The hashed token of the host who was gone, to whom the role returns when they are back (``Table``).
    host_returns_to: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The table's secret for its seats' origins (``app.table.origins``); None for tables from before them.
    origin_salt: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # When a table played at its own pace must next be woken (its turn's deadline: ``schedule.stored_due``);
    # None for live tables. Any process finds the due tables by this index and loads them.
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True, index=True)
    # The seat whose turn it is while a game is on (None otherwise): what a list of tables shows.
    turn_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)


class SeatRow(Base):
    """A seat at a room: a person (holding a secret token, stored only as its SHA-256) or a bot."""

    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("room_code", "seat_index", name="uq_seats_room_index"),
        Index("ix_seats_token_hash", "token_hash"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), index=True)
    seat_index: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # A program someone runs with the protocol (not the server's bot): shown as one at the table.
    is_program: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A bot's seat: the (hashed) token of the person it was handed from, who may take it back unasked.
    former_token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # A bot's seat: someone asking for it (pending, or approved and waiting for the next round).
    claim_name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claim_token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claim_approved: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A person's seat played for practice: its games are left out of the standings.
    practice: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A person's seat: the face they picked (one of ``app.table.AVATARS``); null: none yet.
    avatar: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # Where the seat's person (and the asker, for a claim) joined from: a keyed hash, never the address.
    origin: Mapped[str | None] = mapped_column(String(16), nullable=True)
    claim_origin: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # Turns in a row the server played for this person because their time ran out at a paced table.
    missed: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class GameRow(Base):
    """One game played at a room, with its options, seed, players and the latest state snapshot."""

    __tablename__ = "games"
    __table_args__ = (
        UniqueConstraint("room_code", "number", name="uq_games_room_number"),
        UniqueConstraint("public_id", name="uq_games_public_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)  # never leaves the server
    public_id: Mapped[str] = mapped_column(String(16))  # random: the game's id in every public URL
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    players: Mapped[list[Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))  # playing | finished | ended (by the host, unfinished)
    version: Mapped[int] = mapped_column(Integer)  # the room version this snapshot belongs to
    state: Mapped[dict[str, Any]] = mapped_column(JSON)  # GameState.to_dict(): secret, never sent out
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ActionRow(Base):
    """One accepted move, in order; ``client_id`` makes retries idempotent."""

    __tablename__ = "actions"
    __table_args__ = (
        UniqueConstraint("game_id", "seq", name="uq_actions_game_seq"),
        UniqueConstraint("game_id", "client_id", name="uq_actions_game_client_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, ...: the game's move number after this action
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)  # null for bots
    version: Mapped[int] = mapped_column(Integer)  # the room version this action produced
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ChatRow(Base):
    """One of a table's recent chat lines or reactions (``reaction``: ``text`` is its emoji), oldest first by
    ``id``. Only the last few are kept (``app.store.chat``): they go with their room."""

    __tablename__ = "chat_lines"
    __table_args__ = (Index("ix_chat_lines_room_code_id", "room_code", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))  # the seat's name when it was said
    text: Mapped[str] = mapped_column(Text)
    reaction: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    at: Mapped[datetime] = mapped_column(UTCDateTime())


class RoundScoreRow(Base):
    """The penalty of one seat in one finished round (the score sheet, kept for history)."""

    __tablename__ = "round_scores"
    __table_args__ = (UniqueConstraint("game_id", "round", "seat", name="uq_round_scores_game_round_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    penalty: Mapped[int] = mapped_column(Integer)
    went_out: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # out first
    bot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # a bot played it


class GamePlayerRow(Base):
    """Who sat where in one game. When the game ends the same transaction fills in how the seat did
    (``total``, ``won``, ``win``, ``place``, ...) and whether the game counts in its player's standings
    (``counted``: a person's seat, not a program's nor played for practice, held by one name all game)."""

    __tablename__ = "game_players"
    __table_args__ = (
        UniqueConstraint("game_id", "seat", name="uq_game_players_game_seat"),
        # Counted seats only (partial indexes): a player's latest games, and the boards by final total.
        Index(
            "ix_game_players_record",
            "skeleton",
            "finished_at",
            sqlite_where=text("counted = 1"),
            postgresql_where=text("counted = true"),
        ),
        # Every seat: a name's finished games that were not practice, newest first (the public history by
        # name), counted and paged from the index alone.
        Index("ix_game_players_by_name", "skeleton", "practice", "finished_at", "game_id"),
        Index(
            "ix_game_players_board",
            "total",
            "finished_at",
            "id",  # the boards' order exactly, and a page's seats read from the index alone
            sqlite_where=text("counted = 1"),
            postgresql_where=text("counted = true"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(64), index=True)  # lower-case name: finds games by name
    # What the name reads as (``app.table.text.name_skeleton``): look-alikes share one record.
    skeleton: Mapped[str] = mapped_column(String(64), default="", server_default="")
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    is_program: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    practice: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The host handed this person's seat to a bot during the game: it counts for nobody.
    handed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Where the seat's person joined from at the game's start (``app.table.origins``; None: unknown).
    origin: Mapped[str | None] = mapped_column(String(16), nullable=True)
    total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    won: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    counted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A person's game left out of the public records because every other person's seat joined from the same
    # address (``standings_writes.one_address``); it still counts in its own table's series.
    padded: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    win: Mapped[float | None] = mapped_column(Float, nullable=True)  # a shared win's share: 1/k of k
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)  # 1 + seats with a lower total
    rounds_out_first: Mapped[int | None] = mapped_column(Integer, nullable=True)
    perfect: Mapped[bool | None] = mapped_column(Boolean, nullable=True)  # out first in every round
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class PlayerStandingRow(Base):
    """One name's record over this server's counted finished games: kept up to date in the transaction
    that finishes each game, so the standings are read, never computed from the games."""

    __tablename__ = "player_standings"
    __table_args__ = (
        Index("ix_player_standings_wins", "wins"),
        Index("ix_player_standings_win_rate", "win_rate"),
        Index("ix_player_standings_average_total", "average_total"),
        Index("ix_player_standings_games", "games"),
        Index("ix_player_standings_rating", "rating"),
    )

    skeleton: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))  # as first played: look-alikes never rename it
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[float] = mapped_column(Float)
    win_rate: Mapped[float] = mapped_column(Float)
    total_sum: Mapped[int] = mapped_column(BigInteger)
    average_total: Mapped[float] = mapped_column(Float)
    best_total: Mapped[int] = mapped_column(Integer)
    best_game_id: Mapped[int] = mapped_column(Integer)
    worst_total: Mapped[int] = mapped_column(Integer)
    worst_game_id: Mapped[int] = mapped_column(Integer)
    rounds_out_first: Mapped[int] = mapped_column(Integer)
    perfect_games: Mapped[int] = mapped_column(Integer)
    first_played: Mapped[datetime] = mapped_column(UTCDateTime())
    last_played: Mapped[datetime] = mapped_column(UTCDateTime())
    # The name's rating (``app.store.rating``), None until a game against another counted person rates it:
    # ``rating`` is the ordinal (mu - 3 sigma) the board ranks by.
    rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    rating_mu: Mapped[float | None] = mapped_column(Float, nullable=True)
    rating_sigma: Mapped[float | None] = mapped_column(Float, nullable=True)
    rated_games: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))


class RatingHistoryRow(Base):
    """A name's rating after one rated game (its record's chart), written with the game's end."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_skeleton", "skeleton", "finished_at", "game_id"),)

    skeleton: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)  # the ordinal, mu - 3 sigma


class ServerKeyRow(Base):
    """A secret the server made once and keeps (the VAPID key pair of its Web Push): in the database, so every
    process shares it and a backup of the database holds it."""

    __tablename__ = "server_keys"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class PushSubscriptionRow(Base):
    """One device's Web Push subscription for one seat (found by its token's hash) at one table: one per seat
    and device, a few devices per seat (``app.store.push``). ``last_turn_key`` and ``last_reminder_key`` are
    the turns last notified: a notification is sent only by whoever moves them (``claim_turn``)."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        UniqueConstraint("room_code", "token_hash", "device", name="uq_push_subscriptions_seat_device"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64))
    device: Mapped[str] = mapped_column(String(64))  # a random id the browser made and keeps
    endpoint: Mapped[str] = mapped_column(Text)  # at most 1024 characters (checked before it is written)
    p256dh: Mapped[str] = mapped_column(String(100))  # base64url of the 65-byte P-256 public key
    auth: Mapped[str] = mapped_column(String(32))  # base64url of the 16-byte auth secret
    lang: Mapped[str] = mapped_column(String(8))  # en | fa
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_turn_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    last_reminder_key: Mapped[str | None] = mapped_column(String(64), nullable=True)


class NameClaimRow(Base):
    """A name kept with a passkey: nobody but a browser signed in as it may sit down under it or under a
    look-alike (one claim per ``skeleton``, ``app.table.text.name_skeleton``)."""

    __tablename__ = "name_claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))  # as it was claimed
    skeleton: Mapped[str] = mapped_column(String(64), unique=True)
    user_handle: Mapped[str] = mapped_column(String(64))  # base64url of the random WebAuthn user id
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class PasskeyRow(Base):
    """One passkey (a WebAuthn credential) that proves a claimed name: its public key (COSE) and its count."""

    __tablename__ = "passkeys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("name_claims.id", ondelete="CASCADE"), index=True)
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)  # base64url, at most 1023 bytes
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    sign_count: Mapped[int] = mapped_column(BigInteger)
    label: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class PasskeySessionRow(Base):
    """A browser signed in as a claimed name: its cookie's SHA-256 and when it lapses."""

    __tablename__ = "passkey_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("name_claims.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class PasskeyChallengeRow(Base):
    """A ceremony under way: the challenge the server gave (used once, for five minutes), what it is for
    (``claim`` a name, ``add`` a passkey to one, ``sign_in``) and the name or claim it concerns."""

    __tablename__ = "passkey_challenges"

    challenge: Mapped[str] = mapped_column(String(128), primary_key=True)  # base64url
    purpose: Mapped[str] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claim_id: Mapped[int | None] = mapped_column(
        ForeignKey("name_claims.id", ondelete="CASCADE"), nullable=True
    )
    user_handle: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class DeviceCodeRow(Base):
    """A one-time code a signed-in device shows so another can add its own passkey to the name: its SHA-256,
    ten minutes, used once."""

    __tablename__ = "device_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("name_claims.id", ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
