// RUN: rocke-opt %s -split-input-file -fmha-record-kernel-abi -verify-diagnostics -o /dev/null
// RUN: not rocke-opt %s -fmha-record-kernel-abi=chip=gfx1100 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not rocke-opt %s -fmha-record-kernel-abi='chip=gfx942 chip=sm_90' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWICE

// CHIP: error: fmha-record-kernel-abi: unknown chip 'gfx1100'
// TWICE: error: fmha-record-kernel-abi: option 'chip' is given twice; give each option once

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
    // expected-error @+1 {{kernel 'k': rocke.launch.order must be a non-negative integer, got "first"}}
    gpu.func @k() kernel attributes {rocke.launch = {order = "first"}} {
      gpu.return
    }
  }
}

// -----

// Hand-written launch facts are checked before they reach the JSON sidecar
// (they were copied unchecked): every field names the kernel.
module attributes {gpu.container_module} {
  gpu.module @block {
    // expected-error @+1 {{kernel 'k': rocke.launch.block[0] must be in [1, 1024], got -5}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, block = [-5, 0, 99999999999]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @block_size {
    // expected-error @+1 {{kernel 'k': rocke.launch.block asks for 2048 work-items per workgroup, past the target's limit of 1024}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, block = [512, 4, 1]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @block_shape {
    // expected-error @+1 {{kernel 'k': rocke.launch.block must be three integers (x, y, z), got [256]}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, block = [256]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @grid_syntax {
    // expected-error @+1 {{kernel 'k': rocke.launch.grid[1] 'ceildiv(Sq 64)' is no grid expression: expected ',' at offset 11}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, grid = ["B", "ceildiv(Sq 64)", "1"]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @grid_name {
    // expected-error @+1 {{kernel 'k': rocke.launch.grid[0] 'ceildiv(Sk,BKV)' is no grid expression: unknown name 'BKV' (sizes: B, Sq, Sk, Hq, Hkv, Dqk, Dv; or the launch's symbols)}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, grid = ["ceildiv(Sk,BKV)", "1", "1"]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @grid_count {
    // expected-error @+1 {{kernel 'k': rocke.launch.grid must be three expression strings (x, y, z), got ["Sq", "B"]}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, grid = ["Sq", "B"]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @roles {
    // expected-error @+1 {{kernel 'k': rocke.launch.args has 2 roles for the 1 kernel arguments}}
    gpu.func @k(%q: memref<64xf16, 1>) kernel attributes {rocke.launch = {order = 0 : i64, args = ["q", "k"]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @symbols {
    // expected-error @+1 {{kernel 'k': rocke.launch.symbols names 'Sq', which is a problem size}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, symbols = {Sq = 64 : i64}}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @ops {
    // expected-error @+1 {{kernel 'k': rocke.launch.ops must be an array of non-negative integers, got [0, -1]}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, ops = [0, -1]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @shared {
    // expected-error @+1 {{kernel 'k': rocke.launch.dynamic_shared_bytes must be a non-negative integer, got -16 : i64}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, dynamic_shared_bytes = -16 : i64}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @grid_limit {
    // expected-error @+1 {{kernel 'k': rocke.launch.grid_limit[1] must be in [1, 65535], got 65536}}
    gpu.func @k() kernel attributes {rocke.launch = {order = 0 : i64, grid_limit = [1024, 65536, 1]}} {
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

// -----

// The same beside another op's kernels: the finish would compile those and
// leave this op unlowered on the host.
module attributes {gpu.container_module} {
  gpu.module @fmha_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @left(%q: memref<1x16x2x64xf16>, %lse: memref<1x2x16xf32>,
      %dq: memref<1x16x2x64xf16>, %dk: memref<1x16x2x64xf16>, %dv: memref<1x16x2x64xf16>) {
    // expected-error @+1 {{'fmha.attention_bwd' op has no kernels to compile: lower it with fmha-bwd-to-kernels first}}
    fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
        : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>,
          memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, stats(memref<1x2x16xf32>)
          -> memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>
    return
  }
}
