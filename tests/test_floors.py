"""The floors, bottom up: ``rules`` <- ``plumbing`` <- ``clubs`` <- ``ledger`` <- ``matches``
<- ``circolo``. Each floor is a top-level package. Nothing imports a floor above its own,
``rules`` is pure Python, ``circolo`` (settings, urls, the Celery app, the site's commands) on
top may import anything, and no module of the apps imports back into a circle, at any depth
(:func:`test_no_module_imports_back_into_a_circle`).

The imports are read with ``ast``: every ``import`` and ``from`` statement anywhere in each
module (function-local ones too) and ``import_module("...")`` calls, in every ``.py`` file
of each package, migrations included, with relative imports resolved.
"""

import ast
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ["rules", "plumbing", "clubs", "ledger", "matches", "circolo"]  # bottom up


def floor_of(module: str) -> str | None:
    """The floor a module sits on: its top-level package, None outside the house."""
    head = module.split(".")[0]
    return head if head in FLOORS else None


def forbidden_for(package: str) -> set[str]:
    """Top-level modules ``package`` must not import at all: for ``rules``, Django and every
    installed app (it is pure Python)."""
    if package == "rules":
        return {"django", "circolo"} | {app.split(".")[0] for app in settings.INSTALLED_APPS}
    return set()


def allowed(module: str, floor: str) -> bool:
    if module.split(".")[0] in forbidden_for(floor):
        return False
    found = floor_of(module)
    if found is None:
        return True  # the standard library, Django, a package
    return FLOORS.index(found) <= FLOORS.index(floor)


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """``(line, module)`` for each module the source imports; ``package`` is the dotted
    package the file sits in, against which relative imports resolve."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
            else:
                base = []
            if node.module:
                found.append((node.lineno, ".".join([*base, node.module])))
            else:  # from . import x: each name may be a module
                found += [(node.lineno, ".".join([*base, alias.name])) for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def violations(source: str, *, floor: str, package: str) -> list[tuple[int, str]]:
    return [
        (line, module)
        for line, module in imported_modules(source, package)
        if not allowed(module, floor)
    ]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def python_files(floor: str):
    for path in sorted((ROOT / floor).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        package = ".".join(parts if parts[-1] == "__init__" else parts[:-1])
        yield path, package


@pytest.mark.parametrize("floor", FLOORS)
def test_no_floor_imports_a_floor_above_it(floor):
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path, package in python_files(floor)
        for line, module in violations(path.read_text(), floor=floor, package=package)
    ]
    assert found == []


def test_the_scan_reads_every_module_migrations_included():
    scanned = {str(path.relative_to(ROOT)) for floor in FLOORS for path, _ in python_files(floor)}
    assert {"clubs/migrations/0001_initial.py", "rules/__main__.py", "ledger/models.py"} <= scanned


@pytest.mark.parametrize(
    "floor, package, source, caught",
    [
        ("rules", "rules", "import django", "django"),
        ("rules", "rules", "from django.db import models", "django.db"),
        ("rules", "rules", "def f():\n    from clubs.models import Club", "clubs.models"),
        (
            "rules",
            "rules.bots",
            "if TYPE_CHECKING:\n    import rest_framework",
            "rest_framework",
        ),
        ("clubs", "clubs", "from matches.services import record_game", "matches.services"),
        ("clubs", "clubs.management.commands", "from ....ledger import models", "ledger"),
        ("clubs", "clubs", "from .. import matches", "matches"),
        ("clubs", "clubs", "importlib.import_module('matches.demo')", "matches.demo"),
        ("clubs", "clubs.migrations", "import circolo.settings", "circolo.settings"),
        ("plumbing", "plumbing.once", "from clubs.access import access_club", "clubs.access"),
        ("matches", "matches.boards", "from circolo.urls import urlpatterns", "circolo.urls"),
        (
            "ledger",
            "ledger",
            "class A:\n    def m(self):\n        import matches.models",
            "matches.models",
        ),
    ],
)
def test_a_forbidden_import_is_caught(floor, package, source, caught):
    line = source.count("\n") + 1  # each case's offending import is on its last line
    assert violations(source, floor=floor, package=package) == [(line, caught)]


@pytest.mark.parametrize(
    "floor, package, source",
    [
        (
            "rules",
            "rules",
            "from __future__ import annotations\nimport json\nfrom rules.cards import Card",
        ),
        ("rules", "rules.bots", "from ..cards import Card\nfrom . import singapore"),
        (
            "clubs",
            "clubs",
            "from django.db import models\nfrom rules.check import check_record\n"
            "from .models import Club",
        ),
        ("ledger", "ledger", "from clubs.models import Player"),
        ("clubs", "clubs", "from plumbing.errors import conflict\nfrom rules import cards"),
        ("circolo", "circolo", "from matches.games import all_games\nimport plumbing.api"),
        (
            "matches",
            "matches",
            "from clubs.models import Club\nfrom ledger import models\nimport rules",
        ),
    ],
)
def test_an_import_from_a_floor_below_is_allowed(floor, package, source):
    assert violations(source, floor=floor, package=package) == []


# --- No circles ------------------------------------------------------------------------------

HOUSE = ["plumbing", "clubs", "ledger", "matches", "circolo"]


def house_modules() -> dict[str, Path]:
    return {module_name(path): path for top in HOUSE for path in sorted((ROOT / top).rglob("*.py"))}


def import_graph() -> dict[str, set[str]]:
    """Module -> the house's modules it imports, at any depth of its code (functions too).
    ``from package import name`` imports ``package.name`` when that is a module; importing
    ``a.b.c`` runs ``a`` and ``a.b`` first, so it imports them too."""
    modules = house_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        targets = [module for _line, module in imported_modules(path.read_text(), package)]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets += [f"{node.module}.{alias.name}" for alias in node.names]
        for target in targets:
            parts = target.split(".")
            for n in range(1, len(parts) + 1):
                candidate = ".".join(parts[:n])
                if candidate in modules and candidate != name:
                    graph[name].add(candidate)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_back_into_a_circle():
    assert circles(import_graph()) == []


def test_a_circle_is_found_at_any_depth():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_imports_inside_functions():
    graph = import_graph()
    assert "matches.results.steps" in graph["matches.results.api"]
    assert "clubs.models" in graph["clubs.services"]
