"""gunicorn's settings for `make run`: the zero-setup server that holds a club night.

Two processes, each with a pool of threads, serve the pages: one process (Python's one lock)
used one of the two cores of a club's laptop, and under a club night's writes every page
waited for the others' builds (the pages' p99 halved with two: docs/benchmarks.md). SQLite
takes one writer at a time whatever the number of processes, the other waits on its lock;
readers run side by side. The processes share the cache (below), so a page, a version or a
live screen is the same in both; a member's own write shows on their next page in either
(the cookie of `circolo.middleware.WritesForgetOwnPages`). A request waiting for SQLite's
write lock (up to 45 s, settings.py) holds a thread, not the process; connections beyond
the threads wait in the listen backlog (the development server's was 10: a club night's
phones posting at once got connection resets) and in gunicorn's queue, never refused.

Beside it, the outbox's worker (`manage.py outbox_worker`, plumbing/outbox/worker.py) runs
what each write queued after its commit (statistics, ratings, the inboxes, mails, webhooks)
and the beat schedule: the response goes back when the write commits. The server starts it
when it is ready, starts it again if it dies, and stops it when the server stops. The two
share a cache of files (`CACHE_DIR`), made afresh in a temporary directory at each start,
so what the worker changes shows on the pages and the live screens at once. With a broker
(`REDIS_URL`) none of this applies: Celery's workers run the tasks and Redis is the cache.

The command line overrides any of these (`--bind 0.0.0.0:8000` to serve the club's wifi,
with ALLOWED_HOSTS set; see README, "The two commands"). Production, with PostgreSQL and
Redis, picks its own (docs/operations.md, "Production").
"""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

wsgi_app = "circolo.wsgi:application"
bind = ["127.0.0.1:8000"]
workers = 2
worker_class = "gthread"
threads = 16
backlog = 2048
# A write may wait up to 45 s for SQLite's lock; a request is cut only well after that.
timeout = 60
graceful_timeout = 10
keepalive = 5
accesslog = "-"
# No control socket: its default path is one per user, which a second server (another
# checkout, the tests) would contend for.
control_socket_disable = True
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'

ROOT = Path(__file__).resolve().parent.parent
BROKER = bool(os.environ.get("REDIS_URL") or os.environ.get("CELERY_BROKER_URL"))
if not BROKER:
    os.environ.setdefault("OUTBOX_WORKER", "true")
    if not os.environ.get("CACHE_DIR"):
        os.environ["CACHE_DIR"] = tempfile.mkdtemp(prefix="circolo-cache-")
        _made_cache_dir = os.environ["CACHE_DIR"]

RESTART_PAUSE = 1.0  # seconds before a worker that died is started again


class OutboxWorker:
    """The outbox's worker process, kept running while the server runs."""

    def __init__(self, log) -> None:
        self.log = log
        self.process: subprocess.Popen | None = None
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    def start(self) -> None:
        with self.lock:
            if self.stopping.is_set():
                return
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    str(ROOT / "manage.py"),
                    "outbox_worker",
                    "--parent",
                    str(os.getpid()),
                ],
                cwd=ROOT,
            )
            self.log.info("outbox worker started (pid %s)", self.process.pid)

    def keep(self) -> None:
        """Wait on the worker; start it again whenever it dies (not when it was stopped)."""
        while not self.stopping.is_set():
            process = self.process
            code = process.wait() if process is not None else None
            if self.stopping.is_set():
                return
            self.log.warning(
                "outbox worker (pid %s) ended with %s: starting it again",
                getattr(process, "pid", None),
                code,
            )
            time.sleep(RESTART_PAUSE)
            self.start()

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            process = self.process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=graceful_timeout)
            except subprocess.TimeoutExpired:
                process.kill()


_worker: OutboxWorker | None = None


def when_ready(server):
    global _worker
    if BROKER or os.environ.get("OUTBOX_WORKER", "").lower() not in ("1", "true", "yes", "on"):
        return
    _worker = OutboxWorker(server.log)
    _worker.start()
    threading.Thread(target=_worker.keep, name="outbox-worker-keeper", daemon=True).start()


def on_exit(server):
    if _worker is not None:
        _worker.stop()
    made = globals().get("_made_cache_dir")
    if made:
        shutil.rmtree(made, ignore_errors=True)
