"""The house's sizes: no function over 80 lines in the apps (migrations aside), so that a
new engineer reads a function on one screen; a function that grows past it is split where
its steps part. Modules have no cap: they are cut where their meaning parts, and one
cohesive module of 900 lines reads better than three of 300 that call each other."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("plumbing", "clubs", "ledger", "matches", "circolo")
MOST_FUNCTION_LINES = 80


def modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def too_long(path: Path, root: Path = ROOT) -> list[str]:
    """What in ``path`` is over the size: each function (methods and nested functions too)
    with its line count, decorators left out; named from ``root``."""
    source = path.read_text()
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = node.end_lineno - node.lineno + 1
            if length > MOST_FUNCTION_LINES:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: {length} lines")
    return found


def test_the_scan_reads_every_app():
    read = {path.relative_to(ROOT).parts[0] for path in modules()}
    assert read == set(APPS)
    assert sum(1 for _ in modules()) > 150


def test_no_function_is_over_its_size():
    assert [finding for path in modules() for finding in too_long(path)] == []


@pytest.mark.parametrize(
    ("lines", "over"),
    [(MOST_FUNCTION_LINES, False), (MOST_FUNCTION_LINES + 1, True)],
)
def test_a_function_over_the_size_is_found(tmp_path, lines, over):
    body = "\n".join(f"    x{i} = {i}" for i in range(lines - 1))
    path = tmp_path / "long.py"
    path.write_text(f"def long():\n{body}\n")
    found = too_long(path, tmp_path)
    assert bool(found) is over
    if over:
        assert found == [f"long.py:1 long: {lines} lines"]
