"""The JSON Schema of every WebSocket message in both directions, generated from the protocol models.

``python -m app.protocol.schema`` prints it; ``python -m app.api.documents`` writes it (with the OpenAPI
document) to ``docs/``, and a test fails when the committed copy no longer matches the models.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from .messages import (
    ChatLine,
    ErrorMessage,
    EventView,
    Move,
    SeatInfo,
    SeatRequested,
    StateMessage,
    Welcome,
    client_message_adapter,
    server_message_adapter,
)

SCHEMA_URL = "/api/protocol.schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
# What is left out when it is None: an error's ``id`` when the refused message was not an action with an id
# (``encode``), an event's fields that do not apply to its kind, a welcome's ``requested_seat`` and a seat
# request's ``token`` when there is none, a seat's ``request`` when nobody asked, a state's ``ack`` when it
# acknowledges nothing, a welcome's chat line's ``reaction`` when it is a typed line (``exclude_if``).
OMITTED_WHEN_NONE = {
    ChatLine.__name__,
    ErrorMessage.__name__,
    StateMessage.__name__,
    EventView.__name__,
    Welcome.__name__,
    SeatRequested.__name__,
    SeatInfo.__name__,
}


class _WireSchema(GenerateJsonSchema):
    """Server messages are written with every field (``null`` included), so in the server's direction
    a field is required even when its model gives it a default."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        if self.mode == "serialization":
            return not field.get("serialization_exclude")
        return super().field_is_required(field, total)


def protocol_schema() -> dict[str, Any]:
    """One JSON Schema document: ``ClientMessage``, ``ServerMessage`` and ``Move`` with every part in
    ``$defs``; the document itself accepts any message of either direction."""
    keys, shared = TypeAdapter.json_schemas(
        [
            ("ClientMessage", "validation", client_message_adapter),
            ("ServerMessage", "serialization", server_message_adapter),
            ("Move", "validation", TypeAdapter(Move)),
        ],
        ref_template="#/$defs/{model}",
        schema_generator=_WireSchema,
    )
    defs: dict[str, Any] = dict(shared["$defs"])
    for (name, _mode), schema in keys.items():
        defs[name] = schema
    for name in OMITTED_WHEN_NONE:
        model = defs[name]
        nullable = {key for key, prop in model["properties"].items() if prop.get("default", 0) is None}
        model["required"] = [key for key in model["required"] if key not in nullable]
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_URL,
        "title": "Three Thirteen WebSocket messages",
        "description": (
            "Every JSON text frame of /ws/{code}: ClientMessage (client to server) or ServerMessage "
            "(server to client). Clients must ignore fields they do not know. See docs/protocol.md."
        ),
        "anyOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": dict(sorted(defs.items())),
    }


def definition_schema(document: dict[str, Any], name: str) -> dict[str, Any]:
    """A schema for one definition of ``document`` alone (e.g. ``ServerMessage``, ``Move``)."""
    if name not in document["$defs"]:
        raise KeyError(f"no definition {name!r}; there are: {', '.join(document['$defs'])}")
    return {"$schema": document["$schema"], "$ref": f"#/$defs/{name}", "$defs": document["$defs"]}


def render(document: dict[str, Any]) -> str:
    """The text of a JSON document as committed in ``docs/``: indented, keys in the models' field order."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(protocol_schema()), end="")
