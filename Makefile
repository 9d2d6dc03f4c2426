# The two commands a newcomer needs: `make run` and `make test`. Both create .venv when missing.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Stamp files: reinstall only when pyproject.toml changes.
$(VENV)/.installed-run: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(PY) -m streamlit run app.py --server.address $(HOST) --server.port $(PORT)

lint: $(VENV)/.installed-test
	$(PY) -m ruff check .

test: $(VENV)/.installed-test lint
	$(PY) -m pytest

bench: $(VENV)/.installed-test
	@for script in benchmarks/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis *.egg-info
