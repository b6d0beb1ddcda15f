"""The pure layers: the engine imports only the standard library; the table core only that and the engine."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

APP = Path(__file__).parents[1] / "app"
# package -> the app packages it may import besides the standard library (itself always)
PURE: dict[str, tuple[str, ...]] = {"engine": (), "table": ("engine",)}
MODULES = [(name, path) for name in PURE for path in sorted((APP / name).rglob("*.py"))]


def foreign_imports(path: Path, root: Path, allowed: tuple[str, ...] = ()) -> list[str]:
    """Imports in one module of the package at ``root`` that are neither standard library, nor within the
    package, nor of the ``allowed`` sibling packages of ``app``."""
    own = ["app", root.name]
    package = [*own, *path.relative_to(root).parent.parts]
    ok = {".".join(own)} | {f"app.{name}" for name in allowed}

    def permitted(module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in ok)

    bad = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level - 1 <= len(package) else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not base or not permitted(target):
                bad.append(f"line {node.lineno}: relative import leaves {'.'.join(own)} ({target or '?'})")
            continue
        else:
            continue
        for name in names:
            if name.partition(".")[0] not in sys.stdlib_module_names and not permitted(name):
                bad.append(f"line {node.lineno}: {name}")
    return bad


def test_pure_modules_are_found() -> None:
    found = {(name, path.name) for name, path in MODULES}
    assert {("engine", "solver.py"), ("engine", "cards.py"), ("table", "errors.py")} <= found


@pytest.mark.parametrize(("package", "path"), MODULES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_pure_packages_import_only_what_they_may(package: str, path: Path) -> None:
    assert foreign_imports(path, APP / package, PURE[package]) == [], f"{path} imports outside its layer"


def test_the_check_catches_foreign_imports(tmp_path: Path) -> None:
    engine = tmp_path / "app" / "engine"
    engine.mkdir(parents=True)
    sample = engine / "sample.py"
    sample.write_text(
        "import os, json\nfrom .cards import Card\nfrom collections.abc import Iterable\n"
        "import pydantic\nfrom fastapi import FastAPI\nfrom ..store import db\nfrom app.rooms import x\n"
        "def f():\n    import sqlalchemy.orm\n",
        encoding="utf-8",
    )
    found = foreign_imports(sample, engine)
    assert [line.split(":")[0] for line in found] == ["line 4", "line 5", "line 6", "line 7", "line 9"]


def test_the_table_core_may_use_the_engine_and_nothing_else(tmp_path: Path) -> None:
    table = tmp_path / "app" / "table"
    table.mkdir(parents=True)
    sample = table / "sample.py"
    sample.write_text(
        "from app.engine import GameState\nfrom ..engine.cards import Card\nfrom .errors import Refusal\n"
        "from app.protocol import encode\nfrom ..store import Store\nimport asyncio\n",
        encoding="utf-8",
    )
    found = foreign_imports(sample, table, ("engine",))
    assert [line.split(":")[0] for line in found] == ["line 4", "line 5"]
