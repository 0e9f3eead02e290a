//===- Pipelines.cpp - named rocke pipelines --------------------------------===//
#include "passes/Passes.h"

#include "lib/ChipInfo.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/FormatVariadic.h"

#ifndef ROCKE_ROCDL_TOOLKIT_DIR
#define ROCKE_ROCDL_TOOLKIT_DIR "/opt/rocm"
#endif

namespace {
using ErrorHandler = llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>;

/// Registers a pipeline whose builder may reject its options: the error goes
/// to the pass-pipeline parser, so rocke-opt prints it and exits non-zero
/// (PassPipelineRegistration's builder cannot fail, leaving only an abort).
template <typename Options>
void registerCheckedPipeline(
    llvm::StringRef arg, llvm::StringRef description,
    mlir::LogicalResult (*builder)(mlir::OpPassManager &, const Options &,
                                   ErrorHandler)) {
  mlir::registerPassPipeline(
      arg, description,
      [builder](mlir::OpPassManager &pm, llvm::StringRef text,
                ErrorHandler emitError) {
        Options options;
        if (failed(options.parseFromString(text)))
          return mlir::failure();
        return builder(pm, options, emitError);
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)> fn) {
        fn(Options());
      });
}

/// Fails unless `format` names a gpu-module-to-binary output in `allowed`
/// (gpu-module-to-binary itself only warns and continues on a bad format).
mlir::LogicalResult checkFormat(llvm::StringRef pipeline,
                                llvm::StringRef format,
                                llvm::ArrayRef<llvm::StringRef> allowed,
                                ErrorHandler emitError) {
  if (llvm::is_contained(allowed, format))
    return mlir::success();
  std::string list;
  llvm::interleave(
      allowed, [&](llvm::StringRef f) { list += f.str(); },
      [&] { list += ", "; });
  return emitError(pipeline + ": unsupported format '" + format +
                   "'; supported: " + list);
}

mlir::LogicalResult checkOptLevel(llvm::StringRef pipeline, unsigned level,
                                  ErrorHandler emitError) {
  if (level <= 3)
    return mlir::success();
  return emitError(pipeline + ": O must be 0, 1, 2 or 3, got " +
                   llvm::Twine(level));
}

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
/// holding an HSACO, with native float atomics and v_exp_f32. The passes are
/// built from the checked options, not from a pipeline string, so no option
/// value (a toolkit path with spaces, say) can change the pipeline's shape.
mlir::LogicalResult buildRocdlToHsacoPipeline(mlir::OpPassManager &pm,
                                              const RocdlToHsacoOptions &opts,
                                              ErrorHandler emitError) {
  const char *name = "fmha-rocdl-to-hsaco";
  if (!rocke::lookupChip(opts.chip))
    return emitError(llvm::Twine(name) + ": unsupported AMD chip '" +
                     opts.chip + "'; supported: " +
                     rocke::supportedChipList());
  if (failed(checkOptLevel(name, opts.optLevel, emitError)) ||
      failed(checkFormat(name, opts.format, {"bin", "isa", "llvm", "offloading"},
                         emitError)))
    return mlir::failure();

  // Signatures and launch facts first: the next passes erase the gpu.funcs.
  pm.addPass(rocke::createRecordKernelAbi());
  mlir::GpuROCDLAttachTargetOptions attach;
  attach.chip = opts.chip;
  attach.optLevel = opts.optLevel;
  pm.addPass(mlir::createGpuROCDLAttachTarget(attach));
  mlir::OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  kernels.addPass(rocke::createRocdlExp2());
  mlir::ConvertGpuOpsToROCDLOpsOptions lower;
  lower.chipset = opts.chip;
  kernels.addPass(mlir::createConvertGpuOpsToROCDLOps(lower));
  kernels.addPass(rocke::createRocdlNativeAtomics());
  kernels.addPass(mlir::createReconcileUnrealizedCastsPass());
  mlir::GpuModuleToBinaryPassOptions toBinary;
  toBinary.toolkitPath = opts.toolkit;
  toBinary.compilationTarget = opts.format;
  pm.addPass(mlir::createGpuModuleToBinaryPass(toBinary));
  return mlir::success();
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
/// Kernel signatures and rocke.launch facts are recorded first, for the
/// JSON sidecar of fmha-dump-binary.
mlir::LogicalResult buildNvvmToPtxPipeline(mlir::OpPassManager &pm,
                                           const NvvmToPtxOptions &opts,
                                           ErrorHandler emitError) {
  const char *name = "fmha-nvvm-to-ptx";
  if (failed(checkOptLevel(name, opts.optLevel, emitError)) ||
      failed(checkFormat(name, opts.format, {"isa", "bin", "llvm", "fatbin"},
                         emitError)))
    return mlir::failure();
  std::string toolkit =
      opts.toolkit.empty() ? "" : " toolkit=" + opts.toolkit.getValue();
  // Vector ops the NVVM conversions leave behind (shape_cast, from_elements)
  // and the ub.poison their lowering makes are finished after
  // convert-gpu-to-nvvm, once memory spaces are already LLVM address spaces.
  std::string pipeline = llvm::formatv(
      "fmha-nvvm-verify-chip{{chip={0}},fmha-record-kernel-abi,"
      "nvvm-attach-target{{chip={0} O={1}},"
      "gpu.module(fmha-exp2-to-nvvm,fmha-nvgpu-mma-bf16-to-nvvm,"
      "convert-vector-to-scf,expand-strided-metadata,lower-affine,"
      "convert-scf-to-cf,convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,"
      "convert-vector-to-llvm,convert-ub-to-llvm,canonicalize,cse,"
      "reconcile-unrealized-casts),"
      "gpu-module-to-binary{{format={2}{3}}",
      opts.chip.getValue(), opts.optLevel.getValue(), opts.format.getValue(),
      toolkit);
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(mlir::parsePassPipeline(pipeline, pm, os)))
    return emitError(llvm::Twine(name) + ": bad option value: " + error);
  return mlir::success();
}
} // namespace

void rocke::registerPipelines() {
  registerCheckedPipeline<NvvmToPtxOptions>(
      "fmha-nvvm-to-ptx",
      "gpu.module kernels -> PTX gpu.binary (NVVM; cubin with format=bin)",
      buildNvvmToPtxPipeline);
  registerCheckedPipeline<RocdlToHsacoOptions>(
      "fmha-rocdl-to-hsaco",
      "gpu.module kernels -> HSACO gpu.binary (ROCDL, no ROCm needed)",
      buildRocdlToHsacoPipeline);
}
