//===- Pipelines.cpp - named rocke pipelines --------------------------------===//
#include "passes/Passes.h"

#include "lib/Target/ChipInfo.h"
#include "passes/OptionChecks.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#ifndef ROCKE_ROCDL_TOOLKIT_DIR
#define ROCKE_ROCDL_TOOLKIT_DIR "/opt/rocm"
#endif

namespace {
using ErrorHandler = llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>;

/// Parses pipeline options one `key=value` at a time, so a failure names
/// the key (an unknown or repeated one, the first with the list of valid
/// keys) or the bad value in one diagnostic; PassOptions::parseFromString
/// reported only the whole option string, and kept the last of a repeated
/// key.
template <typename Options>
mlir::LogicalResult parseOptions(llvm::StringRef pipeline,
                                 llvm::StringRef text, Options &options,
                                 ErrorHandler emitError) {
  if (failed(rocke::checkRepeatedOptions(pipeline, text, emitError)))
    return mlir::failure();
  // The valid keys, from the options' own printed form {k1=v1 k2=v2 ...}.
  std::string printed;
  llvm::raw_string_ostream os(printed);
  Options().print(os);
  llvm::SmallVector<llvm::StringRef> keys;
  for (llvm::StringRef word : rocke::splitOptions(
           llvm::StringRef(printed).trim().drop_front().drop_back()))
    keys.push_back(word.split('=').first);
  for (llvm::StringRef word : rocke::splitOptions(text)) {
    auto [key, value] = word.split('=');
    if (!llvm::is_contained(keys, key))
      return emitError(pipeline + ": unknown option '" + key +
                       "'; options: " + llvm::join(keys, ", "));
    std::string why;
    llvm::raw_string_ostream whyOs(why);
    if (failed(options.parseFromString(word, whyOs)))
      return emitError(pipeline + ": invalid value '" + value +
                       "' for option '" + key + "'" +
                       (why.empty() ? "" : ": " + llvm::StringRef(why).trim()));
  }
  return mlir::success();
}

/// Registers a pipeline whose builder may reject its options: the error goes
/// to the pass-pipeline parser, so rocke-opt prints it and exits non-zero
/// (PassPipelineRegistration's builder cannot fail, leaving only an abort).
/// The pipelines add builtin.module passes, so they must be anchored there
/// (or on any op): adding them under func.func or gpu.module aborted.
template <typename Options>
void registerCheckedPipeline(
    llvm::StringRef arg, llvm::StringRef description,
    mlir::LogicalResult (*builder)(mlir::OpPassManager &, const Options &,
                                   ErrorHandler)) {
  mlir::registerPassPipeline(
      arg, description,
      [arg, builder](mlir::OpPassManager &pm, llvm::StringRef text,
                     ErrorHandler emitError) {
        llvm::StringRef anchor = pm.getOpAnchorName();
        if (anchor != mlir::ModuleOp::getOperationName() &&
            anchor != mlir::OpPassManager::getAnyOpAnchorName())
          return emitError(arg + " runs on builtin.module, not nested in '" +
                           anchor + "'");
        Options options;
        if (failed(parseOptions(arg, text, options, emitError)))
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
  Option<bool> interleaveMatrixOps{
      *this, "interleave-matrix-ops",
      llvm::cl::desc("move vector work into the MFMA runs before it "
                     "(fmha-interleave-matrix-ops)"),
      llvm::cl::init(true)};
};

/// Structured control flow, vector transfers, strided-metadata and affine
/// index arithmetic inside kernels -> what the GPU-to-NVVM/ROCDL conversions
/// take (cf, vector.load/store, plain arith).
void addKernelPrelowering(mlir::OpPassManager &kernels) {
  kernels.addPass(mlir::createConvertVectorToSCFPass());
  kernels.addPass(mlir::memref::createExpandStridedMetadataPass());
  kernels.addPass(mlir::createLowerAffinePass());
  kernels.addPass(mlir::createSCFToControlFlowPass());
}

/// gpu.module kernels (gpu.shuffle, math.exp2, memref.atomic_rmw) -> gpu.binary
/// holding an HSACO, with native float atomics and v_exp_f32; workgroup
/// barriers first, where workgroup-memory accesses need them. The passes are
/// built from the checked options, not from a pipeline string, so no option
/// value (a toolkit path with spaces, say) can change the pipeline's shape.
mlir::LogicalResult buildRocdlToHsacoPipeline(mlir::OpPassManager &pm,
                                              const RocdlToHsacoOptions &opts,
                                              ErrorHandler emitError) {
  const char *name = "fmha-rocdl-to-hsaco";
  if (!rocke::lookupChip(opts.chip, rocke::GpuVendor::Amd))
    return emitError(llvm::Twine(name) + ": unsupported AMD chip '" +
                     opts.chip + "'; supported: " +
                     rocke::supportedChipList(rocke::GpuVendor::Amd));
  if (failed(checkOptLevel(name, opts.optLevel, emitError)) ||
      failed(checkFormat(name, opts.format, {"bin", "isa", "llvm", "offloading"},
                         emitError)))
    return mlir::failure();

  // Signatures and launch facts first: the next passes erase the gpu.funcs.
  rocke::RecordKernelAbiOptions record;
  record.chip = opts.chip;
  pm.addPass(rocke::createRecordKernelAbi(record));
  mlir::GpuROCDLAttachTargetOptions attach;
  attach.chip = opts.chip;
  attach.optLevel = opts.optLevel;
  pm.addPass(mlir::createGpuROCDLAttachTarget(attach));
  mlir::OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  kernels.addNestedPass<mlir::gpu::GPUFuncOp>(
      rocke::createPlaceWorkgroupBarriers());
  kernels.addPass(rocke::createRocdlExp2());
  kernels.addPass(rocke::createRocdlFloatMode());
  kernels.addPass(rocke::createContractMultiplyAdds());
  kernels.addPass(rocke::createRocdlSchedHints());
  if (!rocke::lookupChip(opts.chip, rocke::GpuVendor::Amd)->bf16Conversion)
    kernels.addPass(rocke::createRocdlTruncBf16());
  // Scalar atomics (no vector f32 atomic on these chips), made native below.
  rocke::LowerAtomicAddOptions atomics;
  atomics.chip = opts.chip;
  kernels.addPass(rocke::createLowerAtomicAdd(atomics));
  kernels.addPass(rocke::createLowerMasks());
  // Where the chip's backward takes it (ChipInfo::interleavedBackward: not
  // gfx950, whose backward spills 19 VGPRs with it, bf16 D=128 causal).
  if (opts.interleaveMatrixOps &&
      rocke::lookupChip(opts.chip, rocke::GpuVendor::Amd)->interleavedBackward)
    kernels.addPass(rocke::createInterleaveMatrixOps());
  // Loops become branches only after the barriers are placed on them (the
  // placement reads structured control flow; run before it, the AMD kernels
  // had no s_barrier), as in fmha-nvvm-to-ptx.
  addKernelPrelowering(kernels);
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

mlir::LogicalResult checkNvvmChip(llvm::StringRef pipeline,
                                  llvm::StringRef chip,
                                  ErrorHandler emitError) {
  if (rocke::lookupChip(chip, rocke::GpuVendor::Nvidia))
    return mlir::success();
  return emitError(pipeline + ": unsupported NVIDIA chip '" + chip +
                   "'; supported: " + rocke::supportedChipList(rocke::GpuVendor::Nvidia));
}

/// gpu.module kernels (gpu.shuffle, math.exp2, memref.atomic_rmw,
/// nvgpu.mma.sync, scf, vector) -> gpu.binary holding PTX: shfl.sync,
/// atom/red.global.add.f32, ex2.approx.f32, mma.sync m16n8k16 f16/bf16.
/// Kernel signatures and rocke.launch facts are recorded first, for the
/// JSON sidecar of fmha-dump-binary; then workgroup barriers, where
/// workgroup-memory accesses need them.
mlir::LogicalResult buildNvvmToPtxPipeline(mlir::OpPassManager &pm,
                                           const NvvmToPtxOptions &opts,
                                           ErrorHandler emitError) {
  const char *name = "fmha-nvvm-to-ptx";
  if (failed(checkNvvmChip(name, opts.chip, emitError)) ||
      failed(checkOptLevel(name, opts.optLevel, emitError)) ||
      failed(checkFormat(name, opts.format, {"isa", "bin", "llvm", "fatbin"},
                         emitError)))
    return mlir::failure();
  // gpu-module-to-binary reports a missing CUDA path but still succeeds.
  if (!opts.toolkit.empty() && !llvm::sys::fs::is_directory(opts.toolkit))
    return emitError(llvm::Twine(name) + ": toolkit '" + opts.toolkit +
                     "' is not a directory");

  rocke::RecordKernelAbiOptions record;
  record.chip = opts.chip;
  pm.addPass(rocke::createRecordKernelAbi(record));
  mlir::GpuNVVMAttachTargetOptions attach;
  attach.chip = opts.chip;
  attach.optLevel = opts.optLevel;
  // The vector reductions of fmha-lower-atomic-add need PTX ISA 8.1 (the
  // default is the chip's minimum, 7.8 for sm_90).
  if (rocke::lookupChip(opts.chip)->atomicAddF32Width > 1)
    attach.features = "+ptx81";
  pm.addPass(mlir::createGpuNVVMAttachTarget(attach));
  mlir::OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  kernels.addNestedPass<mlir::gpu::GPUFuncOp>(
      rocke::createPlaceWorkgroupBarriers());
  kernels.addPass(rocke::createLowerWarpgroupMma());
  kernels.addPass(rocke::createNvvmExp2());
  kernels.addPass(rocke::createContractMultiplyAdds());
  kernels.addPass(rocke::createNvgpuMmaBf16());
  rocke::LowerAtomicAddOptions atomics;
  atomics.chip = opts.chip;
  kernels.addPass(rocke::createLowerAtomicAdd(atomics));
  kernels.addPass(rocke::createLowerMasks());
  addKernelPrelowering(kernels);
  kernels.addPass(mlir::createConvertNVGPUToNVVMPass());
  kernels.addPass(mlir::createConvertGpuOpsToNVVMOps());
  // NVVM ops LLVM has no intrinsic for (the mbarrier waits' retry loop) as
  // inline PTX.
  kernels.addPass(mlir::createConvertNVVMToLLVMPass());
  // The dynamic shared memory after the static mbarriers, at the 1024-byte
  // addresses 128-byte swizzled buffers need.
  kernels.addPass(rocke::createDeclareDynamicSharedMemory());
  // Vector ops the NVVM conversions leave behind (shape_cast, from_elements)
  // and the ub.poison their lowering makes are finished after
  // convert-gpu-to-nvvm, once memory spaces are LLVM address spaces.
  kernels.addPass(mlir::createConvertVectorToLLVMPass());
  kernels.addPass(mlir::createUBToLLVMConversionPass());
  kernels.addPass(mlir::createCanonicalizerPass());
  kernels.addPass(mlir::createCSEPass());
  kernels.addPass(mlir::createReconcileUnrealizedCastsPass());
  mlir::GpuModuleToBinaryPassOptions toBinary;
  toBinary.toolkitPath = opts.toolkit;
  toBinary.compilationTarget = opts.format;
  pm.addPass(mlir::createGpuModuleToBinaryPass(toBinary));
  return mlir::success();
}

/// The values of warpgroup-layout and fwd-warpgroup-layout.
static llvm::cl::ValuesClass warpgroupLayoutValues() {
  return llvm::cl::values(
      clEnumValN(rocke::WarpgroupLayout::Auto, "auto",
                 "swizzle-128b where the head dims allow"),
      clEnumValN(rocke::WarpgroupLayout::CoreMatrices, "core-matrices",
                 "8 x 16-byte core matrices"),
      clEnumValN(rocke::WarpgroupLayout::Swizzle128B, "swizzle-128b",
                 "128-byte rows, chunks swizzled by the row"));
}

/// Options of the end-to-end backward pipelines fmha-bwd-nvvm and
/// fmha-bwd-rocdl (fmha.attention_bwd -> PTX / HSACO).
struct BwdPipelineOptions
    : public mlir::PassPipelineOptions<BwdPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("target chip (default sm_90 for NVVM, gfx942 for "
                     "ROCDL)"),
      llvm::cl::init("")};
  Option<rocke::BwdStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("tiled (FlashAttention-2) or warp (subgroup per query "
                     "row)"),
      llvm::cl::init(rocke::BwdStrategy::Tiled),
      llvm::cl::values(clEnumValN(rocke::BwdStrategy::Tiled, "tiled",
                                  "FlashAttention-2, KV-block stationary"),
                       clEnumValN(rocke::BwdStrategy::Warp, "warp",
                                  "one subgroup per query row"))};
  Option<std::string> matrixAtom{
      *this, "matrix-atom",
      llvm::cl::desc("lib/Target/FragmentLayout atom of the tiled contractions"),
      llvm::cl::init("auto")};
  Option<int64_t> blockQ{
      *this, "block-q",
      llvm::cl::desc("query rows per tile (tiled); 0 = from the chip"),
      llvm::cl::init(0)};
  Option<int64_t> blockKv{
      *this, "block-kv",
      llvm::cl::desc("key rows per tile (tiled); 0 = from the chip"),
      llvm::cl::init(0)};
  Option<int64_t> numWarps{
      *this, "num-warps",
      llvm::cl::desc("subgroups per workgroup (tiled main, preprocess); 0 = "
                     "from the chip"),
      llvm::cl::init(0)};
  Option<rocke::OperandStaging> operandStaging{
      *this, "operand-staging",
      llvm::cl::desc("how the tiled backward stages Q, dO and K for its "
                     "products"),
      llvm::cl::init(rocke::OperandStaging::Auto),
      llvm::cl::values(
          clEnumValN(rocke::OperandStaging::Auto, "auto",
                     "transposed-copies for MFMA without transposed LDS "
                     "reads, else transposing-reads"),
          clEnumValN(rocke::OperandStaging::TransposingReads,
                     "transposing-reads",
                     "one copy; column reads transpose (ldmatrix.trans, "
                     "ds_read_b64_tr_b16)"),
          clEnumValN(rocke::OperandStaging::TransposedCopies,
                     "transposed-copies",
                     "Q and dO as rows and transposed, K fragments in "
                     "registers"))};
  Option<rocke::QueryPipelining> queryPipelining{
      *this, "query-pipelining",
      llvm::cl::desc("next query block's Q / dO (tiled): registers or "
                     "async-copies; auto: see below"),
      llvm::cl::init(rocke::QueryPipelining::Auto),
      llvm::cl::values(
          clEnumValN(rocke::QueryPipelining::Auto, "auto",
                     "async-copies with warpgroup products, else "
                     "registers (measured faster so on the H200)"),
          clEnumValN(rocke::QueryPipelining::Registers, "registers",
                     "register staging"),
          clEnumValN(rocke::QueryPipelining::AsyncCopies, "async-copies",
                     "cp.async into double-buffered tiles"))};
  Option<rocke::WarpgroupMma> warpgroupMma{
      *this, "warpgroup-mma",
      llvm::cl::desc("backward S, dP, dV and dK products issued by "
                     "warpgroups (wgmma; chip=sm_90a)"),
      llvm::cl::init(rocke::WarpgroupMma::Auto),
      llvm::cl::values(
          clEnumValN(rocke::WarpgroupMma::Auto, "auto",
                     "where the chip has them and the tiles allow"),
          clEnumValN(rocke::WarpgroupMma::Off, "off", "per subgroup"),
          clEnumValN(rocke::WarpgroupMma::On, "on", "per warpgroup"))};
  Option<rocke::WarpgroupLayout> warpgroupLayout{
      *this, "warpgroup-layout",
      llvm::cl::desc("layout of the backward's warpgroup operands in "
                     "workgroup memory"),
      llvm::cl::init(rocke::WarpgroupLayout::Auto), warpgroupLayoutValues()};
  Option<rocke::MaskBlocks> maskBlocks{
      *this, "mask-blocks",
      llvm::cl::desc("how the tiled kernels mask their score blocks"),
      llvm::cl::init(rocke::MaskBlocks::Auto),
      llvm::cl::values(
          clEnumValN(rocke::MaskBlocks::Auto, "auto", "the chip's choice"),
          clEnumValN(rocke::MaskBlocks::WholeBlockLoops, "whole-block-loops",
                     "cut and whole blocks in loops of their own"),
          clEnumValN(rocke::MaskBlocks::PerBlockBranch, "per-block-branch",
                     "one loop, a branch per block"))};
  Option<rocke::DqAccumulation> dqAccumulation{
      *this, "dq-accumulation",
      llvm::cl::desc("how the tiled backward adds dQ into its accumulator"),
      llvm::cl::init(rocke::DqAccumulation::Auto),
      llvm::cl::values(
          clEnumValN(rocke::DqAccumulation::Auto, "auto",
                     "bulk-reduce where its stage fits (sm_90a), else "
                     "atomics"),
          clEnumValN(rocke::DqAccumulation::Atomics, "atomics",
                     "each lane's registers added atomically"),
          clEnumValN(rocke::DqAccumulation::BulkReduce, "bulk-reduce",
                     "staged, added by the bulk-copy unit (sm_90a)"))};
  Option<int64_t> dqStageSlots{
      *this, "dq-stage-slots",
      llvm::cl::desc("slots of the bulk reductions' dQ stage (1 or 2; 2 "
                     "with dq-accumulation=bulk-reduce)"),
      llvm::cl::init(1)};
  Option<int64_t> fwdBlockQ{
      *this, "fwd-block-q",
      llvm::cl::desc("query rows per forward workgroup; 0 = from the chip"),
      llvm::cl::init(0)};
  Option<int64_t> fwdBlockKv{
      *this, "fwd-block-kv",
      llvm::cl::desc("key rows per forward KV block; 0 = from the chip"),
      llvm::cl::init(0)};
  Option<int64_t> fwdNumWarps{
      *this, "fwd-num-warps",
      llvm::cl::desc("subgroups per forward workgroup; 0 = from the chip"),
      llvm::cl::init(0)};
  Option<int64_t> fwdKvSlices{
      *this, "fwd-kv-slices",
      llvm::cl::desc("slices of a forward KV block whose softmax overlaps the "
                     "next slice's products; 0 = 64 keys a slice with "
                     "warpgroup products at Dv >= 128, else 1"),
      llvm::cl::init(0)};
  Option<rocke::KvPipelining> fwdKvPipelining{
      *this, "fwd-kv-pipelining",
      llvm::cl::desc("forward's K / V blocks: synchronous, registers, "
                     "async-copies or producer-warpgroup; auto = async copies "
                     "on NVIDIA, registers on gfx950"),
      llvm::cl::init(rocke::KvPipelining::Auto),
      llvm::cl::values(
          clEnumValN(rocke::KvPipelining::Auto, "auto",
                     "async-copies on NVIDIA chips (producer-warpgroup for "
                     "two sm_90a warpgroups at Dv <= 128 on swizzled rows), "
                     "registers on gfx950, else synchronous"),
          clEnumValN(rocke::KvPipelining::Synchronous, "synchronous",
                     "copy each block at the top of its iteration"),
          clEnumValN(rocke::KvPipelining::Registers, "registers",
                     "load the next block into registers while this one "
                     "computes"),
          clEnumValN(rocke::KvPipelining::AsyncCopies, "async-copies",
                     "cp.async into double-buffered tiles"),
          clEnumValN(rocke::KvPipelining::ProducerWarpgroup,
                     "producer-warpgroup",
                     "a producer warpgroup's cp.async into double-buffered "
                     "tiles, handed over by mbarriers (sm_90a warpgroups)"))};
  Option<rocke::WarpgroupMma> fwdWarpgroupMma{
      *this, "fwd-warpgroup-mma",
      llvm::cl::desc("forward S and O products issued by warpgroups (wgmma; "
                     "chip=sm_90a)"),
      llvm::cl::init(rocke::WarpgroupMma::Auto),
      llvm::cl::values(
          clEnumValN(rocke::WarpgroupMma::Auto, "auto",
                     "where the chip has them and the tiles allow"),
          clEnumValN(rocke::WarpgroupMma::Off, "off", "per subgroup"),
          clEnumValN(rocke::WarpgroupMma::On, "on", "per warpgroup"))};
  Option<rocke::WarpgroupSchedule> fwdWarpgroupSchedule{
      *this, "fwd-warpgroup-schedule",
      llvm::cl::desc("how the forward's computing warpgroups share the matrix "
                     "cores with fwd-kv-pipelining=producer-warpgroup"),
      llvm::cl::init(rocke::WarpgroupSchedule::Auto),
      llvm::cl::values(
          clEnumValN(rocke::WarpgroupSchedule::Auto, "auto",
                     "ping-pong with next-block P V, else independent"),
          clEnumValN(rocke::WarpgroupSchedule::Independent, "independent",
                     "each runs its loop on its own"),
          clEnumValN(rocke::WarpgroupSchedule::PingPong, "ping-pong",
                     "they take turns issuing their score products"))};
  Option<rocke::PvSchedule> fwdPvSchedule{
      *this, "fwd-pv-schedule",
      llvm::cl::desc("when the forward's warpgroups issue a KV block's P V "
                     "product with fwd-kv-pipelining=producer-warpgroup"),
      llvm::cl::init(rocke::PvSchedule::Auto),
      llvm::cl::values(
          clEnumValN(rocke::PvSchedule::Auto, "auto",
                     "next-block with a producer warpgroup and whole blocks "
                     "(fwd-kv-slices auto), else same-block"),
          clEnumValN(rocke::PvSchedule::SameBlock, "same-block",
                     "after the block's softmax"),
          clEnumValN(rocke::PvSchedule::NextBlock, "next-block",
                     "after the next block's score product"))};
  Option<rocke::WarpgroupLayout> fwdWarpgroupLayout{
      *this, "fwd-warpgroup-layout",
      llvm::cl::desc("layout of the forward's warpgroup operands in "
                     "workgroup memory"),
      llvm::cl::init(rocke::WarpgroupLayout::Auto), warpgroupLayoutValues()};
  Option<int64_t> mfmaReadBatch{
      *this, "mfma-read-batch",
      llvm::cl::desc("k steps of a tiled MFMA product whose LDS reads "
                     "precede one wait for them (fmha-distribute-tiles); 0 = "
                     "from the chip"),
      llvm::cl::init(0)};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("LLVM opt level"),
                            llvm::cl::init(3)};
};

/// Fails unless the chip has the matrix-atom asked for (the backend failed
/// late on an instruction the chip lacks).
mlir::LogicalResult checkMatrixAtom(llvm::StringRef pipeline,
                                    const BwdPipelineOptions &opts,
                                    const rocke::ChipInfo &chip,
                                    ErrorHandler emitError) {
  if (std::optional<std::string> error =
          rocke::checkMatrixAtom(chip, opts.matrixAtom))
    return emitError(pipeline + ": " + *error);
  return mlir::success();
}

/// The target-neutral part: fmha.attention_fwd / attention_bwd -> gpu.module
/// kernels with shuffles, matrix-core ops and plain control flow.
void addBwdKernelPasses(mlir::OpPassManager &pm, const BwdPipelineOptions &opts,
                        const rocke::ChipInfo &chip) {
  unsigned subgroupSize = chip.waveSize;
  rocke::BwdToKernelsOptions kernels;
  kernels.strategy = opts.strategy;
  kernels.target = rocke::KernelPlacement::Gpu;
  // Nothing after this pass lowers other fmha ops or makes code without one.
  kernels.endToEnd = true;
  kernels.chip = chip.name.str();
  kernels.subgroupSize = subgroupSize;
  kernels.matrixAtom = opts.matrixAtom;
  kernels.blockQ = opts.blockQ;
  kernels.blockKv = opts.blockKv;
  kernels.numWarps = opts.numWarps;
  kernels.operandStaging = opts.operandStaging;
  kernels.queryPipelining = opts.queryPipelining;
  kernels.warpgroupMma = opts.warpgroupMma;
  kernels.warpgroupLayout = opts.warpgroupLayout;
  kernels.maskBlocks = opts.maskBlocks;
  kernels.dqAccumulation = opts.dqAccumulation;
  kernels.dqStageSlots = opts.dqStageSlots;
  kernels.forward = true;
  kernels.fwdBlockQ = opts.fwdBlockQ;
  kernels.fwdBlockKv = opts.fwdBlockKv;
  kernels.fwdNumWarps = opts.fwdNumWarps;
  kernels.fwdKvSlices = opts.fwdKvSlices;
  kernels.fwdKvPipelining = opts.fwdKvPipelining;
  kernels.fwdWarpgroupMma = opts.fwdWarpgroupMma;
  kernels.fwdWarpgroupLayout = opts.fwdWarpgroupLayout;
  kernels.fwdWarpgroupSchedule = opts.fwdWarpgroupSchedule;
  kernels.fwdPvSchedule = opts.fwdPvSchedule;
  pm.addPass(rocke::createBwdToKernels(kernels));
  rocke::PipelineTileFetchesOptions pipelining;
  pipelining.placeFirst = chip.placeFirstBlock;
  pm.addPass(rocke::createPipelineTileFetches(pipelining));
  pm.addPass(rocke::createLowerTileCopies());
  // Tile row reductions become gpu.subgroup_reduce, which the next pass
  // turns into shuffles.
  rocke::DistributeTilesOptions distribute;
  distribute.mfmaReadBatch =
      opts.mfmaReadBatch ? opts.mfmaReadBatch.getValue() : chip.mfmaReadBatch;
  distribute.transposedLdsReads = chip.transposedLdsReads;
  pm.addPass(rocke::createSplitWorkgroupTiles());
  pm.addPass(rocke::createDistributeTiles(distribute));
  pm.addPass(rocke::createDeferWarpgroupWaits());
  rocke::LowerSubgroupReduceOptions reduce;
  reduce.subgroupSize = subgroupSize;
  pm.addPass(rocke::createLowerSubgroupReduce(reduce));
  pm.addPass(rocke::createLowerMma());
}

/// fmha ops -> PTX: the forward and backward kernels for 32-lane warps, then
/// fmha-nvvm-to-ptx.
mlir::LogicalResult buildBwdNvvmPipeline(mlir::OpPassManager &pm,
                                         const BwdPipelineOptions &opts,
                                         ErrorHandler emitError) {
  NvvmToPtxOptions finish;
  finish.chip = opts.chip.empty() ? std::string("sm_90") : opts.chip.getValue();
  finish.optLevel = opts.optLevel;
  if (failed(checkNvvmChip("fmha-bwd-nvvm", finish.chip, emitError)))
    return mlir::failure();
  rocke::ChipInfo chip =
      *rocke::lookupChip(finish.chip, rocke::GpuVendor::Nvidia);
  if (failed(checkMatrixAtom("fmha-bwd-nvvm", opts, chip, emitError)))
    return mlir::failure();
  addBwdKernelPasses(pm, opts, chip);
  return buildNvvmToPtxPipeline(pm, finish, emitError);
}

/// fmha ops -> HSACO: the forward and backward kernels for the chip's wave
/// size, then fmha-rocdl-to-hsaco.
mlir::LogicalResult buildBwdRocdlPipeline(mlir::OpPassManager &pm,
                                          const BwdPipelineOptions &opts,
                                          ErrorHandler emitError) {
  RocdlToHsacoOptions finish;
  finish.chip =
      opts.chip.empty() ? std::string("gfx942") : opts.chip.getValue();
  finish.optLevel = opts.optLevel;
  std::optional<rocke::ChipInfo> info =
      rocke::lookupChip(finish.chip, rocke::GpuVendor::Amd);
  if (!info)
    return emitError("fmha-bwd-rocdl: unsupported AMD chip '" + finish.chip +
                     "'; supported: " + rocke::supportedChipList(rocke::GpuVendor::Amd));
  if (failed(checkMatrixAtom("fmha-bwd-rocdl", opts, *info, emitError)))
    return mlir::failure();
  addBwdKernelPasses(pm, opts, *info);
  return buildRocdlToHsacoPipeline(pm, finish, emitError);
}
} // namespace

void rocke::registerPipelines() {
  registerCheckedPipeline<BwdPipelineOptions>(
      "fmha-bwd-nvvm",
      "fmha.attention_fwd / attention_bwd -> PTX gpu.binary (forward and "
      "backward kernels, NVVM finish)",
      buildBwdNvvmPipeline);
  registerCheckedPipeline<BwdPipelineOptions>(
      "fmha-bwd-rocdl",
      "fmha.attention_fwd / attention_bwd -> HSACO gpu.binary (forward and "
      "backward kernels, ROCDL finish)",
      buildBwdRocdlPipeline);
  registerCheckedPipeline<NvvmToPtxOptions>(
      "fmha-nvvm-to-ptx",
      "gpu.module kernels -> PTX gpu.binary (NVVM; cubin with format=bin)",
      buildNvvmToPtxPipeline);
  registerCheckedPipeline<RocdlToHsacoOptions>(
      "fmha-rocdl-to-hsaco",
      "gpu.module kernels -> HSACO gpu.binary (ROCDL, no ROCm needed)",
      buildRocdlToHsacoPipeline);
}
