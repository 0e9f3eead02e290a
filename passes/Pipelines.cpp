//===- Pipelines.cpp - named rocke pipelines --------------------------------===//
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/FormatVariadic.h"

#ifndef ROCKE_ROCDL_TOOLKIT_DIR
#define ROCKE_ROCDL_TOOLKIT_DIR "/opt/rocm"
#endif

namespace {
/// Options of fmha-rocdl-to-hsaco (issue 5, ROCDL finish).
struct RocdlToHsacoOptions
    : public mlir::PassPipelineOptions<RocdlToHsacoOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("gfx90a, gfx942 or gfx950"),
                           llvm::cl::init("gfx942")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("LLVM opt level"),
                            llvm::cl::init(3)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("dir with llvm/bin/ld.lld (default: the build's)"),
      llvm::cl::init(ROCKE_ROCDL_TOOLKIT_DIR)};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("bin (HSACO), isa, llvm, offloading"),
                             llvm::cl::init("bin")};
};

/// gpu.module kernels (gpu.shuffle, math.exp2, memref.atomic_rmw) -> gpu.binary
/// holding an HSACO, with native float atomics and v_exp_f32.
void buildRocdlToHsacoPipeline(mlir::OpPassManager &pm,
                               const RocdlToHsacoOptions &opts) {
  std::string pipeline = llvm::formatv(
      "fmha-rocdl-verify-chip{{chip={0}},"
      "rocdl-attach-target{{chip={0} O={1}},"
      "gpu.module(fmha-exp2-to-rocdl,convert-gpu-to-rocdl{{chipset={0}},"
      "fmha-rocdl-native-atomics,reconcile-unrealized-casts),"
      "gpu-module-to-binary{{toolkit={2} format={3}}",
      opts.chip.getValue(), opts.optLevel.getValue(),
      opts.toolkit.getValue(), opts.format.getValue());
  if (failed(mlir::parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("fmha-rocdl-to-hsaco: bad pipeline " +
                             llvm::Twine(pipeline));
}

/// Options of fmha-nvvm-to-ptx (issue 7, NVVM finish).
struct NvvmToPtxOptions : public mlir::PassPipelineOptions<NvvmToPtxOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("sm_80, sm_86, sm_87, sm_89, sm_90 "
                                          "or sm_90a"),
                           llvm::cl::init("sm_90")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("LLVM opt level"),
                            llvm::cl::init(3)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit dir, for ptxas with format=bin (default: "
                     "$CUDA_ROOT/$CUDA_HOME/$CUDA_PATH, then PATH)"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX, default), bin (cubin, needs ptxas), llvm, "
                     "fatbin"),
      llvm::cl::init("isa")};
};

/// gpu.module kernels (gpu.shuffle, math.exp2, memref.atomic_rmw,
/// nvgpu.mma.sync, scf, vector) -> gpu.binary holding PTX: shfl.sync,
/// atom/red.global.add.f32, ex2.approx.f32, mma.sync m16n8k16 f16/bf16.
void buildNvvmToPtxPipeline(mlir::OpPassManager &pm,
                            const NvvmToPtxOptions &opts) {
  std::string toolkit =
      opts.toolkit.empty() ? "" : " toolkit=" + opts.toolkit.getValue();
  // Vector ops the NVVM conversions leave behind (shape_cast, from_elements)
  // and the ub.poison their lowering makes are finished after
  // convert-gpu-to-nvvm, once memory spaces are already LLVM address spaces.
  std::string pipeline = llvm::formatv(
      "fmha-nvvm-verify-chip{{chip={0}},"
      "nvvm-attach-target{{chip={0} O={1}},"
      "gpu.module(fmha-exp2-to-nvvm,fmha-nvgpu-mma-bf16-to-nvvm,"
      "convert-vector-to-scf,expand-strided-metadata,lower-affine,"
      "convert-scf-to-cf,convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,"
      "convert-vector-to-llvm,convert-ub-to-llvm,canonicalize,cse,"
      "reconcile-unrealized-casts),"
      "gpu-module-to-binary{{format={2}{3}}",
      opts.chip.getValue(), opts.optLevel.getValue(), opts.format.getValue(),
      toolkit);
  if (failed(mlir::parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("fmha-nvvm-to-ptx: bad pipeline " +
                             llvm::Twine(pipeline));
}
} // namespace

void rocke::registerPipelines() {
  mlir::PassPipelineRegistration<NvvmToPtxOptions>(
      "fmha-nvvm-to-ptx",
      "gpu.module kernels -> PTX gpu.binary (NVVM; cubin with format=bin)",
      buildNvvmToPtxPipeline);
  mlir::PassPipelineRegistration<RocdlToHsacoOptions>(
      "fmha-rocdl-to-hsaco",
      "gpu.module kernels -> HSACO gpu.binary (ROCDL, no ROCm needed)",
      buildRocdlToHsacoPipeline);
}
