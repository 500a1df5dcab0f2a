# The README's two commands: `make demo` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test test-slow bench reproduce reproduce-quick clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(VENV)/bin/dpmodels demo

test: $(STAMP)
	$(PY) -m pytest -q

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

bench: $(STAMP)
	$(PIP) install --quiet -e ".[dev,bench]"
	$(PY) -m pytest benchmarks -q -o python_files="bench_*.py" -m "not slow or slow" -p no:cacheprovider --benchmark-only --benchmark-columns=median,iqr,rounds

# every registered figure and table at full size (see `dpmodels reproduce --list` for the costs)
WORKERS ?= 2
reproduce: $(STAMP)
	$(PIP) install --quiet -e ".[dev,reproduce]"
	$(VENV)/bin/dpmodels reproduce all --workers $(WORKERS) --out results

# every id at a reduced size (minutes), with the same figures and report
reproduce-quick: $(STAMP)
	$(VENV)/bin/dpmodels reproduce all --quick --workers $(WORKERS) --out results/quick

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .hypothesis .benchmarks
