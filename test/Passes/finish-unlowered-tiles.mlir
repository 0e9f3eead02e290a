// fmha-bwd-to-kernels' tile kernels straight into a finish, without the
// passes that lower their tiles: a diagnostic naming the first op left and
// the passes it needs, before any lowering (fmha-record-kernel-abi).
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942' | not rocke-opt -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco)' -o /dev/null 2>&1 | FileCheck %s
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=sm_90' | not rocke-opt -pass-pipeline='builtin.module(fmha-nvvm-to-ptx)' -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'fmha.{{tile_[a-z_]+}}' op is left in a kernel; it needs '{{(fmha-lower-tile-copies,)?}}fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma' before the finish
// CHECK-NOT: LLVM Translation failed
// CHECK-NOT: error:

func.func @bwd(%q: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>, %dq_out: memref<1x64x2x64xf16>, %dk_out: memref<1x64x2x64xf16>, %dv_out: memref<1x64x2x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>,
        memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  return
}
