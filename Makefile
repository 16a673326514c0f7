# Two entry points: `make demo` runs an evaluation of the bundled example, `make test` runs every check.
# Both create .venv on first use. The demo installs agentgauge's own dependencies only (~40 packages); the checks
# need every extra (Google ADK, Ray, the server, the SQL store, Selenium, mypy, ...: ~750 MB), which `make test`
# adds to the same .venv, so `make demo` then `make test` upgrades it in place.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check --no-input
DEMO_STAMP := $(VENV)/.installed-demo
STAMP := $(VENV)/.installed
# ADK-TS (@iqai/adk, run under Node) for the differential tests of the adk-ts scoring dialect; `make demo` needs no Node
NODE_STAMP := tests/node/node_modules/.installed

.PHONY: demo test lint layers typecheck unit bench screenshots clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	@# after `make test` everything is installed already
	[ $(STAMP) -nt pyproject.toml ] || $(PIP) install --quiet -e .
	touch $(DEMO_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e ".[dev]"
	touch $(STAMP) $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/agentgauge eval examples/calculator/agent.py examples/calculator/calculator.evalset.json --print-detailed-results

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

layers: $(STAMP)
	@# the layering of docs/architecture.md, declared in pyproject.toml [tool.importlinter]
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/

$(NODE_STAMP): tests/node/package.json tests/node/package-lock.json
	@# without npm the ADK-TS differential tests skip (and fail under CI=true)
	if command -v npm >/dev/null 2>&1; then \
		cd tests/node && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error && touch node_modules/.installed; \
	else echo "npm not found: the ADK-TS differential tests will be skipped"; fi

unit: $(STAMP) $(NODE_STAMP)
	$(BIN)/python -m pytest -q -n 2

test: lint layers typecheck unit

screenshots: $(STAMP)
	@# the browser tests save what they check as docs/images/*.png (the pictures docs/web.md shows)
	AGENTGAUGE_SCREENSHOT_DIR=docs/images $(BIN)/python -m pytest -q tests/server/test_browser*.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .agentgauge tests/node/node_modules
