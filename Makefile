# The two commands: `make run` (the service with a real local model) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP_QUIET ?= -q
# llama.cpp's native CPU detection crashes on these machines; build for a generic target.
# The local server needs libllama and ggml only: no multimodal library (LLAVA_BUILD), no
# `common` library (llama-cpp-python forces it on; the included file turns it off again),
# no tools, examples, tests or server binaries (docs/local-model.md, "How it is built").
LOCAL_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF \
	-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
	-DCMAKE_PROJECT_llama.cpp_INCLUDE=$(CURDIR)/apps/api/llama-cpp-minimal.cmake
# make run PORT=8080 MODEL_PORT=8082: the API's port and the local model server's.
PORT ?= 8000
MODEL_PORT ?= 8081

.PHONY: run test lint typecheck lint-web test-web pytest test-local migrate serve format clean eval

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install $(PIP_QUIET) --upgrade pip

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install $(PIP_QUIET) -e '.[dev]'
	touch $@

$(VENV)/.local-installed: pyproject.toml | $(BIN)/python
	@echo "Building llama-cpp-python for the local model, once: about 5 minutes on an idle"
	@echo "2-core machine, up to about 50 on a crowded one. pip reports progress below; while"
	@echo "it compiles it says 'Building wheel ... still running' about once a minute."
	CMAKE_ARGS="$(LOCAL_CMAKE_ARGS)" $(BIN)/pip install --progress-bar on -e '.[local]'
	touch $@

run: $(VENV)/.local-installed
	$(BIN)/pantheon run-local --port $(PORT) --model-port $(MODEL_PORT)

# With `make run` going in another terminal: the example dataset over three demo-room modes.
eval: $(VENV)/.dev-installed
	$(BIN)/pantheon eval apps/api/pantheon/evals/examples/demo.jsonl --room "Demo room" \
		--modes standalone,roundtable,orchestrator --url http://127.0.0.1:$(PORT)

serve: $(VENV)/.dev-installed
	$(BIN)/pantheon migrate
	$(BIN)/pantheon serve

migrate: $(VENV)/.dev-installed
	$(BIN)/pantheon migrate

# pytest runs last: its closing lines are the verdict CI reads.
test: lint typecheck lint-web test-web pytest

# lint-imports: the floors contract in pyproject.toml (docs/adr/0036).
lint: $(VENV)/.dev-installed
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# The web client (apps/web, docs/web.md): ESLint from the lockfile, node's test runner.
WEB := apps/web

$(WEB)/node_modules/.installed: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

lint-web: $(WEB)/node_modules/.installed
	$(WEB)/node_modules/.bin/eslint -c $(WEB)/eslint.config.js $(WEB) tests/web/js

test-web:
	node --test --test-reporter=spec tests/web/js/*.test.mjs

# Two workers by default (pytest-xdist; a test file stays on one worker): the suite is
# mostly real servers waiting on each other, so two processes halve it even on 2 cores.
PYTEST_WORKERS ?= 2

# The browser tests inject axe-core from apps/web's node_modules (tests/web/test_accessibility.py).
pytest: $(VENV)/.dev-installed $(WEB)/node_modules/.installed
	$(BIN)/pytest -m "not local_model" -n $(PYTEST_WORKERS) --dist loadfile

# The inner loop: lint, types, the web lint, and the unit and api tiers on SQLite
# (tests/tiers.py: no real processes, browser, replicas, PostgreSQL or Redis).
# `make test` stays the whole suite, what CI runs.
.PHONY: check
check: lint typecheck lint-web
	$(BIN)/pytest -m "(unit or api) and not postgres" -n $(PYTEST_WORKERS) --dist loadfile

test-local: $(VENV)/.dev-installed $(VENV)/.local-installed
	$(BIN)/pytest -m local_model

format: $(VENV)/.dev-installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache $(WEB)/node_modules

# Benchmarks (apps/bench, docs/benchmarks.md). Numbers need a quiet machine: nothing else
# running. bench-quick is the same harness with tiny sizes (the smoke test runs it).
BENCH := PYTHONPATH=apps/bench $(BIN)/python -m pantheon_bench
.PHONY: bench bench-quick

bench: $(VENV)/.dev-installed
	mkdir -p docs bench-output
	ulimit -n $$(ulimit -Hn) && $(BENCH) --write docs/benchmarks.md

bench-quick: $(VENV)/.dev-installed
	$(BENCH) --quick

# I1: prompt injection through a fixture MCP server, fencing on vs off, on the bundled
# SmolLM2 (docs/benchmarks.md, "Prompt injection (I1)"). Slow on a shared CPU.
.PHONY: bench-injection
bench-injection: $(VENV)/.dev-installed $(VENV)/.local-installed
	PYTHONPATH=apps/bench $(BIN)/python -m pantheon_bench.injection --model local
