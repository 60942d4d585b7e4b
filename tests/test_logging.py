"""Each log line is printed once, in debug mode (``make run``) and out of it."""

import subprocess
import sys

import pytest

from tests.test_settings import ROOT, clean_env

PROBE = (
    "import logging;"
    "logging.getLogger('django.request').warning('probe from django');"
    "logging.getLogger('clubs.tasks').warning('probe from an app')"
)


@pytest.mark.parametrize("debug", ["true", "false"])
def test_a_management_command_prints_each_log_line_once(debug, tmp_path):
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE],
        cwd=ROOT,
        env=clean_env(
            DEBUG=debug, LOG_LEVEL="INFO", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}"
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("probe from django") == 1, run.stderr
    assert run.stderr.count("probe from an app") == 1, run.stderr


def test_the_log_level_applies_to_djangos_own_loggers_too(tmp_path):
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE.replace("warning", "info")],
        cwd=ROOT,
        env=clean_env(
            DEBUG="true", LOG_LEVEL="WARNING", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}"
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert "probe" not in run.stderr, run.stderr
