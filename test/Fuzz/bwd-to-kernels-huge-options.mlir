// Fuzzer finding: huge fmha-bwd-to-kernels options overflowed the tiled
// strategy's size arithmetic: num-warps = 2^62 made `num-warps * atom M` zero
// (SIGFPE in the divisibility check), block-q = 2^62 asked for a 2^58-element
// vector (LLVM ERROR), host tiles of 2^62 rows never finished. Now they are
// diagnostics.
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='num-warps=4611686018427387904' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='num-warps=17' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARPS17
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='strategy=warp subgroup-size=4 num-warps=1000000' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARPSTRATEGY
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='block-q=4611686018427387904 block-kv=64' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='target=host block-kv=4611686018427387904' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
// Legal host tiles whose unrolled products took minutes to JIT in rocke-run
// (1024 x 16) are bounded too, the forward's as well.
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='strategy=tiled target=host block-q=1024 block-kv=16' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOSTTILE
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='target=host forward=true fwd-block-q=256 fwd-block-kv=64' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOSTFWD

// WARPS: error: fmha-bwd-to-kernels: num-warps (4611686018427387904) times the 64-lane subgroup exceeds the 1024-work-item workgroup limit
// WARPS17: error: fmha-bwd-to-kernels: num-warps (17) times the 64-lane subgroup exceeds the 1024-work-item workgroup limit
// WARPSTRATEGY: error: fmha-bwd-to-kernels: num-warps (1000000) times the 4-lane subgroup exceeds the 1024-work-item workgroup limit
// BLOCK: error: 'fmha.attention_bwd' op block-q and block-kv must be at most 1024 rows
// HOSTTILE: error: 'fmha.attention_bwd' op target=host: block-q * block-kv (16384) must be at most 8192: the CPU oracle unrolls each tile's products, and larger tiles take minutes to compile
// HOSTFWD: error: 'fmha.attention_fwd' op target=host: fwd-block-q * fwd-block-kv (16384) must be at most 8192
func.func @bwd(%q: memref<2x128x8x64xf16>, %k: memref<2x256x8x64xf16>,
    %v: memref<2x256x8x64xf16>, %o: memref<2x128x8x64xf16>, %do: memref<2x128x8x64xf16>,
    %lse: memref<2x8x128xf32>, %dq: memref<2x128x8x64xf16>, %dk: memref<2x256x8x64xf16>,
    %dv: memref<2x256x8x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal, alignment = bottom_right>}
      : memref<2x128x8x64xf16>, memref<2x256x8x64xf16>, memref<2x256x8x64xf16>,
        memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
        -> memref<2x128x8x64xf16>, memref<2x256x8x64xf16>, memref<2x256x8x64xf16>
  return
}

func.func @fwd(%q: memref<2x128x8x64xf16>, %k: memref<2x256x8x64xf16>,
    %v: memref<2x256x8x64xf16>, %o: memref<2x128x8x64xf16>, %lse: memref<2x8x128xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<2x128x8x64xf16>, memref<2x256x8x64xf16>, memref<2x256x8x64xf16>
        -> memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
  return
}
