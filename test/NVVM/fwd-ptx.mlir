// The GPU forward through fmha-bwd-nvvm: sm_90 PTX of fmha_fwd_tiled_main.
// By default (fwd-kv-pipelining=auto) the K and V blocks arrive by cp.async
// into double-buffered tiles: one barrier per KV block, after the wait for
// this block's copies and before the next block's are issued into the slot
// the previous block was read from. fwd-kv-pipelining=synchronous loads
// them through registers (no cp.async). Both: mma.sync m16n8k16 fed by
// ldmatrix, ex2.approx for the probabilities, lg2.approx for the LSE, and
// no local memory (no .local state space in the PTX: ptxas-level spills are
// not visible here). The row maxima are libdevice calls where no CUDA
// toolkit is found (fwd-libdevice.mlir, expected to fail until fixed).
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --check-prefixes=CHECK,BF16,ASYNC --implicit-check-not=.local < %t.ptx
// RUN: FileCheck %s --check-prefix=LOOP < %t.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-kv-pipelining=synchronous},fmha-dump-binary{output=%t.sync.ptx})'
// RUN: FileCheck %s --check-prefixes=CHECK,BF16,SYNC --implicit-check-not=.local --implicit-check-not=cp.async < %t.sync.ptx
// RUN: rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-kv-pipelining=async-copies},fmha-dump-binary{output=%t.f16.ptx})'
// RUN: FileCheck %s --check-prefixes=CHECK,F16,ASYNC --implicit-check-not=.local < %t.f16.ptx
// RUN: FileCheck %s --check-prefix=LOOP < %t.f16.ptx
// RUN: rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-kv-pipelining=synchronous},fmha-dump-binary{output=%t.f16.sync.ptx})'
// RUN: FileCheck %s --check-prefixes=CHECK,F16,SYNC --implicit-check-not=.local --implicit-check-not=cp.async < %t.f16.sync.ptx

// CHECK: .target sm_90
// CHECK-LABEL: .entry fmha_fwd_tiled_main(
// CHECK: .maxntid 128, 1, 1
// ASYNC-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// ASYNC-DAG: cp.async.commit_group;
// SYNC-DAG: ld.global.v4.b32
// SYNC-DAG: st.shared.v4.b32
// CHECK-DAG: bar.sync 0;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.{{x[124]}}.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.{{x[124]}}.trans.shared.b16
// BF16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// F16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: lg2.approx.f32
// CHECK: ret;
// In the KV loop, the barrier comes right after the wait for this block's
// copies, and it is the only one: the next block's copies are issued after
// it, into the slot every warp has finished reading.
// LOOP: cp.async.wait_group 0;
// LOOP-NEXT: bar.sync 0;
// LOOP-NOT: bar.sync

// One workgroup of 4 warps per (128-row query block, query head, batch);
// the tiles in dynamic shared memory.
// JSON:      "block": [
// JSON-NEXT:   128,
// JSON-NEXT:   1,
// JSON-NEXT:   1
// JSON-NEXT: ],
// JSON-NEXT: "dynamic_shared_bytes": {{[1-9][0-9]*}},
// JSON-NEXT: "grid": [
// JSON-NEXT:   "ceildiv(Sq,128)*Hq*B",
// JSON-NEXT:   "1",
// JSON-NEXT:   "1"
// JSON-NEXT: ],
// JSON:      "maxntid": "128, 1, 1",
// JSON:      "name": "fmha_fwd_tiled_main"
// JSON:      "target": "#nvvm.target<O = 3, chip = \"sm_90\", features = \"+ptx81\">"
