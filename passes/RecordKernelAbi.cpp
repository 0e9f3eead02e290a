//===- RecordKernelAbi.cpp - kernel signatures for the JSON sidecar -------===//
//
// gpu-module-to-binary erases the gpu.module, and convert-gpu-to-rocdl turns
// memref arguments into LLVM descriptor fields before that, so whoever
// launches the HSACO needs the kernel signatures written down first. This
// pass records, per gpu.func kernel, its argument types, how each expands
// under the default LLVM calling convention (the same LLVMTypeConverter the
// GPU lowering uses) and its `rocke.launch` dictionary, in the module
// attribute `rocke.kernels`; fmha-dump-binary writes them to the JSON.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"
#include "lib/Target/ChipInfo.h"
#include "passes/LaunchRecipe.h"
#include "passes/OptionChecks.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace rocke {
#define GEN_PASS_DEF_RECORDKERNELABI
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
/// AMDGPU address spaces of the gpu dialect's memory spaces (global,
/// workgroup = LDS, private = scratch), as convert-gpu-to-rocdl maps them.
unsigned amdgpuAddressSpace(gpu::AddressSpace space) {
  switch (space) {
  case gpu::AddressSpace::Global:
    return 1;
  case gpu::AddressSpace::Workgroup:
    return 3;
  case gpu::AddressSpace::Private:
    return 5;
  }
  llvm_unreachable("unknown gpu address space");
}

/// Names of the LLVM arguments one source argument expands to.
SmallVector<std::string> fieldNames(Type type, size_t count) {
  SmallVector<std::string> names;
  if (auto memref = dyn_cast<MemRefType>(type);
      memref && count == 3 + 2 * static_cast<size_t>(memref.getRank())) {
    names = {"allocated", "aligned", "offset"};
    for (int64_t d = 0; d < memref.getRank(); ++d)
      names.push_back("size" + std::to_string(d));
    for (int64_t d = 0; d < memref.getRank(); ++d)
      names.push_back("stride" + std::to_string(d));
  } else if (isa<UnrankedMemRefType>(type) && count == 2) {
    names = {"rank", "descriptor"};
  } else if (count == 1) {
    names = {"value"};
  } else {
    for (size_t i = 0; i < count; ++i)
      names.push_back("part" + std::to_string(i));
  }
  return names;
}

struct RecordKernelAbiPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::RecordKernelAbiBase<RecordKernelAbiPass>> {
  using Base::Base;

  /// {name, args = [{type, abi = [{field, type}...]}...], launch?} for one
  /// kernel, or failure with a diagnostic.
  FailureOr<DictionaryAttr> recordKernel(gpu::GPUFuncOp func,
                                         const LLVMTypeConverter &converter,
                                         const rocke::LaunchLimits &limits) {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    LLVMTypeConverter::SignatureConversion conversion(func.getNumArguments());
    if (!converter.convertFunctionSignature(func.getFunctionType(),
                                            /*isVariadic=*/false,
                                            /*useBarePtrCallConv=*/false,
                                            conversion))
      return func.emitError() << "kernel signature has no LLVM lowering";
    ArrayRef<Type> converted = conversion.getConvertedTypes();

    SmallVector<Attribute> args;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      std::optional<LLVMTypeConverter::SignatureConversion::InputMapping> map =
          conversion.getInputMapping(i);
      SmallVector<Attribute> fields;
      if (map) {
        SmallVector<std::string> names = fieldNames(type, map->size);
        for (size_t f = 0; f < map->size; ++f)
          fields.push_back(b.getDictionaryAttr(
              {b.getNamedAttr("field", b.getStringAttr(names[f])),
               b.getNamedAttr("type",
                              TypeAttr::get(converted[map->inputNo + f]))}));
      }
      args.push_back(
          b.getDictionaryAttr({b.getNamedAttr("type", TypeAttr::get(type)),
                               b.getNamedAttr("abi", b.getArrayAttr(fields))}));
    }

    SmallVector<NamedAttribute> entry = {
        b.getNamedAttr("name", func.getNameAttr()),
        b.getNamedAttr("args", b.getArrayAttr(args))};
    if (Attribute launch = func->getDiscardableAttr(rocke::kLaunchAttrName)) {
      auto dict = dyn_cast<DictionaryAttr>(launch);
      if (!dict)
        return func.emitError() << rocke::kLaunchAttrName
                                << " must be a dictionary, got " << launch;
      FailureOr<DictionaryAttr> checked = rocke::checkLaunchRecipe(
          dict, func.getName(), limits, func.getNumArguments(),
          [&] { return func.emitError(); });
      if (failed(checked))
        return failure();
      entry.push_back(b.getNamedAttr("launch", *checked));
    }
    return b.getDictionaryAttr(entry);
  }

  /// The finishes lower the masks, atomics (bulk ones too) and warpgroup
  /// products of a kernel, nothing else of the fmha dialect: a tile op left
  /// over (a pipeline that stopped after fmha-bwd-to-kernels) failed deep
  /// inside the LLVM translation.
  LogicalResult checkKernelsLowered(gpu::GPUModuleOp gpuModule) {
    WalkResult leftover =
        gpuModule.walk<WalkOrder::PreOrder>([](Operation *op) {
          using namespace rocke::fmha;
          if (!isa<FmhaDialect>(op->getDialect()) ||
              isa<MaskFragmentOp, AtomicAddOp, BulkAddOp, BulkCommitOp, BulkWaitOp,
                  WarpgroupMmaOp, WarpgroupWaitOp>(op))
            return WalkResult::advance();
          op->emitOpError("is left in a kernel; it needs '")
              << rocke::passesToLower(op)
              << "' before the finish (fmha-bwd-rocdl / fmha-bwd-nvvm run "
                 "every pass after fmha-bwd-to-kernels)";
          return WalkResult::interrupt();
        });
    return failure(leftover.wasInterrupted());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    rocke::LaunchLimits limits;
    if (!chip.empty()) {
      std::optional<rocke::ChipInfo> info = rocke::lookupChip(chip);
      if (!info) {
        module.emitError("fmha-record-kernel-abi: unknown chip '")
            << chip << "'; supported: "
            << rocke::supportedChipList(rocke::GpuVendor::Amd) << ", "
            << rocke::supportedChipList(rocke::GpuVendor::Nvidia);
        return signalPassFailure();
      }
      limits = info->launch;
    }
    // The finishes compile gpu.modules only: an attention op never had its
    // kernels built (with or without other ops' kernels beside it), and
    // would pass through the finish unlowered.
    WalkResult unlowered = module.walk([](Operation *op) {
      if (!isa<rocke::fmha::AttentionFwdOp, rocke::fmha::AttentionBwdOp>(op))
        return WalkResult::advance();
      op->emitOpError("has no kernels to compile: lower it with "
                      "fmha-bwd-to-kernels first, or use the fmha-bwd-rocdl "
                      "/ fmha-bwd-nvvm pipelines, which do both");
      return WalkResult::interrupt();
    });
    if (unlowered.wasInterrupted())
      return signalPassFailure();
    SmallVector<NamedAttribute> perModule;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      if (failed(checkKernelsLowered(gpuModule)))
        return signalPassFailure();
      // Index width from the gpu.module's data layout, as the lowering does.
      LowerToLLVMOptions options(ctx, DataLayout(gpuModule));
      LLVMTypeConverter converter(ctx, options);
      populateGpuMemorySpaceAttributeConversions(converter, amdgpuAddressSpace);
      SmallVector<Attribute> kernels;
      for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel())
          continue;
        FailureOr<DictionaryAttr> kernel =
            recordKernel(func, converter, limits);
        if (failed(kernel))
          return signalPassFailure();
        kernels.push_back(*kernel);
      }
      perModule.push_back(NamedAttribute(gpuModule.getSymNameAttr(),
                                         ArrayAttr::get(ctx, kernels)));
    }
    module->setAttr(rocke::kKernelsAttrName,
                    DictionaryAttr::get(ctx, perModule));
  }
};
} // namespace
