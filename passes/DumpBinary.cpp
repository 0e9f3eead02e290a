//===- DumpBinary.cpp - write gpu.binary objects (HSACO) to files ----------===//
//
// After gpu-module-to-binary, the HSACO lives as a string inside
// #gpu.object. This pass writes it to disk together with a JSON sidecar that
// lists each kernel, its argument types and the metadata the ROCDL target
// read back from the ELF notes (sgpr/vgpr counts, private segment size, ...).
//
//===----------------------------------------------------------------------===//
#include "lib/CodeObject/KernelReport.h"
#include "lib/CodeObject/PtxEntries.h"
#include "lib/Target/ChipInfo.h"
#include "passes/LaunchRecipe.h"
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/Support/FileSystem.h"
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
  // Wider values keep their printed form instead of being truncated.
  if (auto i = dyn_cast<IntegerAttr>(a))
    if (std::optional<int64_t> v = rocke::int64Value(i))
      return std::to_string(*v);
  if (auto s = dyn_cast<StringAttr>(a))
    return s.getValue().str();
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

/// A recorded attribute as JSON: numbers, strings, arrays and dictionaries
/// stay structured; anything else (types, affine maps, ...) is printed.
static llvm::json::Value attrToJson(Attribute a) {
  if (auto b = dyn_cast<BoolAttr>(a))
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(a))
    if (std::optional<int64_t> v = rocke::int64Value(i))
      return *v;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto s = dyn_cast<StringAttr>(a))
    return s.getValue();
  if (auto t = dyn_cast<TypeAttr>(a))
    return typeToString(t.getValue());
  if (isa<UnitAttr>(a))
    return true;
  if (auto arr = dyn_cast<ArrayAttr>(a)) {
    llvm::json::Array out;
    for (Attribute e : arr)
      out.push_back(attrToJson(e));
    return out;
  }
  if (auto arr = dyn_cast<DenseI32ArrayAttr>(a))
    return llvm::json::Array(arr.asArrayRef());
  if (auto arr = dyn_cast<DenseI64ArrayAttr>(a))
    return llvm::json::Array(arr.asArrayRef());
  if (auto d = dyn_cast<DictionaryAttr>(a)) {
    llvm::json::Object out;
    for (NamedAttribute na : d)
      out[na.getName().getValue()] = attrToJson(na.getValue());
    return out;
  }
  return attrToString(a);
}

/// The kernels fmha-record-kernel-abi saw in gpu.module `binary`, in launch
/// order: by the first fmha op in `rocke.launch.ops`, then `order` (kernels
/// without facts keep their place last).
static SmallVector<DictionaryAttr> recordedKernels(ModuleOp module,
                                                   StringRef binary) {
  SmallVector<DictionaryAttr> kernels;
  auto all = module->getAttrOfType<DictionaryAttr>(rocke::kKernelsAttrName);
  ArrayAttr list = all ? all.getAs<ArrayAttr>(binary) : ArrayAttr();
  if (!list)
    return kernels;
  for (Attribute a : list)
    if (auto d = dyn_cast<DictionaryAttr>(a))
      kernels.push_back(d);
  // (first fmha op launching it, order within that op); kernels without
  // facts go last.
  auto order = [](DictionaryAttr k) {
    constexpr int64_t kLast = std::numeric_limits<int64_t>::max();
    auto launch = k.getAs<DictionaryAttr>("launch");
    auto o = launch ? launch.getAs<IntegerAttr>("order") : IntegerAttr();
    auto ops = launch ? launch.getAs<ArrayAttr>("ops") : ArrayAttr();
    auto firstOp = ops && !ops.empty() ? dyn_cast<IntegerAttr>(ops[0])
                                       : IntegerAttr();
    std::optional<int64_t> v = o ? rocke::int64Value(o) : std::nullopt;
    std::optional<int64_t> op = firstOp ? rocke::int64Value(firstOp) : std::nullopt;
    return std::make_pair(v ? op.value_or(0) : kLast, v.value_or(kLast));
  };
  llvm::stable_sort(kernels, [&](DictionaryAttr a, DictionaryAttr b) {
    return order(a) < order(b);
  });
  return kernels;
}

/// JSON of one recorded kernel: name, launch facts (`launch`, checked), and
/// its arguments (named by `launch.args` when given) with their LLVM
/// calling-convention fields.
static llvm::json::Object recordedKernelJson(DictionaryAttr kernel,
                                             DictionaryAttr launch) {
  auto argNames = launch ? launch.getAs<ArrayAttr>("args") : ArrayAttr();
  llvm::json::Array args;
  if (auto list = kernel.getAs<ArrayAttr>("args")) {
    for (auto [i, a] : llvm::enumerate(list)) {
      auto arg = dyn_cast<DictionaryAttr>(a);
      if (!arg)
        continue;
      llvm::json::Object out{{"index", static_cast<int64_t>(i)}};
      if (argNames && i < argNames.size())
        out["name"] = attrToJson(argNames[i]);
      for (NamedAttribute na : arg)
        out[na.getName().getValue()] = attrToJson(na.getValue());
      args.push_back(std::move(out));
    }
  }
  llvm::json::Object out{{"args", std::move(args)}};
  if (auto name = kernel.getAs<StringAttr>("name"))
    out["name"] = name.getValue();
  if (launch)
    out["launch"] = attrToJson(launch);
  return out;
}

/// ROCDL::getAMDHSAKernelsELFMetadata reaches unreachable code on some
/// corrupted metadata notes (test/ISA/report-corrupt.mlir): check first.
static bool hasReadableMetadata(gpu::ObjectAttr obj) {
  llvm::Error err = rocke::checkAmdgpuMetadata(obj.getObject().getValue());
  bool ok = !err;
  llvm::consumeError(std::move(err));
  return ok;
}

/// The launch limits of the chip `target` names (those every chip shares
/// when it names none the table knows).
static rocke::LaunchLimits launchLimits(Attribute target) {
  StringRef chip;
  if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(target))
    chip = rocdl.getChip();
  else if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
    chip = nvvm.getChip();
  std::optional<rocke::ChipInfo> info = rocke::lookupChip(chip);
  return info ? info->launch : rocke::LaunchLimits();
}

/// Writes `contents` to `path`; a failure is one line at `op`'s location
/// (op->emitError would print `op`, the whole binary, with it).
static LogicalResult writeFile(Operation *op, StringRef path,
                               StringRef contents) {
  std::error_code error;
  llvm::ToolOutputFile file(path, error, llvm::sys::fs::OF_None);
  if (error)
    return emitError(op->getLoc()) << "fmha-dump-binary: cannot open '" << path
                                   << "': " << error.message();
  file.os() << contents;
  // A write error left set would abort at the stream's destruction.
  file.os().close();
  if (std::error_code writeError = file.os().error()) {
    file.os().clear_error();
    return emitError(op->getLoc()) << "fmha-dump-binary: cannot write '" << path
                                   << "': " << writeError.message();
  }
  file.keep();
  return success();
}

namespace {
struct DumpBinaryPass : public rocke::RejectRepeatedOptions<
                            rocke::impl::DumpBinaryBase<DumpBinaryPass>> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<gpu::BinaryOp> binaries(
        getOperation().getOps<gpu::BinaryOp>());
    if (binaries.empty()) {
      emitError(getOperation().getLoc())
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
      if (kernels.empty() && isa<ROCDL::ROCDLTargetAttr>(obj.getTarget()) &&
          hasReadableMetadata(obj)) {
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
          // Kept when recorded signatures replace `args`: runners check
          // their calling-convention expansion against it.
          llvm::json::Object meta{
              {"param_count", static_cast<int64_t>(e.params.size())}};
          for (const auto &[key, value] : e.directives)
            meta[key] = value;
          kernels.push_back(llvm::json::Object{{"name", e.name},
                                               {"args", std::move(args)},
                                               {"metadata", std::move(meta)}});
        }
      }
      // Recorded signatures and launch facts replace what the code object
      // says about arguments; its register counts and sizes stay.
      if (SmallVector<DictionaryAttr> recorded =
              recordedKernels(getOperation(), bin.getSymName());
          !recorded.empty()) {
        llvm::StringMap<llvm::json::Object *> byName;
        for (llvm::json::Value &k : kernels)
          if (llvm::json::Object *o = k.getAsObject())
            if (std::optional<StringRef> name = o->getString("name"))
              byName[*name] = o;
        llvm::json::Array ordered;
        for (DictionaryAttr kernel : recorded) {
          // rocke.kernels may be written by hand: its launch facts get the
          // checks fmha-record-kernel-abi makes.
          auto launch = kernel.getAs<DictionaryAttr>("launch");
          if (launch) {
            auto name = kernel.getAs<StringAttr>("name");
            auto args = kernel.getAs<ArrayAttr>("args");
            FailureOr<DictionaryAttr> checked = rocke::checkLaunchRecipe(
                launch, name ? name.getValue() : "<unnamed>",
                launchLimits(obj.getTarget()),
                args ? std::optional<size_t>(args.size()) : std::nullopt,
                [&] { return bin.emitError(); });
            if (failed(checked))
              return signalPassFailure();
            launch = *checked;
          }
          llvm::json::Object out = recordedKernelJson(kernel, launch);
          std::optional<StringRef> name = out.getString("name");
          llvm::json::Object *found = name ? byName.lookup(*name) : nullptr;
          if (found) {
            if (llvm::json::Value *meta = found->get("metadata"))
              out["metadata"] = std::move(*meta);
            byName.erase(*name);
          }
          ordered.push_back(std::move(out));
        }
        // Kernels the record pass did not see (none in the ROCDL pipeline).
        for (llvm::json::Value &k : kernels)
          if (llvm::json::Object *o = k.getAsObject())
            if (std::optional<StringRef> name = o->getString("name");
                name && byName.count(*name))
              ordered.push_back(std::move(k));
        kernels = std::move(ordered);
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
