//===- BwdToKernels.cpp - fmha.attention_bwd -> kernels (issue 4) ---------===//
//
// Thin pass wrapper: validates the options, then hands each
// fmha.attention_bwd to the chosen strategy's builder (lib/Kernels/AttentionKernels.h)
// and erases it.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "lib/Kernels/AttentionKernels.h"
#include "lib/Target/ChipInfo.h"
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/Support/MathExtras.h"

namespace rocke {
#define GEN_PASS_DEF_BWDTOKERNELS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

/// Query rows per tile the host target uses for block-q=0 (auto).
constexpr int64_t kHostAutoBlockQ = 16;

struct BwdToKernelsPass : public rocke::RejectRepeatedOptions<
                              rocke::impl::BwdToKernelsBase<BwdToKernelsPass>> {
  using Base::Base;

  /// Options -> AttentionKernelOptions, or a diagnostic at the module's
  /// location (module.emitError would print the whole module with it).
  FailureOr<rocke::AttentionKernelOptions> parseOptions() {
    Location loc = getOperation().getLoc();
    rocke::AttentionKernelOptions opts;
    unsigned lanes = subgroupSize;
    if (!chip.empty()) {
      opts.chip = rocke::lookupChip(chip);
      if (!opts.chip)
        return emitError(loc, "fmha-bwd-to-kernels: unknown chip '")
               << chip << "'; supported: "
               << rocke::supportedChipList(rocke::GpuVendor::Amd) << ", "
               << rocke::supportedChipList(rocke::GpuVendor::Nvidia);
      if (lanes != 0 && lanes != opts.chip->waveSize)
        return emitError(loc, "fmha-bwd-to-kernels: subgroup-size ")
               << lanes << " does not match " << chip << "'s "
               << opts.chip->waveSize << "-lane subgroups";
      lanes = opts.chip->waveSize;
    } else if (lanes == 0) {
      lanes = 64;
    }
    if (target == rocke::KernelPlacement::Host) {
      opts.target = rocke::KernelTarget::cpu();
      opts.chip.reset();
    } else {
      if (!llvm::isPowerOf2_32(lanes))
        return emitError(loc, "fmha-bwd-to-kernels: subgroup-size must be a "
                              "power of two, got ")
               << lanes;
      opts.target = rocke::KernelTarget::gpu(lanes);
      if (opts.chip)
        opts.target.launch = opts.chip->launch;
    }
    if (opts.chip)
      if (std::optional<std::string> error =
              rocke::checkMatrixAtom(*opts.chip, matrixAtom))
        return emitError(loc, "fmha-bwd-to-kernels: ") << *error;
    // 0: the tiled strategy picks the tiles from the chip and head dims.
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"block-q", blockQ},
                               {"block-kv", blockKv},
                               {"num-warps", numWarps},
                               {"fwd-block-q", fwdBlockQ},
                               {"fwd-block-kv", fwdBlockKv},
                               {"fwd-num-warps", fwdNumWarps},
                               {"fwd-kv-slices", fwdKvSlices}})
      if (value < 0)
        return emitError(loc, "fmha-bwd-to-kernels: ")
               << name << " must be positive or 0 (auto), got " << value;
    if (indexBitwidth != 32 && indexBitwidth != 64)
      return emitError(loc, "fmha-bwd-to-kernels: index-bitwidth must be 32 "
                            "or 64, got ")
             << static_cast<unsigned>(indexBitwidth);
    // Both strategies launch num-warps subgroups per workgroup (the warp
    // strategy's preprocess too).
    int64_t maxWorkgroupSize = opts.target.launch.maxWorkgroupSize;
    for (auto [name, value] :
         {std::pair<StringRef, int64_t>{"num-warps", numWarps},
          {"fwd-num-warps", fwdNumWarps}})
      if (!opts.target.host &&
          value > maxWorkgroupSize / static_cast<int64_t>(lanes))
        return emitError(loc, "fmha-bwd-to-kernels: ")
               << name << " (" << value << ") times the " << lanes
               << "-lane subgroup exceeds the " << maxWorkgroupSize
               << "-work-item workgroup limit";
    // The warp strategy has no tiles, atoms' layouts or pipelining: the
    // tiled strategy's backward options would be dropped without a word.
    if (strategy == rocke::BwdStrategy::Warp)
      for (auto [name, given] :
           {std::pair<StringRef, bool>{"block-q", blockQ != 0},
            {"block-kv", blockKv != 0},
            {"score-layout", scoreLayout != rocke::ScoreLayout::Auto},
            {"operand-staging", operandStaging != rocke::OperandStaging::Auto},
            {"query-pipelining",
             queryPipelining != rocke::QueryPipelining::Auto},
            {"warpgroup-mma", warpgroupMma != rocke::WarpgroupMma::Auto},
            {"warpgroup-layout",
             warpgroupLayout != rocke::WarpgroupLayout::Auto},
            {"dq-accumulation",
             dqAccumulation != rocke::DqAccumulation::Auto},
            {"dq-stage-slots", dqStageSlots != 1}})
        if (given)
          return emitError(loc, "fmha-bwd-to-kernels: ")
                 << name
                 << " is an option of strategy=tiled; strategy=warp has no "
                    "use for it";
    // The forward's options shape nothing unless the pass lowers forwards.
    if (!forward)
      for (auto [name, given] :
           {std::pair<StringRef, bool>{"fwd-block-q", fwdBlockQ != 0},
            {"fwd-block-kv", fwdBlockKv != 0},
            {"fwd-num-warps", fwdNumWarps != 0},
            {"fwd-kv-slices", fwdKvSlices != 0},
            {"fwd-kv-pipelining", fwdKvPipelining != rocke::KvPipelining::Auto},
            {"fwd-warpgroup-schedule",
             fwdWarpgroupSchedule != rocke::WarpgroupSchedule::Auto},
            {"fwd-pv-schedule", fwdPvSchedule != rocke::PvSchedule::Auto},
            {"fwd-warpgroup-mma", fwdWarpgroupMma != rocke::WarpgroupMma::Auto},
            {"fwd-warpgroup-layout",
             fwdWarpgroupLayout != rocke::WarpgroupLayout::Auto},
            {"fwd-score-layout", fwdScoreLayout != rocke::ScoreLayout::Auto},
            {"fwd-operand-staging",
             fwdOperandStaging != rocke::OperandStaging::Auto}})
        if (given)
          return emitError(loc, "fmha-bwd-to-kernels: ")
                 << name << " is an option of the forward; without "
                 << "forward=true the pass lowers none";
    opts.scoreLayout = scoreLayout;
    opts.operandStaging = operandStaging;
    opts.queryPipelining = queryPipelining;
    opts.warpgroupMma = warpgroupMma;
    opts.warpgroupLayout = warpgroupLayout;
    opts.maskBlocks = maskBlocks;
    if (dqStageSlots < 1 || dqStageSlots > 2)
      return emitError(loc, "fmha-bwd-to-kernels: dq-stage-slots must be 1 "
                            "or 2, got ")
             << static_cast<int64_t>(dqStageSlots);
    if (dqStageSlots != 1 &&
        dqAccumulation != rocke::DqAccumulation::BulkReduce)
      return emitError(loc, "fmha-bwd-to-kernels: dq-stage-slots=2 shapes "
                            "the stage of dq-accumulation=bulk-reduce; ask "
                            "for that too");
    opts.dqAccumulation = dqAccumulation;
    opts.dqStageSlots = dqStageSlots;
    opts.target.indexBitwidth = indexBitwidth;
    opts.matrixAtom = matrixAtom;
    opts.blockQ = blockQ;
    // The host has no workgroup memory to fill, so the tiled strategy's
    // automatic choice (the largest tile that fits) would take 64-row tiles
    // whose unrolled-free but large bodies JIT for minutes; 16 rows, the host
    // atom's height, keep the CPU oracle at seconds.
    if (opts.target.host && blockQ == 0)
      opts.blockQ = kHostAutoBlockQ;
    opts.blockKv = blockKv;
    // The warp strategy's preprocess runs num-warps rows per workgroup.
    opts.numWarps =
        numWarps == 0 && strategy == rocke::BwdStrategy::Warp ? 4 : numWarps;
    return opts;
  }

  /// Kernels (functions carrying rocke.launch) in the module, in order:
  /// the host's private functions and the gpu.module's gpu.funcs.
  SmallVector<FunctionOpInterface> allKernels() {
    SmallVector<FunctionOpInterface> found;
    auto collect = [&](Block &body) {
      for (auto fn : body.getOps<FunctionOpInterface>())
        if (fn->hasAttr(rocke::kLaunchAttrName))
          found.push_back(fn);
    };
    ModuleOp module = getOperation();
    collect(*module.getBody());
    if (auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fmha_kernels"))
      collect(*gpuModule.getBody());
    return found;
  }
  size_t countKernels() { return allKernels().size(); }
  /// Kernels appended since there were `before` (builders append at the
  /// end of the module or of the gpu.module).
  SmallVector<FunctionOpInterface> newKernels(size_t before) {
    SmallVector<FunctionOpInterface> all = allKernels();
    return SmallVector<FunctionOpInterface>(llvm::drop_begin(all, before));
  }

  /// Records that fmha op `index` launches `kernel` (rocke.launch.ops), and
  /// folds it into an identical earlier kernel when there is one: the same
  /// body, type and attributes but the name and op list. Identical fmha ops
  /// then share their kernels, which every later pass compiles once (100
  /// identical ops compiled 100 copies). Returns the kernel kept, or null
  /// when `kernel` is new.
  FunctionOpInterface adoptKernel(FunctionOpInterface kernel, int64_t index,
                                  ArrayRef<FunctionOpInterface> earlier,
                                  Operation *caller) {
    MLIRContext *ctx = &getContext();
    auto launch = kernel->getAttrOfType<DictionaryAttr>(rocke::kLaunchAttrName);
    auto withOps = [&](DictionaryAttr dict, ArrayRef<int64_t> opList) {
      NamedAttrList entries(dict);
      entries.set("ops", Builder(ctx).getI64ArrayAttr(opList));
      return entries.getDictionary(ctx);
    };
    kernel->setAttr(rocke::kLaunchAttrName, withOps(launch, {index}));
    StringAttr name = kernel.getNameAttr();
    for (FunctionOpInterface other : earlier) {
      if (other.getFunctionType() != kernel.getFunctionType() ||
          other->getParentOp() != kernel->getParentOp())
        continue;
      auto otherLaunch =
          other->getAttrOfType<DictionaryAttr>(rocke::kLaunchAttrName);
      // Same launch facts (order, grid, roles, ...) but the op list, then
      // the same function with the name and op list made equal.
      if (withOps(otherLaunch, {}) != withOps(launch, {}))
        continue;
      kernel.setName(other.getNameAttr());
      kernel->setAttr(rocke::kLaunchAttrName, otherLaunch);
      bool same = OperationEquivalence::isEquivalentTo(
          kernel, other, OperationEquivalence::Flags::IgnoreLocations);
      kernel.setName(name);
      kernel->setAttr(rocke::kLaunchAttrName, withOps(launch, {index}));
      if (!same)
        continue;
      SmallVector<int64_t> opList;
      for (APInt v : cast<ArrayAttr>(otherLaunch.get("ops"))
                         .getAsValueRange<IntegerAttr>())
        opList.push_back(v.getSExtValue());
      opList.push_back(index);
      other->setAttr(rocke::kLaunchAttrName, withOps(otherLaunch, opList));
      retarget(caller, name, other.getNameAttr());
      kernel->erase();
      return other;
    }
    return {};
  }

  /// Points the launches of kernel `from` in `caller` at kernel `to`.
  void retarget(Operation *caller, StringAttr from, StringAttr to) {
    caller->walk([&](Operation *launch) {
      if (auto gpuLaunch = dyn_cast<gpu::LaunchFuncOp>(launch)) {
        if (gpuLaunch.getKernelName() == from)
          gpuLaunch.setKernelAttr(SymbolRefAttr::get(
              gpuLaunch.getKernelModuleName(), {FlatSymbolRefAttr::get(to)}));
      } else if (auto call = dyn_cast<func::CallOp>(launch)) {
        if (call.getCalleeAttr().getAttr() == from)
          call.setCallee(to);
      }
    });
  }

  /// An end-to-end pipeline lowers nothing but this pass's kernels: a
  /// module without an fmha op, or with a forward left for the host, would
  /// come out without the code asked for.
  LogicalResult checkEndToEnd(ArrayRef<Operation *> ops) {
    if (ops.empty())
      return emitError(
          getOperation().getLoc(),
          "fmha-bwd-to-kernels: the module has no fmha.attention_fwd or "
          "fmha.attention_bwd to lower");
    for (Operation *op : ops)
      if (isa<rocke::fmha::AttentionFwdOp>(op) && !forward)
        return op->emitOpError("is left for the host without `forward`; "
                               "lower it with forward=true or on the host "
                               "with fmha-lower-to-loops");
    return success();
  }

  /// The options of the forward: its own tile options and warpgroup
  /// products.
  rocke::AttentionKernelOptions
  forwardOptions(const rocke::AttentionKernelOptions &opts) {
    rocke::AttentionKernelOptions fwd = opts;
    fwd.blockQ = fwdBlockQ;
    fwd.blockKv = fwdBlockKv;
    fwd.numWarps = fwdNumWarps;
    fwd.kvSlices = fwdKvSlices;
    fwd.scoreLayout = fwdScoreLayout;
    fwd.operandStaging = fwdOperandStaging;
    fwd.kvPipelining = fwdKvPipelining;
    fwd.warpgroupSchedule = fwdWarpgroupSchedule;
    fwd.pvSchedule = fwdPvSchedule;
    fwd.warpgroupMma = fwdWarpgroupMma;
    fwd.warpgroupLayout = fwdWarpgroupLayout;
    return fwd;
  }

  void runOnOperation() override {
    FailureOr<rocke::AttentionKernelOptions> opts = parseOptions();
    if (failed(opts))
      return signalPassFailure();
    // Forward and backward ops in module order: their index is the launch
    // order runners follow.
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<rocke::fmha::AttentionFwdOp, rocke::fmha::AttentionBwdOp>(op))
        ops.push_back(op);
    });
    if (endToEnd && failed(checkEndToEnd(ops)))
      return signalPassFailure();
    rocke::AttentionKernelOptions fwdOpts = forwardOptions(*opts);
    // The forward's builder checks its tile options on each forward; a
    // module without one gets the same check, so no value passes unread.
    if (forward &&
        llvm::none_of(ops, llvm::IsaPred<rocke::fmha::AttentionFwdOp>) &&
        failed(rocke::checkFwdTileOptions(getOperation(), fwdOpts)))
      return signalPassFailure();
    SmallVector<FunctionOpInterface> kernels;
    for (auto [index, op] : llvm::enumerate(ops)) {
      auto fwdOp = dyn_cast<rocke::fmha::AttentionFwdOp>(op);
      if (fwdOp && !forward)
        continue;
      // Every builder indexes with the target's index type.
      if (failed(rocke::checkIndexRange(op, opts->target)))
        return signalPassFailure();
      Operation *caller = op->getParentOfType<FunctionOpInterface>();
      if (!caller)
        caller = getOperation();
      size_t before = countKernels();
      auto bwdOp = dyn_cast<rocke::fmha::AttentionBwdOp>(op);
      if (bwdOp && bwdOp.isVarlen() && strategy == rocke::BwdStrategy::Warp) {
        op->emitOpError("has a varlen (packed) batch, which strategy=warp "
                        "does not lower; strategy=tiled does");
        return signalPassFailure();
      }
      if (bwdOp && !bwdOp.getScoreMod().empty() &&
          strategy == rocke::BwdStrategy::Warp) {
        op->emitOpError("has a score_mod, which strategy=warp does not "
                        "lower; strategy=tiled does");
        return signalPassFailure();
      }
      if (bwdOp && bwdOp.getBias() && strategy == rocke::BwdStrategy::Warp) {
        op->emitOpError("has an additive bias, which strategy=warp does not "
                        "lower; strategy=tiled does");
        return signalPassFailure();
      }
      if (bwdOp && bwdOp.getDropoutSeedOffset() &&
          strategy == rocke::BwdStrategy::Warp) {
        op->emitOpError("has dropout, which strategy=warp does not lower; "
                        "strategy=tiled does");
        return signalPassFailure();
      }
      if (bwdOp && bwdOp.getGradSinks() &&
          strategy == rocke::BwdStrategy::Warp) {
        op->emitOpError("has grad_sinks, which strategy=warp does not "
                        "compute; strategy=tiled does");
        return signalPassFailure();
      }
      LogicalResult built = fwdOp ? rocke::buildTiledFwdKernels(fwdOp, fwdOpts)
                            : strategy == rocke::BwdStrategy::Warp
                                ? rocke::buildWarpBwdKernels(bwdOp, *opts)
                                : rocke::buildTiledBwdKernels(bwdOp, *opts);
      if (failed(built))
        return signalPassFailure();
      op->erase();
      for (FunctionOpInterface kernel : newKernels(before))
        if (!adoptKernel(kernel, index, kernels, caller))
          kernels.push_back(kernel);
    }
  }
};

} // namespace
