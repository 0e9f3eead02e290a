// Hand-written kernel with nested loops for rocke-report: the inner loop loads
// a fragment and issues one MFMA; the outer loop adds an LDS store, so the
// report must pick the inner one. 48 KiB of LDS per 256-wide workgroup limits occupancy.
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
      cf.br ^outer(%c0, %zero : i32, vector<4xf32>)
    ^outer(%i: i32, %acc0: vector<4xf32>):
      %more = arith.cmpi slt, %i, %n : i32
      cf.cond_br %more, ^inner(%c0, %acc0 : i32, vector<4xf32>), ^done(%acc0 : vector<4xf32>)
    ^inner(%j: i32, %acc: vector<4xf32>):
      %jx = arith.index_cast %j : i32 to index
      %row = arith.addi %jx, %tid : index
      %idx = arith.muli %row, %c4 : index
      %x = vector.load %a[%idx] : memref<4096xf16, 1>, vector<4xf16>
      %d = amdgpu.mfma 16x16x16 %x * %x + %acc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      %j1 = arith.addi %j, %c1 : i32
      %cont = arith.cmpi slt, %j1, %m : i32
      cf.cond_br %cont, ^inner(%j1, %d : i32, vector<4xf32>), ^latch(%d : vector<4xf32>)
    ^latch(%acc2: vector<4xf32>):
      %fi = arith.sitofp %i : i32 to f32
      memref.store %fi, %lds[%tid] : memref<12288xf32, #gpu.address_space<workgroup>>
      %i1 = arith.addi %i, %c1 : i32
      cf.br ^outer(%i1, %acc2 : i32, vector<4xf32>)
    ^done(%r: vector<4xf32>):
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
      cf.br ^main(%c0, %zero : i32, vector<4xf32>)
    ^main(%j: i32, %acc: vector<4xf32>):
      cf.br ^stage(%c0 : i32)
    ^stage(%c: i32):
      %cx = arith.index_cast %c : i32 to index
      %base = arith.muli %cx, %c64 : index
      %src = arith.addi %base, %tid : index
      %h = memref.load %a[%src] : memref<4096xf16, 1>
      memref.store %h, %tile[%src] : memref<1024xf16, #gpu.address_space<workgroup>>
      %c1n = arith.addi %c, %c1 : i32
      %more = arith.cmpi slt, %c1n, %s : i32
      cf.cond_br %more, ^stage(%c1n : i32), ^compute
    ^compute:
      %idx = arith.muli %tid, %c4 : index
      %x = vector.load %tile[%idx] : memref<1024xf16, #gpu.address_space<workgroup>>, vector<4xf16>
      %d = amdgpu.mfma 16x16x16 %x * %x + %acc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      %j1 = arith.addi %j, %c1 : i32
      %cont = arith.cmpi slt, %j1, %m : i32
      cf.cond_br %cont, ^main(%j1, %d : i32, vector<4xf32>), ^done(%d : vector<4xf32>)
    ^done(%r: vector<4xf32>):
      %e = vector.extract %r[0] : f32 from vector<4xf32>
      memref.store %e, %out[%tid] : memref<256xf32, 1>
      gpu.return
    }
  }
}
