"""name claims: a name kept with passkeys (``name_claims``, one per look-alike skeleton), its passkeys
(``passkeys``: WebAuthn credentials), the browsers signed in as it (``passkey_sessions``, by their cookie's
hash), the ceremonies under way (``passkey_challenges``, single use, five minutes) and the one-time codes that
add another device (``device_codes``, by their hash, ten minutes).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _claim_fk(table: str, nullable: bool = False) -> list[sa.SchemaItem]:
    return [
        sa.Column("claim_id", sa.Integer(), nullable=nullable),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["name_claims.id"],
            name=op.f(f"fk_{table}_claim_id_name_claims"),
            ondelete="CASCADE",
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "name_claims",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("skeleton", sa.String(64), nullable=False),
        sa.Column("user_handle", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_name_claims")),
        sa.UniqueConstraint("skeleton", name=op.f("uq_name_claims_skeleton")),
    )
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        *_claim_fk("passkeys"),
        sa.Column("credential_id", sa.String(1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkeys")),
        sa.UniqueConstraint("credential_id", name=op.f("uq_passkeys_credential_id")),
    )
    op.create_index(op.f("ix_passkeys_claim_id"), "passkeys", ["claim_id"])
    op.create_table(
        "passkey_sessions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        *_claim_fk("passkey_sessions"),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkey_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_passkey_sessions_token_hash")),
    )
    op.create_index(op.f("ix_passkey_sessions_claim_id"), "passkey_sessions", ["claim_id"])
    op.create_table(
        "passkey_challenges",
        sa.Column("challenge", sa.String(128), nullable=False),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        *_claim_fk("passkey_challenges", nullable=True),
        sa.Column("user_handle", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("challenge", name=op.f("pk_passkey_challenges")),
    )
    op.create_index(op.f("ix_passkey_challenges_created_at"), "passkey_challenges", ["created_at"])
    op.create_table(
        "device_codes",
        sa.Column("code_hash", sa.String(64), nullable=False),
        *_claim_fk("device_codes"),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_device_codes")),
    )
    op.create_index(op.f("ix_device_codes_claim_id"), "device_codes", ["claim_id"])


def downgrade() -> None:
    op.drop_table("device_codes")
    op.drop_table("passkey_challenges")
    op.drop_table("passkey_sessions")
    op.drop_table("passkeys")
    op.drop_table("name_claims")
