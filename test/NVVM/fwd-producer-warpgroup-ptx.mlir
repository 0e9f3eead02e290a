// fwd-kv-pipelining=producer-warpgroup (sm_90a, warpgroup products; the
// default for two computing warpgroups at Dv <= 128, there with next-block
// P V and ping-pong, below): a third warpgroup
// copies the KV blocks by cp.async and hands each slot to the computing
// warpgroups on an mbarrier ("full"), each copy arriving there as it lands
// (cp.async.mbarrier.arrive.noinc); they wait, fence the slot for their
// matrix cores' async proxy, and hand it back on another ("empty") once
// their last product reading it has completed. The workgroup barrier that
// tied the warpgroups together at every block is gone: one bar.sync is
// left, publishing Q and the barriers' initialisation.
// bf16 D=128 causal at the default tiles (two computing warpgroups of 64
// query rows, 128-key blocks), each block's P V in its own iteration
// (same-block): 384 threads; the producer gives registers to the others
// (setmaxnreg) and issues 32 16-byte copies a lane (16 of K, 16 of V) a
// block, never waiting for them itself.
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-pv-schedule=same-block},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --check-prefix=PW < %t.ptx
// RUN: grep -c "bar.sync" %t.ptx | FileCheck %s --check-prefix=ONEBAR
// RUN: grep -A2 "wgmma.wait_group.sync.aligned 0;" %t.ptx | grep -c "mbarrier.arrive" | FileCheck %s --check-prefix=RELEASE
// The causal grid runs heaviest first and the producer keeps the decoded
// ids: 56 registers for it, 224 for the others. Without a mask the grid is
// the hardware's and the producer takes 40, the others 232.
// RUN: sed 's/ {mask = #fmha.mask<causal>}//' %S/Inputs/fwd_bf16_d128_causal.mlir | rocke-opt -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.none.ptx})'
// RUN: FileCheck %s --check-prefix=NOMASK < %t.none.ptx
// NOMASK: setmaxnreg.dec.sync.aligned.u32 40;
// NOMASK: setmaxnreg.inc.sync.aligned.u32 232;
// fwd-warpgroup-schedule=ping-pong: the computing warpgroups take turns
// issuing their score products on named barriers 1 and 2 (256 threads: one
// warpgroup waits, the other arrives); the second hands the first its first
// turn before the loop, and each hands the turn over right after issuing
// its 16 m64n64k16 steps (two 64-key slices), before its softmax.
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-pv-schedule=same-block fwd-warpgroup-schedule=ping-pong},fmha-dump-binary{output=%t.pp.ptx})'
// RUN: FileCheck %s --check-prefix=PP < %t.pp.ptx
// RUN: not grep -q "bar.arrive" %t.ptx
// fwd-pv-schedule=next-block: a block's P V is issued right after the next
// block's score product and runs during that block's softmax (one 128-key
// slice a block). K and V are handed over on barriers of their own (eight):
// the producer waits for K's slot, copies K, arrives, then the same for V.
// The first block runs on its own (scores only), the loop issues S of its
// block after K's wait and P V of the block before after V's wait, waits
// for S alone (wait_group 1), and after its softmax for P V, then hands K
// of its block and V of the one before back; the last block's P V follows
// the loop. The filtered stream below is the PTX in text order (the loop
// rotated: its releases come first), the warpgroups independent.
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-pv-schedule=next-block fwd-warpgroup-schedule=independent},fmha-dump-binary{output=%t.nb.ptx})'
// RUN: grep -c "mbarrier.init" %t.nb.ptx | FileCheck %s --check-prefix=NBINITS
// RUN: grep -oE "wgmma.mma_async[^{]*\{[^}]*\}, (\{[^}]*\}|%%rd[0-9]+)|wgmma.wait_group.sync.aligned [0-9]|mbarrier.try_wait|mbarrier.arrive|wgmma.commit_group|setmaxnreg" %t.nb.ptx | sed -E 's/wgmma.mma_async.*\}, \{.*/PV/; s/wgmma.mma_async.*%%rd[0-9]+$/S/' | FileCheck %s --check-prefix=NB
// The default at D = 128: next-block P V and ping-pong (1.24-1.31x the
// warpgroups' own copies on an H100, docs/BENCHMARKS.md run 42), the PTX of
// both asked for by name.
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.default.ptx})'
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=producer-warpgroup fwd-pv-schedule=next-block fwd-warpgroup-schedule=ping-pong},fmha-dump-binary{output=%t.nbpp.ptx})'
// RUN: diff %t.default.ptx %t.nbpp.ptx
// RUN: grep -c "mbarrier.init" %t.default.ptx | FileCheck %s --check-prefix=NBINITS
// RUN: grep -q "bar.arrive" %t.default.ptx
// f16 D=64 causal (one computing warpgroup): 256 threads, whose even share
// of the register file needs no setmaxnreg; 16 copies a lane.
// RUN: rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=producer-warpgroup fwd-pv-schedule=same-block},fmha-dump-binary{output=%t.d64.ptx})'
// RUN: FileCheck %s --check-prefix=D64 --implicit-check-not=setmaxnreg < %t.d64.ptx
// RUN: grep -c "bar.sync" %t.d64.ptx | FileCheck %s --check-prefix=ONEBAR
// RUN: grep -c "cp.async.cg" %t.d64.ptx | FileCheck %s --check-prefix=D64COPIES

// The buffers are the launch's dynamic shared memory (`.extern`), which
// ptxas places after the static mbarriers (as a one-byte static in their
// place the buffers overlapped them: K's first copies overwrote them).
// PW: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PW-LABEL: .entry fmha_fwd_tiled_main
// PW: .maxntid 384, 1, 1
// PW: .shared .align 8 .b8 __mbarrier[32];
// PW-COUNT-4: @%p{{[0-9]+}} mbarrier.init.shared.b64
// PW: fence.proxy.async.shared::cta;
// PW-NEXT: bar.sync 0;
// PW: setmaxnreg.dec.sync.aligned.u32 56;
// PW: mbarrier.try_wait.parity.shared.b64
// PW-COUNT-32: cp.async.cg.shared.global
// PW-NOT: cp.async.cg
// PW-NOT: cp.async.wait
// PW: cp.async.mbarrier.arrive.noinc.shared.b64
// PW: setmaxnreg.inc.sync.aligned.u32 224;
// PW-NOT: cp.async
// PW: mbarrier.try_wait.parity.shared.b64
// PW: fence.proxy.async.shared::cta;
// PW-NOT: mbarrier
// PW: wgmma.mma_async

// ONEBAR: 1

// PP: bar.sync 0;
// PP: setmaxnreg.inc.sync.aligned.u32 224;
// PP: bar.arrive [[TURN:%r[0-9]+]], 256;
// PP: mbarrier.try_wait.parity.shared.b64
// PP: bar.sync {{%r[0-9]+}}, 256;
// PP-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PP-NOT: wgmma.mma_async
// PP: bar.arrive [[TURN]], 256;

// The computing loop hands its slot back right after waiting for its last
// product (P V reads V from it).
// RELEASE: 1

// NBINITS: 8

// The producer: K's slot, its arrival, V's slot, its arrival.
// NB: setmaxnreg
// NB-NEXT: mbarrier.try_wait
// NB-NEXT: mbarrier.arrive
// NB-NEXT: mbarrier.try_wait
// NB-NEXT: mbarrier.arrive
// NB-NEXT: setmaxnreg
// The first block: K's wait, S, K's release.
// NB-NEXT: mbarrier.try_wait
// NB-COUNT-8: S
// NB-NEXT: wgmma.commit_group
// NB-NEXT: wgmma.wait_group.sync.aligned 0
// NB-NEXT: mbarrier.arrive
// The loop.
// NB-NEXT: wgmma.wait_group.sync.aligned 0
// NB-NEXT: mbarrier.arrive
// NB-NEXT: mbarrier.arrive
// NB-NEXT: mbarrier.try_wait
// NB-COUNT-8: S
// NB-NEXT: wgmma.commit_group
// NB-NEXT: mbarrier.try_wait
// NB-COUNT-8: PV
// NB-NEXT: wgmma.commit_group
// NB-NEXT: wgmma.wait_group.sync.aligned 1
// The last block's P V.
// NB-NEXT: mbarrier.try_wait
// NB-COUNT-8: PV
// NB-NEXT: wgmma.commit_group
// NB-NEXT: wgmma.wait_group.sync.aligned 0
// NB-NOT: wgmma

// D64: .maxntid 256, 1, 1
// D64: cp.async.mbarrier.arrive.noinc.shared.b64

// D64COPIES: 16
