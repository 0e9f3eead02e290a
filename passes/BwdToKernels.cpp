//===- BwdToKernels.cpp - fmha.attention_bwd -> kernels (issue 4) ---------===//
//
// Thin pass wrapper: validates the options, then hands each
// fmha.attention_bwd to the chosen strategy's builder (lib/BwdKernels.h)
// and erases it.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "lib/BwdKernels.h"
#include "lib/ChipInfo.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/MathExtras.h"

namespace rocke {
#define GEN_PASS_DEF_BWDTOKERNELS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

struct BwdToKernelsPass
    : public rocke::impl::BwdToKernelsBase<BwdToKernelsPass> {
  using Base::Base;

  /// Options -> BwdKernelOptions, or a diagnostic on the module.
  FailureOr<rocke::BwdKernelOptions> parseOptions() {
    ModuleOp module = getOperation();
    rocke::BwdKernelOptions opts;
    unsigned lanes = subgroupSize;
    if (!chip.empty()) {
      opts.chip = rocke::lookupChip(chip);
      if (!opts.chip)
        return module.emitError("fmha-bwd-to-kernels: unknown chip '")
               << chip << "'; supported: "
               << rocke::supportedChipList(rocke::GpuVendor::Amd) << ", "
               << rocke::supportedChipList(rocke::GpuVendor::Nvidia);
      if (lanes != 0 && lanes != opts.chip->waveSize)
        return module.emitError("fmha-bwd-to-kernels: subgroup-size ")
               << lanes << " does not match " << chip << "'s "
               << opts.chip->waveSize << "-lane subgroups";
      lanes = opts.chip->waveSize;
    } else if (lanes == 0) {
      lanes = 64;
    }
    if (target == "host") {
      opts.target = rocke::KernelTarget::cpu();
      opts.chip.reset();
    } else if (target == "gpu") {
      if (!llvm::isPowerOf2_32(lanes))
        return module.emitError("fmha-bwd-to-kernels: subgroup-size must be a "
                                "power of two, got ")
               << lanes;
      opts.target = rocke::KernelTarget::gpu(lanes);
    } else {
      return module.emitError("fmha-bwd-to-kernels: unknown target '")
             << target << "' (expected gpu or host)";
    }
    if (strategy != "warp" && strategy != "tiled")
      return module.emitError("fmha-bwd-to-kernels: unknown strategy '")
             << strategy << "' (expected tiled or warp)";
    // 0: the tiled strategy picks the tiles from the chip and head dims.
    for (auto [name, value] :
         {std::pair<StringRef, int64_t>{"block-q", blockQ},
          {"block-kv", blockKv},
          {"num-warps", numWarps}})
      if (value < 0)
        return module.emitError("fmha-bwd-to-kernels: ")
               << name << " must be positive or 0 (auto), got " << value;
    if (indexBitwidth != 32 && indexBitwidth != 64)
      return module.emitError("fmha-bwd-to-kernels: index-bitwidth must be 32 "
                              "or 64, got ")
             << static_cast<unsigned>(indexBitwidth);
    // Both strategies launch num-warps subgroups per workgroup (the warp
    // strategy's preprocess too); no target runs more than 1024 work-items.
    constexpr int64_t kMaxWorkgroupSize = 1024;
    if (!opts.target.host &&
        numWarps > kMaxWorkgroupSize / static_cast<int64_t>(lanes))
      return module.emitError("fmha-bwd-to-kernels: num-warps (")
             << static_cast<int64_t>(numWarps) << ") times the " << lanes
             << "-lane subgroup exceeds the " << kMaxWorkgroupSize
             << "-work-item workgroup limit";
    using ScoreLayout = rocke::BwdKernelOptions::ScoreLayout;
    if (scoreLayout == "auto")
      opts.scoreLayout = ScoreLayout::Auto;
    else if (scoreLayout == "kv-q")
      opts.scoreLayout = ScoreLayout::KvByQ;
    else if (scoreLayout == "q-kv")
      opts.scoreLayout = ScoreLayout::QByKv;
    else
      return module.emitError("fmha-bwd-to-kernels: unknown score-layout '")
             << scoreLayout << "' (expected auto, kv-q or q-kv)";
    opts.target.indexBitwidth = indexBitwidth;
    opts.matrixAtom = matrixAtom;
    opts.blockQ = blockQ;
    opts.blockKv = blockKv;
    // The warp strategy's preprocess runs num-warps rows per workgroup.
    opts.numWarps = numWarps == 0 && strategy == "warp" ? 4 : numWarps;
    return opts;
  }

  void runOnOperation() override {
    FailureOr<rocke::BwdKernelOptions> opts = parseOptions();
    if (failed(opts))
      return signalPassFailure();
    SmallVector<rocke::fmha::AttentionBwdOp> ops;
    getOperation().walk(
        [&](rocke::fmha::AttentionBwdOp op) { ops.push_back(op); });
    for (rocke::fmha::AttentionBwdOp op : ops) {
      LogicalResult built = strategy == "warp"
                                ? rocke::buildWarpBwdKernels(op, *opts)
                                : rocke::buildTiledBwdKernels(op, *opts);
      if (failed(built))
        return signalPassFailure();
      op.erase();
    }
  }
};

} // namespace
