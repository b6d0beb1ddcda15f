"""Settings: every knob is an environment variable with a safe default (pydantic-settings)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/three-thirteen.db"


class Settings(BaseSettings):
    """Server configuration, read from the environment (and an optional ``.env`` file)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    database_url: str = DEFAULT_DATABASE_URL
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    public_base_url: str = ""  # e.g. https://cards.example.org; links are relative when empty
    allowed_origins: str = ""  # comma-separated; empty: any origin may open a WebSocket
    log_level: str = "info"
    run_migrations: bool = True  # apply `alembic upgrade head` on start
    # Database connections kept open (no overflow: a connection opened and closed per burst costs more
    # than a short wait for one of these; a move holds one for about a millisecond).
    db_pool_size: int = Field(default=10, ge=1, le=200)

    bot_delay_ms: int = Field(default=700, ge=0)
    grace_seconds: int = Field(default=60, ge=0)

    max_frame_bytes: int = Field(default=8192, ge=256)
    max_messages_per_second: float = Field(default=20.0, gt=0)
    max_name_length: int = Field(default=32, ge=1, le=64)
    chat_max_length: int = Field(default=200, ge=1, le=2000)
    chat_max_per_10s: int = Field(default=5, ge=1)
    send_queue_size: int = Field(default=256, ge=8)  # per socket; a client this far behind is dropped
    max_sockets_per_address: int = Field(default=100, ge=1)  # open WebSockets from one client address
    max_rooms_per_address: int = Field(default=60, ge=1)  # rooms one client address may open per hour

    @property
    def origins(self) -> list[str]:
        return [o.strip().rstrip("/") for o in self.allowed_origins.split(",") if o.strip()]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
