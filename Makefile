# The README's two commands: `make demo` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test lint docs results-check test-slow bench reproduce reproduce-quick clean corels optimal browser \
	diffprivlib-env test-diffprivlib reproduce-diffprivlib reproduce-authors

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(VENV)/bin/dpmodels demo

# two workers (pytest-xdist), each test file in one of them so its module fixtures are built once;
# each test draws its noise from a stream seeded by its own id (tests/conftest.py). Measured on an
# idle 2-core machine: 2 min 12 s wall against 4 min 0 s in one process, the same CPU (3 min 50 s).
test: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadfile

# lint and format check, then the type checker (.ci/run runs this before the tests)
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy

# the documentation site into build/site, warnings as errors; executes docs/tutorial.ipynb (.ci/run)
DOCS_STAMP := $(VENV)/.docs-installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
$(DOCS_STAMP): $(STAMP)
	$(PIP) install --quiet -e ".[dev,docs]"
	rm -f $(VENV)/.docs-installed-*
	touch $@

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/mkdocs build --strict --quiet
	@echo "docs: build/site/index.html"

# the generated result pages and the coverage table equal what their committed data generate (.ci/run)
results-check: $(STAMP)
	$(PY) -m dpmodels.experiments.pages docs

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

# Optional cross-check: the real CORELS (GPL-3), built on this machine from the official PyPI sdist.
# Nothing of it is vendored; the patches only let the 2019 sdist build on Python 3.11 / NumPy 2:
# setup.py's __NUMPY_SETUP__ line, the removed np.bool alias, np.array(copy=False), and a
# _corels.cpp regenerated with Cython 3.1. The download needs pip < 25.3 (--no-use-pep517),
# so the build runs in its own throwaway venv; the wheel is installed into $(VENV).
CORELS_VERSION := 1.1.29
CORELS_DIR     := build/corels
corels: $(STAMP)
	rm -rf $(CORELS_DIR) && mkdir -p $(CORELS_DIR)
	$(PYTHON) -m venv $(CORELS_DIR)/venv
	$(CORELS_DIR)/venv/bin/pip install --quiet "pip<25.3" setuptools wheel "cython>=3.1,<3.2" \
		"numpy==$$($(PY) -c 'import numpy; print(numpy.__version__)')"
	cd $(CORELS_DIR) && venv/bin/pip download --quiet --no-binary :all: --no-deps --no-use-pep517 \
		-d . corels==$(CORELS_VERSION)
	cd $(CORELS_DIR) && tar xzf corels-$(CORELS_VERSION).tar.gz
	cd $(CORELS_DIR)/corels-$(CORELS_VERSION) && \
		sed -i '/__NUMPY_SETUP__ = False/d' setup.py && \
		sed -i 's/np\.bool\b/bool/g' corels/utils.py corels/corels.py && \
		sed -i "s/np\.array(x, order='C', copy=False)/np.asarray(x, order='C')/" corels/utils.py && \
		../venv/bin/cython --cplus -3 corels/_corels.pyx -o corels/_corels.cpp && \
		../venv/bin/pip wheel --quiet --no-deps --no-build-isolation -w ../dist .
	$(PIP) install --quiet --force-reinstall --no-deps $(CORELS_DIR)/dist/corels-$(CORELS_VERSION)-*.whl
	rm -rf $(CORELS_DIR)/venv $(CORELS_DIR)/corels-$(CORELS_VERSION)
	$(PY) -c "import corels; print('corels', corels.__file__)"

# Optional: headless Chromium (Debian's package), which the slow suite uses to open the HTML report
# of `dpmodels audit` (tests/cli/test_cli_audit.py; the test skips when /usr/bin/chromium is absent).
browser:
	@test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium)
	/usr/bin/chromium --version

# Optional extra for optimal trees (PyDL8.5 compiles from source: minutes).
optimal: $(STAMP)
	$(PIP) install --quiet -e ".[dev,optimal]"

# dpmodels beside InterpretML's DP-EBM (extra [peers]) and diffprivlib (side environment, when built):
# the cells are cached by hash in results/lib-peers, so a rerun after a change adds only new series
# (the side environment runs only the cells the main one could not); then the generated page
# docs/results/lib-peers.md from its committed rows docs/results/data/lib-peers.csv.gz (the page's
# CPU-s are the sum over the runs that computed the grid's cells, in either environment)
.PHONY: reproduce-peers
reproduce-peers: $(STAMP)
	$(PIP) install --quiet -e ".[dev,reproduce,peers]"
	$(VENV)/bin/dpmodels reproduce lib-peers --workers $(WORKERS) --out results
	test ! -x $(DPL_PY) || $(DPL_VENV)/bin/dpmodels reproduce lib-peers --workers $(WORKERS) --out results
	$(VENV)/bin/dpmodels reproduce lib-peers --finished-only --out results --report docs

# Optional side environment for paper 002's DiffPrivLib columns. diffprivlib 0.6.6 needs
# scikit-learn < 1.8 (see the `diffprivlib` extra in pyproject.toml), so it lives in its own venv
# beside $(VENV): scikit-learn 1.7, scipy < 1.18, the dev and reproduce extras. The main venv is
# not touched. Measured here (Python 3.11, empty pip cache): see README, "DiffPrivLib columns".
DPL_PYTHON ?= python3.11
DPL_VENV   ?= .venv-diffprivlib
DPL_PY     := $(DPL_VENV)/bin/python
DPL_STAMP  := $(DPL_VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
# the paper-002 ids whose tables or figure have DiffPrivLib / DP-LR series
DPL_IDS    ?= 002-table6 002-table2 002-table7 002-table8 002-table3 002-fig1 002-uci 002-reference
DPL_WORKERS ?= 1

$(DPL_STAMP): pyproject.toml
	test -x $(DPL_PY) || $(DPL_PYTHON) -m venv $(DPL_VENV)
	$(DPL_PY) -m pip install --quiet --upgrade pip
	$(DPL_PY) -m pip install --quiet -e ".[dev,reproduce,diffprivlib]"
	$(DPL_PY) -c "import diffprivlib, sklearn; print('diffprivlib', diffprivlib.__version__, 'scikit-learn', sklearn.__version__)"
	rm -f $(DPL_VENV)/.installed-*
	touch $@

diffprivlib-env: $(DPL_STAMP)

# the tests that exercise diffprivlib (they skip in the main venv, where it does not import), the
# paper-002 ids and the scikit-learn estimator checks, under the side env's scikit-learn 1.7
DPL_TESTS ?= tests/experiments/test_paper002_diffprivlib.py tests/experiments/test_paper002_authors.py tests/experiments/test_paper002_authors_tables.py \
	tests/tree/test_tree_baselines.py tests/audit/test_edges_audit.py \
	tests/experiments/test_paper_002.py tests/experiments/test_paper_privatree.py tests/tree/test_privatree_regressor.py tests/test_sklearn_checks.py
test-diffprivlib: $(DPL_STAMP)
	$(if $(AUTHORS),DPMODELS_AUTHORS_PRIVATREE="$(AUTHORS)") $(DPL_PY) -m pytest -q $(DPL_TESTS)

# the DiffPrivLib series of paper 002 at full size, into the same results folder as `make reproduce`
# (the cells are cached by hash, so `dpmodels reproduce 002 --finished-only` in $(VENV) reports them)
reproduce-diffprivlib: $(DPL_STAMP)
	$(DPL_VENV)/bin/dpmodels reproduce $(DPL_IDS) --workers $(DPL_WORKERS) --out results

# paper 002 beside the authors' public PrivaTree, on the same splits and folds: the id 002-authors
# (Fig. 1's and Fig. 4's splits) and the authors' series of Tables II, III, VI, VII and VIII. Give a checkout
# of tudelft-cda-lab/PrivaTree (commit 2aff7a0 printed the paper's results); nothing is downloaded, e.g.
#   git --git-dir=<mirror> archive 2aff7a0 | tar -x -C /tmp/privatree-2aff7a0
#   make reproduce-authors AUTHORS=/tmp/privatree-2aff7a0
# Their cells run in the side env (their code imports diffprivlib); the main env then reports the tables.
# `make test-diffprivlib AUTHORS=...` also runs the adapter's tests that need the checkout.
AUTHORS_IDS ?= 002-table6 002-table2 002-table7 002-table8 002-table3
reproduce-authors: $(DPL_STAMP) $(STAMP)
	@test -f "$(AUTHORS)/privatree/privatree.py" || { echo "set AUTHORS=/path/to/a/checkout/of/tudelft-cda-lab/PrivaTree"; exit 2; }
	DPMODELS_AUTHORS_PRIVATREE="$(AUTHORS)" $(DPL_VENV)/bin/dpmodels reproduce 002-authors --workers $(DPL_WORKERS) --out results
	DPMODELS_AUTHORS_PRIVATREE="$(AUTHORS)" $(PY) -m dpmodels reproduce $(AUTHORS_IDS) --workers $(DPL_WORKERS) --out results
	DPMODELS_AUTHORS_PRIVATREE="$(AUTHORS)" $(DPL_VENV)/bin/dpmodels reproduce $(AUTHORS_IDS) --workers $(DPL_WORKERS) --out results
	DPMODELS_AUTHORS_PRIVATREE="$(AUTHORS)" $(PY) -m dpmodels reproduce $(AUTHORS_IDS) --finished-only --out results

clean:
	rm -rf $(VENV) $(DPL_VENV) build dist src/*.egg-info .pytest_cache .hypothesis .benchmarks
