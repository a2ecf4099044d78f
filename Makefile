# avibench: every target bootstraps .venv itself, so on a bare machine `make demo` and `make test` are enough.
#   make infer  MODEL=gemini-2.5-pro [BENCH=avibench] [DATA=data/levels] [TASKS=AMIC,AVL] [N=20] [CONCURRENCY=16]
#   make refine MODEL=gemini-2.5-pro [MODE=rules]     make eval MODEL=gemini-2.5-pro [PROFILE=strict] [FENSE=stand-in] [N=20]
#   make run    MODEL=gemini-2.5-pro [BENCH=all|mmar,airbench] [SAMPLE=1]   every stage of every benchmark, then the card
#   ARGS="..." is passed on to the command as it is.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.avibench-installed

MODEL       ?=
LABEL       ?=
DATA        ?=
TASKS       ?=
N           ?=
CONCURRENCY ?=
PROFILE     ?=
BENCH       ?=
MODE        ?=
FENSE       ?=
SAMPLE      ?=
ARGS        ?=

export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export PYTHONUNBUFFERED := 1

model_arg  = $(if $(MODEL),--model $(MODEL),$(error MODEL is not set: e.g. make $@ MODEL=gemini-2.5-pro, or MODEL=random to run offline))
label_arg  = $(if $(LABEL),--label $(LABEL))
data_arg   = $(if $(DATA),--data-root $(DATA))
tasks_arg  = $(if $(TASKS),--tasks $(TASKS))
n_arg      = $(if $(N),--n-samples $(N))
conc_arg   = $(if $(CONCURRENCY),--concurrency $(CONCURRENCY))
prof_arg   = $(if $(PROFILE),--profile $(PROFILE))
bench_arg  = $(if $(BENCH),--benchmark $(BENCH))
mode_arg   = $(if $(MODE),--mode $(MODE))
fense_arg  = $(if $(FENSE),--fense $(FENSE))

.PHONY: help setup demo test test-browser lint format bench run infer refine eval report leaderboard cards sample-data validate clean pedant

help:
	@echo "make demo        set up, generate the sample benchmark, run oracle and random end to end"
	@echo "make test        run the test suite"
	@echo "make test-browser        open the report, leaderboard, viewer and comparison in headless chromium"
	@echo "make run    MODEL=... [BENCH=all] [SAMPLE=1]   every stage of every benchmark, then the card"
	@echo "make infer  MODEL=...   ask a model (OPENAI_API_KEY / OPENAI_BASE_URL; MODEL=random|oracle offline)"
	@echo "make refine MODEL=...   normalise the answers     make eval MODEL=...   score and write the report"
	@echo "make leaderboard        rank every run in outputs/   make cards   models side by side from their cards"
	@echo "make lint / make bench / make sample-data / make pedant (VoiceBench sd-qa's PEDANT, docs/voicebench.md)"
	@echo "variables: MODEL LABEL BENCH DATA TASKS N CONCURRENCY PROFILE MODE FENSE SAMPLE ARGS"

# The ASR benchmark's Chinese CER reads SpeechIO's cn_tn.py (standard library only) from lmms-eval's copy, by its
# path; lmms-eval's own dependencies are left out (they would downgrade PyAV) and the framework is never imported.
CN_TN_DIST := lmms-eval==0.7.3

# torch and torchvision first, as a matching pair: the Qwen-Omni processors need torchvision, and a torchvision
# that does not match the installed torch fails to import
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.14.1 torchvision==0.29.1
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps $(CN_TN_DIST)
	touch $@

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/avibench demo $(data_arg)

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile

# VoiceBench sd-qa's PEDANT: qa-metrics 0.2.17 pins scikit-learn 1.3.2, which the project's own release replaces,
# so it goes in without its dependencies (its classifier files: docs/voicebench.md)
pedant: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps qa-metrics==0.2.17 contractions textsearch anyascii pyahocorasick regex

# the pages in headless chromium (Debian's chromium; .ci/run installs it); screenshots go to outputs/browser/
test-browser: $(STAMP)
	$(BIN)/python -m pytest -p no:cacheprovider tests_browser

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python bench/refine_coverage.py
	$(BIN)/python bench/refine_choice.py
	$(BIN)/python bench/eval_speed.py
	$(BIN)/python bench/eval_all_speed.py
	$(BIN)/python bench/infer_throughput.py
	$(BIN)/python bench/viewer_speed.py

sample-data: $(STAMP)
	$(BIN)/avibench sample-data $(bench_arg) $(if $(DATA),--out $(DATA))

validate: $(STAMP)
	$(BIN)/avibench validate-data $(DATA) $(bench_arg)

# DATA=BENCH=DIR names one benchmark's data (several: ARGS="--data-root a=DIR --data-root b=DIR")
run: $(STAMP)
	$(BIN)/avibench run $(model_arg) $(label_arg) --benchmarks $(or $(BENCH),all) $(data_arg) $(if $(SAMPLE),--sample) $(n_arg) $(conc_arg) $(prof_arg) $(mode_arg) $(fense_arg) $(ARGS)

infer: $(STAMP)
	$(BIN)/avibench infer $(model_arg) $(label_arg) $(bench_arg) $(data_arg) $(tasks_arg) $(n_arg) $(conc_arg) $(ARGS)

refine: $(STAMP)
	$(BIN)/avibench refine $(model_arg) $(label_arg) $(bench_arg) $(data_arg) $(tasks_arg) $(mode_arg) $(ARGS)

# the report is written whatever eval's exit code (an incomplete eval still writes eval.json, or a file beside it),
# so the pages never disagree with eval.json; the recipe then fails with eval's code, which make reports as
# "Error 3" while make itself exits 2 (make's code for any failed recipe). N= says the run asked a part of each task
# on purpose: eval still warns, but accepts the partial scores (--allow-partial)
eval: $(STAMP)
	$(BIN)/avibench eval $(model_arg) $(label_arg) $(bench_arg) $(data_arg) $(tasks_arg) $(prof_arg) $(fense_arg) $(if $(N),--allow-partial) $(ARGS); \
	status=$$?; $(BIN)/avibench report $(model_arg) $(label_arg) $(bench_arg) || exit $$?; exit $$status

report: $(STAMP)
	$(BIN)/avibench report $(model_arg) $(label_arg) $(bench_arg)

leaderboard: $(STAMP)
	$(BIN)/avibench leaderboard $(bench_arg) $(ARGS)

cards: $(STAMP)
	$(BIN)/avibench cards $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
