# Arena: `make run` starts the product on the embedded default; `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Services the integration tests use (started by `make services` when down).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/arena
TEST_BROKER_URL ?= redis://127.0.0.1:6379/15
# The worker tests' own broker: they run beside the parallel pass and purge its queues.
TEST_WORKER_BROKER_URL ?= redis://127.0.0.1:6379/14
# Test processes for the tests that may run side by side (one per core).
TEST_PROCESSES ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: run test setup system venv native extras migrate demo worker web lint format bench bench-reads bench-pipeline bench-recompute services test-fast clean

run: setup migrate demo
	@echo "Arena on http://127.0.0.1:$(PORT)/ (API docs: /api/docs/); Ctrl-C stops web and workers."
	@# Ctrl-C: a TERM to each worker's main process, which stops its pool (a TERM to the
	@# whole group, pool children too, left a worker hung at exit); then wait for them.
	@trap 'kill -TERM $$(jobs -p) 2>/dev/null; wait' EXIT INT TERM; \
	$(BIN)/celery -A arena worker -Q matches --concurrency 2 --loglevel INFO -n matches@%h & \
	$(BIN)/celery -A arena worker -Q validations,maintenance --beat --concurrency 2 \
	  --loglevel INFO -n service@%h & \
	$(BIN)/celery -A arena worker -Q human_games --concurrency 2 --loglevel INFO -n people@%h & \
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT) --noreload

setup: system venv native

# The engines' C modules (games/native.py): the random generator, the protocol's move check,
# Venture's fire, the adapters' encoder.
# Each is also built on its first use; where none can be built the Python code is used.
native: venv
	$(BIN)/python -c 'from games.native import build_all; build_all()'

# Debian packages: bubblewrap is the sandbox; python3 runs bots inside it; gcc, g++,
# nodejs and a headless JDK are the bots' other languages (docs/languages.md);
# chromium drives the browser tests.
system:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	[ -x /usr/bin/python3 ] || missing="$$missing python3"; \
	[ -x /usr/bin/gcc ] || missing="$$missing gcc libc6-dev"; \
	[ -x /usr/bin/g++ ] || missing="$$missing g++"; \
	[ -x /usr/bin/node ] || missing="$$missing nodejs"; \
	[ -x /usr/bin/javac ] || missing="$$missing openjdk-17-jdk-headless"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

system-test: system
	@command -v chromium >/dev/null || { echo "installing: chromium"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

venv: $(VENV)/.installed

# The `arena` command (client/) too: its tests run it from client/, and people from here.
# One call: each resolves and checks every requirement again, the costly part of a fresh
# setup. uv installs the same pinned set as pip about ten times faster (7 s against 67 s
# for everything here); pip does it alone where uv cannot be had.
PIP_INSTALL := $(BIN)/pip install -q --disable-pip-version-check
UV_VERSION := 0.13.9
INSTALL = { $(PIP_INSTALL) uv==$(UV_VERSION) 2>/dev/null && \
  $(BIN)/uv pip install -q --python $(BIN)/python $(1); } || \
  { echo "uv $(UV_VERSION) unavailable or failed: pip installs instead"; $(PIP_INSTALL) $(1); }
$(VENV)/.installed: requirements.txt client/pyproject.toml
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(call INSTALL,-r requirements.txt ./client)
	@touch $@

# The training extras (PettingZoo, OpenSpiel) for games/adapters and its tests; not the
# server's. On a fresh clone, with the server's requirements in the same pip call.
extras: $(VENV)/.extras-installed

$(VENV)/.extras-installed: requirements-extras.txt requirements.txt client/pyproject.toml
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	@if [ -e $(VENV)/.installed ] && [ ! requirements.txt -nt $(VENV)/.installed ] && \
	  [ ! client/pyproject.toml -nt $(VENV)/.installed ]; then \
	  echo "install -r requirements-extras.txt"; \
	  $(call INSTALL,-r requirements-extras.txt); \
	else \
	  echo "install -r requirements.txt ./client -r requirements-extras.txt"; \
	  $(call INSTALL,-r requirements.txt ./client -r requirements-extras.txt) && \
	  touch $(VENV)/.installed; \
	fi
	@# The adapters' encoder in C (games/adapters/compiled.py builds it on first use too).
	$(BIN)/python -m games.adapters.compiled
	@touch $@

migrate: venv
	$(BIN)/python manage.py migrate --noinput -v 0

demo: migrate
	$(BIN)/python manage.py demo

# PostgreSQL and Redis for the integration tests: start them if they are down.
services:
	@pg_isready -q -h 127.0.0.1 -p 5432 || { echo "starting PostgreSQL"; \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | head -1) main start; }
	@redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 || { echo "starting Redis"; \
	  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no; }

# Each pytest process compiles the test modules (pytest rewrites their asserts) and each
# worker a test starts compiles the project: keep the bytecode, even where the environment
# says not to (PYTHONDONTWRITEBYTECODE=1), so the passes after the first reuse it.
test: export PYTHONDONTWRITEBYTECODE :=
test: system extras setup system-test services
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	@# Beside the parallel pass, which keeps both cores busy, the tests that mostly wait on
	@# processes of their own: first those with real Celery workers, one at a time, on a broker
	@# of their own (the parallel pass's tests leave messages on the shared one); then the
	@# embedded default's, on SQLite and the filesystem broker in a folder of their own. Their
	@# output follows the parallel pass's, and any pass failing fails the target. A worker they
	@# stop leaves its sandboxes for a moment: the parallel tests' leak checks count only their
	@# own (tests/support/leaks.py).
	@# worksteal: xdist's default hands each process a quarter of the suite up front, in
	@# file order, so one process held every browser test and ran them alone at the end.
	@echo "== in parallel: everything but the worker, embedded and serial tests and the engine files run beside the serial ones; beside it, those with workers one at a time"
	@log=$$(mktemp); \
	( DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_WORKER_BROKER_URL) \
	    $(BIN)/pytest -q -p no:cacheprovider -m "workers and not embedded" tests/integration; \
	  workers_rc=$$?; \
	  echo "== the embedded default: SQLite and the filesystem broker"; \
	  tmp=$$(mktemp -d); env -u DATABASE_URL -u CELERY_BROKER_URL -u CACHE_URL \
	    ARENA_VAR_DIR=$$tmp ARENA_EMBEDDED_TEST=1 \
	    $(BIN)/pytest -q -p no:cacheprovider -m embedded tests/integration; \
	  embedded_rc=$$?; rm -rf $$tmp; [ $$workers_rc = 0 ] && [ $$embedded_rc = 0 ] ) \
	  >$$log 2>&1 & lane=$$!; \
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	  $(BIN)/pytest -q -p no:cacheprovider -n $(TEST_PROCESSES) --dist worksteal \
	    -m "not serial and not workers and not beside_serial"; \
	rc=$$?; wait $$lane; lane_rc=$$?; \
	echo "== beside it, the worker tests (real Celery workers, a broker of their own) and the embedded default's: exit $$lane_rc"; \
	cat $$log; rm -f $$log; \
	[ $$rc = 0 ] && [ $$lane_rc = 0 ]
	@# Alone but for engine tests, which touch no database, broker or sandbox and take the core
	@# the serial tests leave idle (tests/conftest.py, BESIDE_SERIAL_PATHS); their output
	@# follows the serial tests'.
	@echo "== alone: the sandbox's limits, workers killed mid-match; beside them, engine tests"
	@log=$$(mktemp); \
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	  $(BIN)/pytest -q -p no:cacheprovider -m beside_serial tests/games >$$log 2>&1 & engines=$$!; \
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	  $(BIN)/pytest -q -p no:cacheprovider -m serial tests/bots tests/integration; \
	rc=$$?; wait $$engines; engines_rc=$$?; \
	echo "== beside them, the engine tests: exit $$engines_rc"; \
	cat $$log; rm -f $$log; \
	[ $$rc = 0 ] && [ $$engines_rc = 0 ]

lint:
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: venv
	$(BIN)/python bench/games.py
	$(BIN)/python bench/sandbox.py

# Read latency at scale (bench/README.md): builds its own database (arena_benchreads, dropped
# at the end) and times every read endpoint and page. BENCH_ARGS="--scale 0.1" for a quick run.
bench-reads: venv services
	$(BIN)/python bench/reads.py $(BENCH_ARGS)
# Matches/s through Celery, Redis and PostgreSQL (1 and 2 workers) beside one process; its
# own database (arena_bench_pipeline) and Redis db 14. BENCH_ARGS="--soak 10000" adds the
# memory run.
bench-pipeline: venv services
	$(BIN)/python bench/pipeline.py $(BENCH_ARGS)

# Ratings recomputed from scratch: matches/s and memory at two pool sizes; its own database
# (arena_bench_recompute). BENCH_ARGS="--sizes 100000,1000000" for the million.
bench-recompute: venv services
	$(BIN)/python bench/recompute.py $(BENCH_ARGS)

clean:
	rm -rf var
