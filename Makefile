# Set-up lives here so the README's two commands work on a fresh machine:
#   make run   — create the venv, install, run the main job on the bundled example skills
#   make test  — create the venv, install, lint, type-check, run every test
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup run test lint typecheck pytest bench ui clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/skill2env run

test: lint typecheck pytest

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy skill2env assets resources benchmarks

pytest: setup
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/catalog.py

ui: setup
	$(BIN)/skill2env ui

clean:
	rm -rf $(VENV) .skill2env .pytest_cache .mypy_cache .ruff_cache
