#!/usr/bin/env bash
# Builds the libFuzzer target (build-fuzz/, clang-22, ASan, assertions on in
# this project's code) and runs it for a bounded time on mutated fmha modules,
# seeded from the lit tests. Exits non-zero on a crash, hang, assertion,
# sanitizer report or out-of-memory; the input is kept in build-fuzz/artifacts/.
#   tools/fuzz.sh [seconds]      (default 60; FUZZ_BUILD_DIR overrides build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}

cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DROCKE_ENABLE_FUZZER=ON >/dev/null
cmake --build "$build" --target rocke-fuzz

# Seeds: every .mlir of the lit suite (fresh copy: tests change).
rm -rf "$build/seeds"
mkdir -p "$build/seeds" "$build/corpus" "$build/artifacts"
find test -name '*.mlir' -exec cp --backup=numbered -t "$build/seeds" {} +

export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
# A unit is a hang past 60 s: a seed that compiles a D=256 backward to a code
# object takes 10-13 s under ASan on 2 cores, and 27 s on a loaded machine.
status=0
"$build/bin/rocke-fuzz" "$build/corpus" "$build/seeds" \
  -dict=tools/rocke-fuzz/fmha.dict \
  -max_total_time="$seconds" -timeout=60 -rss_limit_mb=3072 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 || status=$?
if [ "$status" != 0 ]; then
  for f in "$build"/artifacts/*; do
    [ -f "$f" ] || continue
    echo "== fuzzer finding $f:"
    head -c 4000 "$f"
    echo
  done
  echo "fuzz: FAILED (exit $status); reproduce with $build/bin/rocke-fuzz <file>"
  exit "$status"
fi
echo "fuzz: no crash in ${seconds}s"
