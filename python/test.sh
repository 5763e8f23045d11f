#!/usr/bin/env bash
# The Python binding's tests: builds the wheel with `pip install .` into a fresh virtual
# environment and runs pytest (python/tests). Part of the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
# The dev profile (optimised, see Cargo.toml) reuses what the workspace tests just compiled, as
# python/Cargo.toml resolves the same dependency features; a user's `pip install .` builds in release.
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile dev}"
"$venv/bin/python" -m pip install --quiet ".[test]"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
