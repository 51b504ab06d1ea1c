# The README's two commands: `make demo` and `make test`. Both set everything up first.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: install demo test check bench clean stop

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml scripts/install-system
	scripts/install-system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,voyage]'
	touch $@

demo: install
	$(BIN)/legal-ai demo

test: install
	scripts/test

check: install
	scripts/check

bench: install
	$(BIN)/python bench/ingest.py

stop:
	-$(BIN)/legal-ai db stop

clean: stop
	rm -rf $(VENV) .legal-ai-test build *.egg-info
