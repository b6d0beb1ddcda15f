"""The OpenAPI document says what the server does: refusals are ``{code, message}``, names are capped as
enforced."""

from __future__ import annotations

from typing import Any

import pytest

from app.config import Settings
from app.main import create_app


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return create_app(Settings(_env_file=None)).openapi()  # type: ignore[call-arg]


def test_every_422_is_documented_as_code_and_message(openapi: dict[str, Any]) -> None:
    documented = 0
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith("4") or status.startswith("5"):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorPublic"}, (method, path, status)
                    documented += status == "422"
    assert documented >= 10, "every route with a body or parameters can answer 422"
    assert "HTTPValidationError" not in openapi["components"]["schemas"]


def test_the_name_limit_is_the_enforced_one(openapi: dict[str, Any]) -> None:
    limit = Settings(_env_file=None).max_name_length  # type: ignore[call-arg]
    assert limit == 32
    for model in ("RoomCreate", "RoomJoin"):
        name = openapi["components"]["schemas"][model]["properties"]["name"]
        assert (name["minLength"], name["maxLength"]) == (1, limit), model
