"""Every JSON example in docs/protocol.md is valid against the published schemas: each ```json Name block
against the definition Name, and each line of the example exchange against ClientMessage, ServerMessage or
the REST route it shows. Examples abbreviated with … are counted, not validated."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema_rs
import pytest

from app.api.documents.writer import DOCS, documents
from app.protocol.schema import definition_schema

DOC = (DOCS / "protocol.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
REST_CALL = re.compile(r"^(GET|POST|PUT|PATCH|DELETE) (/\S*)(?: (\{.*))?$")
ARROW = re.compile(r"(→|←)(?: (\d{3}))? (\{.*)$")


@cache
def published() -> tuple[dict[str, Any], dict[str, Any]]:
    """(the protocol schema, the OpenAPI document) as committed in docs/ (tests check they are current)."""
    texts = documents()
    return json.loads(texts["protocol.schema.json"]), json.loads(texts["openapi.json"])


def validator(name: str) -> Any:
    """A validator for a protocol definition or, failing that, an OpenAPI component schema."""
    protocol, openapi = published()
    if name in protocol["$defs"]:
        return jsonschema_rs.validator_for(definition_schema(protocol, name))
    assert name in openapi["components"]["schemas"], f"no schema named {name!r}"
    return openapi_validator({"$ref": f"#/components/schemas/{name}"})


def openapi_validator(schema: dict[str, Any]) -> Any:
    return jsonschema_rs.validator_for({**schema, "components": published()[1]["components"]})


def problems_of(validator_: Any, value: Any, where: str) -> list[str]:
    return [f"{where}: {error}" for error in list(validator_.iter_errors(value))[:3]]


# ----- ```json Name blocks ----------------------------------------------------------------------------------


def json_blocks(doc: str) -> list[tuple[str, str]]:
    """(name, body) of every fenced block whose language is json."""
    blocks = []
    for info, body in FENCE.findall(doc):
        words = info.split()
        if words and words[0] == "json":
            blocks.append((words[1] if len(words) > 1 else "", body))
    return blocks


def values_in(body: str) -> list[Any]:
    """One JSON value, or one per line."""
    try:
        return [json.loads(body)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in body.splitlines() if line.strip()]


def test_every_json_block_names_its_schema_and_matches_it() -> None:
    blocks = json_blocks(DOC)
    assert len(blocks) >= 10, f"found only {len(blocks)} ```json blocks in docs/protocol.md"
    problems = []
    for name, body in blocks:
        if not name:
            problems.append(f"a ```json block names no schema (```json Name):\n{body[:200]}")
            continue
        check = validator(name)
        for value in values_in(body):
            problems += problems_of(check, value, f"```json {name}: {json.dumps(value)[:120]}")
    assert not problems, "\n".join(problems)


# ----- the example exchange ---------------------------------------------------------------------------------


@dataclass
class Example:
    kind: str  # "client", "server", "request" or "response"
    text: str  # the JSON text (possibly abbreviated with …)
    line: int
    method: str = ""
    path: str = ""
    status: str = ""

    @property
    def abbreviated(self) -> bool:
        return "…" in self.text


def balanced_end(text: str) -> int | None:
    """The index just past the JSON object that starts ``text``, or None while its braces are open."""
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def exchange_examples(doc: str) -> list[Example]:
    body = doc.split("## A complete example exchange", 1)[1]
    block = next(b for info, b in FENCE.findall(body) if info.strip() == "text")
    lines = block.splitlines()
    examples: list[Example] = []
    last_call: tuple[str, str] = ("", "")
    index = 0
    while index < len(lines):
        line, start = lines[index].strip(), index
        index += 1
        call, arrow = REST_CALL.match(line), ARROW.search(line)
        if call:
            last_call = (call[1], call[2])
            if not call[3]:
                continue
            kind, status, text = "request", "", call[3]
        elif arrow:
            status, text = arrow[2] or "", arrow[3]
            kind = ("response" if status else "server") if arrow[1] == "←" else "client"
        else:
            continue
        while balanced_end(text) is None and index < len(lines):
            text += "\n" + lines[index].strip()
            index += 1
        end = balanced_end(text)
        assert end is not None, f"line {start + 1}: the JSON never closes"
        examples.append(Example(kind, text[:end], start + 1, *last_call, status))
    return examples


def route(method: str, path: str) -> dict[str, Any]:
    """The OpenAPI operation that serves ``method path``."""
    for template, operations in published()[1]["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path) and method.lower() in operations:
            return dict(operations[method.lower()])
    raise AssertionError(f"no route serves {method} {path}")


def schema_for(example: Example) -> Any:
    if example.kind == "client":
        return validator("ClientMessage")
    if example.kind == "server":
        return validator("ServerMessage")
    operation = route(example.method, example.path)
    if example.kind == "request":
        return openapi_validator(operation["requestBody"]["content"]["application/json"]["schema"])
    response = operation["responses"][example.status]
    return openapi_validator(response["content"]["application/json"]["schema"])


def test_the_example_exchange_is_valid() -> None:
    examples = exchange_examples(DOC)
    complete = [e for e in examples if not e.abbreviated]
    kinds = {e.kind for e in complete}
    assert len(complete) >= 20 and kinds == {"client", "server", "request", "response"}, (
        f"found {len(complete)} complete examples of {sorted(kinds)} in the exchange"
    )
    problems = []
    refused = 0
    for example in complete:
        try:
            value = json.loads(example.text)
        except json.JSONDecodeError as exc:
            problems.append(f"line {example.line}: not JSON ({exc}); abbreviate with … or fix it")
            continue
        if example.kind == "client" and refused_as_malformed(example, examples):
            refused += 1
            if schema_for(example).is_valid(value):
                problems.append(f"line {example.line}: refused as malformed, yet the schema accepts it")
            continue
        problems += problems_of(schema_for(example), value, f"line {example.line} ({example.kind})")
    assert not problems, "\n".join(problems)
    assert refused >= 1, "the exchange shows no malformed message being refused"


def refused_as_malformed(example: Example, examples: list[Example]) -> bool:
    """The server's next message answers this one with bad_message or unknown_type: a deliberately bad
    example, which the schema must refuse too."""
    after = [e for e in examples if e.line > example.line and e.kind == "server"]
    if not after or after[0].abbreviated:
        return False
    answer = json.loads(after[0].text)
    return answer.get("type") == "error" and answer.get("code") in ("bad_message", "unknown_type")


@pytest.mark.parametrize(
    ("text", "end"),
    [('{"a": "}"} tail', 10), ('{"a": "\\"}"}', 12), ("{… [1, {2}] …}", 14), ('{"a": [', None)],
)
def test_balanced_end_reads_strings_and_abbreviations(text: str, end: int | None) -> None:
    assert balanced_end(text) == end
