// bf16 gradient accumulation: an atomic fadd on <2 x bf16> becomes one
// global_atomic_pk_add_bf16 on gfx942/gfx950 (fmha-rocdl-native-atomics marks
// it no-fine-grained / no-remote), with no compare-and-swap loop. gfx90a has no
// packed bf16 atomic (lib/Target/ChipInfo: hasPkAddBf16 = false) and keeps the loop.
// memref.atomic_rmw only takes scalars, so the kernel uses llvm.atomicrmw.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.gfx942.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.hsaco | FileCheck %s
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx950},fmha-dump-binary{output=%t.gfx950.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.hsaco | FileCheck %s
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx90a},fmha-dump-binary{output=%t.gfx90a.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.hsaco | FileCheck %s --check-prefix=GFX90A

// CHECK-LABEL: <pk_add>:
// CHECK-NOT: global_atomic_cmpswap
// CHECK: global_atomic_pk_add_bf16
// CHECK-NOT: global_atomic_cmpswap
// CHECK: s_endpgm

// GFX90A-LABEL: <pk_add>:
// GFX90A-NOT: global_atomic_pk_add_bf16
// GFX90A: global_atomic_cmpswap
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @pk_add(%acc: !llvm.ptr<1>, %v: vector<2xbf16>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i32
      %p = llvm.getelementptr %acc[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<2xbf16>
      %old = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr<1>, vector<2xbf16>
      gpu.return
    }
  }
}
