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

.PHONY: demo test lint layers typecheck unit bench clean

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

unit: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

test: lint layers typecheck unit

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .agentgauge
