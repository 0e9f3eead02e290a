//===- AlignDynamicSharedMemory.cpp - align the dynamic shared memory -----===//
//
// convert-gpu-to-nvvm declares the dynamic shared memory as a zero-length
// global of address space 3 aligned to 16 bytes. Buffers of 128-byte
// swizzled atoms need 1024-byte addresses: wgmma and the copies swizzle by
// address bits 7-9, so an atom that starts elsewhere reads its chunks from
// the wrong places, a silently wrong product. The kernels align the buffers'
// offsets; this pass aligns their base.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace rocke {
#define GEN_PASS_DEF_ALIGNDYNAMICSHAREDMEMORY
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
/// NVVM's shared address space.
constexpr unsigned kSharedAddressSpace = 3;

struct AlignDynamicSharedMemoryPass
    : rocke::impl::AlignDynamicSharedMemoryBase<AlignDynamicSharedMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    int64_t bytes = alignment;
    if (bytes <= 0 || !llvm::isPowerOf2_64(bytes)) {
      getOperation().emitError("fmha-align-dynamic-shared-memory: alignment ")
          << bytes << " is not a positive power of two";
      return signalPassFailure();
    }
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != kSharedAddressSpace || !array ||
          array.getNumElements() != 0)
        continue;
      uint64_t current = global.getAlignment().value_or(1);
      global.setAlignment(std::max<uint64_t>(current, bytes));
    }
  }
};
} // namespace
