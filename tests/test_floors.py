"""The floors, bottom up: ``rules`` <- ``clubs`` <- ``ledger`` <- ``matches``; ``circolo`` on
top may import anything. Nothing imports a floor above its own, and ``rules`` is pure Python.

The imports are read with ``ast``: every ``import`` and ``from`` statement anywhere in each
module (function-local ones too) and ``import_module("...")`` calls, in every ``.py`` file
of each package, migrations included, with relative imports resolved.
"""

import ast
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ["rules", "clubs", "ledger", "matches"]  # bottom up; circolo sits on top


def forbidden_for(package: str) -> set[str]:
    """Top-level modules ``package`` must not import: every floor above its own, and for
    ``rules`` also Django and every installed app."""
    above = set(FLOORS[FLOORS.index(package) + 1 :]) | {"circolo"}
    if package == "rules":
        above |= {"django"} | {app.split(".")[0] for app in settings.INSTALLED_APPS}
    return above


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
    forbidden = forbidden_for(floor)
    return [
        (line, module)
        for line, module in imported_modules(source, package)
        if module.split(".")[0] in forbidden
    ]


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


def test_the_outbox_app_imports_no_floor_nor_circolo():
    """``outbox`` sits under every floor (their tasks' class is its, set by circolo's
    Celery app): it imports Django and Celery only."""
    project = set(FLOORS) | {"circolo"}
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path, package in python_files("outbox")
        for line, module in imported_modules(path.read_text(), package)
        if module.split(".")[0] in project
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
        (
            "matches",
            "matches",
            "from clubs.models import Club\nfrom ledger import models\nimport rules",
        ),
    ],
)
def test_an_import_from_a_floor_below_is_allowed(floor, package, source):
    assert violations(source, floor=floor, package=package) == []
