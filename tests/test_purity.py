"""The layers: every import of every module under app/ keeps to docs/architecture.md's table, which says
the same as ``LAYERS`` here."""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
APP = ROOT / "app"
DOC = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True)
class Layer:
    """What a layer's modules may import besides the standard library and their own layer."""

    app: tuple[str, ...] = ()  # other layers, by module name (``app.engine``)
    libraries: tuple[str, ...] = ()  # third-party top-level modules


BELOW_API = ("app.engine", "app.table", "app.protocol", "app.store", "app.rooms")
# layer (a package or a top-level module of app, as its module name) -> what it may import: the table of
# docs/architecture.md ("Layers, and what each may import"), row for row.
LAYERS: dict[str, Layer] = {
    "app.engine": Layer(),
    "app.table": Layer(("app.engine",), ("icu",)),  # ICU's spoof checker: Unicode's confusables data
    "app.protocol": Layer(("app.engine", "app.table"), ("pydantic", "pydantic_core")),
    "app.store": Layer(
        ("app.engine", "app.table", "app.config", "app.logs"),
        ("sqlalchemy", "alembic", "asyncpg", "orjson", "openskill"),
    ),
    "app.rooms": Layer(
        ("app.engine", "app.table", "app.protocol", "app.store", "app.config", "app.metrics"),
        ("orjson", "pydantic", "redis"),
    ),
    "app.push": Layer(
        ("app.config", "app.store", "app.metrics", "app.logs"),
        ("pywebpush", "py_vapid", "http_ece", "httpx", "cryptography"),
    ),
    "app.passkeys": Layer(("app.config", "app.table", "app.rooms"), ("webauthn",)),
    "app.api": Layer(
        (*BELOW_API, "app.push", "app.passkeys", "app.config", "app.metrics", "app.logs", "app.runtime"),
        ("fastapi", "starlette", "pydantic", "uvicorn", "websockets", "segno"),
    ),
    "app.config": Layer((), ("pydantic", "pydantic_settings")),
    "app.metrics": Layer((), ("prometheus_client",)),
    "app.logs": Layer((), ("starlette",)),
    "app.runtime": Layer(("app.metrics",)),
    "app.native_heap": Layer(),
    "app.main": Layer(
        (
            "app.api",
            "app.rooms",
            "app.store",
            "app.push",
            "app.config",
            "app.metrics",
            "app.logs",
            "app.runtime",
            "app.native_heap",
        ),
        ("fastapi", "uvicorn"),
    ),
    "app.waiting": Layer(("app.store", "app.config"), ("sqlalchemy", "redis")),
    "app.__main__": Layer(
        (
            "app.main",
            "app.api",
            "app.store",
            "app.config",
            "app.logs",
            "app.runtime",
            "app.waiting",
            "app.native_heap",
        ),
        ("fastapi", "uvicorn"),
    ),
}
# (module's path under the repository, what it imports) -> why the table does not hold for that one import
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("app/api/documents/writer.py", "app.main"): "the document writer builds the whole app for its OpenAPI "
    "document (nothing in app/ imports the writer: no import circle)",
}


@dataclass(frozen=True)
class OnlyIn:
    """Within a layer, no module but ``modules`` (paths under the repository) imports any of ``targets``
    (modules, or names imported from them: ``app.rooms.room`` or ``app.rooms.room.Room``)."""

    targets: tuple[str, ...]
    modules: tuple[str, ...]
    why: str


# layer -> its own rules beyond the table, e.g. OnlyIn(("app.rooms.room.Room",), ("app/rooms/manager.py",), …)
PACKAGE_RULES: dict[str, tuple[OnlyIn, ...]] = {
    "app.rooms": (
        OnlyIn(
            ("app.rooms.room", "app.rooms.Room"),
            ("app/rooms/manager.py", "app/rooms/__init__.py"),
            "the manager owns rooms; the modules around a room return values or depend on narrow protocols",
        ),
        OnlyIn(
            ("app.rooms.follower.Follower",),
            ("app/rooms/room.py",),
            "the room owns its follower; the other parts see it through narrow protocols (playing.Following)",
        ),
    ),
}


@dataclass(frozen=True)
class Imported:
    line: int
    module: str  # the module imported (absolute), e.g. ``app.engine.options`` or ``fastapi``
    names: tuple[str, ...]  # each name it brings in, in full: ``app.engine.options.MIN_PLAYERS``


def layer_of(module: str) -> str:
    """The layer a module of app belongs to (``app.rooms.room`` -> ``app.rooms``)."""
    return ".".join(module.split(".")[:2])


def module_name(path: Path, root: Path) -> str:
    """``app/rooms/room.py`` -> ``app.rooms.room`` (a package's ``__init__`` is the package)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path) -> list[Imported]:
    """Every import of one module under ``root`` (the ``app`` folder), relative ones resolved: at the top,
    in functions and under ``TYPE_CHECKING`` alike."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [Imported(node.lineno, alias.name, (alias.name,)) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level - 1 < len(package) else []
                module = ".".join(base + ([node.module] if node.module else [])) or "." * node.level
            else:
                module = node.module or ""
            names = tuple(f"{module}.{alias.name}" for alias in node.names if alias.name != "*")
            found.append(Imported(node.lineno, module, names))
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def broken_rules(path: Path, root: Path, layers: dict[str, Layer] = LAYERS) -> list[str]:
    """Each import of the module at ``path`` that its layer's row (or its package's own rules) forbids, as
    a message naming the module, the import and the rule."""
    module = module_name(path, root)
    where = path.relative_to(root.parent).as_posix()
    layer = layer_of(module)
    if module == "app":  # the package marker itself
        found = imports(path, root)
        return [f"{where}: line {i.line}: imports {i.module}; app/__init__.py imports nothing" for i in found]
    if layer not in layers:
        return [f"{where}: belongs to no layer of docs/architecture.md's table (add a row)"]
    rule = layers[layer]
    allowed = f"{layer} may import " + ", ".join(
        ("the standard library", "itself", *rule.app, *rule.libraries)
    )
    bad = []
    for imported in imports(path, root):
        # ``from app import metrics`` brings in modules: judge each; otherwise the module imported
        targets = list(imported.names) if imported.module == "app" else [imported.module]
        for target in targets:
            top = target.partition(".")[0]
            if top != "app":
                ok = top in sys.stdlib_module_names or top in rule.libraries
            else:
                other = layer_of(target)
                ok = other == layer or other in rule.app or (where, other) in EXCEPTIONS
            if not ok:
                bad.append(
                    f"{where}: line {imported.line}: imports {target}; {allowed} (docs/architecture.md)"
                )
        for extra in PACKAGE_RULES.get(layer, ()):
            hit = [t for t in (imported.module, *imported.names) if any(_within(t, x) for x in extra.targets)]
            if hit and where not in extra.modules:
                bad.append(
                    f"{where}: line {imported.line}: imports {hit[-1]}; in {layer} only "
                    f"{', '.join(extra.modules)} may ({extra.why})"
                )
    return bad


MODULES = sorted(APP.rglob("*.py"))


def test_every_layer_and_top_level_module_is_found() -> None:
    layers = {layer_of(module_name(path, APP)) for path in MODULES} - {"app"}
    assert layers == set(LAYERS), "a layer of app/ with no row, or a row with no code"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_module_imports_only_what_its_layer_may(path: Path) -> None:
    assert broken_rules(path, APP) == []


def test_every_exception_is_still_needed() -> None:
    for where, target in EXCEPTIONS:
        found = {layer_of(i.module) for i in imports(ROOT / where, APP)}
        assert target in found, f"{where} no longer imports {target}: drop the exception"


def _doc_table() -> tuple[dict[str, Layer], str]:
    section = (
        DOC.read_text(encoding="utf-8").split("## Layers, and what each may import", 1)[1].split("\n## ")[0]
    )
    rows: dict[str, Layer] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`app/"):
            continue
        path = cells[0].strip("`").rstrip("/")
        name = path.removesuffix(".py").replace("/", ".")
        rows[name] = Layer(
            tuple(re.findall(r"`([\w.]+)`", cells[2])), tuple(re.findall(r"`([\w.]+)`", cells[3]))
        )
    return rows, section


def test_the_doc_table_says_the_same() -> None:
    rows, section = _doc_table()
    assert rows == LAYERS
    for where, target in EXCEPTIONS:
        assert f"`{where}` imports `{target}`" in section, (where, target)


def _sample(tmp_path: Path, where: str, text: str) -> tuple[Path, Path]:
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path, tmp_path / "app"


def _lines(found: list[str]) -> list[str]:
    return [message.split(": ")[1] for message in found]


def test_the_engine_may_import_only_the_standard_library(tmp_path: Path) -> None:
    sample, app = _sample(
        tmp_path,
        "app/engine/sample.py",
        "import os, json\nfrom .cards import Card\nfrom collections.abc import Iterable\n"
        "import pydantic\nfrom fastapi import FastAPI\nfrom ..store import db\nfrom app.rooms import x\n"
        "def f():\n    import sqlalchemy.orm\nif TYPE_CHECKING:\n    from app.table import Table\n",
    )
    found = broken_rules(sample, app)
    assert _lines(found) == ["line 4", "line 5", "line 6", "line 7", "line 9", "line 11"]
    assert found[2] == (
        "app/engine/sample.py: line 6: imports app.store; app.engine may import the standard library, itself "
        "(docs/architecture.md)"
    )


def test_the_table_core_may_use_the_engine_and_nothing_else(tmp_path: Path) -> None:
    sample, app = _sample(
        tmp_path,
        "app/table/sample.py",
        "from app.engine import GameState\nfrom ..engine.cards import Card\nfrom .errors import Refusal\n"
        "from app.protocol import encode\nfrom ..store import Store\nimport asyncio\n"
        "from app import metrics\n",
    )
    assert _lines(broken_rules(sample, app)) == ["line 4", "line 5", "line 7"]


def test_each_layer_is_held_to_its_own_row(tmp_path: Path) -> None:
    text = "from app.rooms import Room\nimport fastapi\nfrom app.store import Store\nimport sqlalchemy\n"
    expected = {
        "app/protocol/sample.py": ["line 1", "line 2", "line 3", "line 4"],
        "app/store/sample.py": ["line 1", "line 2"],
        "app/rooms/sample.py": ["line 1", "line 2", "line 4"],  # line 1: only the manager imports Room
        "app/api/sample.py": ["line 4"],
        "app/config.py": ["line 1", "line 2", "line 3", "line 4"],
        "app/main.py": ["line 4"],
    }
    for where, lines in expected.items():
        sample, app = _sample(tmp_path / where.replace("/", "_"), where, text)
        assert _lines(broken_rules(sample, app)) == lines, where


def test_a_module_outside_every_row_and_the_exception_are_named(tmp_path: Path) -> None:
    sample, app = _sample(tmp_path, "app/gadgets/sample.py", "import os\n")
    assert broken_rules(sample, app) == [
        "app/gadgets/sample.py: belongs to no layer of docs/architecture.md's table (add a row)"
    ]
    for where, ok in (("app/api/documents/writer.py", True), ("app/api/rooms.py", False)):
        sample, app = _sample(tmp_path / str(ok), where, "def f():\n    from app.main import create_app\n")
        assert (broken_rules(sample, app) == []) is ok, where


def test_a_package_rule_limits_an_import_to_some_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = OnlyIn(
        ("app.rooms.room.Room", "app.rooms.Room"), ("app/rooms/manager.py",), "the manager owns rooms"
    )
    monkeypatch.setitem(PACKAGE_RULES, "app.rooms", (rule,))
    text = "from .room import Room\nfrom app.rooms import Room as R\nfrom .room import RESTARTING\n"
    sample, app = _sample(tmp_path / "a", "app/rooms/driver.py", text)
    found = broken_rules(sample, app)
    assert _lines(found) == ["line 1", "line 2"]
    assert found[0].endswith("in app.rooms only app/rooms/manager.py may (the manager owns rooms)")
    sample, app = _sample(tmp_path / "b", "app/rooms/manager.py", text)
    assert broken_rules(sample, app) == []
