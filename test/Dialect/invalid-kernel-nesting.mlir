// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The attention ops launch kernels (or run host loops): kernel code cannot
// hold them (fmha-bwd-to-kernels made a gpu.launch_func inside the kernel,
// which failed to legalize).

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fwd(%q: memref<1x16x2x64xf16>, %lse: memref<1x2x16xf32>) kernel {
      // expected-error @+1 {{'fmha.attention_fwd' op is a host-level op (its lowerings launch kernels or run host loops): it may not be inside kernel code ('gpu.func')}}
      fmha.attention_fwd %q, %q, %q -> %q, stats(%lse)
          : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>
            -> memref<1x16x2x64xf16>, stats(memref<1x2x16xf32>)
      gpu.return
    }
  }
}

// -----

// A device function of a gpu.module.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @bwd(%q: memref<1x16x2x64xf16>, %lse: memref<1x2x16xf32>) {
      // expected-error @+1 {{'fmha.attention_bwd' op is a host-level op (its lowerings launch kernels or run host loops): it may not be inside kernel code ('gpu.module')}}
      fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %q, %q, %q
          : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>,
            memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, stats(memref<1x2x16xf32>)
            -> memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>
      return
    }
  }
}

// -----

func.func @launch(%q: memref<1x16x2x64xf16>, %lse: memref<1x2x16xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    // expected-error @+1 {{'fmha.attention_fwd' op is a host-level op (its lowerings launch kernels or run host loops): it may not be inside kernel code ('gpu.launch')}}
    fmha.attention_fwd %q, %q, %q -> %q, stats(%lse)
        : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>
          -> memref<1x16x2x64xf16>, stats(memref<1x2x16xf32>)
    gpu.terminator
  }
  return
}
