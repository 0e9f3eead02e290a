#!/usr/bin/env bash
# The main job: compiles an fmha attention-backward module to an AMD HSACO with
# rocke-opt's end-to-end pipeline (fmha-bwd-rocdl: fmha -> kernels -> xor
# shuffles / MFMA atoms -> ROCDL -> code object) and prints what it made: the
# kernels in launch order with their launch facts, the instruction mix, and the
# resource report (registers, LDS, scratch, occupancy, hot loop).
#
# Environment: CHIP (gfx90a | gfx942 | gfx950, default gfx942), STRATEGY
# (tiled | warp, default tiled), OUT_DIR (default build/example), BUILD_DIR
# (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
example=${1:-examples/attention_bwd.mlir}
chip=${CHIP:-gfx942}
strategy=${STRATEGY:-tiled}
out=${OUT_DIR:-build/example}
mkdir -p "$out"
bin=${BUILD_DIR:-build}/bin
hsaco="$out/attention_bwd.$chip.$strategy.hsaco"

echo "== compiling $example (strategy=$strategy) for $chip"
"$bin/rocke-opt" "$example" -o /dev/null -pass-pipeline="builtin.module(\
fmha-bwd-rocdl{chip=$chip strategy=$strategy},fmha-dump-binary{output=$hsaco})"

echo "== made $hsaco ($(stat -c %s "$hsaco") bytes) and $hsaco.json"
/usr/bin/python3 - "$hsaco.json" <<'EOF'
import json, sys
desc = json.load(open(sys.argv[1]))
kernels = sorted(desc["kernels"], key=lambda k: k.get("launch", {}).get("order", 0))
for k in kernels:
    launch = k.get("launch", {})
    args = ", ".join("%s: %s" % (a.get("name"), a.get("type")) for a in k["args"])
    print("  %s  grid %s  block %s\n    args %s" % (
        k["name"], launch.get("grid"), launch.get("block"), args))
EOF

echo "== instruction summary (llvm-objdump --mcpu=$chip)"
/usr/lib/llvm-22/bin/llvm-objdump -d --mcpu="$chip" "$hsaco" |
  grep -oE '^\s+(v_exp_f32|v_rcp_f32|global_atomic_[a-z0-9_]+|ds_swizzle_b32|ds_bpermute_b32|v_mfma[a-z0-9_]*)' |
  sort | uniq -c

echo "== resource report (rocke-report)"
"$bin/rocke-report" "$hsaco"
