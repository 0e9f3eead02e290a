#!/usr/bin/env bash
# Runs every test: lit (dialect, passes, numerics, ISA) and the Python suite.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target check-rocke
/usr/bin/python3 -m pytest -q python/tests
