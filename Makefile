# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# `make quick` is the inner loop: the unit and property tiers, Hypothesis's quick profile.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test quick lint typecheck suite bench docs screenshots image-smoke clean bwrap node

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# The test child's sandbox (docs/security.md): bubblewrap, from the system's packages.
bwrap:
	@test -x /usr/bin/bwrap \
	|| { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; } \
	|| { sudo -n apt-get update -qq && sudo -n apt-get install -y -qq bubblewrap; } >/dev/null 2>&1 \
	|| echo "make: bubblewrap is missing and cannot be installed here (apt-get install bubblewrap): the gate will stop with exit 69 unless --no-sandbox"

# A real JavaScript suite (node:test, runner: junit) for tests/e2e/test_junit_node.py: nodejs,
# from the system's packages; the suite fails without it, so this stops when it cannot install.
node:
	@command -v node >/dev/null \
	|| { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq nodejs >/dev/null; } \
	|| { sudo -n apt-get update -qq && sudo -n apt-get install -y -qq nodejs; } >/dev/null 2>&1 \
	|| { echo "make: node is missing and cannot be installed here (apt-get install nodejs): tests/e2e/test_junit_node.py needs it"; exit 1; }

# `planegate demo` also gates a C++ ctest suite (runner: junit) when cmake and a C++ compiler
# are on PATH (Debian/Ubuntu: apt-get install cmake g++); tests/e2e/test_demo_ctest.py needs them.
demo: $(STAMP) bwrap
	$(BIN)/planegate demo

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/vulture

typecheck: $(STAMP)
	$(BIN)/mypy --strict src tests

# The whole suite (CI): unit, property (full budgets), integration and e2e.
suite: $(STAMP) bwrap node
	$(BIN)/python -m pytest -q -n auto

test: lint typecheck suite

# No process, no git, fewer Hypothesis examples: under a minute on 2 CPUs.
quick: $(STAMP) bwrap
	$(BIN)/python -m pytest -q -n auto --hypothesis-profile=quick tests/unit tests/property

docs: $(STAMP)
	$(BIN)/python -c 'from planegate.rules import catalogue_markdown as c; open("docs/findings.md", "w").write(c())'
	$(BIN)/python scripts/completion.py
	$(BIN)/python scripts/architecture.py

# The README's pictures of the PR comment and the check run, from the demo's real rendered
# output: Debian's chromium and an emoji font, and markdown-it-py in the venv (only here).
screenshots: $(STAMP)
	command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && SUDO= || SUDO="sudo -n"; \
	  $$SUDO apt-get install -y --no-install-recommends chromium fonts-noto-color-emoji; }
	$(BIN)/python -m pip install --quiet markdown-it-py
	$(BIN)/python scripts/screenshots.py --out docs/images

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build src/*.egg-info

# Needs a Docker engine (e.g. /work/shared/tools/local-container.sh up); not part of `make test`.
image-smoke: $(STAMP)
	SMOKE_PYTHON=$(abspath $(BIN)/python) scripts/image-smoke.sh
