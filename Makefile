# Quick start: `make demo` and `make test` work on a fresh clone; they make .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LATEST := .venv-latest
SPECIMENS := tests/specimens/coma-ward

.PHONY: demo demo-specimens test test-latest lock lint unit bench compiled fuzz grammar rulesets fonts docs clean

# The virtualenv is made from the lock, never from the ranges in pyproject.toml: a fresh machine
# gets exactly the versions the suite last passed with. When the lock changes, it is made anew,
# so nothing installed by hand or by an older lock stays behind; when only pyproject.toml does,
# pillbox itself is installed again. pip installs uv alone, by the lock's hashes, and uv the
# rest, by theirs: pip took 70 s of a fresh `make test` for what uv does in 20. Both compile
# the installed modules, as pip does by default, so that no command compiles them afresh where
# PYTHONDONTWRITEBYTECODE is set.
UV_LOCKED = $(VENV)/uv-requirement.txt
LOCKED_VENV = rm -rf $(VENV) && $(PYTHON) -m venv $(VENV) && \
	awk '/^uv==/ {found = 1} found {print} found && !/\\$$/ {exit}' requirements-dev.txt > $(UV_LOCKED) && \
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(UV_LOCKED) && \
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --no-deps \
		--compile-bytecode -r requirements-dev.txt
LOCKED := $(VENV)/.locked

$(LOCKED): requirements-dev.txt
	$(LOCKED_VENV)
	touch $(LOCKED)

$(STAMP): $(LOCKED) pyproject.toml
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check || { echo "requirements-dev.txt is behind pyproject.toml: run make lock"; exit 1; }
	$(BIN)/python -m compileall -q dsl compiler runtime
	touch $(STAMP)

# Refresh the locks after changing the dependencies in pyproject.toml (uv comes from the lock).
UV_COMPILE = $(BIN)/uv pip compile pyproject.toml --quiet --universal --python-version 3.11 \
	--generate-hashes
lock:
	test -x $(BIN)/uv || { $(LOCKED_VENV); }
	$(UV_COMPILE) -o requirements.txt
	$(UV_COMPILE) --extra dev -o requirements-dev.txt

# The suite against the newest releases pyproject.toml allows, as `pip install pillbox` gets
# them: in a virtualenv of its own, made anew each time.
test-latest:
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[dev]'
	$(LATEST)/bin/python -m pip list --format freeze | grep -iE '^(weasyprint|fonttools|pikepdf|pypdfium2|lark|jsonschema)='
	$(LATEST)/bin/python -m pytest $(PYTEST_JOBS) $(PYTEST_LATEST)

# The main job on the bundled content: the Coma Ward pack, checked, tested, played, printed
# (A4, duplex, PNG previews) and reported into build/, each step timed.
demo: $(STAMP)
	$(BIN)/python scripts/demo.py --pack content/coma-ward --build build --simulate 200
	$(BIN)/python scripts/demo.py --pack content/lobotomy --build build \
		--play "Fire Axe" --against "Orderly Husk"
	$(BIN)/python scripts/demo.py --pack content/cool-name --build build \
		--play "Notched Falchion" --against "Goblin Cutthroat" --balance
	$(BIN)/python scripts/demo.py --pack content/comanauts --build build --play "Hull Breach" \
		--choose "3 dice"
	$(BIN)/python scripts/demo.py --pack content/supply-room --build build --play "Cup of Cocoa"

# The same on the specimens the project was given (kept in tests/specimens/).
demo-specimens: $(STAMP)
	$(BIN)/python scripts/demo.py --pack $(SPECIMENS) --build build/specimens \
		--play "The Figure at the End of the Hall" --choose "Back away" --choose yes

# The VS Code grammar's test tokenizes with vscode-textmate (npm, two packages, from the lock).
# Defined before `test:` because make expands a rule's prerequisites as it reads them.
# Without npm it is skipped, and the test says why; a failing install fails.
VSCODE_TEST := editors/vscode/test
VSCODE_TEST_MODULES := $(VSCODE_TEST)/node_modules/.installed
# The lint (mypy, one core for about 20 s) runs beside the suite rather than before it: the
# suite's workers lose less to it than the lint alone took. Either failing fails `make test`.
test: $(STAMP) $(VSCODE_TEST_MODULES)
	$(MAKE) --no-print-directory -j2 lint unit

lint: $(STAMP)
	$(BIN)/ruff check dsl compiler runtime tests bench scripts
	$(BIN)/ruff format --check --quiet dsl compiler runtime tests bench scripts
	$(BIN)/mypy
	$(BIN)/python scripts/import_contracts.py

# The suite runs on every core (pytest-xdist), a test module to a worker so that its fixtures
# are built once; JOBS=0 runs it in one process. The slowest modules go first, in the order
# tests/conftest.py gives them (from tests/module-seconds.txt), not xdist's most-tests-first.
JOBS ?= auto
PYTEST_JOBS = -n $(JOBS) --dist loadscope --no-loadscope-reorder
unit: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_JOBS) $(if $(UPDATE),--update-goldens,)

$(VSCODE_TEST_MODULES): $(VSCODE_TEST)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd $(VSCODE_TEST) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "npm not found: the VS Code grammar test will be skipped"; fi

# The runtime compiled with mypyc in build/compiled/ (never in the source tree), rebuilt only when
# the runtime's sources changed; `simulate`'s workers and the games bench use it when it is fresh.
# Optional: `make test` never needs it. Needs gcc and the Python headers (a few minutes).
compiled: $(STAMP)
	$(BIN)/python -m compiler.simulate.compiled

# A machine that cannot compile the runtime (no gcc) still benches: the pure runtime only.
bench: $(STAMP)
	$(BIN)/python -m compiler.simulate.compiled || echo "the compiled runtime could not be built: the games benches time the pure runtime only"
	$(BIN)/python bench/run.py
	$(BIN)/python bench/effects.py
	$(BIN)/python bench/printing.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/tune.py
	$(BIN)/python bench/balance.py
	$(BIN)/python bench/odds.py
	$(BIN)/python bench/games.py
	$(BIN)/python bench/whole_games.py
	$(BIN)/python bench/lsp.py

fuzz: $(STAMP)
	PILLBOX_FUZZ_EXAMPLES=20000 $(BIN)/python -m pytest tests/test_fuzz.py tests/test_fuzz_run.py \
		tests/test_fuzz_commands.py tests/test_quickschema.py -q -p no:cacheprovider
	PILLBOX_WHOLE_GAMES=1000 $(BIN)/python -m pytest tests/test_cool_name_whole.py \
		tests/test_lobotomy_whole.py tests/test_comanauts_whole.py -q -p no:cacheprovider
	PILLBOX_SERVE_SOAK_SECONDS=60 PILLBOX_SERVE_SOAK_BUSY=50 PILLBOX_SERVE_SOAK_PACK=content/coma-ward \
		$(BIN)/python -m pytest tests/test_serve_soak.py -q -s -p no:cacheprovider
	PILLBOX_SOAK=1 $(BIN)/python -m pytest tests/test_simulate_soak.py -q -p no:cacheprovider

# Regenerate the standalone parser after editing dsl/grammar.lark.
# The first line records the grammar's hash; a test fails when the two drift apart.
grammar: $(STAMP)
	$(BIN)/python -m lark.tools.standalone -l contextual dsl/grammar.lark -o dsl/_lark_parser.py.tmp
	{ echo "# Generated from dsl/grammar.lark (sha256 $$(sha256sum dsl/grammar.lark | cut -d' ' -f1)) by make grammar; do not edit."; \
	  cat dsl/_lark_parser.py.tmp; } > dsl/_lark_parser.py
	rm dsl/_lark_parser.py.tmp

# Regenerate the validated JSON beside each bundled ruleset after editing its YAML.
rulesets: $(STAMP)
	$(BIN)/python -m compiler.precompile

# Rewrite the code points the shipped fonts cover (compiler/printing/fonts/coverage.txt) after
# changing a font: the check reads that list instead of the fonts; a test holds the two together.
fonts: $(STAMP)
	$(BIN)/python -m compiler.printing.glyphs

# The documentation site (mkdocs.yml, docs/) in build/site/. Strict: a link to a missing page or
# heading fails. NO_MKDOCS_2_WARNING quiets mkdocs-material's notice about its successor.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

clean:
	rm -rf $(VENV) $(LATEST) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache \
		$(VSCODE_TEST)/node_modules
