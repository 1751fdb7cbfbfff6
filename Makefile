# Set-up and everyday commands. `make run` and `make test` build the virtual environment
# on first use, so a fresh machine needs nothing else.
PYTHON ?= python3
# No byte-code caches in the program's folders from any target: a cache is a file of the program, part of
# its software identity (engine.software_id, docs/certification.md).
export PYTHONDONTWRITEBYTECODE := 1
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: venv run test lint bench bench-json bench-scale dist dist-test clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# Qt's desktop libraries: installed with apt when run as root, else the one command is printed and
# make stops here (gui/qt_libs.py). The tests also need Xvfb, openbox, xdotool and scrot (real-display tests).
# The program runs with byte-code writing off (-B's environment form): no cache is ever part of it
# (docs/certification.md, Software identity).
run: venv
	$(BIN)/python -m gui.qt_libs --install
	@echo 'drr is $(BIN)/drr; to type plain "drr" in this shell: export PATH="$$PWD/$(BIN):$$PATH"'
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/drr

# The PostgreSQL the tests and the floor benchmarks use: this machine's (tools/postgres.sh starts it
# if it is down), unless DRR_TEST_PG_URL / DRR_BENCH_PG_URL name another. A machine with none still runs
# every test: the test session starts a PostgreSQL of its own (pgserver, tests/pg_embedded.py).
LOCAL_PG := postgresql+psycopg://postgres@127.0.0.1:5432/test
# The suite runs on every core (pytest-xdist): two workers per core, since many tests wait (on a station's
# timers, a subprocess, a real-screen shift's betting time) rather than compute, and each test is sent to
# whichever worker is free (worksteal); the long ones (marked slow) start first (tests/conftest.py).
# Every worker has its own scratch folders and key folder (tmp_path) and every PostgreSQL test its own
# schema (tests/pg_schema.py). PYTEST_ARGS comes after and wins: `make test PYTEST_ARGS="-n 0"` runs in one
# process, `make test PYTEST_ARGS=tests/gui` runs one folder (in parallel).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))
PYTEST_PARALLEL ?= -n $(PYTEST_WORKERS) --dist worksteal

test: venv
	$(BIN)/python -m gui.qt_libs --install --xvfb
	@url="$$DRR_TEST_PG_URL"; from="the one DRR_TEST_PG_URL names"; \
	if [ -z "$$url" ] && tools/postgres.sh --if-present; then url='$(LOCAL_PG)'; from="this machine's"; fi; \
	[ -n "$$url" ] || from="none on this machine, the tests start their own"; \
	echo "PostgreSQL for the tests: $$from"; \
	DRR_TEST_PG_URL="$$url" QT_QPA_PLATFORM=offscreen PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest $(PYTEST_PARALLEL) $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check engine hardware gui resources bench tests packaging
	$(BIN)/ruff format --check engine hardware gui resources bench tests packaging
	$(BIN)/mypy
	$(BIN)/lint-imports

# The benchmarks (bench/) run from a checkout only: they are not part of the installed program.
bench: venv
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench

# The same figures as one JSON object {figure: value} on stdout (the progress notes go to stderr).
bench-json: venv
	@QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench --json

# The long scale figures (docs/scale.md): up to 20 minutes on two cores; the figures also go to
# bench-scale.json. The floor groups run in scratch schemas of $(DRR_BENCH_PG_URL), else of the
# local PostgreSQL's `test` database (dropped afterwards).
bench-scale: venv
	@if [ -z "$$DRR_BENCH_PG_URL" ]; then tools/postgres.sh; fi
	DRR_BENCH_PG_URL="$${DRR_BENCH_PG_URL:-$(LOCAL_PG)}" QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench --scale --out bench-scale.json

# The installable one-folder bundle dist/drr/ (PyInstaller, packaging/drr.spec); see docs/packaging.md.
DIST_STAMP := $(VENV)/.dist-stamp

$(DIST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,dist]'
	touch $(DIST_STAMP)

dist: $(DIST_STAMP)
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/drr.spec
	@du -sh dist/drr

# Runs the built bundle from a temporary folder with an empty environment (not part of .ci/run).
dist-test: dist
	packaging/dist_test.sh dist/drr $(BIN)/drr

# The Debian package of the bundle for table PCs (packaging/build_deb.py, docs/packaging.md):
# dist/diamond-rush-roulette_VERSION-$(DEB_REVISION)_ARCH.deb.
.PHONY: deb deb-test
DEB_REVISION ?= 1

deb: dist
	$(BIN)/python packaging/build_deb.py dist/drr dist --revision $(DEB_REVISION)

# Installs that package in a scratch Debian system (debootstrap + chroot, build/deb-test; root and the
# Debian mirror), runs drr there as the user drr, then upgrades it to a second build (revision + 1).
deb-test: dist
	@first=$$($(BIN)/python packaging/build_deb.py dist/drr dist --revision $(DEB_REVISION)) && \
	second=$$($(BIN)/python packaging/build_deb.py dist/drr build/deb-test/second --revision $$(($(DEB_REVISION) + 1))) && \
	echo "built $$first and $$second" && packaging/deb_test.sh "$$first" "$$second"

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
