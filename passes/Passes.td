//===- Passes.td - rocke-mlir passes ---------------------------------------===//
#ifndef ROCKE_PASSES
#define ROCKE_PASSES

include "mlir/Pass/PassBase.td"


//===----------------------------------------------------------------------===//
// ROCDL backend (issue 5)
//===----------------------------------------------------------------------===//

def RocdlVerifyChip : Pass<"fmha-rocdl-verify-chip", "::mlir::ModuleOp"> {
  let summary = "Reject AMD chips the ROCDL finish does not support";
  let description = [{
    Fails with a diagnostic unless `chip` is one of gfx90a, gfx942, gfx950
    (facts in lib/ChipInfo.h).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "AMD GPU architecture">,
  ];
}

def RocdlExp2 : Pass<"fmha-exp2-to-rocdl", "::mlir::gpu::GPUModuleOp"> {
  let summary = "math.exp2 f32 -> rocdl.exp2 (one v_exp_f32, no OCML call)";
  let description = [{
    Run before convert-gpu-to-rocdl. Also rewrites `arith.divf 1.0, %x` on f32
    carrying the `arcp` or `afn` fast-math flag to rocdl.rcp (v_rcp_f32).
  }];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect"];
}

def RocdlNativeAtomics : Pass<"fmha-rocdl-native-atomics",
                              "::mlir::gpu::GPUModuleOp"> {
  let summary = "Mark llvm.atomicrmw fadd so AMDGPU emits native float atomics";
  let description = [{
    Run after convert-gpu-to-rocdl. Sets rocdl.no_fine_grained_memory,
    rocdl.no_remote_memory and syncscope("agent") on floating-point
    llvm.atomicrmw fadd, so the backend emits global_atomic_add_f32 /
    global_atomic_pk_add_bf16 instead of a global_atomic_cmpswap loop.
    With `ignore-denormal-mode` (default on) it also sets
    rocdl.ignore_denormal_mode: gfx90a's global f32 atomics flush denormals,
    so without it gfx90a keeps the cmpswap loop.
  }];
  let options = [
    Option<"ignoreDenormalMode", "ignore-denormal-mode", "bool",
           /*default=*/"true",
           "Allow atomics that flush denormals (needed for gfx90a)">,
  ];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect"];
}

def DumpBinary : Pass<"fmha-dump-binary", "::mlir::ModuleOp"> {
  let summary = "Write the gpu.binary object (HSACO) to a file, plus JSON";
  let description = [{
    Writes the first object of each gpu.binary to `output` (with a single
    gpu.binary; several binaries get `<output>.<binary name>`) and a sidecar
    `<output>.json` listing the kernels and their argument types.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"kernel.hsaco\"",
           "Output file">,
  ];
}

//===----------------------------------------------------------------------===//
// Matrix-core tiling (issues 5 and 7)
//===----------------------------------------------------------------------===//

def LowerMma : Pass<"fmha-lower-mma"> {
  let summary = "fmha.mma atoms -> amdgpu.mfma, nvgpu.mma.sync or vector.contract";
  let description = [{
    Lowers each lane-level fmha.mma by its atom's family (lib/FragmentLayout):
    MFMA atoms become amdgpu.mfma, mma.sync atoms nvgpu.mma.sync (register
    pairs), host atoms a vector.contract over the whole atom (CPU execution).
  }];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // ROCKE_PASSES
