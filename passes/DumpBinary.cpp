//===- DumpBinary.cpp - write gpu.binary objects (HSACO) to files ----------===//
//
// After gpu-module-to-binary, the HSACO lives as a string inside
// #gpu.object. This pass writes it to disk together with a JSON sidecar that
// lists each kernel, its argument types and the metadata the ROCDL target
// read back from the ELF notes (sgpr/vgpr counts, private segment size, ...).
//
//===----------------------------------------------------------------------===//
#include "lib/PtxEntries.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace rocke {
#define GEN_PASS_DEF_DUMPBINARY
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

static std::string typeToString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

static std::string attrToString(Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a))
    return std::to_string(i.getInt());
  if (auto s = dyn_cast<StringAttr>(a))
    return s.getValue().str();
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

static LogicalResult writeFile(Operation *op, StringRef path,
                               StringRef contents) {
  std::string err;
  auto file = openOutputFile(path, &err);
  if (!file)
    return op->emitError() << "cannot open '" << path << "': " << err;
  file->os() << contents;
  file->keep();
  return success();
}

namespace {
struct DumpBinaryPass : public rocke::impl::DumpBinaryBase<DumpBinaryPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<gpu::BinaryOp> binaries(
        getOperation().getOps<gpu::BinaryOp>());
    if (binaries.empty()) {
      getOperation()->emitError()
          << "fmha-dump-binary: no gpu.binary (run gpu-module-to-binary "
             "first)";
      return signalPassFailure();
    }
    for (gpu::BinaryOp bin : binaries) {
      auto objects = bin.getObjects().getAsRange<gpu::ObjectAttr>();
      if (objects.empty()) {
        bin.emitError() << "gpu.binary has no object";
        return signalPassFailure();
      }
      gpu::ObjectAttr obj = *objects.begin();
      std::string path = output;
      if (binaries.size() > 1)
        path += "." + bin.getSymName().str();
      if (failed(writeFile(bin, path, obj.getObject().getValue())))
        return signalPassFailure();

      llvm::json::Array kernels;
      if (gpu::KernelTableAttr table = obj.getKernels()) {
        for (gpu::KernelMetadataAttr k : table) {
          llvm::json::Array args;
          Type fnTy = k.getFunctionType();
          ArrayRef<Type> params;
          if (auto llvmFn = dyn_cast<LLVM::LLVMFunctionType>(fnTy))
            params = llvmFn.getParams();
          else if (auto fn = dyn_cast<FunctionType>(fnTy))
            params = fn.getInputs();
          for (Type t : params)
            args.push_back(typeToString(t));
          llvm::json::Object meta;
          if (DictionaryAttr md = k.getMetadata())
            for (NamedAttribute na : md)
              meta[na.getName().getValue()] = attrToString(na.getValue());
          kernels.push_back(llvm::json::Object{
              {"name", k.getName().getValue()},
              {"args", std::move(args)},
              {"metadata", std::move(meta)}});
        }
      }
      // gpu-module-to-binary may leave the kernel table empty; the HSACO's
      // amdhsa.kernels note has the same facts (names, .args, segment sizes).
      if (kernels.empty() && isa<ROCDL::ROCDLTargetAttr>(obj.getTarget())) {
        StringRef elf = obj.getObject().getValue();
        Builder builder(&getContext());
        if (auto md = ROCDL::getAMDHSAKernelsELFMetadata(
                builder, ArrayRef<char>(elf.data(), elf.size()))) {
          SmallVector<StringAttr> names;
          for (auto &kv : *md)
            names.push_back(kv.first);
          llvm::sort(names, [](StringAttr a, StringAttr b) {
            return a.getValue() < b.getValue();
          });
          for (StringAttr name : names) {
            llvm::json::Array args;
            llvm::json::Object meta;
            for (NamedAttribute na : (*md)[name]) {
              if (na.getName() == ".args") {
                if (auto arr = dyn_cast<ArrayAttr>(na.getValue())) {
                  for (Attribute a : arr) {
                    llvm::json::Object arg;
                    if (auto d = dyn_cast<DictionaryAttr>(a))
                      for (NamedAttribute f : d)
                        arg[f.getName().getValue()] =
                            attrToString(f.getValue());
                    args.push_back(std::move(arg));
                  }
                }
                continue;
              }
              meta[na.getName().getValue()] = attrToString(na.getValue());
            }
            kernels.push_back(llvm::json::Object{
                {"name", name.getValue()},
                {"args", std::move(args)},
                {"metadata", std::move(meta)}});
          }
        }
      }
      // NVVM objects carry no kernel table either; read PTX's .entry lines.
      if (kernels.empty() && isa<NVVM::NVVMTargetAttr>(obj.getTarget()) &&
          obj.getFormat() == gpu::CompilationTarget::Assembly) {
        for (const rocke::PtxEntry &e :
             rocke::parsePtxEntries(obj.getObject().getValue())) {
          llvm::json::Array args(e.params);
          llvm::json::Object meta;
          for (const auto &[key, value] : e.directives)
            meta[key] = value;
          kernels.push_back(llvm::json::Object{{"name", e.name},
                                               {"args", std::move(args)},
                                               {"metadata", std::move(meta)}});
        }
      }
      llvm::json::Object root{{"binary", bin.getSymName()},
                              {"file", path},
                              {"target", attrToString(obj.getTarget())},
                              {"kernels", std::move(kernels)}};
      std::string json;
      llvm::raw_string_ostream os(json);
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
      if (failed(writeFile(bin, path + ".json", json)))
        return signalPassFailure();
    }
  }
};
} // namespace
