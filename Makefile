# The README's two commands: `make demo` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test test-slow bench reproduce clean

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

reproduce: $(STAMP)
	$(VENV)/bin/dpmodels reproduce rulelist-accuracy --runs 100

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .hypothesis .benchmarks
