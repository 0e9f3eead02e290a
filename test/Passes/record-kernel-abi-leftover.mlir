// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco)' -verify-diagnostics -o /dev/null
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(fmha-nvvm-to-ptx)' -verify-diagnostics -o /dev/null
// The finishes start with fmha-record-kernel-abi, which rejects an fmha op
// left in a kernel that the finishes do not lower, naming the passes it
// needs (it failed in the LLVM translation, at an unrealized_conversion_cast).

module attributes {gpu.container_module} {
  gpu.module @fmha_kernels {
    gpu.func @tiles(%grad: memref<?x?x8x64xf16>, %i: index) kernel {
      // expected-error @+1 {{'fmha.tile_zero' op is left in a kernel; it needs 'fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma' before the finish (fmha-bwd-rocdl / fmha-bwd-nvvm run every pass after fmha-bwd-to-kernels)}}
      %z = fmha.tile_zero : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">
      fmha.tile_store %z, %grad[%i, %i, %i, %i] lane %i seq %i
          : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @fmha_kernels {
    gpu.func @copies(%src: memref<?x?x8x64xf16>, %i: index,
                     %buf: memref<64x72xf16>) kernel {
      // expected-error @+1 {{'fmha.tile_copy' op is left in a kernel; it needs 'fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma' before the finish}}
      fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<64x72xf16>
          {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @fmha_kernels {
    gpu.func @products(%a: vector<4xf16>, %c: vector<4xf32>,
                       %out: memref<4xf32>) kernel {
      %i = arith.constant 0 : index
      // expected-error @+1 {{'fmha.mma' op is left in a kernel; it needs 'fmha-lower-mma' before the finish}}
      %d = fmha.mma %a, %a, %c {atom = "mfma_f32_16x16x16_f16"}
          : vector<4xf16>, vector<4xf16> -> vector<4xf32>
      vector.store %d, %out[%i] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }
}
