// RUN: rocke-run --split-input-file --lowering='fmha-bwd-to-kernels{strategy=tiled target=host},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops' %s | FileCheck %s
// RUN: rocke-run %S/Inputs/dynamic-tiled.mlir --batch=3 --seq-q=65 --seq-k=33 --lowering='fmha-bwd-to-kernels{strategy=tiled target=host},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops' | FileCheck %s --check-prefix=DYN
//
// The tiled strategy on the CPU at its default options (block-q=0, the
// host's automatic tile) on shapes that overflowed the stack (fmha-lower-mma
// staged every host atom in a memref.alloca inside the loops) or took
// minutes to JIT (block-q=0 picked 64-row tiles on the host).

// CHECK-LABEL: case 0: fwd+bwd f16 B=1 Sq=300 Sk=77 Hq=6 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK: case 0: PASS
func.func @mqa_bottom_right(%q: memref<1x300x6x64xf16>, %k: memref<1x77x1x64xf16>, %v: memref<1x77x1x64xf16>, %o: memref<1x300x6x64xf16>, %do: memref<1x300x6x64xf16>, %lse: memref<1x6x300xf32>, %dq: memref<1x300x6x64xf16>, %dk: memref<1x77x1x64xf16>, %dv: memref<1x77x1x64xf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x300x6x64xf16>, memref<1x77x1x64xf16>, memref<1x77x1x64xf16> -> memref<1x300x6x64xf16>, stats(memref<1x6x300xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x300x6x64xf16>, memref<1x77x1x64xf16>, memref<1x77x1x64xf16>, memref<1x300x6x64xf16>, memref<1x300x6x64xf16>, stats(memref<1x6x300xf32>)
      -> memref<1x300x6x64xf16>, memref<1x77x1x64xf16>, memref<1x77x1x64xf16>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd bf16 B=1 Sq=70 Sk=70 Hq=2 Hkv=2 Dqk=128 Dv=128 mask=#fmha.mask<one_sided_window, left = 7> stats=lse
// CHECK: case 1: PASS
func.func @d128_window(%q: memref<1x70x2x128xbf16>, %k: memref<1x70x2x128xbf16>, %v: memref<1x70x2x128xbf16>, %o: memref<1x70x2x128xbf16>, %do: memref<1x70x2x128xbf16>, %lse: memref<1x2x70xf32>, %dq: memref<1x70x2x128xbf16>, %dk: memref<1x70x2x128xbf16>, %dv: memref<1x70x2x128xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, left = 7>}
    : memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16> -> memref<1x70x2x128xbf16>, stats(memref<1x2x70xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, left = 7>}
    : memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>, stats(memref<1x2x70xf32>)
      -> memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>, memref<1x70x2x128xbf16>
  return
}

// -----

// CHECK-LABEL: case 2: fwd+bwd f16 B=1 Sq=40 Sk=50 Hq=12 Hkv=3 Dqk=96 Dv=96 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 9, right = 3> stats=lse
// CHECK: case 2: PASS
func.func @gqa_d96_sliding(%q: memref<1x40x12x96xf16>, %k: memref<1x50x3x96xf16>, %v: memref<1x50x3x96xf16>, %o: memref<1x40x12x96xf16>, %do: memref<1x40x12x96xf16>, %lse: memref<1x12x40xf32>, %dq: memref<1x40x12x96xf16>, %dk: memref<1x50x3x96xf16>, %dv: memref<1x50x3x96xf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 9, right = 3>}
    : memref<1x40x12x96xf16>, memref<1x50x3x96xf16>, memref<1x50x3x96xf16> -> memref<1x40x12x96xf16>, stats(memref<1x12x40xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 9, right = 3>}
    : memref<1x40x12x96xf16>, memref<1x50x3x96xf16>, memref<1x50x3x96xf16>, memref<1x40x12x96xf16>, memref<1x40x12x96xf16>, stats(memref<1x12x40xf32>)
      -> memref<1x40x12x96xf16>, memref<1x50x3x96xf16>, memref<1x50x3x96xf16>
  return
}

// -----

// CHECK-LABEL: case 3: fwd+bwd bf16 B=1 Sq=33 Sk=33 Hq=2 Hkv=1 Dqk=256 Dv=256 mask=#fmha.mask<causal> stats=lse
// CHECK: case 3: PASS
func.func @d256(%q: memref<1x33x2x256xbf16>, %k: memref<1x33x1x256xbf16>, %v: memref<1x33x1x256xbf16>, %o: memref<1x33x2x256xbf16>, %do: memref<1x33x2x256xbf16>, %lse: memref<1x2x33xf32>, %dq: memref<1x33x2x256xbf16>, %dk: memref<1x33x1x256xbf16>, %dv: memref<1x33x1x256xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x33x2x256xbf16>, memref<1x33x1x256xbf16>, memref<1x33x1x256xbf16> -> memref<1x33x2x256xbf16>, stats(memref<1x2x33xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x33x2x256xbf16>, memref<1x33x1x256xbf16>, memref<1x33x1x256xbf16>, memref<1x33x2x256xbf16>, memref<1x33x2x256xbf16>, stats(memref<1x2x33xf32>)
      -> memref<1x33x2x256xbf16>, memref<1x33x1x256xbf16>, memref<1x33x1x256xbf16>
  return
}

// DYN-LABEL: case 0: fwd+bwd f16 B=3 Sq=65 Sk=33 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// DYN: case 0: PASS
