#!/usr/bin/env bash
# A virtual environment with the RL trainers' own dataset code, for the tests that load judgegraph's exports
# with it: verl (its CPU-installable release, with torch's CPU build) and OpenRLHF's dataset modules. Never the
# project's own environment: verl pins transformers below the version TRL needs here. OpenRLHF as a whole does
# not install without a GPU (it requires flash-attn and deepspeed, which build against CUDA); its `datasets`
# package needs only torch, transformers and `datasets`, so its wheel goes in without its dependencies.
# judgegraph itself goes in too (editable, its core dependencies only), as in a user's verl environment: verl's
# reward loop imports a custom reward function into its own process. cachetools: verl 0.9.1 imports it in its trainer
# (the rollout router) without declaring it.
# Idempotent (a stamp records the versions, and that judgegraph is installed with its verl plugin entry point);
# a few minutes the first time.
#
#   scripts/trainers-env.sh [VENV]        (default .venv-trainers)
set -euo pipefail

VERL_VERSION="${VERL_VERSION:-0.9.1}"
OPENRLHF_VERSION="${OPENRLHF_VERSION:-0.11.2}"
VENV="${1:-.venv-trainers}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STAMP="$VENV/.judgegraph-trainers-$VERL_VERSION-$OPENRLHF_VERSION-judgegraph-plugins"

# shellcheck source=scripts/venv-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/venv-lib.sh"
start_venv "$VENV" "$STAMP"
# torch first and pinned: a bare torch requirement would pull the CUDA build; 2.13.0+cpu is the machine's wheel.
"$VENV/bin/python" -m pip install -q "torch==2.13.0"
"$VENV/bin/python" -m pip install -q "torch==2.13.0" "verl==$VERL_VERSION" sympy pylatexenc cachetools
"$VENV/bin/python" -m pip install -q --no-deps "openrlhf==$OPENRLHF_VERSION"
"$VENV/bin/python" -m pip install -q -e "$ROOT"
"$VENV/bin/python" -c "import verl.utils.dataset.rl_dataset, verl.utils.dataset.multiturn_sft_dataset, openrlhf.datasets"
# omegaconf parses interpolations with the ANTLR runtime verl pins (math-verify's parser works with it too)
"$VENV/bin/python" -c "import judgegraph.adapters.verl, math_verify as mv, omegaconf; assert omegaconf.OmegaConf.create({'b': 1, 'a': '\${b}'}).a == 1; assert mv.verify(mv.parse(r'\$\\frac{1}{2}\$'), mv.parse('0.5'))"
touch "$STAMP"
