// RUN: rocke-run %s --batch=1 --seq-q=1 --seq-k=1 --layout=bshd | FileCheck %s --check-prefix=ONE
// RUN: rocke-run %s --batch=2 --seq-q=17 --seq-k=100 --layout=bshd | FileCheck %s --check-prefix=WIDE
// RUN: rocke-run %s --batch=1 --seq-q=100 --seq-k=17 --layout=bhsd --dist=normal | FileCheck %s --check-prefix=TALL
// RUN: rocke-run %s --batch=2 --seq-q=17 --seq-k=100 --layout=bshd --lowering='%tiled_host' | FileCheck %s --check-prefix=WIDE
// RUN: rocke-run %s --batch=1 --seq-q=100 --seq-k=17 --layout=bhsd --dist=normal --lowering='%tiled_host' | FileCheck %s --check-prefix=TALL
// RUN: rocke-run %s --batch=1 --seq-q=1 --seq-k=1 --layout=bshd --lowering='%tiled_host' | FileCheck %s --check-prefix=ONE
//
// Dynamic batch and sequence lengths (from --batch, --seq-q, --seq-k) and
// dynamic strides (from --layout): one module, one JIT per size.
// To check another lowering, copy the RUN lines with its --lowering.

// ONE-LABEL: case 0: fwd+bwd f16 B=1 Sq=1 Sk=1 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// ONE-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// ONE-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// ONE-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// ONE-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// ONE-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// ONE-NEXT: case 0: PASS

// WIDE-LABEL: case 0: fwd+bwd f16 B=2 Sq=17 Sk=100 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// WIDE-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// WIDE-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// WIDE-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// WIDE-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// WIDE-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// WIDE-NEXT: case 0: PASS

// TALL-LABEL: case 0: fwd+bwd f16 B=1 Sq=100 Sk=17 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// TALL-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// TALL-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// TALL-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// TALL-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// TALL-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// TALL-NEXT: masked  83 empty query rows, 0 unseen keys: 0 inexact elements PASS
// TALL-NEXT: case 0: PASS

func.func @fwd_bwd(%q: memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, %k: memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, %v: memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, %o: memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, %do: memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, %lse: memref<?x4x?xf32>, %dq: memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, %dk: memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, %dv: memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>> -> memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, stats(memref<?x4x?xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, stats(memref<?x4x?xf32>)
      -> memref<?x?x4x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>, memref<?x?x2x64xf16, strided<[?, ?, ?, 1]>>
  return
}
