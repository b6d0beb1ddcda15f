"""Names kept with passkeys in the store: the claims (one per look-alike skeleton), their passkeys, the
browsers signed in as them, the ceremonies under way and the one-time codes that add a device. Every
single-use thing (a challenge, a code) is taken by a delete that only one process can win."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import Table as SqlTable
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .models import DeviceCodeRow, NameClaimRow, PasskeyChallengeRow, PasskeyRow, PasskeySessionRow

CLAIMS: SqlTable = NameClaimRow.__table__  # type: ignore[assignment]
PASSKEYS: SqlTable = PasskeyRow.__table__  # type: ignore[assignment]
SESSIONS: SqlTable = PasskeySessionRow.__table__  # type: ignore[assignment]
CHALLENGES: SqlTable = PasskeyChallengeRow.__table__  # type: ignore[assignment]
CODES: SqlTable = DeviceCodeRow.__table__  # type: ignore[assignment]

Purpose = Literal["claim", "add", "sign_in"]
Removed = Literal["removed", "last", "not_found"]


@dataclass(frozen=True, slots=True)
class NameClaim:
    """A kept name: as it was claimed, its skeleton (what it and its look-alikes read as), its WebAuthn user
    handle (base64url)."""

    id: int
    name: str
    skeleton: str
    user_handle: str


@dataclass(frozen=True, slots=True)
class Passkey:
    id: int
    claim_id: int
    credential_id: str  # base64url
    public_key: bytes  # COSE
    sign_count: int
    label: str
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class Challenge:
    """A ceremony the server began: for ``claim`` the ``name`` (and a fresh ``user_handle``), for ``add``
    and ``sign_in`` the claim (None for a sign-in with no name given: the passkey says whose it is)."""

    challenge: str
    purpose: Purpose
    name: str | None
    claim_id: int | None
    user_handle: str | None
    created_at: datetime


_CLAIM = (CLAIMS.c.id, CLAIMS.c.name, CLAIMS.c.skeleton, CLAIMS.c.user_handle)
_PASSKEY = (
    PASSKEYS.c.id,
    PASSKEYS.c.claim_id,
    PASSKEYS.c.credential_id,
    PASSKEYS.c.public_key,
    PASSKEYS.c.sign_count,
    PASSKEYS.c.label,
    PASSKEYS.c.created_at,
    PASSKEYS.c.last_used_at,
)


def _insert(conn: AsyncConnection, table: SqlTable) -> postgresql.Insert | sqlite.Insert:
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


# ----- reads ------------------------------------------------------------------------------------------------


async def claim_by_skeleton(reader: AsyncEngine, skeleton: str) -> NameClaim | None:
    async with reader.connect() as conn:
        row = (await conn.execute(select(*_CLAIM).where(CLAIMS.c.skeleton == skeleton))).one_or_none()
    return None if row is None else NameClaim(*row)


async def claim_by_id(reader: AsyncEngine, claim_id: int) -> NameClaim | None:
    async with reader.connect() as conn:
        row = (await conn.execute(select(*_CLAIM).where(CLAIMS.c.id == claim_id))).one_or_none()
    return None if row is None else NameClaim(*row)


async def session_claim(reader: AsyncEngine, token_hash: str, now: datetime) -> NameClaim | None:
    """The name a browser's session proves (None: no such session, or it lapsed)."""
    query = (
        select(*_CLAIM)
        .join(SESSIONS, SESSIONS.c.claim_id == CLAIMS.c.id)
        .where(SESSIONS.c.token_hash == token_hash, SESSIONS.c.expires_at > now)
    )
    async with reader.connect() as conn:
        row = (await conn.execute(query)).one_or_none()
    return None if row is None else NameClaim(*row)


async def passkeys_of(reader: AsyncEngine, claim_id: int) -> list[Passkey]:
    query = select(*_PASSKEY).where(PASSKEYS.c.claim_id == claim_id).order_by(PASSKEYS.c.id)
    async with reader.connect() as conn:
        return [Passkey(*row) for row in await conn.execute(query)]


async def passkey_by_credential(reader: AsyncEngine, credential_id: str) -> Passkey | None:
    async with reader.connect() as conn:
        query = select(*_PASSKEY).where(PASSKEYS.c.credential_id == credential_id)
        row = (await conn.execute(query)).one_or_none()
    return None if row is None else Passkey(*row)


# ----- ceremonies -------------------------------------------------------------------------------------------


async def add_challenge(conn: AsyncConnection, challenge: Challenge, *, forget_before: datetime) -> None:
    """Keep a ceremony's challenge (and forget those begun before ``forget_before``: never finished)."""
    await conn.execute(delete(CHALLENGES).where(CHALLENGES.c.created_at < forget_before))
    await conn.execute(
        CHALLENGES.insert().values(
            challenge=challenge.challenge,
            purpose=challenge.purpose,
            name=challenge.name,
            claim_id=challenge.claim_id,
            user_handle=challenge.user_handle,
            created_at=challenge.created_at,
        )
    )


async def take_challenge(conn: AsyncConnection, challenge: str) -> Challenge | None:
    """The ceremony of ``challenge``, taken: a second take (a replay, another process) finds nothing."""
    columns = (
        CHALLENGES.c.challenge,
        CHALLENGES.c.purpose,
        CHALLENGES.c.name,
        CHALLENGES.c.claim_id,
        CHALLENGES.c.user_handle,
        CHALLENGES.c.created_at,
    )
    row = (await conn.execute(select(*columns).where(CHALLENGES.c.challenge == challenge))).one_or_none()
    if row is None:
        return None
    taken = await conn.execute(delete(CHALLENGES).where(CHALLENGES.c.challenge == challenge))
    return Challenge(*row) if taken.rowcount == 1 else None


# ----- claims and passkeys ----------------------------------------------------------------------------------


async def create_claim(
    conn: AsyncConnection, *, name: str, skeleton: str, user_handle: str, now: datetime
) -> int | None:
    """A new claim's id; None when the skeleton is claimed already (by a look-alike, or just now)."""
    insert = _insert(conn, CLAIMS).values(
        name=name, skeleton=skeleton, user_handle=user_handle, created_at=now
    )
    await conn.execute(insert.on_conflict_do_nothing(index_elements=["skeleton"]))
    query = select(CLAIMS.c.id, CLAIMS.c.user_handle).where(CLAIMS.c.skeleton == skeleton)
    row = (await conn.execute(query)).one_or_none()
    return row[0] if row is not None and row[1] == user_handle else None


async def add_passkey(
    conn: AsyncConnection,
    *,
    claim_id: int,
    credential_id: str,
    public_key: bytes,
    sign_count: int,
    label: str,
    now: datetime,
) -> bool:
    """Keep a passkey of the claim; False when that credential is kept already (for any name)."""
    insert = _insert(conn, PASSKEYS).values(
        claim_id=claim_id,
        credential_id=credential_id,
        public_key=public_key,
        sign_count=sign_count,
        label=label,
        created_at=now,
    )
    done = await conn.execute(insert.on_conflict_do_nothing(index_elements=["credential_id"]))
    return done.rowcount == 1


async def count_passkeys(conn: AsyncConnection, claim_id: int) -> int:
    query = select(func.count()).select_from(PASSKEYS).where(PASSKEYS.c.claim_id == claim_id)
    return int((await conn.execute(query)).scalar_one())


async def use_passkey(
    conn: AsyncConnection, passkey_id: int, *, was: int, now_count: int, now: datetime
) -> bool:
    """Move a passkey's count from ``was`` to ``now_count`` (and note its use): False when another sign-in
    moved it first, so one assertion is never accepted twice."""
    done = await conn.execute(
        update(PASSKEYS)
        .where(PASSKEYS.c.id == passkey_id, PASSKEYS.c.sign_count == was)
        .values(sign_count=now_count, last_used_at=now)
    )
    return done.rowcount == 1


async def remove_passkey(conn: AsyncConnection, claim_id: int, passkey_id: int) -> Removed:
    """Remove one of the claim's passkeys; its last one takes the claim with it (and every session): a name
    nobody can prove is free again."""
    mine = (PASSKEYS.c.id == passkey_id) & (PASSKEYS.c.claim_id == claim_id)
    if (await conn.execute(delete(PASSKEYS).where(mine))).rowcount != 1:
        return "not_found"
    if await count_passkeys(conn, claim_id):
        return "removed"
    await drop_claim(conn, claim_id)
    return "last"


async def drop_claim(conn: AsyncConnection, claim_id: int) -> None:
    for table in (SESSIONS, CODES, CHALLENGES, PASSKEYS):
        await conn.execute(delete(table).where(table.c.claim_id == claim_id))
    await conn.execute(delete(CLAIMS).where(CLAIMS.c.id == claim_id))


# ----- sessions and device codes ----------------------------------------------------------------------------


async def add_session(
    conn: AsyncConnection, *, claim_id: int, token_hash: str, now: datetime, lasts: timedelta
) -> None:
    """A browser signed in as the claim (lapsed sessions are forgotten on the way)."""
    await conn.execute(delete(SESSIONS).where(SESSIONS.c.expires_at <= now))
    await conn.execute(
        SESSIONS.insert().values(
            claim_id=claim_id, token_hash=token_hash, created_at=now, expires_at=now + lasts
        )
    )


async def drop_session(conn: AsyncConnection, token_hash: str) -> None:
    await conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash == token_hash))


async def drop_sessions(conn: AsyncConnection, claim_id: int) -> int:
    return (await conn.execute(delete(SESSIONS).where(SESSIONS.c.claim_id == claim_id))).rowcount


async def add_device_code(
    conn: AsyncConnection, *, code_hash: str, claim_id: int, now: datetime, lasts: timedelta
) -> None:
    """Keep a one-time code (lapsed codes are forgotten on the way)."""
    await conn.execute(delete(CODES).where(CODES.c.expires_at <= now))
    expires_at = now + lasts
    await conn.execute(CODES.insert().values(code_hash=code_hash, claim_id=claim_id, expires_at=expires_at))


async def take_device_code(conn: AsyncConnection, code_hash: str, now: datetime) -> int | None:
    """The claim a one-time code adds a device to, taken (used once); None: no such code, or it lapsed."""
    row = (
        await conn.execute(select(CODES.c.claim_id, CODES.c.expires_at).where(CODES.c.code_hash == code_hash))
    ).one_or_none()
    if row is None:
        return None
    taken = await conn.execute(delete(CODES).where(CODES.c.code_hash == code_hash))
    return row[0] if taken.rowcount == 1 and row[1] > now else None


# ----- whole steps, each one transaction --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewKey:
    """A passkey the ceremony checked, to keep: its id (base64url), COSE public key, count and label (None:
    "passkey N")."""

    credential_id: str
    public_key: bytes
    sign_count: int
    label: str | None


@dataclass(frozen=True, slots=True)
class NewSession:
    token_hash: str
    now: datetime
    lasts: timedelta


async def _keep(conn: AsyncConnection, claim_id: int, key: NewKey, now: datetime) -> bool:
    label = key.label or f"passkey {await count_passkeys(conn, claim_id) + 1}"
    return await add_passkey(
        conn,
        claim_id=claim_id,
        credential_id=key.credential_id,
        public_key=key.public_key,
        sign_count=key.sign_count,
        label=label,
        now=now,
    )


async def claim_name(
    conn: AsyncConnection, *, name: str, skeleton: str, user_handle: str, key: NewKey, session: NewSession
) -> int | None:
    """Claim ``name`` with its first passkey and sign the browser in; the claim's id, or None when the name
    (or a look-alike) was claimed first or the passkey is kept already."""
    claim_id = await create_claim(
        conn, name=name, skeleton=skeleton, user_handle=user_handle, now=session.now
    )
    if claim_id is None or not await _keep(conn, claim_id, key, session.now):
        if claim_id is not None:
            await drop_claim(conn, claim_id)
        return None
    await add_session(
        conn, claim_id=claim_id, token_hash=session.token_hash, now=session.now, lasts=session.lasts
    )
    return claim_id


async def add_device(conn: AsyncConnection, *, claim_id: int, key: NewKey, session: NewSession) -> bool:
    """Another passkey for a kept name (a device that entered a one-time code), signed in; False when the
    name is no longer kept or the passkey is kept already."""
    found = (await conn.execute(select(CLAIMS.c.id).where(CLAIMS.c.id == claim_id))).one_or_none()
    if found is None or not await _keep(conn, claim_id, key, session.now):
        return False
    await add_session(
        conn, claim_id=claim_id, token_hash=session.token_hash, now=session.now, lasts=session.lasts
    )
    return True


async def sign_in(conn: AsyncConnection, *, passkey: Passkey, new_count: int, session: NewSession) -> bool:
    """A proved passkey signs its browser in (its count moves on); False when another sign-in moved it."""
    if not await use_passkey(conn, passkey.id, was=passkey.sign_count, now_count=new_count, now=session.now):
        return False
    await add_session(
        conn, claim_id=passkey.claim_id, token_hash=session.token_hash, now=session.now, lasts=session.lasts
    )
    return True
