#!/usr/bin/env bash
# Runs every test: lit (dialect, passes, numerics, ISA) and the Python suite.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build
# The Python suite runs beside lit: it uses one core for a few seconds, lit
# keeps both busy until its last long test; its output follows lit's.
pytest_log=$(mktemp)
trap 'rm -f "$pytest_log"' EXIT
/usr/bin/python3 -m pytest -q python/tests >"$pytest_log" 2>&1 &
pytest_pid=$!
lit_status=0
cmake --build build --target check-rocke || lit_status=$?
pytest_status=0
wait "$pytest_pid" || pytest_status=$?
cat "$pytest_log"
exit $((lit_status || pytest_status))
