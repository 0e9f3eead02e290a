// RUN: rocke-opt %s -split-input-file -fmha-record-kernel-abi -verify-diagnostics -o /dev/null

module attributes {gpu.container_module} {
  gpu.module @bad {
    // expected-error @+1 {{rocke.launch must be a dictionary, got [1, 2]}}
    gpu.func @k() kernel attributes {rocke.launch = [1, 2]} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @bad_order {
    // expected-error @+1 {{rocke.launch.order must be an integer, got "first"}}
    gpu.func @k() kernel attributes {rocke.launch = {order = "first"}} {
      gpu.return
    }
  }
}

// -----

// A finish run on an fmha op whose kernels were never built (the HSACO /
// PTX pipelines start with this pass).
func.func @unlowered(%q: memref<1x16x2x64xf16>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x64xf16>, %dk: memref<1x16x2x64xf16>, %dv: memref<1x16x2x64xf16>) {
  // expected-error @+1 {{'fmha.attention_bwd' op has no kernels to compile: lower it with fmha-bwd-to-kernels first}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>,
        memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>
  return
}
