// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The kernels address their operands in global memory: no memory space, or
// #gpu.address_space<global>.

func.func @workgroup_query(%q: memref<1x16x4x64xf16, #gpu.address_space<workgroup>>,
    %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>,
    %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{query is in memory space #gpu.address_space<workgroup>; the kernels take global memory (no memory space or #gpu.address_space<global>)}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16, #gpu.address_space<workgroup>>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @private_lse(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>,
    %lse: memref<1x4x16xf32, #gpu.address_space<private>>) {
  // expected-error @+1 {{stats[0] is in memory space #gpu.address_space<private>}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32, #gpu.address_space<private>>)
  return
}

// -----

func.func @numbered_dv(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x64xf16>, %dk: memref<1x16x4x64xf16>,
    %dv: memref<1x16x4x64xf16, 3>) {
  // expected-error @+1 {{grad_value is in memory space 3 : i64; the kernels take global memory}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16, 3>
  return
}

// -----

func.func @global(%q: memref<1x16x4x64xf16, #gpu.address_space<global>>,
    %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16, #gpu.address_space<global>>, %lse: memref<1x4x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16, #gpu.address_space<global>>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16, #gpu.address_space<global>>, stats(memref<1x4x16xf32>)
  return
}
