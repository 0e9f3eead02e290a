// Hand-written kernel with nested loops for rocke-report: the inner loop loads
// a fragment and issues one MFMA; the outer loop adds an LDS store, so the
// report must pick the inner one. Structured loops (scf), as
// fmha-place-workgroup-barriers needs; scf.while for those that run at least
// once. 48 KiB of LDS per 256-wide workgroup limits occupancy.
module attributes {gpu.container_module} {
  gpu.module @loops {
    gpu.func @mfma_loop(%a: memref<4096xf16, 1>, %out: memref<256xf32, 1>,
                        %n: i32, %m: i32)
        workgroup(%lds: memref<12288xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c4 = arith.constant 4 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (vector<4xf32>) : i32 {
        // Runs at least once: the body is the before region.
        %inner:2 = scf.while (%j = %c0, %acc = %acc0) : (i32, vector<4xf32>) -> (i32, vector<4xf32>) {
          %jx = arith.index_cast %j : i32 to index
          %row = arith.addi %jx, %tid : index
          %idx = arith.muli %row, %c4 : index
          %x = vector.load %a[%idx] : memref<4096xf16, 1>, vector<4xf16>
          %d = amdgpu.mfma 16x16x16 %x * %x + %acc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
          %j1 = arith.addi %j, %c1 : i32
          %cont = arith.cmpi slt, %j1, %m : i32
          scf.condition(%cont) %j1, %d : i32, vector<4xf32>
        } do {
        ^bb0(%j1: i32, %d: vector<4xf32>):
          scf.yield %j1, %d : i32, vector<4xf32>
        }
        %fi = arith.sitofp %i : i32 to f32
        memref.store %fi, %lds[%tid] : memref<12288xf32, #gpu.address_space<workgroup>>
        scf.yield %inner#1 : vector<4xf32>
      }
      %e = vector.extract %r[0] : f32 from vector<4xf32>
      %l = memref.load %lds[%tid] : memref<12288xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %e, %l : f32
      memref.store %s, %out[%tid] : memref<256xf32, 1>
      gpu.return
    }

    // A main loop with a staging loop inside: the staging loop is innermost
    // but cold; the hot loop is the one with the MFMA.
    gpu.func @staged_mfma_loop(%a: memref<4096xf16, 1>, %out: memref<256xf32, 1>,
                               %m: i32, %s: i32)
        workgroup(%tile: memref<1024xf16, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %r:2 = scf.while (%j = %c0, %acc = %zero) : (i32, vector<4xf32>) -> (i32, vector<4xf32>) {
        %stage = scf.while (%c = %c0) : (i32) -> i32 {
          %cx = arith.index_cast %c : i32 to index
          %base = arith.muli %cx, %c64 : index
          %src = arith.addi %base, %tid : index
          %h = memref.load %a[%src] : memref<4096xf16, 1>
          memref.store %h, %tile[%src] : memref<1024xf16, #gpu.address_space<workgroup>>
          %c1n = arith.addi %c, %c1 : i32
          %more = arith.cmpi slt, %c1n, %s : i32
          scf.condition(%more) %c1n : i32
        } do {
        ^bb0(%c1n: i32):
          scf.yield %c1n : i32
        }
        %idx = arith.muli %tid, %c4 : index
        %x = vector.load %tile[%idx] : memref<1024xf16, #gpu.address_space<workgroup>>, vector<4xf16>
        %d = amdgpu.mfma 16x16x16 %x * %x + %acc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
        %j1 = arith.addi %j, %c1 : i32
        %cont = arith.cmpi slt, %j1, %m : i32
        scf.condition(%cont) %j1, %d : i32, vector<4xf32>
      } do {
      ^bb0(%j1: i32, %d: vector<4xf32>):
        scf.yield %j1, %d : i32, vector<4xf32>
      }
      %e = vector.extract %r#1[0] : f32 from vector<4xf32>
      memref.store %e, %out[%tid] : memref<256xf32, 1>
      gpu.return
    }
  }
}
