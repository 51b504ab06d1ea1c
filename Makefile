# The README's two commands: `make demo` and `make test`. Both set up what they need first.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

LOCK := requirements.lock

.PHONY: install install-test demo test test-fast check bench bench-desk clean stop lock audit dist

# What running needs (`make install`, `make demo`): the runtime system packages
# (scripts/install-system: poppler-utils, hspell, tesseract-ocr + heb) and legal-ai with its
# voyage and models extras. `make test` adds the test stack (`make install-test`): the tests'
# fonts and the browser tests' chromium (scripts/install-system --test) and the dev extra.
install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# The tested versions of every package (requirements.lock) constrain what is installed; a new
# dependency not yet in the lock installs unconstrained until `make lock` is run.
$(VENV)/.installed: pyproject.toml $(LOCK) scripts/install-system
	scripts/install-system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c $(LOCK) --upgrade pip setuptools
	$(BIN)/python -m pip install --quiet -c $(LOCK) -e '.[voyage,models]'
	touch $@

# Remade whenever the runtime part is (a changed pyproject.toml or lock installs both again).
$(VENV)/.installed-test: $(VENV)/.installed
	scripts/install-system --test
	$(BIN)/python -m pip install --quiet -c $(LOCK) -e '.[dev,voyage,models]'
	touch $@

# Rebuild the lock from a fresh venv with today's newest versions allowed by pyproject.toml.
lock:
	rm -rf build/lock-venv
	$(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/python -m pip install --quiet --upgrade pip setuptools
	build/lock-venv/bin/python -m pip install --quiet -e '.[dev,voyage,models]'
	{ echo "# The tested versions: \`make install\` installs with -c $(LOCK); \`make lock\` rebuilds it."; \
	  echo "# Made by pip freeze of a fresh venv (Linux x86_64, CPython $$(build/lock-venv/bin/python -c 'import platform; print(platform.python_version())'))."; \
	  build/lock-venv/bin/python -m pip freeze --all --exclude-editable; } > $(LOCK)
	rm -rf build/lock-venv

# Known vulnerabilities in the installed packages (needs pip-audit's service: see scripts/audit).
audit: install-test
	scripts/audit

demo: install
	$(BIN)/legal-ai demo

# The wheel, migrations, demo data and the desk's templates and assets inside, into dist/
# (`pip install dist/legal_ai-*.whl`: docs/deployment.md); built from a clean copy of the source.
dist: install
	VENV=$(VENV) scripts/wheel dist

test: install-test
	scripts/test

# The inner loop: lint and the tests that need no PostgreSQL (text/, the pure rules), one process.
test-fast: install-test
	scripts/test --fast

check: install-test
	scripts/check

bench: install-test
	$(BIN)/python bench/ingest.py

# Every desk page at the server over the demo data plus 1,000 lessons and 200 cases (issue 23).
bench-desk: install-test
	$(BIN)/python bench/desk_pages.py

stop:
	-$(BIN)/legal-ai db stop

clean: stop
	-[ ! -x $(BIN)/python ] || $(BIN)/python scripts/second-postgres stop
	rm -rf $(VENV) .legal-ai-test .legal-ai-pg2 build *.egg-info
