"""Settings are driven by environment variables: each case starts a fresh interpreter."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import json, django; from django.conf import settings; django.setup();"
    "print(json.dumps({'engine': settings.DATABASES['default']['ENGINE'],"
    "'name': str(settings.DATABASES['default']['NAME']),"
    "'cache': settings.CACHES['default']['BACKEND'],"
    "'broker': settings.CELERY_BROKER_URL, 'backend': settings.CELERY_RESULT_BACKEND,"
    "'eager': settings.CELERY_TASK_ALWAYS_EAGER, 'debug': settings.DEBUG,"
    "'hosts': settings.ALLOWED_HOSTS, 'email': settings.EMAIL_BACKEND,"
    "'max_age': settings.DATABASES['default']['CONN_MAX_AGE'],"
    "'health_checks': settings.DATABASES['default']['CONN_HEALTH_CHECKS']}))"
)
SERVICE_VARS = (
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "SECURE",
    "EMAIL_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "CONN_MAX_AGE",
    "CONN_HEALTH_CHECKS",
)


def clean_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env["DJANGO_SETTINGS_MODULE"] = "circolo.settings"
    env.update(overrides)
    return env


def probe(**env: str) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_with_nothing_set_it_runs_on_sqlite_with_in_process_tasks():
    found = probe()
    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["name"] == str(ROOT / "db.sqlite3")
    assert found["cache"].endswith("LocMemCache")
    assert found["eager"] is True
    assert found["broker"] == "memory://"


def test_database_url_switches_to_postgresql():
    found = probe(DATABASE_URL="postgres://circolo:secret@db.example:5433/circolo")
    assert found["engine"] == "django.db.backends.postgresql"
    assert found["name"] == "circolo"


def test_database_connections_persist_with_health_checks_by_default():
    found = probe(DATABASE_URL="postgres://circolo:secret@db.example:5433/circolo")
    assert found["max_age"] == 600
    assert found["health_checks"] is True


def test_conn_max_age_and_health_checks_come_from_the_environment():
    found = probe(CONN_MAX_AGE="0", CONN_HEALTH_CHECKS="false")
    assert found["max_age"] == 0
    assert found["health_checks"] is False


def test_redis_url_switches_broker_and_cache_to_redis_and_tasks_to_a_worker():
    found = probe(REDIS_URL="redis://cache.example:6379/2")
    assert found["cache"] == "circolo.cache.RedisCache"  # Django's, Redis down a miss
    assert found["broker"] == "redis://cache.example:6379/2"
    assert found["backend"] is None  # no code reads a task's result
    assert found["eager"] is False


def test_debug_hosts_and_email_come_from_the_environment():
    found = probe(
        DEBUG="true",
        ALLOWED_HOSTS="circolo.example,www.circolo.example",
        EMAIL_URL="smtp://mailer:pw@smtp.example:587",
    )
    assert found["debug"] is True
    assert found["hosts"] == ["circolo.example", "www.circolo.example"]
    assert found["email"] == "django.core.mail.backends.smtp.EmailBackend"


PRODUCTION = {
    "SECRET_KEY": "x7!k2@pq#v9%zr4&mw8^tn3*ls6(yb1)hd5-gf0+cj_ea=ou-Kw3Rt8Yp2Lm6",
    "ALLOWED_HOSTS": "circolo.example",
    "SECURE": "true",
    "DEBUG": "false",
}


def test_production_settings_pass_check_deploy_with_no_warnings():
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean_env(**PRODUCTION),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


@pytest.mark.parametrize("unsafe", [{"SECURE": "false"}, {"DEBUG": "true"}, {"SECRET_KEY": ""}])
def test_check_deploy_flags_an_unsafe_production_setting(unsafe):
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean_env(**{**PRODUCTION, **unsafe}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
