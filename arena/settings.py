"""Arena settings: twelve-factor, every knob an environment variable.

With nothing set, Arena runs embedded: a SQLite file and Celery's filesystem
broker under ``var/``, so a laptop needs no server. Production sets
``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis).
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from kombu import Exchange, Queue

from arena.install_key import install_key
from bots.sandbox import languages

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    # A per-install key kept under var/, so a fresh laptop works and nothing secret is committed.
    SECRET_KEY = install_key(VAR_DIR / "secret_key")

ALLOWED_HOSTS = [
    h for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h
]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# HTTPS deployments. ARENA_HTTPS=1 turns on every setting below (the site is
# served only over TLS, usually by a proxy in front); each can be set alone.
ARENA_HTTPS = env_bool("ARENA_HTTPS", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", ARENA_HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", ARENA_HTTPS)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", ARENA_HTTPS)
SECURE_HSTS_SECONDS = int(
    os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600 if ARENA_HTTPS else 0))
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", ARENA_HTTPS)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# The header the TLS-terminating proxy sets to "https". Only trust it behind a
# proxy that always overwrites it: a client reaching gunicorn directly could
# send it too. "none" turns it off (gunicorn terminating TLS itself).
_proxy_ssl_header = os.environ.get(
    "ARENA_PROXY_SSL_HEADER", "X-Forwarded-Proto" if ARENA_HTTPS else "none"
).strip()
if _proxy_ssl_header.lower() not in {"", "none"}:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_ssl_header.upper().replace("-", "_"), "https")
SILENCED_SYSTEM_CHECKS = []
if not SECURE_HSTS_PRELOAD:
    # Preloading binds the whole domain and every subdomain to HTTPS in browsers
    # for months, beyond this service; that is the domain owner's decision
    # (SECURE_HSTS_PRELOAD=1), so the deploy check's reminder does not apply.
    SILENCED_SYSTEM_CHECKS.append("security.W021")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "bots",
    "tournaments",
    "arena",
    "arena.dashboard",
    "arena.integrations",
    "axes",
]

MIDDLEWARE = [
    # Outermost: every answer's time, refusals below included (arena_request_seconds).
    "arena.metrics.RequestTimingMiddleware",
    # Next: refuses oversized and chunked bodies before anything below can read them.
    "arena.middleware.RequestBodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files (the API docs' Swagger UI, the browsable API's CSS) from
    # the same process, with DEBUG off too: runserver and gunicorn alike.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "arena.middleware.ThrottleGiveBackMiddleware",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "arena.integrations.context_processors.inbox",
            ]
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'arena.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, so a web process and a worker
    # wait for each other instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 30, "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # A file, not memory, so a worker process started by a test sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-arena.sqlite3")}
    # SQLite builds indexes without their covering columns (leaderboard_order's serve
    # PostgreSQL's walk of a board from the index alone); the same reads work without.
    SILENCED_SYSTEM_CHECKS.append("models.W040")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
# Only `collectstatic` writes here; WhiteNoise wants the folder to exist.
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# Serve straight from the apps' static folders: no collectstatic step to forget.
WHITENOISE_USE_FINDERS = True
# Email (password resets, notifications): see EMAIL_HOST below.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Log-ins (arena.throttling): no password is checked for an account at an address where it
# failed ARENA_LOGIN_FAILURE_LIMIT times within ARENA_LOGIN_LOCK_MINUTES of the last failure
# (django-axes, which keeps the failures in the database and lists them in the admin). The
# views refuse before the password is checked; the backend refuses whatever else asks.
AUTHENTICATION_BACKENDS = [
    "arena.throttling.LoginLockBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = int(os.environ.get("ARENA_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("ARENA_LOGIN_LOCK_MINUTES", "60")))
AXES_CLIENT_IP_CALLABLE = "arena.throttling.login_address"
AXES_USERNAME_CALLABLE = "arena.throttling.login_username"
AXES_RESET_ON_SUCCESS = True  # a log-in that succeeds at an address forgets its failures there
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# Failures are kept (and listed in the admin) only while they count; successful log-ins
# are not recorded at all.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # its start-up banner in every process, web and worker alike
# Each view answers a lock in its own shape (the API's JSON error, the page's form) before
# the password is checked, so axes' middleware, which would answer the failure that
# reaches the limit with its own page, is not installed.
SILENCED_SYSTEM_CHECKS.append("axes.W002")
# An account that failed ARENA_LOGIN_USERNAME_RATE times from anywhere is slowed down, not
# locked: from the addresses where it failed, one password check every this many seconds.
ARENA_LOGIN_SLOW_SECONDS = float(os.environ.get("ARENA_LOGIN_SLOW_SECONDS", "10"))

# Throttle counters live in this cache, so every web process must share it:
# Redis in production (CACHE_URL=redis://host:6379/1). The embedded default is
# one runserver process, for which process memory is exact, free and needs no
# setup step; a file or database cache would add a write per throttled request
# (on SQLite, under the lock the worker needs) for nothing.
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "arena.cache.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "arena"),
        }
    }
elif CACHE_URL in ("", "locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ValueError(f"CACHE_URL must be redis://..., rediss://... or locmem://, not {CACHE_URL!r}")
# How many reverse proxies in front of the web processes append to X-Forwarded-For.
# 0: the header is ignored, since any client can write it.
ARENA_TRUSTED_PROXIES = int(os.environ.get("ARENA_TRUSTED_PROXIES", "0"))

# Uploads: Django refuses bodies over this before any view sees them.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The account's own key and scoped tokens (arena.integrations.tokens).
        "arena.integrations.tokens.ScopedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "arena.pagination.KeysetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "arena.schema.ArenaAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "arena.errors.api_exception_handler",
    # DRF's three, the form's refusing a JSON document sent as a form (arena.parsers).
    "DEFAULT_PARSER_CLASSES": [
        "rest_framework.parsers.JSONParser",
        "arena.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # A view's throttle_scope picks its rate; the count is per user when logged
    # in, else per address (arena.throttling, shared with the dashboard forms).
    # A scoped API token is counted per token, in these and in "token" (every request).
    "DEFAULT_THROTTLE_CLASSES": [
        "arena.throttling.ScopedThrottle",
        "arena.throttling.TokenThrottle",
    ],
    # Rates of arena.throttling, shared by the API and the dashboard forms:
    # "N/second", "N/minute", "N/hour" or "N/day".
    "DEFAULT_THROTTLE_RATES": {
        "uploads": os.environ.get("ARENA_UPLOAD_RATE", "60/hour"),  # per user
        "register": os.environ.get("ARENA_REGISTER_RATE", "60/hour"),  # per address
        # Password reset requests (each may send an email), per address.
        "password_reset": os.environ.get("ARENA_PASSWORD_RESET_RATE", "10/hour"),
        "tournaments": os.environ.get("ARENA_TOURNAMENT_RATE", "10/hour"),  # per user
        # Every request made with one scoped API token.
        "token": os.environ.get("ARENA_TOKEN_RATE", "3600/hour"),
        # Failed log-ins from an address (any accounts), after which even the right password
        # is refused there for a while; and for an account from anywhere, after which it is
        # slowed down (ARENA_LOGIN_SLOW_SECONDS) where it failed.
        "login_address": os.environ.get("ARENA_LOGIN_ADDRESS_RATE", "30/hour"),
        "login_username": os.environ.get("ARENA_LOGIN_USERNAME_RATE", "10/hour"),
    },
    # The client address is REMOTE_ADDR unless this many proxies in front add
    # X-Forwarded-For; then it is the entry the outermost trusted one wrote.
    "NUM_PROXIES": ARENA_TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Arena API",
    "DESCRIPTION": "Bots, versions, tournaments, matches, replays and Elo ratings.",
    "VERSION": "1.0.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies get their own components: minLength where blanks are refused,
    # and an upload's file as binary.
    "COMPONENT_SPLIT_REQUEST": True,
    # Three models have a "status" field; name each enum after its model.
    "ENUM_NAME_OVERRIDES": {
        "VersionStatusEnum": "bots.models.BotVersion.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "MatchStatusEnum": "tournaments.models.Match.Status",
        "ChallengeStatusEnum": "tournaments.models.Challenge.Status",
        "TournamentFormatEnum": "tournaments.models.Tournament.Format",
        "WebhookFormatEnum": "arena.integrations.models.Webhook.Format",
        "PlayerKindEnum": ["bot", "builtin", "human"],
    },
}

# Celery. Embedded default: the filesystem transport, no server needed.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for sub in ("queue", "processed", "control"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
        # Broadcasts (purge, inspect) and exchange bindings; kombu's default is ./control.
        "control_folder": str(_broker_dir / "control"),
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Redelivery after visibility_timeout must never hit a match still being
        # played: keep it well above the longest match (bank * seats + slack).
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "7200")),
        # A dead or restarted Redis is noticed within seconds instead of hanging on a
        # half-open socket; the worker then reconnects (and re-declares its queues).
        "socket_connect_timeout": 2,
        "socket_timeout": 10,
        "socket_keepalive": True,
        "health_check_interval": 10,
    }
    if CELERY_BROKER_URL.startswith("redis://"):
        # kombu's Redis transport, one Redis client per pool instead of one per call
        # (arena/broker.py); rediss:// keeps kombu's own, which sets up its TLS.
        CELERY_BROKER_TRANSPORT = "arena.broker:Transport"
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits for its broker forever
# Publishing from a web request or a service fails fast when the broker is down: the
# row is already stored, and the reapers send what the broker does not hold.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker keeps its database connection between tasks for this many seconds (0: a new
# connection for every task, Celery's default with Django). Opening one costs a few ms a
# match; a connection the database dropped is noticed and replaced before the next task
# (arena.celery), so an outage still costs a retry, never a run of failed tasks.
ARENA_WORKER_DB_CONN_MAX_AGE = int(os.environ.get("ARENA_WORKER_DB_CONN_MAX_AGE", "300"))
if ARENA_WORKER_DB_CONN_MAX_AGE > 0:
    # Celery's Django fixup closes every connection around each task unless told to reuse
    # them; arena.celery closes them by age and health instead.
    CELERY_DB_REUSE_MAX = 10**9
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Four queues, so the reaper, tournament starts and validations never wait behind a
# backlog of matches: "matches", "validations", "human_games" (games people play in the
# browser: each holds a worker process for as long as the person plays) and "maintenance"
# (everything else). Names are repeated in bots/queueing.py. Declared, so that a worker
# started without -Q consumes all four; -Q names the ones a worker takes (the production shape). Each has the
# exchange and routing key of its own name, as Celery makes for a queue it was not given
# (a Queue without them would share the default queue's, and get its messages too).
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name), routing_key=name)
    for name in ("matches", "validations", "human_games", "maintenance")
]
CELERY_TASK_DEFAULT_QUEUE = "maintenance"
CELERY_TASK_ROUTES = {
    "tournaments.tasks.play_match": {"queue": "matches"},
    "tournaments.tasks.play_human_game": {"queue": "human_games"},
    "bots.tasks.validate_bot_version": {"queue": "validations"},
    "bots.tasks.validate_options": {"queue": "validations"},
    "arena.integrations.tasks.deliver_webhook": {"queue": "maintenance"},
}
# Every ARENA_QUEUE_CHECK_SECONDS a maintenance worker asks every worker which queues it
# consumes; "matches" or "validations" without a consumer for ARENA_UNSERVED_QUEUE_SECONDS
# is logged as a warning, with how many messages wait there.
ARENA_QUEUE_CHECK_SECONDS = float(os.environ.get("ARENA_QUEUE_CHECK_SECONDS", "30"))
ARENA_UNSERVED_QUEUE_SECONDS = float(os.environ.get("ARENA_UNSERVED_QUEUE_SECONDS", "60"))
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
_REAPER_SECONDS = float(os.environ.get("ARENA_REAPER_SECONDS", "15"))
# Each periodic message expires after one period: a worker that was away finds one
# pending run, not a pile of them.


def _every(task: str, seconds: float) -> dict:
    """A beat entry: ``task`` every ``seconds``; a run still waiting when the next is due is
    dropped (maintenance runs again on the next tick)."""
    return {"task": task, "schedule": seconds, "options": {"expires": seconds}}


CELERY_BEAT_SCHEDULE = {
    "start-due-tournaments": _every("tournaments.tasks.start_due_tournaments", 5.0),
    "requeue-stuck-matches": _every("tournaments.tasks.requeue_stuck_matches", _REAPER_SECONDS),
    "schedule-ladders": _every(
        "tournaments.tasks.schedule_ladders", float(os.environ.get("ARENA_LADDER_SECONDS", "10"))
    ),
    "refit-stale-pools": _every("tournaments.tasks.refit_stale_pools", 60.0),
    "check-gates": _every("tournaments.tasks.check_gates", _REAPER_SECONDS),
    "check-challenges": _every("tournaments.tasks.check_challenges", _REAPER_SECONDS),
    "requeue-stuck-validations": _every("bots.tasks.requeue_stuck_validations", _REAPER_SECONDS),
    "check-queue-consumers": _every("bots.tasks.check_queue_consumers", ARENA_QUEUE_CHECK_SECONDS),
    "resend-lost-webhook-deliveries": _every(
        "arena.integrations.tasks.resend_lost_deliveries", _REAPER_SECONDS
    ),
    "end-orphaned-sandboxes": _every("bots.tasks.end_orphaned_sandboxes", _REAPER_SECONDS),
    # Competitions: phases at their dates (the freeze, the final, the close) and their ladders.
    "advance-competitions": _every(
        "tournaments.tasks.advance_competitions",
        float(os.environ.get("ARENA_COMPETITION_SECONDS", "5")),
    ),
    "schedule-competition-ladders": _every(
        "tournaments.tasks.schedule_competition_ladders",
        float(os.environ.get("ARENA_COMPETITION_LADDER_SECONDS", "10")),
    ),
}

# Arena itself.
# /metrics (arena/metrics.py): answered only to "Authorization: Bearer <ARENA_METRICS_TOKEN>";
# with no token set, to nobody. Every process counting writes its values under
# PROMETHEUS_MULTIPROC_DIR (default var/metrics): web and workers must share it (a
# volume in compose); a Celery inspect of at most ARENA_METRICS_INSPECT_SECONDS counts workers.
ARENA_METRICS_TOKEN = os.environ.get("ARENA_METRICS_TOKEN", "")
ARENA_METRICS_DIR = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or VAR_DIR / "metrics")
ARENA_METRICS_DIR.mkdir(parents=True, exist_ok=True)
# Set for this process and those it starts, before bots.metrics defines the counters.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(ARENA_METRICS_DIR)
ARENA_METRICS_INSPECT_SECONDS = float(os.environ.get("ARENA_METRICS_INSPECT_SECONDS", "1"))
# /readyz: how long the database, the broker and the cache each have to answer (arena/health.py).
ARENA_READY_TIMEOUT_SECONDS = float(os.environ.get("ARENA_READY_TIMEOUT_SECONDS", "2"))
ARENA_BOT_CACHE = Path(os.environ.get("ARENA_BOT_CACHE", VAR_DIR / "bot-cache"))
ARENA_MAX_MATCH_ATTEMPTS = int(os.environ.get("ARENA_MAX_MATCH_ATTEMPTS", "3"))
ARENA_MAX_VALIDATION_ATTEMPTS = int(os.environ.get("ARENA_MAX_VALIDATION_ATTEMPTS", "3"))
# A running match whose heartbeat is older than this is taken as lost.
ARENA_STALE_MATCH_SECONDS = int(os.environ.get("ARENA_STALE_MATCH_SECONDS", "120"))
# While a match's bots start up, the worker builds sandboxes for the same seats, which its
# next match takes if it plays the same bots (bots/held_sandboxes.py): a third of a short match.
ARENA_PREPARE_AHEAD = env_bool("ARENA_PREPARE_AHEAD", True)
# A queued match or pending version is re-sent only when the broker no longer holds its
# message and it was sent at least this long ago (covers a message in flight).
ARENA_LOST_MESSAGE_SECONDS = int(os.environ.get("ARENA_LOST_MESSAGE_SECONDS", "30"))
# A version validating this long is taken as abandoned by a dead worker.
ARENA_STALE_VALIDATION_SECONDS = int(os.environ.get("ARENA_STALE_VALIDATION_SECONDS", "600"))
# A tournament seating versions at a player count or under options their own validation
# did not play waits this long past its start time for their validation matches under
# those (tournaments/services/admission.py); then it starts, and whoever is still being
# validated plays unvalidated.
ARENA_OPTIONS_VALIDATION_WAIT_SECONDS = int(
    os.environ.get("ARENA_OPTIONS_VALIDATION_WAIT_SECONDS", "600")
)
ARENA_TRUSTED_BOTS_ONLY = env_bool("ARENA_TRUSTED_BOTS_ONLY", False)
# The languages bots may be written in (docs/languages.md): python, c, cpp, javascript,
# java. The sandbox reads the same variable; an unknown name stops the start here.
ARENA_LANGUAGES = [lang.name for lang in languages.configured()]
# The build step (build.sh, run once at validation in the sandbox): its own limits.
ARENA_BUILD_SECONDS = int(os.environ.get("ARENA_BUILD_SECONDS", "120"))
ARENA_BUILD_MEMORY_MB = int(os.environ.get("ARENA_BUILD_MEMORY_MB", "1024"))
ARENA_BUILD_TMP_MB = int(os.environ.get("ARENA_BUILD_TMP_MB", "256"))
ARENA_ELO_K = int(os.environ.get("ARENA_ELO_K", "24"))
ARENA_ELO_START = int(os.environ.get("ARENA_ELO_START", "1500"))
# The always-on ladder (see tournaments/services/ladder.py): on unless ARENA_LADDER=0.
# SLOTS is how many ladder tables may be queued or running at once (a table is one
# game per seat rotation); tournaments always go first. Once every version has
# enough games the ladder adds one table per TRICKLE_SECONDS.
ARENA_LADDER = env_bool("ARENA_LADDER", True)
ARENA_LADDER_SLOTS = int(os.environ.get("ARENA_LADDER_SLOTS", "1"))
ARENA_LADDER_PLACEMENT_GAMES = int(os.environ.get("ARENA_LADDER_PLACEMENT_GAMES", "20"))
ARENA_LADDER_TRICKLE_SECONDS = float(os.environ.get("ARENA_LADDER_TRICKLE_SECONDS", "600"))
ARENA_LADDER_MOVE_MS = int(os.environ.get("ARENA_LADDER_MOVE_MS", "1000"))
ARENA_LADDER_BANK_MS = int(os.environ.get("ARENA_LADDER_BANK_MS", "10000"))
# Competitions (docs/competitions.md): at the deadline the freeze waits this long for
# versions uploaded before it that are still being validated or gated, then ignores them.
ARENA_COMPETITION_FREEZE_GRACE_SECONDS = int(
    os.environ.get("ARENA_COMPETITION_FREEZE_GRACE_SECONDS", "600")
)
# A pool's Bradley-Terry refit runs this long after the result that asked for it, so
# a burst of results costs one fit; rows with fewer rated games are provisional.
ARENA_FIT_DELAY_SECONDS = float(os.environ.get("ARENA_FIT_DELAY_SECONDS", "10"))
# A finished match of at least this many moves has its stored replay built by a maintenance
# worker once its result commits (tournaments.read_models.replays), so no reader waits for
# it (a long match's build takes seconds: bench/replay_first_read.py). A shorter one's is
# built by its first read (about what a stored page read costs; and most matches are never
# read); 0 builds every match's.
ARENA_STORE_REPLAY_MOVES = int(os.environ.get("ARENA_STORE_REPLAY_MOVES", "60"))
# A build still waiting after one reaper period is dropped (its first read builds it): a
# backlog of builds never holds the reapers up for longer than that.
ARENA_STORE_REPLAY_EXPIRES = _REAPER_SECONDS
ARENA_PROVISIONAL_GAMES = int(os.environ.get("ARENA_PROVISIONAL_GAMES", "20"))
# Version gates: game pairs scheduled at a time (each pair is two matches on one deal).
ARENA_GATE_BATCH_PAIRS = int(os.environ.get("ARENA_GATE_BATCH_PAIRS", "8"))
# Challenges (docs/challenges.md): SLOTS is how many challenge matches may be queued or
# running at once, across all challenges (the worker slots they may hold); the quotas are
# per author (staff exempt): games in challenges made in any 24 hours, and challenges
# pending or running at once. An "ask me" request expires after ASK_SECONDS.
ARENA_CHALLENGE_SLOTS = int(os.environ.get("ARENA_CHALLENGE_SLOTS", "2"))
ARENA_CHALLENGE_GAMES_PER_DAY = int(os.environ.get("ARENA_CHALLENGE_GAMES_PER_DAY", "400"))
ARENA_CHALLENGES_AT_ONCE = int(os.environ.get("ARENA_CHALLENGES_AT_ONCE", "2"))
ARENA_CHALLENGE_MAX_GAMES = int(os.environ.get("ARENA_CHALLENGE_MAX_GAMES", "200"))
ARENA_CHALLENGE_ASK_SECONDS = int(os.environ.get("ARENA_CHALLENGE_ASK_SECONDS", "86400"))
# Games people play against bots in the browser (docs/human-games.md). AT_ONCE caps the
# live games on the whole server (each holds a process of a "human_games" worker: give
# that worker as many); PER_PERSON caps one person's; MOVE_SECONDS is a person's time for
# each move; POLL_SECONDS how often the worker looks for the person's answer.
ARENA_HUMAN_GAMES_AT_ONCE = int(os.environ.get("ARENA_HUMAN_GAMES_AT_ONCE", "2"))
ARENA_HUMAN_GAMES_PER_PERSON = int(os.environ.get("ARENA_HUMAN_GAMES_PER_PERSON", "2"))
ARENA_HUMAN_MOVE_SECONDS = int(os.environ.get("ARENA_HUMAN_MOVE_SECONDS", "300"))
ARENA_HUMAN_POLL_SECONDS = float(os.environ.get("ARENA_HUMAN_POLL_SECONDS", "0.1"))

# ARENA_LOG_JSON=1: every line a JSON object (arena/log_format.py), with the match,
# version and worker ids of the events of bots/events.py as fields of their own.
ARENA_LOG_JSON = env_bool("ARENA_LOG_JSON", False)
# Integrations (docs/integrations.md). Links in emails and webhooks start with this.
ARENA_SITE_URL = os.environ.get("ARENA_SITE_URL", "http://127.0.0.1:8000")
# Email (notifications, password resets): SMTP when EMAIL_HOST is set, else printed on the
# console of the process that sends it (`make run` shows them).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", bool(EMAIL_HOST))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "arena@localhost")
# Webhook deliveries: ATTEMPTS per delivery, waiting BACKOFF_SECONDS, then twice as long
# each time; a hook whose last DISABLE_AFTER attempts (any deliveries) failed is turned off.
ARENA_WEBHOOK_ATTEMPTS = int(os.environ.get("ARENA_WEBHOOK_ATTEMPTS", "6"))
ARENA_WEBHOOK_BACKOFF_SECONDS = float(os.environ.get("ARENA_WEBHOOK_BACKOFF_SECONDS", "30"))
ARENA_WEBHOOK_DISABLE_AFTER = int(os.environ.get("ARENA_WEBHOOK_DISABLE_AFTER", "10"))
ARENA_WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("ARENA_WEBHOOK_TIMEOUT_SECONDS", "10"))
# Webhooks to loopback and private addresses (this machine, its network) are refused
# unless this is on: a hook must not reach what only the server can.
ARENA_WEBHOOK_PRIVATE_ADDRESSES = env_bool("ARENA_WEBHOOK_PRIVATE_ADDRESSES", False)
# A version whose seat faulted in this many of its matches in a row is taken out of play
# and its owner told; 0 never.
ARENA_CRASH_STREAK = int(os.environ.get("ARENA_CRASH_STREAK", "5"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "arena.log_format.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if ARENA_LOG_JSON else "plain",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # axes logs every log-in at INFO: its warnings (a lock-out) are what an operator needs.
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}
logging.captureWarnings(True)
