"""No import circle anywhere in app/: every module's imports (at the top, inside functions and under
``TYPE_CHECKING`` alike) form a graph without a cycle, so each module can be read, and loaded, after the
ones it needs."""

from __future__ import annotations

from pathlib import Path

from .test_purity import APP, imports, module_name


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module of ``root`` (the ``app`` folder) -> the modules of ``root`` it imports. ``from pkg import name``
    is an edge to ``pkg.name`` where that is a module, else to ``pkg`` (a package's ``__init__``)."""
    paths = sorted(root.rglob("*.py"))
    modules = {module_name(path, root) for path in paths}
    top = root.name
    graph: dict[str, set[str]] = {}
    for path in paths:
        deps: set[str] = set()
        for imported in imports(path, root):
            if imported.module.partition(".")[0] != top:
                continue
            submodules = {name for name in imported.names if name in modules}
            deps |= submodules or ({imported.module} if imported.module in modules else set())
        name = module_name(path, root)
        graph[name] = deps - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each module that is on one (as the path that closes it), found depth first."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, stack: list[str]) -> None:
        if module in stack:
            found.append([*stack[stack.index(module) :], module])
            return
        if module in done:
            return
        for dep in sorted(graph.get(module, ())):
            visit(dep, [*stack, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    return found


def test_app_has_no_import_circle() -> None:
    found = circles(import_graph(APP))
    assert found == [], "import circles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def _app(tmp_path: Path, files: dict[str, str]) -> Path:
    for where, text in files.items():
        path = tmp_path / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "app"


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    """The circle app/ had: the documents module built the app, whose main module includes its router."""
    app = _app(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/main.py": "from app.api import documents\n",
            "app/api/__init__.py": "",
            "app/api/documents.py": "def documents():\n    from app.main import create_app\n",
        },
    )
    assert circles(import_graph(app)) == [["app.api.documents", "app.main", "app.api.documents"]]


def test_a_circle_under_type_checking_and_through_a_package_is_found(tmp_path: Path) -> None:
    app = _app(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/rooms/__init__.py": "from .room import Room\n",
            "app/rooms/room.py": "from .driver import Driver\n",
            "app/rooms/driver.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from app.rooms import Room\n",
        },
    )
    assert circles(import_graph(app)) == [["app.rooms", "app.rooms.room", "app.rooms.driver", "app.rooms"]]


def test_modules_that_import_in_one_direction_only_are_no_circle(tmp_path: Path) -> None:
    app = _app(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/rooms/__init__.py": "from .room import Room\nfrom . import peers\n",
            "app/rooms/room.py": "from . import peers\nfrom .driver import Driver\n",
            "app/rooms/driver.py": "import asyncio\nfrom .clock import Clock\n",
            "app/rooms/clock.py": "",
            "app/rooms/peers.py": "",
            "app/api/__init__.py": "",
            "app/api/ws.py": "from app.rooms import Room\n",
        },
    )
    graph = import_graph(app)
    assert graph["app.rooms.room"] == {"app.rooms.peers", "app.rooms.driver"}
    assert graph["app.api.ws"] == {"app.rooms"}
    assert circles(graph) == []
