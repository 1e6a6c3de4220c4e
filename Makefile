# The README's commands. Everything installs into .venv from the pinned lock file.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOCK := requirements/lock.txt
# Build tools come from the lock too, so an install next year builds the same way.
PIP_INSTALL := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c $(LOCK)
# uv installs the same pins from the same lock in seconds where pip takes minutes.
# It reads none of pip's settings, so it is told the find-links pip is told by the
# environment; where it cannot install (no uv for this platform, or a pinned file
# that only pip's own configuration points to), pip installs instead. It compiles
# the bytecode as pip does: without it every process (each notebook's kernel, the
# sandboxed graders that cannot write it) compiles numpy and the rest again.
UV_INSTALL := $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -c $(LOCK) \
	$(foreach links,$(PIP_FIND_LINKS),--find-links $(links))
install = $(UV_INSTALL) $(1) || $(PIP_INSTALL) $(1)
NOTEBOOK_EXTRAS := notebooks,peers
DEV_EXTRAS := notebooks,search,classroom,peers,dev,tuners,ray,mlflow,site
SITE_EXTRAS := notebooks,classroom,site

.PHONY: reproduce test site slides lab lint lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) setuptools wheel
	-$(PIP_INSTALL) uv

# One stamp per set of extras: rerunning is cheap, editing pyproject or the lock reinstalls.
# The notebooks' extra, and the peers that benchmark_study sets beside evp's answers.
$(VENV)/.notebooks: $(BIN)/python pyproject.toml $(LOCK)
	$(call install,--no-build-isolation -e ".[$(NOTEBOOK_EXTRAS)]")
	touch $@

$(VENV)/.dev: $(BIN)/python pyproject.toml $(LOCK)
	$(call install,--no-build-isolation -e ".[$(DEV_EXTRAS)]")
	touch $@ $(VENV)/.notebooks $(VENV)/.site

$(VENV)/.site: $(BIN)/python pyproject.toml $(LOCK)
	$(call install,--no-build-isolation -e ".[$(SITE_EXTRAS)]")
	touch $@

## reproduce: execute every notebook with papermill and write its figures
reproduce: $(VENV)/.notebooks
	$(BIN)/python -m evp.cli reproduce

## test: lint, unit and property tests and the docstrings' examples, then nbval over
## the executed notebooks
# (the nbgrader assignments are graded by nbgrader itself in tests/test_assignments.py)
# The report's browser test renders a page in Debian's Chromium, and the LaTeX tests
# compile with pdflatex and read the PDF back with poppler: installed here when
# missing and possible (as root), else those tests are skipped and say why.
DEBIAN_TOOLS := chromium:chromium pdflatex:texlive-latex-recommended \
	pdftotext:poppler-utils
APT_INSTALL := apt-get install -y -qq --no-install-recommends
test: $(VENV)/.dev
	@missing=; for pair in $(DEBIAN_TOOLS); do \
		command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		{ [ "$$(id -u)" = 0 ] && { $(APT_INSTALL) $$missing || \
			{ apt-get update -qq && $(APT_INSTALL) $$missing; }; } \
			>/dev/null 2>&1; } || echo "could not install$$missing: the tests \
	that need them will be skipped"; \
	fi
	$(BIN)/ruff check evp tests benchmarks docs
	@# One session on both cores (pytest-xdist): the tests, the docstrings' examples
	@# and nbval over the executed notebooks, each file on one worker, taken as a
	@# worker is free, the longest first (conftest.py's LONGEST_FIRST), so that no long
	@# file starts last and ends on one core while the other waits. conftest.py sends the
	@# notebooks' figures to a temporary folder, so the checkout stays as it is.
	@# One BLAS thread a worker: two workers on two cores, and two BLAS threads each
	@# made the products three times slower (the same numbers either way).
	PYTHONUNBUFFERED=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
		$(BIN)/python -m pytest -p no:cacheprovider -n 2 \
		--dist loadfile --no-loadscope-reorder --durations=25 --doctest-modules --nbval-lax \
		--nbval-sanitize-with tests/nbval_sanitize.cfg \
		--ignore=notebooks/classroom/assignments tests evp notebooks

## site: build the website from the executed notebooks into site/ (executes nothing;
## tests/test_site.py builds it too, with no warnings, and reads it in Chromium)
site: $(VENV)/.site
	$(BIN)/python docs/build.py --out site

## slides: the classroom's lecture notebooks as slides, built offline, in slides/
slides: $(VENV)/.site
	$(BIN)/python notebooks/classroom/slides.py slides

## lab: open JupyterLab on the notebooks (LAB_OPTIONS passes more options to it)
# Jupyter refuses to run as root (a container's usual user) unless told it may.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(VENV)/.notebooks
	$(BIN)/jupyter lab $(ALLOW_ROOT) $(LAB_OPTIONS) notebooks

## lock: re-resolve requirements/lock.txt (needs network; pip-tools installed on the fly)
lock: $(BIN)/python
	$(BIN)/python -m pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --extra notebooks --extra search --extra classroom --extra peers --extra parquet --extra dev --extra tuners --extra ray --extra mlflow --extra site --strip-extras --allow-unsafe \
		--no-emit-index-url --no-emit-find-links --no-header \
		-o $(LOCK) pyproject.toml requirements/build.in

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis site slides
