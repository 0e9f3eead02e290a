//===- DeclareDynamicSharedMemory.cpp - the launch's dynamic shared memory ===//
//
// convert-gpu-to-nvvm lowers gpu.dynamic_shared_memory to a zero-length
// global of address space 3, internal and 16-byte aligned. NVPTX prints an
// internal zero-length global as a one-byte *static* variable, and ptxas
// lays the kernel's other static shared variables (nvgpu's mbarriers) out
// behind it: the buffers carved out of the symbol then overlap them, and the
// copies into the first tile overwrite the barriers (a silently wrong or
// hanging kernel). Declared external, the symbol is PTX's `.extern .shared`
// array, which ptxas places after every static variable, at its alignment.
//
// Buffers of 128-byte swizzled atoms need 1024-byte addresses: wgmma and the
// copies swizzle by address bits 7-9, so an atom that starts elsewhere reads
// its chunks from the wrong places. The kernels align the buffers' offsets;
// this pass aligns their base.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace rocke {
#define GEN_PASS_DEF_DECLAREDYNAMICSHAREDMEMORY
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

struct DeclareDynamicSharedMemoryPass
    : rocke::impl::DeclareDynamicSharedMemoryBase<
          DeclareDynamicSharedMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    int64_t bytes = alignment;
    if (bytes <= 0 || !llvm::isPowerOf2_64(bytes)) {
      getOperation().emitError("fmha-declare-dynamic-shared-memory: alignment ")
          << bytes << " is not a positive power of two";
      return signalPassFailure();
    }
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          !array || array.getNumElements() != 0)
        continue;
      if (global.getValueOrNull() || global.getInitializerBlock()) {
        global.emitError("fmha-declare-dynamic-shared-memory: the zero-length "
                         "shared-memory global has an initializer; the "
                         "launch's dynamic shared memory cannot");
        return signalPassFailure();
      }
      global.setLinkage(LLVM::Linkage::External);
      uint64_t current = global.getAlignment().value_or(1);
      global.setAlignment(std::max<uint64_t>(current, bytes));
    }
  }
};
} // namespace
