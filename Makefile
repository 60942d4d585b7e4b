# The README's two commands: `make run` and `make test`. Both set everything up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# The integration run's services (see docs/testing.md): overridable.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/circolo
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15

.PHONY: install run dev test test-fast test-integration lint bench bench-pages chaos messages clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

# A production server (gunicorn, circolo/gunicorn.conf.py) with DEBUG off, on the SQLite
# default with in-process tasks; static files collected here and served by WhiteNoise.
# tests/test_make_run.py starts the server with this recipe's own commands.
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) -m gunicorn --config circolo/gunicorn.conf.py

# For programmers: Django's development server, DEBUG on, reloading on every change.
dev: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	DEBUG=true $(PY) manage.py runserver 127.0.0.1:8000

test: install
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py spectacular --validate --fail-on-warn --file $(VENV)/openapi-schema.yaml
	$(PY) -m ruff check .
	$(PY) -m mypy --strict rules
	$(MAKE) --no-print-directory test-fast
	$(MAKE) --no-print-directory test-integration

# Everything but the integration tests, on the zero-setup default: SQLite, in-process tasks.
# The API fuzzing (marked fuzz) runs in the integration run, on PostgreSQL.
test-fast: install
	env -u DATABASE_URL -u REDIS_URL $(PY) -m pytest -m "not integration and not fuzz" -n 2

# The suite again on PostgreSQL and Redis (two processes, each its own test database and
# Redis cache database), with the integration tests and a real Celery worker. Left out: the
# browser tests, the pure rules engine and the permission matrix (2,100 requests that ask
# the same access code on either database; it runs once, on SQLite).
# Without the services it is skipped with the reason, except under CI=true, where it fails.
test-integration: install
	@if $(PY) -m tests.services "$(TEST_DATABASE_URL)" "$(TEST_REDIS_URL)"; then \
		DATABASE_URL="$(TEST_DATABASE_URL)" REDIS_URL="$(TEST_REDIS_URL)" CELERY_TASK_ALWAYS_EAGER=true \
		$(PY) -m pytest -m "not browser" --ignore-glob='tests/test_rules_*' \
			--ignore-glob='tests/test_permissions_*' -n 2; \
	elif [ -n "$$CI" ]; then \
		echo "CI is set but PostgreSQL or Redis is not reachable: failing." >&2; exit 1; \
	else \
		echo "SKIPPED the integration run: PostgreSQL or Redis is not reachable (set CI=true to make this a failure)."; \
	fi

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check rules tests benchmarks
	$(PY) -m mypy --strict rules

# Peers for the rules benchmark (never runtime dependencies); rlcard needs --no-deps.
bench: install
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m pip install --quiet --no-deps rlcard==1.2.0
	$(PY) benchmarks/rules_bench.py

# Pages under load against a bare view (needs wrk and PostgreSQL; see docs/benchmarks.md).
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/circolo_bench
bench-pages: install
	@command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }
	$(PY) benchmarks/pages_bench.py --database-url "$(BENCH_DATABASE_URL)" $(BENCH_ARGS)

# The reliability run: faults under load against a live stack of its own (Redis on a free
# port, gunicorn, a Celery worker and beat) on PostgreSQL; prints requests, 5xx, lost writes
# and tasks, duplicates (see docs/operations.md; needs redis-server and PostgreSQL).
CHAOS_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/circolo_chaos
chaos: install
	$(PY) benchmarks/chaos.py --database-url "$(CHAOS_DATABASE_URL)" $(CHAOS_ARGS)

# Refresh the translation catalogues (needs GNU gettext; the compiled .mo files are committed):
# extract, fill English from the source strings, compile. Translate the new Italian entries in
# locale/it/LC_MESSAGES/django.po, then run it again to compile them.
messages: install
	$(PY) manage.py makemessages -l it -l en --ignore '.venv/*' --ignore 'benchmarks/*' \
		--ignore 'tests/*' --ignore 'rules/*'
	$(PY) scripts/fill_english_catalogue.py
	$(PY) manage.py compilemessages --ignore '.venv/*'

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles .pytest_cache .mypy_cache .ruff_cache
