# The two commands a newcomer needs: `make run` and `make test`. Both create .venv when missing.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# Installs are pinned to constraints.txt: the exact versions the suite last passed with, so a fresh
# clone gets what CI tested (the app leans on Streamlit internals a release can change). Empty it
# (`make test CONSTRAINTS=`) to install whatever the ranges in pyproject.toml allow today.
CONSTRAINTS ?= constraints.txt
PIN := $(if $(CONSTRAINTS),-c $(CONSTRAINTS))
# Extra pip flags; `make test-latest` passes --upgrade.
PIP_FLAGS ?=
# pytest workers (pytest-xdist): three keep both cores of a 2-core machine busy (979 of 992 CPU-s
# busy in a whole run, 500 s); five were slower (515 s), and two were slower in an earlier pair of
# runs (401 s against 356 s for three). Work stealing keeps the long browser tests from piling up on
# one worker; each worker starts its own servers on free ports. PYTEST_WORKERS=0 runs everything in
# one process.
PYTEST_WORKERS ?= 3
LATEST_VENV ?= .venv-latest
LOCK_VENV ?= .venv-lock

.PHONY: run test lint bench lock test-latest clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Stamp files: reinstall only when pyproject.toml or the constraints change.
$(VENV)/.installed-run: pyproject.toml $(CONSTRAINTS) | $(PY)
	$(PY) -m pip install -q $(PIP_FLAGS) $(PIN) -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(CONSTRAINTS) | $(PY)
	$(PY) -m pip install -q $(PIP_FLAGS) $(PIN) -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(PY) -m streamlit run app.py --server.address $(HOST) --server.port $(PORT)

lint: $(VENV)/.installed-test
	$(PY) -m ruff check .

test: $(VENV)/.installed-test lint
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal

bench: $(VENV)/.installed-test
	@for script in benchmarks/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# Refresh constraints.txt: install the newest versions pyproject.toml allows into a throwaway venv
# and pin what came. Then `make test` (its stamps see the new file) and commit it if green.
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install -q -e '.[test]'
	{ echo "# Exact versions \`make run\` and \`make test\` install (pip install -c). Written by \`make lock\`;"; \
	  echo "# $$($(LOCK_VENV)/bin/python -V), $$(date -u +%Y-%m-%d). Do not edit by hand."; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf $(LOCK_VENV)
	@echo "constraints.txt refreshed: run make test, then commit it if green"

# The whole suite on the newest allowed versions, in a venv of its own, leaving constraints.txt and
# .venv alone: the early warning that a new Streamlit (or pint, plotly, numpy) breaks the app.
test-latest:
	rm -f $(LATEST_VENV)/.installed-run $(LATEST_VENV)/.installed-test
	$(MAKE) test VENV=$(LATEST_VENV) CONSTRAINTS= PIP_FLAGS="--upgrade --upgrade-strategy eager"
	$(LATEST_VENV)/bin/python -m pip freeze --exclude-editable

clean:
	rm -rf $(VENV) $(LATEST_VENV) $(LOCK_VENV) .pytest_cache .ruff_cache .hypothesis *.egg-info
