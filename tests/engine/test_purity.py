"""The engine is pure: its modules import only the standard library and one another."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).parents[2] / "app" / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))


def foreign_imports(path: Path, engine: Path = ENGINE) -> list[str]:
    """Imports in one engine module that are neither standard library nor relative within app.engine."""
    package = ["app", "engine", *path.relative_to(engine).parent.parts]
    bad = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level - 1 <= len(package) else []
            target = ".".join(base + ([node.module] if node.module else []))
            if base[:2] != ["app", "engine"]:
                bad.append(f"line {node.lineno}: relative import leaves app.engine ({target or '?'})")
            continue
        else:
            continue
        for name in names:
            if name.partition(".")[0] not in sys.stdlib_module_names:
                bad.append(f"line {node.lineno}: {name}")
    return bad


def test_engine_modules_are_found() -> None:
    assert {path.name for path in MODULES} >= {"__init__.py", "cards.py", "options.py", "solver.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(ENGINE)))
def test_engine_imports_only_the_standard_library(path: Path) -> None:
    assert foreign_imports(path) == [], f"{path} imports outside the standard library"


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
