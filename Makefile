# Two commands: `make run` (the console with demo data) and `make test` (everything CI runs);
# `make test-fast` while working (lint, types, contracts and every test that starts
# no process and no browser, on SQLite: a few minutes).
SHELL := /bin/bash

.PHONY: run test test-fast venv lint format lock

venv:
	@.ci/bootstrap

run: venv
	@.venv/bin/python manage.py console

test: venv
	@.ci/test

test-fast: venv
	@.ci/test fast

lint:
	@.venv/bin/ruff check . && .venv/bin/ruff format --check .

format:
	@.venv/bin/ruff format . && .venv/bin/ruff check --fix .

# requirements.lock (what `make` and CI install, with hashes) from pyproject.toml,
# keeping every pin that still fits; `make lock UPGRADE=1` moves every pin to the
# newest allowed. Then the venv is brought to the new lock.
lock: venv
	@.venv/bin/uv pip compile pyproject.toml --extra test --universal --generate-hashes \
		--python-version 3.12 --quiet $(if $(UPGRADE),--upgrade) -o requirements.lock
	@.ci/bootstrap
