// The warp strategy's kernels run on the CPU (target=host: one lane per
// workgroup, grid as loops) against rocke-run's float64 reference: masks,
// GQA, ragged and unequal sequence lengths, fully masked rows, both statistics
// encodings, strided layouts, dynamic sizes, f16 / bf16 / f32.
// RUN: rocke-run --split-input-file --lowering='fmha-bwd-to-kernels{strategy=warp target=host},fmha-lower-atomic-add' %s | FileCheck %s --implicit-check-not=FAIL
// RUN: rocke-run --split-input-file --dist=normal --seed=7 --lowering='fmha-bwd-to-kernels{strategy=warp target=host},fmha-lower-atomic-add' %s | FileCheck %s --implicit-check-not=FAIL
// CHECK: bwd f16 B=2 Sq=48 Sk=48 Hq=4 Hkv=4 Dqk=64 Dv=64 mask=#fmha.mask<causal>
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @causal_f16(%q: memref<2x48x4x64xf16>, %k: memref<2x48x4x64xf16>,
    %v: memref<2x48x4x64xf16>, %o: memref<2x48x4x64xf16>, %do: memref<2x48x4x64xf16>,
    %lse: memref<2x4x48xf32>, %dq: memref<2x48x4x64xf16>, %dk: memref<2x48x4x64xf16>,
    %dv: memref<2x48x4x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<2x48x4x64xf16>, memref<2x48x4x64xf16>, memref<2x48x4x64xf16>,
        memref<2x48x4x64xf16>, memref<2x48x4x64xf16>, stats(memref<2x4x48xf32>)
        -> memref<2x48x4x64xf16>, memref<2x48x4x64xf16>, memref<2x48x4x64xf16>
  return
}

// -----

// GQA 6/2, no mask, Sq != Sk, both odd.
// CHECK: bwd bf16 B=1 Sq=37 Sk=53 Hq=6 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none>
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @gqa_bf16(%q: memref<1x37x6x32xbf16>, %k: memref<1x53x2x32xbf16>,
    %v: memref<1x53x2x32xbf16>, %o: memref<1x37x6x32xbf16>, %do: memref<1x37x6x32xbf16>,
    %lse: memref<1x6x37xf32>, %dq: memref<1x37x6x32xbf16>, %dk: memref<1x53x2x32xbf16>,
    %dv: memref<1x53x2x32xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x37x6x32xbf16>, memref<1x53x2x32xbf16>, memref<1x53x2x32xbf16>,
        memref<1x37x6x32xbf16>, memref<1x37x6x32xbf16>, stats(memref<1x6x37xf32>)
        -> memref<1x37x6x32xbf16>, memref<1x53x2x32xbf16>, memref<1x53x2x32xbf16>
  return
}

// -----

// Bottom-right sliding window with Sq > Sk (negative diagonal offset),
// log2_max_sum statistics, f32, explicit scale.
// CHECK: bwd f32 B=1 Sq=40 Sk=29 Hq=2 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 8, right = 3> stats=log2_max_sum
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @window_br_f32(%q: memref<1x40x2x64xf32>, %k: memref<1x29x2x64xf32>,
    %v: memref<1x29x2x64xf32>, %o: memref<1x40x2x64xf32>, %do: memref<1x40x2x64xf32>,
    %m: memref<1x2x40xf32>, %l: memref<1x2x40xf32>, %dq: memref<1x40x2x64xf32>,
    %dk: memref<1x29x2x64xf32>, %dv: memref<1x29x2x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv
      {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 8, right = 3>,
       stats_encoding = #fmha.stats<log2_max_sum>, scale = 0.3 : f32}
      : memref<1x40x2x64xf32>, memref<1x29x2x64xf32>, memref<1x29x2x64xf32>,
        memref<1x40x2x64xf32>, memref<1x40x2x64xf32>, stats(memref<1x2x40xf32>, memref<1x2x40xf32>)
        -> memref<1x40x2x64xf32>, memref<1x29x2x64xf32>, memref<1x29x2x64xf32>
  return
}

// -----

// Bottom-right causal with Sq > Sk: the first 30 query rows see no key and
// must get exactly zero dQ (no NaN); GQA 4/1; f32 gradients of f16 inputs.
// CHECK: bwd f16 B=1 Sq=50 Sk=20 Hq=4 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right>
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @masked_rows(%q: memref<1x50x4x64xf16>, %k: memref<1x20x1x64xf16>,
    %v: memref<1x20x1x64xf16>, %o: memref<1x50x4x64xf16>, %do: memref<1x50x4x64xf16>,
    %lse: memref<1x4x50xf32>, %dq: memref<1x50x4x64xf32>, %dk: memref<1x20x1x64xf32>,
    %dv: memref<1x20x1x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal, alignment = bottom_right>}
      : memref<1x50x4x64xf16>, memref<1x20x1x64xf16>, memref<1x20x1x64xf16>,
        memref<1x50x4x64xf16>, memref<1x50x4x64xf16>, stats(memref<1x4x50xf32>)
        -> memref<1x50x4x64xf32>, memref<1x20x1x64xf32>, memref<1x20x1x64xf32>
  return
}

// -----

// One-sided window (the origin system's W), bf16, Dqk 128 != Dv 64.
// CHECK: bwd bf16 B=1 Sq=31 Sk=31 Hq=2 Hkv=1 Dqk=128 Dv=64 mask=#fmha.mask<one_sided_window, left = 5>
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @one_sided(%q: memref<1x31x2x128xbf16>, %k: memref<1x31x1x128xbf16>,
    %v: memref<1x31x1x64xbf16>, %o: memref<1x31x2x64xbf16>, %do: memref<1x31x2x64xbf16>,
    %lse: memref<1x2x31xf32>, %dq: memref<1x31x2x128xbf16>, %dk: memref<1x31x1x128xbf16>,
    %dv: memref<1x31x1x64xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<one_sided_window, left = 5>}
      : memref<1x31x2x128xbf16>, memref<1x31x1x128xbf16>, memref<1x31x1x64xbf16>,
        memref<1x31x2x64xbf16>, memref<1x31x2x64xbf16>, stats(memref<1x2x31xf32>)
        -> memref<1x31x2x128xbf16>, memref<1x31x1x128xbf16>, memref<1x31x1x64xbf16>
  return
}

// -----

// BHSD layout through strides.
// CHECK: bwd f16 B=1 Sq=32 Sk=32 Hq=2 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<sliding_window, left = 4, right = 4>
// CHECK-COUNT-3: {{^d[QKV] .* PASS$}}
func.func @bhsd(%q: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %lse: memref<1x2x32xf32>, %k: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %v: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %o: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %do: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %dq: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %dk: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
    %dv: memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<sliding_window, left = 4, right = 4>}
      : memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>, memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
        memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>, memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
        memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>, stats(memref<1x2x32xf32>)
        -> memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>, memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>,
           memref<1x32x2x64xf16, strided<[4096, 64, 2048, 1]>>
  return
}

