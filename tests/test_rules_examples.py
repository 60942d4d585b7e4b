"""The public examples (``../shared/examples/*.jsonl``) through the checker.

Each example line is one test, compared exactly as ``../shared/bin/check-examples``
compares it: its own ``compare`` function is loaded from the script file, so the two
can never drift apart. A last test runs the script itself, as a developer would.

Without ``../shared`` the examples are skipped, except in CI (the ``CI`` environment
variable set), where a missing ``../shared`` is a failure.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from rules.check import check_record

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
EXAMPLES = SHARED / "examples"
SCRIPT = SHARED / "bin" / "check-examples"

MISSING = f"the shared examples are not at {EXAMPLES} (expected beside the repository)"


def _missing_shared() -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{MISSING}; CI must have them")
    pytest.skip(MISSING)


def _load_script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("check_examples", str(SCRIPT))
    spec = importlib.util.spec_from_loader("check_examples", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _cases() -> list[Any]:
    if not EXAMPLES.is_dir():
        return [pytest.param(None, id="shared-examples-missing")]
    cases = []
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            case = json.loads(line)
            case["where"] = f"{path.name}:{number}"
            desc = " ".join(str(case.get("desc", "")).split())
            label = f"{path.stem}:{number} {desc}"
            cases.append(pytest.param(case, id=label if len(label) <= 80 else label[:77] + "..."))
    return cases


Compare = Callable[[dict[str, Any], int, dict[str, Any]], list[str]]


@pytest.fixture(scope="module")
def compare() -> Compare | None:
    """check-examples' own ``compare(case, exit_code, result) -> [differences]``."""
    if not SCRIPT.is_file():
        return None
    function: Compare = _load_script().compare
    return function


@pytest.mark.parametrize("case", _cases())
def test_the_example_checks_as_expected(
    case: dict[str, Any] | None, compare: Compare | None
) -> None:
    if case is None or compare is None:
        _missing_shared()
        return
    exit_code, result = check_record(case["record"])
    # Through JSON, as the command line prints it.
    result = json.loads(json.dumps(result, ensure_ascii=False))
    diffs = compare(case, exit_code, result)
    assert not diffs, f"{case['where']} ({case.get('desc', '')}): " + "; ".join(diffs)


def test_check_examples_passes_against_this_checker() -> None:
    if not SCRIPT.is_file():
        _missing_shared()
    run = subprocess.run(
        [sys.executable, str(SCRIPT)],
        cwd=REPO,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-1000:]
    assert "0 failed" in run.stdout
