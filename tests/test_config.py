"""Settings that guard the server refuse values that would silently weaken it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import Settings


@pytest.mark.parametrize("value", ["caddy", "*", "10.0.0.1/8", "127.0.0.1, nonsense"])
def test_trusted_proxies_must_be_addresses_or_networks(value: str) -> None:
    with pytest.raises(ValidationError):
        Settings(_env_file=None, trusted_proxies=value)  # type: ignore[call-arg]


def test_trusted_proxies_accepts_addresses_and_networks() -> None:
    settings = Settings(_env_file=None, trusted_proxies=" 172.30.13.10, 10.0.0.0/8,::1 ")  # type: ignore[call-arg]
    assert settings.proxies == ["172.30.13.10", "10.0.0.0/8", "::1"]
