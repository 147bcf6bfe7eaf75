# Two commands: `make run` (the console with demo data) and `make test` (everything CI runs).
SHELL := /bin/bash

.PHONY: run test venv lint format

venv:
	@.ci/bootstrap

run: venv
	@.venv/bin/python manage.py console

test: venv
	@.ci/test

lint:
	@.venv/bin/ruff check . && .venv/bin/ruff format --check .

format:
	@.venv/bin/ruff format . && .venv/bin/ruff check --fix .
