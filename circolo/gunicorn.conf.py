"""gunicorn's settings for `make run`: the zero-setup server that holds a club night.

One process with a pool of threads: the default cache is the process's own memory (the
public pages, their versions), so one process keeps it coherent, and SQLite takes one
writer at a time whatever the number of processes. A request waiting for SQLite's write
lock (up to 20 s, settings.py) holds a thread, not the process; connections beyond the
threads wait in the listen backlog (the development server's was 10: a club night's phones
posting at once got connection resets) and in gunicorn's queue, never refused.

The command line overrides any of these (`--bind 0.0.0.0:8000` to serve the club's wifi,
with ALLOWED_HOSTS set; see README, "The two commands"). Production, with PostgreSQL and
Redis, picks its own (docs/operations.md, "Production").
"""

wsgi_app = "circolo.wsgi:application"
bind = ["127.0.0.1:8000"]
workers = 1
worker_class = "gthread"
threads = 16
backlog = 2048
# A write may wait up to 20 s for SQLite's lock; a request is cut only well after that.
timeout = 60
graceful_timeout = 10
keepalive = 5
accesslog = "-"
# No control socket: its default path is one per user, which a second server (another
# checkout, the tests) would contend for.
control_socket_disable = True
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
