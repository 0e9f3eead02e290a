// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles | FileCheck %s

// fmha.tile_mma_warpgroup -> one fmha.warpgroup_mma (per k step of 16 an A
// fragment or descriptor and a B descriptor) and its fmha.warpgroup_wait.
// The descriptors (PTX wgmma matrix descriptors, no swizzle): (address &
// 0x3FFFF) >> 4, OR'd with a constant holding the byte strides between core
// matrices >> 4: along K at bit 16 (leading), along M / N at bit 32
// (stride).

// RS form: A from registers (two k steps of a 16 x 32 tile), B [32 x 16]
// not transposed: B[k][n] = buffer (r + k, n), so K runs along the buffer's
// rows (8 x 8 core matrices, 2 per row of core matrices: 256 bytes between
// core matrices along K, 128 along N): leading 256 >> 4 = 16, stride
// 128 >> 4 = 8, (16 << 16) | (8 << 32) = 34360786944. Core matrices of B
// run along N (mn_major_b). The second step starts 16 rows further down. A
// zero accumulator is one zero constant of 8 registers (two m16n8 fragments:
// the lowering starts such a product with D = A * B);
// the wait's result is split back into the fragments.
// CHECK-LABEL: func.func @rs
// CHECK-SAME: (%[[A0:[^:]*]]: vector<8xbf16>, %[[A1:[^:]*]]: vector<8xbf16>, %[[BUF:[^:]*]]: memref<4x2x8x8xbf16, #gpu.address_space<workgroup>>, %[[R:[^:]*]]: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %[[BUF]]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BASE]]
// CHECK: %[[RB:.*]] = arith.divui %[[R]], %{{.*}} : index
// CHECK: %[[RS:.*]] = arith.constant 128 : index
// CHECK: arith.muli %[[RB]], %[[RS]] : index
// CHECK: %[[CS:.*]] = arith.constant 64 : index
// CHECK: %[[ELTS:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK: %[[EB:.*]] = arith.constant 2 : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[ELTS]], %[[EB]] : index
// CHECK: %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK: %[[ADDR64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK: %[[MASK:.*]] = arith.constant 262143 : i64
// CHECK: %[[LOW:.*]] = arith.andi %[[ADDR64]], %[[MASK]] : i64
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK: %[[START:.*]] = arith.shrui %[[LOW]], %[[FOUR]] : i64
// CHECK: %[[FIELDS:.*]] = arith.constant 34360786944 : i64
// CHECK: %[[D0:.*]] = arith.ori %[[START]], %[[FIELDS]] : i64
// CHECK: %[[R16:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK: memref.extract_strided_metadata %[[BUF]]
// CHECK: arith.divui %[[R16]], %{{.*}} : index
// CHECK: arith.constant 34360786944 : i64
// CHECK: %[[D1:.*]] = arith.ori
// CHECK: %[[ACC:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: %[[MMA:.*]] = fmha.warpgroup_mma %[[ACC]], a[%[[A0]], %[[A1]] : vector<8xbf16>, vector<8xbf16>], a_desc[], b_desc[%[[D0]], %[[D1]]] reads %[[BUF]] : memref<4x2x8x8xbf16, #gpu.address_space<workgroup>> {mn_major_b} -> vector<8xf32>
// CHECK-NEXT: %[[W:.*]] = fmha.warpgroup_wait %[[MMA]] reads %[[BUF]] : vector<8xf32>, memref<4x2x8x8xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: pending
// CHECK-NEXT: %[[F0:.*]] = vector.extract_strided_slice %[[W]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// CHECK-NEXT: %[[F1:.*]] = vector.extract_strided_slice %[[W]] {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// CHECK-NEXT: return %[[F0]], %[[F1]]
// CHECK-NOT: fmha.tile
!A = !fmha.tile<16x32xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @rs(%a0: vector<8xbf16>, %a1: vector<8xbf16>,
    %buf: memref<4x2x8x8xbf16, #wg>, %r: index)
    -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = fmha.tile_pack %a0, %a1 : vector<8xbf16>, vector<8xbf16> -> !A
  %z = fmha.tile_zero : !C
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%r, %c0] : memref<4x2x8x8xbf16, #wg>, acc %z : !C
  %f:2 = fmha.tile_unpack %d : !C -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// SS form: A [64 x 32] from workgroup memory (k = 32: two steps), not
// transposed: A[m][k] = (m0 + m, k), K along the buffer's columns (128
// bytes between core matrices along K, 6 * 128 = 768 along M): (8 << 16) |
// (48 << 32) = 206158954496, no mn_major_a. B as in @rs. Each step
// computes A's descriptor, then B's; the second step moves 16 columns of A
// and 16 rows of B. The product and the wait read both buffers, B first.
// CHECK-LABEL: func.func @ss
// CHECK-SAME: (%[[ABUF:[^:]*]]: memref<8x6x8x8xbf16, #gpu.address_space<workgroup>>, %[[BBUF:[^:]*]]: memref<4x2x8x8xbf16, #gpu.address_space<workgroup>>, %[[M:[^:]*]]: index, %[[R:[^:]*]]: index)
// CHECK: memref.extract_strided_metadata %[[ABUF]]
// CHECK: arith.divui %[[M]]
// CHECK: arith.constant 384 : index
// CHECK: arith.constant 206158954496 : i64
// CHECK: %[[A0:.*]] = arith.ori
// CHECK: memref.extract_strided_metadata %[[BBUF]]
// CHECK: arith.divui %[[R]]
// CHECK: arith.constant 34360786944 : i64
// CHECK: %[[B0:.*]] = arith.ori
// CHECK: %[[K16:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: memref.extract_strided_metadata %[[ABUF]]
// CHECK: arith.divui %[[M]]
// CHECK: arith.divui %[[K16]]
// CHECK: arith.constant 206158954496 : i64
// CHECK: %[[A1:.*]] = arith.ori
// CHECK: %[[R16:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK: memref.extract_strided_metadata %[[BBUF]]
// CHECK: arith.divui %[[R16]]
// CHECK: arith.constant 34360786944 : i64
// CHECK: %[[B1:.*]] = arith.ori
// CHECK: %[[MMA:.*]] = fmha.warpgroup_mma %{{.*}}, a[], a_desc[%[[A0]], %[[A1]]], b_desc[%[[B0]], %[[B1]]] reads %[[BBUF]], %[[ABUF]] : memref<4x2x8x8xbf16, #gpu.address_space<workgroup>>, memref<8x6x8x8xbf16, #gpu.address_space<workgroup>> {mn_major_b} -> vector<8xf32>
// CHECK-NEXT: fmha.warpgroup_wait %[[MMA]] reads %[[BBUF]], %[[ABUF]] :
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @ss(%abuf: memref<8x6x8x8xbf16, #wg>, %bbuf: memref<4x2x8x8xbf16, #wg>, %m: index, %r: index)
    -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %z = fmha.tile_zero : !C
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%m, %c0] : memref<8x6x8x8xbf16, #wg>, rhs %bbuf[%r, %c0] : memref<4x2x8x8xbf16, #wg>, acc %z {k = 32 : i64} : !C
  %f:2 = fmha.tile_unpack %d : !C -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// SS form, both transposed. A^T in the buffer: A[m][k] = (k, m0 + m), K
// along the buffer's rows (8 core matrices a row: 1024 bytes along K, 128
// along M): (64 << 16) | (8 << 32) = 34363932672, mn_major_a. B^T: B[k][n]
// = (r + n, k), K along the columns (128 bytes along K, 4 * 128 = 512
// along N): (8 << 16) | (32 << 32) = 137439477760, no mn_major_b. The
// second step moves 16 rows of A's buffer and 16 columns of B's.
// CHECK-LABEL: func.func @ss_transposed
// CHECK-SAME: (%[[ABUF:[^:]*]]: memref<4x8x8x8xbf16, #gpu.address_space<workgroup>>, %[[BBUF:[^:]*]]: memref<2x4x8x8xbf16, #gpu.address_space<workgroup>>, %[[M:[^:]*]]: index, %[[R:[^:]*]]: index)
// CHECK: memref.extract_strided_metadata %[[ABUF]]
// CHECK: arith.constant 512 : index
// CHECK: arith.divui %[[M]]
// CHECK: arith.constant 34363932672 : i64
// CHECK: %[[A0:.*]] = arith.ori
// CHECK: memref.extract_strided_metadata %[[BBUF]]
// CHECK: arith.divui %[[R]]
// CHECK: arith.constant 256 : index
// CHECK: arith.constant 137439477760 : i64
// CHECK: %[[B0:.*]] = arith.ori
// CHECK: %[[K16A:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: memref.extract_strided_metadata %[[ABUF]]
// CHECK: arith.divui %[[K16A]]
// CHECK: arith.divui %[[M]]
// CHECK: arith.constant 34363932672 : i64
// CHECK: %[[A1:.*]] = arith.ori
// CHECK: %[[K16B:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: memref.extract_strided_metadata %[[BBUF]]
// CHECK: arith.divui %[[R]]
// CHECK: arith.divui %[[K16B]]
// CHECK: arith.constant 137439477760 : i64
// CHECK: %[[B1:.*]] = arith.ori
// CHECK: fmha.warpgroup_mma %{{.*}}, a[], a_desc[%[[A0]], %[[A1]]], b_desc[%[[B0]], %[[B1]]] reads %[[BBUF]], %[[ABUF]] : memref<2x4x8x8xbf16, #gpu.address_space<workgroup>>, memref<4x8x8x8xbf16, #gpu.address_space<workgroup>> {mn_major_a} -> vector<8xf32>
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @ss_transposed(%abuf: memref<4x8x8x8xbf16, #wg>, %bbuf: memref<2x4x8x8xbf16, #wg>, %m: index, %r: index)
    -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %z = fmha.tile_zero : !C
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%c0, %m] : memref<4x8x8x8xbf16, #wg>, rhs %bbuf[%r, %c0] : memref<2x4x8x8xbf16, #wg>, acc %z {k = 32 : i64, lhs_transposed, transposed} : !C
  %f:2 = fmha.tile_unpack %d : !C -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// RS form in a loop, A read from workgroup memory: read again one k step at
// a time (one ldmatrix.x4 each) next to the product; the loop carries the
// accumulator's fragments, concatenated into the product's accumulator. B^T
// is a slot of a double buffer (a subview, dynamic offset): the strides of
// its layout give the fields, (8 << 16) | (64 << 32) = 274878431232.
// CHECK-LABEL: func.func @rs_read_loop
// CHECK: scf.for {{.*}} iter_args(%[[C0:.*]] = %{{.*}}, %[[C1:.*]] = %{{.*}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK: %[[L0:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: %[[F0:.*]] = vector.shape_cast %[[L0]] : vector<4x2xbf16> to vector<8xbf16>
// CHECK: arith.constant 274878431232 : i64
// CHECK: %[[D0:.*]] = arith.ori
// CHECK: %[[L1:.*]] = nvgpu.ldmatrix
// CHECK: %[[F1:.*]] = vector.shape_cast %[[L1]]
// CHECK: arith.constant 274878431232 : i64
// CHECK: %[[D1:.*]] = arith.ori
// CHECK: %[[ACC:.*]] = vector.shuffle %[[C0]], %[[C1]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: %[[MMA:.*]] = fmha.warpgroup_mma %[[ACC]], a[%[[F0]], %[[F1]] : vector<8xbf16>, vector<8xbf16>], a_desc[], b_desc[%[[D0]], %[[D1]]] reads %{{.*}} : memref<2x4x8x8xbf16, strided<[512, 64, 8, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<8xf32>
// CHECK-NEXT: %[[W:.*]] = fmha.warpgroup_wait %[[MMA]]
// CHECK-NEXT: %[[S0:.*]] = vector.extract_strided_slice %[[W]] {offsets = [0]
// CHECK-NEXT: %[[S1:.*]] = vector.extract_strided_slice %[[W]] {offsets = [4]
// CHECK-NEXT: scf.yield %[[S0]], %[[S1]] : vector<4xf32>, vector<4xf32>
// CHECK-NOT: nvgpu.ldmatrix
!A = !fmha.tile<16x32xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @rs_read_loop(%abuf: memref<16x40xbf16, #wg>,
    %bbuf: memref<2x4x8x8xbf16, strided<[512, 64, 8, 1], offset: ?>, #wg>,
    %lane: index, %n: index, %c: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc0 = fmha.tile_pack %c, %c : vector<4xf32>, vector<4xf32> -> !C
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (!C) {
    %a = fmha.tile_read %abuf[%c0, %c0] lane %lane : memref<16x40xbf16, #wg> -> !A
    %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %bbuf[%c0, %c0] : memref<2x4x8x8xbf16, strided<[512, 64, 8, 1], offset: ?>, #wg>, acc %acc {transposed} : !C
    scf.yield %d : !C
  }
  %f:2 = fmha.tile_unpack %r : !C -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// f16, N = 64 (8 fragments, 32 registers), one k step: m64n64k16 wants a
// 32-register accumulator (here zero: one constant); the last fragment is
// the result's last 4 registers.
// CHECK-LABEL: func.func @f16_n64
// CHECK: arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK-NEXT: fmha.warpgroup_mma %{{.*}}, a[%{{.*}} : vector<8xf16>], a_desc[], b_desc[%{{[^,]*}}] reads %{{.*}} : memref<2x8x8x8xf16, #gpu.address_space<workgroup>> {mn_major_b} -> vector<32xf32>
// CHECK: fmha.warpgroup_wait
// CHECK-NEXT: %[[LAST:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [28], sizes = [4], strides = [1]} : vector<32xf32> to vector<4xf32>
// CHECK-NEXT: return %[[LAST]]
!A = !fmha.tile<16x16xf16, a, "mma_sync_m16n8k16_f16">
!C = !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">
#wg = #gpu.address_space<workgroup>
func.func @f16_n64(%a0: vector<8xf16>, %buf: memref<2x8x8x8xf16, #wg>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %a = fmha.tile_pack %a0 : vector<8xf16> -> !A
  %z = fmha.tile_zero : !C
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%c0, %c0] : memref<2x8x8x8xf16, #wg>, acc %z : !C
  %f:8 = fmha.tile_unpack %d : !C -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  return %f#7 : vector<4xf32>
}

// -----

// fmha.tile_write into 128-byte swizzled atoms (an operand of warpgroup
// products): each lane's 2-element runs sit at rows +0 and +8 and columns
// +0, +8, ..., +72 of its first element. Whole atoms of that offset
// (rows +8, columns +64) are a subview's static offset, the rest one index
// tuple per chunk (8 swizzle xors), shared by the runs in other atoms: LLVM
// keeps the atoms' offsets constant offsets of one address per chunk.
// CHECK-LABEL: func.func @write_swizzled
// CHECK-SAME: %[[BUF:[^:]*]]: memref<2x2x8x64xbf16, #gpu.address_space<workgroup>>
// CHECK: arith.xori
// CHECK: vector.store %{{.*}}, %[[BUF]][%[[R:.*]], %[[C:.*]], %[[I:.*]], %[[J:.*]]] : memref<2x2x8x64xbf16
// CHECK: %[[DOWN:.*]] = memref.subview %[[BUF]][1, 0, 0, 0] [1, 2, 8, 64] [1, 1, 1, 1]
// CHECK: vector.store %{{.*}}, %[[DOWN]][%[[R]], %[[C]], %[[I]], %[[J]]] : memref<1x2x8x64xbf16, strided<[1024, 512, 64, 1], offset: 1024>
// CHECK-COUNT-7: arith.xori
// CHECK: %[[RIGHT:.*]] = memref.subview %[[BUF]][0, 1, 0, 0] [2, 1, 8, 64] [1, 1, 1, 1]
// CHECK: vector.store %{{.*}}, %[[RIGHT]][%[[R]], %[[C]], %[[I]], %[[J]]] : memref<2x1x8x64xbf16, strided<[1024, 512, 64, 1], offset: 512>
// CHECK: %[[BOTH:.*]] = memref.subview %[[BUF]][1, 1, 0, 0] [1, 1, 8, 64] [1, 1, 1, 1]
// CHECK: vector.store %{{.*}}, %[[BOTH]][%[[R]], %[[C]], %[[I]], %[[J]]] : memref<1x1x8x64xbf16, strided<[1024, 512, 64, 1], offset: 1536>
// CHECK-NOT: arith.xori
// CHECK: return
!C = !fmha.tile<16x80xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @write_swizzled(%c: vector<4xf32>, %buf: memref<2x2x8x64xbf16, #wg>,
    %r: index, %lane: index) {
  %c0 = arith.constant 0 : index
  %t = fmha.tile_pack %c, %c, %c, %c, %c, %c, %c, %c, %c, %c
      : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>,
        vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>,
        vector<4xf32>, vector<4xf32> -> !C
  fmha.tile_write %t, %buf[%r, %c0] lane %lane : !C, memref<2x2x8x64xbf16, #wg>
  return
}
