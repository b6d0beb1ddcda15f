"""The room owns its state: ``table`` is assigned in one transition (``Room.advance``, and the constructor),
and no module of ``app/rooms`` but the manager (and the package's public face) imports ``Room``, so the
modules around the room return values or depend on narrow protocols, with no import circle."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_purity import imports

APP = Path(__file__).resolve().parents[2] / "app"
ROOMS = APP / "rooms"


def _functions_assigning_table(tree: ast.AST) -> list[str]:
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Attribute) and part.attr == "table":
                        found.append(func.name)
    return found


def test_the_table_of_a_room_is_assigned_only_by_its_one_transition() -> None:
    places = {
        str(path.relative_to(APP)): names
        for path in sorted(APP.rglob("*.py"))
        if (names := _functions_assigning_table(ast.parse(path.read_text())))
    }
    assert places == {"rooms/room.py": ["__init__", "advance"]}


def _imports(path: Path) -> set[str]:
    """The names a module imports from ``app.rooms.room`` (or the package), anywhere in it."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 and module == "room" or module == "app.rooms.room":
                names |= {"room"}
            if node.level == 1 and module == "" or module == "app.rooms":
                names |= {alias.name for alias in node.names if alias.name in {"Room", "room"}}
    return names


def test_only_the_manager_imports_the_room() -> None:
    importers = sorted(path.name for path in ROOMS.glob("*.py") if _imports(path))
    assert importers == ["__init__.py", "manager.py"]


def test_the_rooms_package_has_no_import_circle() -> None:
    graph: dict[str, set[str]] = {}
    for path in ROOMS.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps |= {alias.name for alias in node.names}
        graph[path.stem] = deps - {"__init__"}
    graph.pop("__init__", None)

    def visit(module: str, stack: tuple[str, ...]) -> None:
        assert module not in stack, f"import circle: {' -> '.join((*stack, module))}"
        for dep in graph.get(module, ()):
            visit(dep, (*stack, module))

    for module in graph:
        visit(module, ())


MAX_LINES = 350  # past this a module is usually doing a second job that wants a module of its own


def test_no_module_of_the_rooms_package_passes_its_size() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in ROOMS.glob("*.py")}
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}


ANSWERS = ("outcomes.py", "answers.py", "seat_changes.py", "lobby.py", "talk.py", "leaving.py")
PARTS = ("room", "manager", "follower", "driver", "connection", "broadcast", "presence", "lease")
PARTS += ("limits", "clock")
STATEFUL = ("asyncio", "app.store", *(f"app.rooms.{part}" for part in PARTS))


def test_the_answers_to_client_messages_are_functions_of_values() -> None:
    """No answer module awaits, reads the store, or sees a socket, the room or its parts: each takes the
    table, the message and plain values, and returns what the message comes to (the room runs it)."""
    found = {
        name: hits
        for name in ANSWERS
        if (hits := sorted({i.module for i in imports(ROOMS / name, APP) if i.module.startswith(STATEFUL)}))
    }
    assert found == {}
