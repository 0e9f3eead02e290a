// Attention backward, B=2, S=128, Hq=Hkv=8, D=64, f16, causal (top-left).
// Compile to HSACO: tools/compile-example.sh examples/attention_bwd.mlir
func.func @attention_bwd(%q: memref<2x128x8x64xf16>, %k: memref<2x128x8x64xf16>,
    %v: memref<2x128x8x64xf16>, %o: memref<2x128x8x64xf16>, %do: memref<2x128x8x64xf16>,
    %lse: memref<2x8x128xf32>, %dq: memref<2x128x8x64xf16>, %dk: memref<2x128x8x64xf16>,
    %dv: memref<2x128x8x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, memref<2x128x8x64xf16>,
        memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
        -> memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, memref<2x128x8x64xf16>
  return
}
