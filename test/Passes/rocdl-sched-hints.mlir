// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-rocdl-sched-hints))' | FileCheck %s

// A loop marked rocke.mfma_exp_loop (the forward's KV loop) starts with
// LLVM's MFMA / exp interleaving strategy; unmarked loops stay as they are.
// CHECK-LABEL: gpu.func @marked
// CHECK: scf.for
// CHECK-NEXT: rocdl.iglp.opt 2
// CHECK-NEXT: arith.addf
// CHECK: } {rocke.mfma_exp_loop}
// CHECK: scf.for
// CHECK-NOT: rocdl.iglp.opt
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @marked(%lb: index, %ub: index, %x: f32) kernel {
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %lb to %ub step %c1 iter_args(%a = %x) -> (f32) {
      %e = arith.addf %a, %x : f32
      scf.yield %e : f32
    } {rocke.mfma_exp_loop}
    %s = scf.for %i = %lb to %ub step %c1 iter_args(%a = %r) -> (f32) {
      %e = arith.mulf %a, %x : f32
      scf.yield %e : f32
    }
    gpu.return
  }
}

// -----

// Nested: the marked inner loop gets the hint, its unmarked parent none.
// CHECK-LABEL: gpu.func @nested
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: rocdl.iglp.opt 2
// CHECK-NOT: rocdl.iglp.opt
// CHECK: gpu.return
gpu.module @nested_kernels {
  gpu.func @nested(%lb: index, %ub: index) kernel {
    %c1 = arith.constant 1 : index
    scf.for %i = %lb to %ub step %c1 {
      scf.for %j = %lb to %ub step %c1 {
        gpu.barrier
      } {rocke.mfma_exp_loop}
    }
    gpu.return
  }
}

// -----

// A kernel marked rocke.agpr_accumulators (gfx942's D=128 backward) gets
// AGPR accumulators and the iterative-minreg scheduler as LLVM function
// attributes, after those it has; an unmarked kernel none.
// CHECK-LABEL: gpu.func @heavy
// CHECK-SAME: passthrough = {{\[}}["amdgpu-ieee", "false"], ["amdgpu-agpr-alloc", "256"], ["amdgpu-sched-strategy", "iterative-minreg"]]
// CHECK-LABEL: gpu.func @light
// CHECK-NOT: amdgpu-agpr-alloc
// CHECK: gpu.return
gpu.module @agpr_kernels {
  gpu.func @heavy() kernel attributes {passthrough = [["amdgpu-ieee", "false"]], rocke.agpr_accumulators} {
    gpu.return
  }
  gpu.func @light() kernel {
    gpu.return
  }
}
