# Two commands do everything on a machine with Python 3.11+ and make:
#   make demo   set up, create a SQLite database, import the bundled sample tournaments, rate them,
#               publish the 2026-01 list, print its top 20 and write it to out/ (CSV, HTML),
#               and a seed list and round-1 pairing for the sample participant list
#   make test   set up, then run the whole test suite (SQLite and PostgreSQL)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_DB := var/demo.sqlite
DEMO := RATINGS_DATABASE_URL=sqlite:///$(DEMO_DB) RATINGS_PUBLISH_DIR=out/publish $(BIN)/ratings

.PHONY: setup demo test check lint format clean

# The packages pyproject.toml ships (a test holds the two lists equal).
PACKAGES := ratings importers exporters jobs service

setup: $(VENV)/.installed $(VENV)/.kernels $(VENV)/.bytecode

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

# The rating kernels compiled into numba's cache once, so that the first rating does not compile
# them (seconds); again whenever the formula changes.
$(VENV)/.kernels: $(VENV)/.installed ratings/formula.py ratings/kernels.py
	$(BIN)/python -c "from ratings.formula import compile_kernels; compile_kernels()"
	touch $@

# The project's modules compiled to bytecode, as pip does for an installed wheel; again whenever a
# module changes. An editable install leaves it to the first import, and where
# PYTHONDONTWRITEBYTECODE is set Python never keeps it: every command then compiled the
# service's modules again before it started, 0.4-0.5 s on two cores.
$(VENV)/.bytecode: $(VENV)/.installed $(shell find $(PACKAGES) -name '*.py' 2>/dev/null)
	$(BIN)/python -m compileall -q -j 0 $(PACKAGES)
	touch $@

demo: setup
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(DEMO) db upgrade
	$(DEMO) players import samples/players.csv
	$(DEMO) import samples/results-2023.csv samples/results-2024.csv samples/results-2025.xlsx
	$(DEMO) run
	$(DEMO) publish 2026-01
	$(DEMO) ranking --list 2026-01 --top 20
	$(DEMO) ranking --list 2026-01 --all -o out/ranking.csv
	$(DEMO) ranking --list 2026-01 -o out/ranking.html
	$(DEMO) seed samples/participants.csv --system swiss --list 2026-01 -o out/seed-list.csv
	$(DEMO) seed samples/participants.csv --system swiss --list 2026-01 --pairings -o out/round-1.html

# Two workers per processor (pytest-xdist, see tests/conftest.py); each worker has its own scratch
# PostgreSQL database. Every worker collects every test module, which pytest rewrites for its
# assertions: the suite keeps that bytecode even where PYTHONDONTWRITEBYTECODE is set (collecting
# took 19 s a worker without it, 8 s with it, on two cores).
test: setup
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist worksteal

check: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var out .pytest_cache .mypy_cache .ruff_cache
