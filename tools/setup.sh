#!/usr/bin/env bash
# Installs the Debian packages, configures and builds rocke-mlir, then runs the
# main job: compiles examples/attention_bwd.mlir to HSACO and prints what it made.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${ROCKE_SKIP_APT:-0}" != 1 ]; then
  SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
    cmake ninja-build g++ clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev \
    mlir-22-tools libzstd-dev libgtest-dev libclang-rt-22-dev python3 python3-numpy python3-pytest \
    python3-pip python3-setuptools python3-wheel python3-venv
fi

cmake -S . -B build -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
cmake --build build

if [ "${ROCKE_SKIP_MAIN_JOB:-0}" != 1 ]; then
  tools/compile-example.sh examples/attention_bwd.mlir
fi
