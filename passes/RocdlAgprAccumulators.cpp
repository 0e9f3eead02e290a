//===- RocdlAgprAccumulators.cpp - MFMA accumulators in AGPRs -------------===//
//
// LLVM's AMDGPU attributor marks a kernel "amdgpu-agpr-alloc"="0" (needs no
// accumulation registers) unless inline assembly uses them, and instruction
// selection then gives every MFMA its results in arch VGPRs. A kernel whose
// accumulators and operands pass the 256 arch VGPRs (the tiled backward's
// main kernel at D=128) then spills into the AGPRs and copies back every
// iteration. A kernel the builders mark (fmha::kAgprAccumulatorsAttrName)
// asks for at least one accumulator's worth of AGPRs and keeps its
// accumulators there.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLAGPRACCUMULATORS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
struct RocdlAgprAccumulatorsPass
    : public rocke::impl::RocdlAgprAccumulatorsBase<
          RocdlAgprAccumulatorsPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel() ||
          !kernel->hasAttr(rocke::fmha::kAgprAccumulatorsAttrName))
        return;
      // 32-bit registers of the widest MFMA accumulator.
      int64_t widest = 0;
      kernel.walk([&](amdgpu::MFMAOp mfma) {
        Type type = mfma.getDestD().getType();
        auto vector = dyn_cast<VectorType>(type);
        int64_t bits = vector ? vector.getNumElements() *
                                    vector.getElementTypeBitWidth()
                              : type.getIntOrFloatBitWidth();
        widest = std::max<int64_t>(widest, llvm::divideCeil(bits, 32));
      });
      if (!widest)
        return;
      SmallVector<Attribute> passthrough;
      if (auto existing = kernel->getAttrOfType<ArrayAttr>("passthrough"))
        llvm::append_range(passthrough, existing);
      passthrough.push_back(
          b.getArrayAttr({b.getStringAttr("amdgpu-agpr-alloc"),
                          b.getStringAttr(std::to_string(widest))}));
      kernel->setAttr("passthrough", b.getArrayAttr(passthrough));
    });
  }
};
} // namespace
