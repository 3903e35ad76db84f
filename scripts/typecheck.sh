#!/usr/bin/env bash
# mypy (strict, [tool.mypy] in pyproject.toml) over the package as it installs, the tests and the benchmarks: the card's folders sit at the
# repository root but import as judgegraph.*, which mypy cannot map from paths, so it reads a tree of links
# laid out the way the wheel is (build/typecheck, ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="$(command -v "${1:-python3}")"; [[ "$PYTHON" = /* ]] || PYTHON="$PWD/$PYTHON"
tree=build/typecheck
rm -rf "$tree" && mkdir -p "$tree/judgegraph"
for entry in judgegraph/*; do ln -s "$PWD/$entry" "$tree/judgegraph/"; done
# The other folders as pyproject.toml's package-dir maps them (judgegraph.agents -> agents, ...).
"$PYTHON" - "$tree" <<'EOF2'
import os, sys, tomllib
for name, folder in tomllib.load(open("pyproject.toml", "rb"))["tool"]["setuptools"]["package-dir"].items():
    if name != "judgegraph":
        os.symlink(os.path.abspath(folder), os.path.join(sys.argv[1], *name.split(".")))
EOF2
# The repository's own code that never installs: checked the same way.
ln -s "$PWD/tests" "$tree/tests"
ln -s "$PWD/benchmarks" "$tree/benchmarks"
cd "$tree"
MYPYPATH="$PWD" exec "$PYTHON" -m mypy --config-file ../../pyproject.toml -p judgegraph -p tests -p benchmarks
