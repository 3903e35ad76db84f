#!/usr/bin/env bash
# mypy (strict, [tool.mypy] in pyproject.toml) over the package as it installs: the card's folders sit at the
# repository root but import as judgegraph.*, which mypy cannot map from paths, so it reads a tree of links
# laid out the way the wheel is (build/typecheck, ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="$(command -v "${1:-python3}")"; [[ "$PYTHON" = /* ]] || PYTHON="$PWD/$PYTHON"
tree=build/typecheck
rm -rf "$tree" && mkdir -p "$tree/judgegraph"
for entry in judgegraph/*; do ln -s "$PWD/$entry" "$tree/judgegraph/"; done
for folder in agents tools sandboxes graphs evals; do ln -s "$PWD/$folder" "$tree/judgegraph/$folder"; done
cd "$tree"
MYPYPATH="$PWD" exec "$PYTHON" -m mypy --config-file ../../pyproject.toml -p judgegraph
