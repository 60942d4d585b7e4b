"""The house's sizes: no module over 600 lines and no function over 80 lines in
``clubs/``, ``ledger/``, ``matches/`` and ``circolo/`` (migrations aside), so that a new
engineer reads a module through and a function on one screen. A module or function that
grows past them is split where its concerns part, not let through here."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("plumbing", "clubs", "ledger", "matches", "circolo")
MOST_MODULE_LINES = 600
MOST_FUNCTION_LINES = 80


def modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def too_long(path: Path, root: Path = ROOT) -> list[str]:
    """What in ``path`` is over the sizes: the module, and each function (methods and
    nested functions too) with its line count, decorators left out; named from ``root``."""
    source = path.read_text()
    found = []
    lines = len(source.splitlines())
    if lines > MOST_MODULE_LINES:
        found.append(f"{path.relative_to(root)}: {lines} lines")
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


def test_no_module_or_function_is_over_its_size():
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


def test_a_module_over_the_size_is_found(tmp_path):
    path = tmp_path / "big.py"
    path.write_text("x = 1\n" * (MOST_MODULE_LINES + 1))
    assert too_long(path, tmp_path) == [f"big.py: {MOST_MODULE_LINES + 1} lines"]
