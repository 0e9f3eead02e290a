#!/usr/bin/env bash
# The main job: verifies an fmha module and builds an AMD HSACO with rocke-opt's
# ROCDL finish (fmha-rocdl-to-hsaco), then prints what it made.
#
# Status: the fmha -> gpu kernel lowering (warp / tiled strategies) is not
# implemented yet, so the HSACO is built from the gpu-level backward kernel in
# test/ISA/Inputs/bwd_kernel.mlir (shuffle reduction, exp2, f32 atomics).
set -euo pipefail
cd "$(dirname "$0")/.."
example=${1:-examples/attention_bwd.mlir}
chip=${CHIP:-gfx942}
out=${OUT_DIR:-build/example}
mkdir -p "$out"
opt=build/bin/rocke-opt

echo "== verifying $example"
$opt "$example" -o "$out/verified.mlir"

echo "== compiling the gpu-level backward kernel for $chip"
$opt test/ISA/Inputs/bwd_kernel.mlir \
  -pass-pipeline="builtin.module(fmha-rocdl-to-hsaco{chip=$chip},fmha-dump-binary{output=$out/kernel.hsaco})" \
  -o /dev/null

echo "== made $out/kernel.hsaco ($(stat -c %s "$out/kernel.hsaco") bytes) and $out/kernel.hsaco.json"
cat "$out/kernel.hsaco.json"
echo "== instruction summary (llvm-objdump --mcpu=$chip)"
/usr/lib/llvm-22/bin/llvm-objdump -d --mcpu="$chip" "$out/kernel.hsaco" |
  grep -oE '^\s+(v_exp_f32|global_atomic_[a-z0-9_]+|ds_swizzle_b32|ds_bpermute_b32|v_mfma[a-z0-9_]*)' |
  sort | uniq -c
