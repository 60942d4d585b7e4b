"""Faults under load against a live stack of the test's own (benchmarks/chaos.py): a Redis
of its own (broker and cache), gunicorn, a real Celery worker and beat, on the test
database. The integration run (PostgreSQL); ``make chaos`` is the longer run, with figures.

One test, one stack (starting it is most of the cost), in two parts:

- With Redis stopped, hands and games recorded through the API answer
  2xx at once, ``/health/`` is a 503 naming the broker within 3 seconds, the public club
  page answers; once Redis is back every task the writes queued runs, and the statistics
  equal a rebuild from scratch.
- Point 9, the reliability run in short: a gunicorn worker killed mid-request, then every
  database connection terminated, under load: no 5xx, no write lost or recorded twice, no
  task lost, the statistics equal a rebuild. Hands and Spazz'u'mazz games are sent with
  their ``Idempotency-Key``: one whose connection is lost after its commit runs again and
  answers what it recorded.
"""

import time

import pytest

from benchmarks import chaos
from plumbing.outbox.models import Message
from tests.live_stack import live_stack, show_logs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def assert_nothing_lost(figures: chaos.Figures) -> None:
    assert figures.faults > 0, figures
    assert (figures.server_errors, figures.lost_writes, figures.duplicates) == (0, 0, 0), figures
    assert figures.lost_tasks == 0 and not Message.objects.waiting().exists(), figures
    assert figures.stats_differ == []


def broker_stopped_and_started(stack: chaos.Stack, world: chaos.World) -> None:
    tally, since = chaos.Tally(), chaos.last_message()
    chaos.run_load(stack.url, world, clients=5, seconds=2, tally=tally)
    stack.stop_redis()
    down = chaos.run_load(stack.url, world, clients=5, seconds=3)

    visitor = chaos.Client(stack.url, chaos.Tally())
    started = time.monotonic()
    status, health = visitor.call("GET", "/health/")
    assert time.monotonic() - started < 3
    assert status == 503 and health["checks"]["broker"]["status"] == "down", health
    assert visitor.call("GET", f"/clubs/{world.slug}/")[0] == 200
    # The writes' tasks wait in the outbox for the broker to come back.
    assert Message.objects.waiting().exists()

    stack.start_redis()
    chaos.run_load(stack.url, world, clients=5, seconds=2, tally=tally)
    tally.merge(down)
    figures = chaos.count("broker", tally, faults=1, since=since)

    assert down.hands and down.games, "no write was made while the broker was down"
    # A bound, not a speed target: with the broker down each write waited 15-39 s.
    assert down.slowest < 10, down.slowest_request
    assert {*tally.hands.values(), *tally.games.values()} <= {200, 201}, tally.statuses
    assert figures.cut == 0 and figures.tasks >= len(tally.hands) + len(tally.games)
    assert_nothing_lost(figures)


def test_faults_under_load_answer_and_lose_or_double_nothing(tmp_path):
    world = chaos.seed(tables=3)
    with live_stack(tmp_path) as stack:
        try:
            broker_stopped_and_started(stack, world)
            # 3 clients at the tables, 1 at Spazz'u'mazz, 1 reader.
            for scenario, clients in (("web", 5), ("database", 5)):
                figures = chaos.run_scenario(
                    scenario, stack, world, clients=clients, seconds=6, every=3
                )
                print(chaos.HEADER, chaos.row(figures), sep="\n")
                assert_nothing_lost(figures)
        except BaseException:
            show_logs(stack)
            raise
