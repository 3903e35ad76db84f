# judgegraph: `make demo` (set up, then judge the bundled examples on the embedded CPU model)
#             `make test` (set up, then run the whole test suite, as CI does)
#             `make test-fast` (your own loop: no Docker, browser, Ray or real model; under two minutes)
#             `make lint` (ruff, the formatter check and mypy; builds no model)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.judgegraph-setup
# llama-cpp-python is built from source: portable x86-64 flags (AVX2, no -march=native) so the wheel
# pip caches runs on any machine of this kind; no llava (judgegraph sends images through the API).
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
DEMO_DIR ?= .judgegraph
VIZ_PORT ?= 8765
TORCH_VERSION ?= 2.13.0

LINT_VENV ?= .venv-lint
LINT_STAMP := $(LINT_VENV)/.judgegraph-lint

.PHONY: setup demo test test-fast lint services clean evals train vllm trainers

setup: $(STAMP)

# Idempotent: re-runs only when the dependency declarations change.
$(STAMP): pyproject.toml setup.py Makefile examples/plugin/pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "judgegraph needs Python 3.11+"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first and pinned: the CPU build (2.13.0+cpu where a local wheel provides it), never a CUDA one.
	$(BIN)/python -m pip install -q torch==$(TORCH_VERSION)
	CMAKE_BUILD_PARALLEL_LEVEL=2 CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
		$(BIN)/python -m pip install -q -e '.[embedded,retrieval,graph,ray,evals,bench,train,ifbench,mcp,dev]'
	# The example plugin (a tool and a judge by entry point), installed as a user installs one: the tests check
	# that the CLI, the server, the viewer and the evals see it.
	$(BIN)/python -m pip install -q -e ./examples/plugin
	touch $(STAMP)

# Judge the bundled examples, then serve the viewer over their runs (Ctrl-C stops it).
demo: services
	$(BIN)/judgegraph judge examples/demo.jsonl -o $(DEMO_DIR)/demo-output.jsonl --store $(DEMO_DIR)/runs.db
	$(BIN)/judgegraph viz --store $(DEMO_DIR)/runs.db --port $(VIZ_PORT)

# vLLM's CPU build in its own environment (never the project's: it pins its own torch and transformers); the
# vLLM tests build it themselves when missing. Then: judgegraph model vllm MODEL --cpu --python $(VLLM_VENV)/bin/python
VLLM_VENV ?= .venv-vllm
vllm:
	PYTHON=$(PYTHON) bash scripts/vllm-env.sh $(VLLM_VENV)

# verl and OpenRLHF's dataset code in their own environment, for the tests that load the exports with it.
TRAINERS_VENV ?= .venv-trainers
trainers:
	PYTHON=$(PYTHON) bash scripts/trainers-env.sh $(TRAINERS_VENV)

# Train the agentic judge on its own runs (teacher runs on the training split -> SFT -> GGUF -> a round of
# rejection sampling on its own sampled runs -> SFT -> GGUF -> the agentic judge before and after, on the
# evaluation split, written into EVALS.md), then judge with TRAIN_DIR/judge.gguf:
# judgegraph judge INPUT --judge agentic --embedded-model TRAIN_DIR/judge.gguf
TRAIN_DIR ?= $(DEMO_DIR)/train
TRAIN_PER_SET ?= 4
train: services
	$(BIN)/judgegraph train run --run $(TRAIN_DIR) --per-set $(TRAIN_PER_SET) --report EVALS.md

# Every judge on every bundled eval set with the embedded model; rewrites EVALS.md (EVAL_LIMIT per set).
EVAL_LIMIT ?= 3
EVAL_JUDGES ?= evidence,skill,propositions,llm,rubric,agentic
evals: services
	$(BIN)/judgegraph eval all --limit $(EVAL_LIMIT) --judges $(EVAL_JUDGES) --store $(DEMO_DIR)/evals.db

# Lint in its own small environment (the core dependencies, what the tests and benchmarks import, ruff, mypy): no
# torch, no llama.cpp build.
$(LINT_STAMP): pyproject.toml Makefile
	test -x $(LINT_VENV)/bin/python || $(PYTHON) -m venv $(LINT_VENV)
	$(LINT_VENV)/bin/python -m pip install -q --upgrade pip
	$(LINT_VENV)/bin/python -m pip install -q -e '.[lint,dev,bench]'
	touch $(LINT_STAMP)

lint: $(LINT_STAMP)
	$(LINT_VENV)/bin/ruff check .
	$(LINT_VENV)/bin/ruff format --check .
	bash scripts/typecheck.sh $(LINT_VENV)/bin/python

# What the tests need besides Python: bubblewrap, a Docker engine and the sandbox image (built once per machine).
services: setup
	bash scripts/test-services.sh
	$(BIN)/judgegraph sandbox build

test: lint services
	$(BIN)/python -m pytest -ra

FAST_MARKERS := not llm and not ray and not browser and not slow and not docker and not vllm and not trainers
# Four workers on any machine: the fast tier mostly waits (sandbox timeouts, subprocesses), so it gains past the
# core count. The full suite stays serial: its real-model and timing checks must not compete for two cores.
test-fast: setup
	$(BIN)/python -m pytest -q -n 4 -m "$(FAST_MARKERS)"

clean:
	rm -rf $(VENV) $(LINT_VENV) $(DEMO_DIR) .pytest_cache .ruff_cache build *.egg-info
