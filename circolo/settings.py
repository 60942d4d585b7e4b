"""Circolo's settings: one file, driven by environment variables (see docs/operations.md).

With nothing set, the site runs on SQLite in the project folder, with Celery tasks run
in-process and a local-memory cache: the zero-setup default of `make run`.
"""

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
# Production sets its own; the fallback only serves development and tests
# (`manage.py check --deploy` flags it).
SECRET_KEY = env("SECRET_KEY", default="django-insecure-circolo-development-key-change-me")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env("SITE_URL", default="http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "pgtrigger",
    "django_htmx",
    "csp",
    "plumbing.outbox",
    "plumbing.once",
    "circolo",
    "clubs",
    "clubs.webhooks",
    "matches",
    "ledger",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "circolo.security_headers.ContentSecurityPolicyMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A request that lost its database connection before committing anything runs again.
    "circolo.db_retry.RetryOnLostConnection",
    # After a write request, the members' and the public's kept pages are built again.
    "circolo.middleware.WritesForgetOwnPages",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # After the locale (its messages are translated) and CommonMiddleware (missing slashes).
    "circolo.middleware.ApiRequestMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Too large a body, a NUL in a page's address: refused before anything reads them.
    "circolo.middleware.BoundedRequestMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a lockout into its response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "circolo.urls"
WSGI_APPLICATION = "circolo.wsgi.application"
ASGI_APPLICATION = "circolo.asgi.application"

# The folders of the ``matches`` app that keep templates: the result cycle, the boards, the
# championship, the club nights and each game (``matches/<folder>/templates/``).
MATCHES_FOLDERS = [
    "results",
    "boards",
    "championship",
    "nights",
    "sputo",
    "singapore",
    "spazzumazz",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The games' wing keeps each folder's templates in the folder (``matches/<folder>/
        # templates/``): the result cycle's, the boards' and each game's.
        "DIRS": [
            BASE_DIR / "circolo" / "templates",
            *(BASE_DIR / "matches" / folder / "templates" for folder in MATCHES_FOLDERS),
        ],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "clubs.context_processors.my_clubs",
                "clubs.inbox.views.bell",
                "plumbing.public_pages.csrf_hole",
            ],
            # Everywhere: ``unlocalize`` (an id in an attribute or a link is never grouped,
            # whatever the settings) and ``grouped`` (points and money: 12.345 in Italian).
            "builtins": ["django.templatetags.l10n", "clubs.templatetags.numbers"],
        },
    },
]

# --- Database: SQLite in the project folder unless DATABASE_URL says otherwise.
DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Persistent connections: opening a PostgreSQL connection per request (authentication and
# all) cut the club page's throughput by two thirds or more (benchmarks/pages_bench.py).
# A kept connection is checked before a request reuses it, and replaced after CONN_MAX_AGE
# seconds. runserver opens a thread per request and closes its connections with it, so this
# changes nothing there; with SQLite a connection is a file opened, cheap either way.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=600)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Club nights have several phones writing at once. A deferred transaction that reads,
    # then writes, cannot wait for another writer: SQLite answers "database is locked" at
    # once. IMMEDIATE takes the write lock when the transaction begins, so writers queue
    # (up to `timeout` seconds) instead of failing; WAL lets reads go on meanwhile. A busy
    # night on a slow machine can queue 50 writers: they wait up to 45 s (below gunicorn's
    # 60 s request timeout) rather than fail.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 45,
            "init_command": "PRAGMA journal_mode=WAL",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: broker and cache when REDIS_URL is set.
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's Redis cache, except that Redis down is a miss, never an error.
            "BACKEND": "circolo.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "circolo",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0},
        }
    }
elif env("CACHE_DIR", default=""):
    # A cache the server's processes share without Redis: files in a directory (``make
    # run`` makes one afresh at each start for the server and its task worker).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": env("CACHE_DIR"),
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
# No result backend: no code reads a task's result (tasks write what they compute).
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# Without a broker, tasks run in-process as soon as they are queued (after commit).
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = 300
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker waits for the broker as long as it takes (it gave up after 100 tries).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A write's tasks are sent right after its commit (plumbing/outbox/): with the broker down the send
# must fail within a second or so, not hold the request. What is not sent waits in the
# outbox for the sweep.
CELERY_BROKER_CONNECTION_TIMEOUT = env.float("CELERY_BROKER_CONNECTION_TIMEOUT", default=1.0)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": CELERY_BROKER_CONNECTION_TIMEOUT,
    "socket_timeout": env.float("CELERY_BROKER_SOCKET_TIMEOUT", default=2.0),
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# The task outbox (plumbing/outbox/): the sweep sends what is due every OUTBOX_RELAY_SECONDS; a
# message no worker has run OUTBOX_REDELIVER_SECONDS after it was sent is sent again (the
# wait doubling each time), OUTBOX_MAX_ATTEMPTS times at most; /health/ reports the outbox
# down when a message has waited OUTBOX_ALERT_SECONDS.
OUTBOX_RELAY_SECONDS = env.float("OUTBOX_RELAY_SECONDS", default=30.0)
OUTBOX_REDELIVER_SECONDS = env.float("OUTBOX_REDELIVER_SECONDS", default=300.0)
OUTBOX_MAX_ATTEMPTS = env.int("OUTBOX_MAX_ATTEMPTS", default=8)
OUTBOX_ALERT_SECONDS = env.float("OUTBOX_ALERT_SECONDS", default=900.0)
# Without a broker, a write's tasks run in the outbox's own worker process (``manage.py
# outbox_worker``, plumbing/outbox/worker.py), never on the request's thread: ``make run``
# sets this and starts that worker beside the server. Off, they run in the request after
# its commit (the tests, ``make dev``).
# With a broker, Celery's workers run them and this is ignored.
OUTBOX_WORKER = env.bool("OUTBOX_WORKER", default=False) and CELERY_TASK_ALWAYS_EAGER
# Webhooks (clubs/webhooks/): deliveries go to public addresses only, unless
# WEBHOOK_ALLOW_PRIVATE (tests, a club's own network); retries that are due are sent every
# WEBHOOK_SWEEP_SECONDS (by beat; in-process, when the next event is sent).
WEBHOOK_ALLOW_PRIVATE = env.bool("WEBHOOK_ALLOW_PRIVATE", default=False)
WEBHOOK_SWEEP_SECONDS = env.float("WEBHOOK_SWEEP_SECONDS", default=30.0)
CELERY_BEAT_SCHEDULE = {
    "outbox-relay": {"task": "outbox.relay", "schedule": OUTBOX_RELAY_SECONDS},
    "housekeeping": {"task": "circolo.housekeeping", "schedule": 24 * 60 * 60},
    # Webhook deliveries whose retry is due (clubs/webhooks/).
    "webhooks-sweep": {"task": "webhooks.sweep", "schedule": WEBHOOK_SWEEP_SECONDS},
    # Recompute every balance from the entries; /health/ shows the last result.
    "ledger-check": {"task": "ledger.check", "schedule": 60 * 60},
    # What waits for people who chose e-mail: at most one digest an hour each.
    "inbox-digests": {"task": "clubs.inbox.send_digests", "schedule": 15 * 60},
    # Last night's end-of-evening reports, after the night is over (06:00).
    "night-reports": {
        "task": "matches.tasks.send_night_reports",
        "schedule": crontab(hour=7, minute=0),
    },
}
CELERY_TIMEZONE = "Europe/Rome"

# Web Push of what waits for people (clubs/inbox/tasks.py): the site's VAPID key pair
# (``manage.py vapid_keys`` makes one; without it nothing is pushed) and a contact for the
# push services. Push services are reached over HTTPS at public addresses only, unless
# PUSH_ALLOW_PRIVATE (tests, a club's own network).
VAPID_PUBLIC_KEY = env("VAPID_PUBLIC_KEY", default="")
VAPID_PRIVATE_KEY = env("VAPID_PRIVATE_KEY", default="")
VAPID_SUBJECT = env("VAPID_SUBJECT", default="mailto:circolo@example.org")
PUSH_ALLOW_PRIVATE = env.bool("PUSH_ALLOW_PRIVATE", default=False)

# Writes that honour an ``Idempotency-Key`` (the same key answers the write recorded the
# first time): sent with a key, such a request runs again after its database connection was
# lost even if it had committed (circolo/db_retry.py). Regular expressions of paths.
IDEMPOTENT_WRITE_PATHS = [
    r"^/api/v1/table-sessions/\d+/hands/$",
    r"^/api/v1/ledger/payments/$",
    r"^/api/v1/spazzumazz-games/$",
]
# How long a form's one-time token and an API's ``Idempotency-Key`` are remembered
# (plumbing/once/): the daily housekeeping drops older ones.
ONCE_KEEP_DAYS = env.int("ONCE_KEEP_DAYS", default=7)

# --- Auth
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Brute-force lockout (clubs/lockout.py): AXES_FAILURE_LIMIT failed logins lock the user name
# out from that address; AXES_ADDRESS_FAILURE_LIMIT failed logins from one address, whatever
# the user names, lock the address out; for AXES_COOLOFF_HOURS.
AXES_HANDLER = "clubs.lockout.LockoutHandler"
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_ADDRESS_FAILURE_LIMIT = env.int("AXES_ADDRESS_FAILURE_LIMIT", default=15)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=1.0)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]  # in clubs.lockout's order
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"


# The client's address (the lockout and the rate limits count by it): the connection's, or
# behind TRUSTED_PROXIES reverse proxies that each append to X-Forwarded-For, the Nth entry
# from the right (django-ipware: the entries after it are the proxies', those before it
# are the client's to write). A request with fewer entries counts by the connection's.
def client_address_settings(trusted_proxies: int) -> dict:
    if not trusted_proxies:
        return {"AXES_IPWARE_META_PRECEDENCE_ORDER": ["REMOTE_ADDR"]}
    return {
        "AXES_IPWARE_META_PRECEDENCE_ORDER": ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"],
        "AXES_IPWARE_PROXY_ORDER": "left-most",  # X-Forwarded-For's own order: client first
        "AXES_IPWARE_PROXY_COUNT": trusted_proxies - 1,  # ipware counts those after the client
    }


TRUSTED_PROXIES = env.int("TRUSTED_PROXIES", default=0)
vars().update(client_address_settings(TRUSTED_PROXIES))
# A longer chain than expected is a client that wrote entries of its own: not strict, ipware
# still picks the Nth from the right (strict, it would count the proxy's address instead).
IPWARE_STRICT = False

# Rate limits on what sends mail (clubs/throttles.py, django-ratelimit): password resets,
# sign-ups, confirmation links and invitations, each counted per client address and per
# recipient address, "count/period" (s, m, h, d). Counted in the cache: Redis in production.
MAIL_RATE_PER_ADDRESS = env("MAIL_RATE_PER_ADDRESS", default="30/h")
MAIL_RATE_PER_RECIPIENT = env("MAIL_RATE_PER_RECIPIENT", default="5/h")
RATELIMIT_IP_META_KEY = "clubs.lockout.client_address"

# --- API tokens (django-rest-knox, clubs/tokens.py): one per device, each valid for
# API_TOKEN_DAYS days after it is issued, dead when the password changes.
KNOX_TOKEN_MODEL = "clubs.ApiToken"
# knox's migrations would create the table of its own model, which ApiToken replaces: an
# unused table whose key on the users stops PostgreSQL from emptying them (test flushes).
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {
    "TOKEN_MODEL": KNOX_TOKEN_MODEL,
    "TOKEN_TTL": timedelta(days=env.float("API_TOKEN_DAYS", default=30)),
    # The header clients have always sent: ``Authorization: Token <token>``.
    "AUTH_HEADER_PREFIX": "Token",
}

# --- Internationalisation: Italian first, English complete.
LANGUAGE_CODE = "it"
LANGUAGES = [("it", _("Italian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env("TIME_ZONE", default="Europe/Rome")
USE_I18N = True
USE_TZ = True
# Dates and numbers as each language writes them (circolo/formats/it, en): "venerdì 4
# dicembre 2026" and "Friday 4 December 2026", never the US order; 1.234,50 and 1,234.50.
# Templates use the named formats (DATE_FORMAT, SHORT_DATE_FORMAT, ...), never their own,
# and show points and money with the ``grouped`` filter (clubs/templatetags/clubs.py).
# USE_THOUSAND_SEPARATOR stays off: on input it would read an English "12,50" as 1250 and an
# Italian "0.001" as 1 (Django strips what looks like a group), on money fields.
FORMAT_MODULE_PATH = ["circolo.formats"]

# --- Uploads and request bodies (circolo.middleware.BoundedRequestMiddleware): a multipart
# body (a form with files) may have UPLOAD_MAX_MB, any other body DATA_UPLOAD_MAX_MEMORY_SIZE;
# larger is a 413 before it is read. A file above FILE_UPLOAD_MAX_MEMORY_SIZE goes to disk.
UPLOAD_MAX_BYTES = int(env.float("UPLOAD_MAX_MB", default=10) * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # Django's default (2.5 MB): fields and JSON bodies
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
# The Singapore import's file (its own limit, within UPLOAD_MAX_MB).
SINGAPORE_IMPORT_MAX_BYTES = int(env.float("SINGAPORE_IMPORT_MAX_MB", default=5) * 1024 * 1024)

# --- Static files
STATIC_URL = "static/"
# `collectstatic` gathers the files here; WhiteNoise serves them (DEBUG off).
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if env.bool("STATIC_MANIFEST", default=False)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- E-mail (password resets, invitations)
EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
if EMAIL_CONFIG["EMAIL_BACKEND"].endswith("filebased.EmailBackend"):
    # django-environ drops the leading slash of filemail:///an/absolute/path.
    EMAIL_CONFIG["EMAIL_FILE_PATH"] = urlsplit(env("EMAIL_URL")).path
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Circolo <circolo@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Security: SECURE=true (production, behind HTTPS) turns on every HTTPS setting.
SECURE = env.bool("SECURE", default=False)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=SECURE)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# Scripts and styles only from our own static files: no inline script, handler or style
# attribute on our pages (circolo/security_headers.py says where inline styles are allowed).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Browser features no page uses, off for every page and anything it might embed.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
}

# --- The games (``GAMES``, above): each a folder of ``matches`` whose ``adapter`` module plugs
# it into the result cycle (``matches.results.adapters.register``).

# --- What each game shows on the leaderboards, the player page and the club night (matches.boards)

# --- REST API
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an API client without credentials gets a 401 with WWW-Authenticate.
        "clubs.tokens.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "plumbing.parsers.JSONParser",
        "plumbing.parsers.FormParser",
        "plumbing.parsers.MultiPartParser",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": [
        "plumbing.filters.StrictFilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "plumbing.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "plumbing.schema.AutoSchema",
    "EXCEPTION_HANDLER": "plumbing.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Circolo API",
    "DESCRIPTION": "Clubs, players, seasons and games of Italian card-game clubs.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI served from our own static files: no CDN needed.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # A Sputo match's format and the final's own: one choice set, one name.
    "ENUM_NAME_OVERRIDES": {
        "BestOfEnum": "matches.sputo.models.BEST_OF",
        "WebhookEventEnum": "clubs.webhooks.models.Event",
        "NightAnswerEnum": "matches.nights.models.Answer",
    },
    # A serializer without a docstring of its own is described by none, not by a base's.
    "GET_LIB_DOC_EXCLUDES": "plumbing.schema.lib_doc_excludes",
    # What webhooks deliver (clubs/webhooks/payloads.py), under x-webhooks.
    "POSTPROCESSING_HOOKS": [
        "clubs.webhooks.payloads.x_webhooks",
        "drf_spectacular.hooks.postprocess_schema_enums",
    ],
}

# Pages for the public (anonymous visitors of a public club) served whole from the cache
# (plumbing/public_pages.py): each entry holds the club's row and the versions the apps lend
# (``page_versions``: bumped by the features), and lasts at most PUBLIC_PAGE_SECONDS.
PUBLIC_PAGE_CLUB = "clubs.Club"  # whose pages they are: a slug and is_public
PUBLIC_PAGE_SECONDS = env.int("PUBLIC_PAGE_SECONDS", default=60)
# How long a member's page is kept for them at most (plumbing.public_pages.member_page; 0: never).
MEMBER_PAGE_SECONDS = env.int("MEMBER_PAGE_SECONDS", default=PUBLIC_PAGE_SECONDS)
# Each process answers a public page it checked less than this long ago from its memory.
PUBLIC_PAGE_RECHECK_SECONDS = env.float("PUBLIC_PAGE_RECHECK_SECONDS", default=1.0)
# Every record goes to one handler, the root's. Django's own default config gives its
# "django" logger a console handler of its own (under DEBUG) that also propagates to the
# root: each of its lines was printed twice. Here "django" keeps no handler of its own
# (its e-mail handler does nothing without ADMINS); runserver's request lines keep theirs.
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "{levelname} {name}: {message}", "style": "{"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        "axes": {"level": "WARNING"},
        # In-process tasks (no broker) would log a line for each one run: a worker's own
        # logging says what its tasks do.
        **(
            {"celery.app.trace": {"level": "WARNING"}, "kombu.connection": {"level": "ERROR"}}
            if CELERY_TASK_ALWAYS_EAGER
            else {}
        ),
    },
}
