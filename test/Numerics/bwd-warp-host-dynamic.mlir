// The warp strategy on the CPU with dynamic batch and sequence lengths,
// given at run time (see bwd-warp-host.mlir).
// RUN: rocke-run --batch=2 --seq-q=33 --seq-k=47 --lowering='fmha-bwd-to-kernels{strategy=warp target=host},fmha-lower-atomic-add' %s | FileCheck %s --implicit-check-not=FAIL
// RUN: rocke-run --batch=1 --seq-q=19 --seq-k=8 --lowering='fmha-bwd-to-kernels{strategy=warp target=host},fmha-lower-atomic-add' %s | FileCheck %s --implicit-check-not=FAIL

// Causal top-left; with Sq=19 > Sk=8 every row still sees key 0.
// CHECK: bwd f16 B={{[12]}} Sq={{33|19}} Sk={{47|8}} Hq=2 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal>
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @dynamic(%q: memref<?x?x2x64xf16>, %k: memref<?x?x2x64xf16>,
    %v: memref<?x?x2x64xf16>, %o: memref<?x?x2x64xf16>, %do: memref<?x?x2x64xf16>,
    %lse: memref<?x2x?xf32>, %dq: memref<?x?x2x64xf16>, %dk: memref<?x?x2x64xf16>,
    %dv: memref<?x?x2x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<?x?x2x64xf16>, memref<?x?x2x64xf16>, memref<?x?x2x64xf16>,
        memref<?x?x2x64xf16>, memref<?x?x2x64xf16>, stats(memref<?x2x?xf32>)
        -> memref<?x?x2x64xf16>, memref<?x?x2x64xf16>, memref<?x?x2x64xf16>
  return
}
