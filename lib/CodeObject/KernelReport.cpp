//===- KernelReport.cpp - resource report of an AMDGPU code object --------===//
#include "lib/CodeObject/KernelReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <optional>

using namespace llvm;
using namespace rocke;

namespace {
Error makeError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

/// Integer field `key` of a metadata map; 0 when absent.
uint64_t getNumber(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0;
  msgpack::DocNode &node = it->second;
  if (node.getKind() == msgpack::Type::UInt)
    return node.getUInt();
  if (node.getKind() == msgpack::Type::Int)
    return node.getInt() < 0 ? 0 : static_cast<uint64_t>(node.getInt());
  return 0;
}

std::optional<StringRef> getString(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != msgpack::Type::String)
    return std::nullopt;
  return it->second.getString();
}

/// Instruction class from the printed mnemonic.
enum class InstClass { Mfma, Valu, Salu, Vmem, Smem, Lds, Branch, Wait, Sync };

InstClass classify(StringRef m) {
  if (m.starts_with("v_mfma") || m.starts_with("v_smfmac"))
    return InstClass::Mfma;
  if (m.starts_with("ds_"))
    return InstClass::Lds;
  if (m.starts_with("global_") || m.starts_with("buffer_") ||
      m.starts_with("flat_") || m.starts_with("scratch_"))
    return InstClass::Vmem;
  if (m.starts_with("s_load") || m.starts_with("s_buffer_load") ||
      m.starts_with("s_store") || m.starts_with("s_buffer_store"))
    return InstClass::Smem;
  if (m.starts_with("s_branch") || m.starts_with("s_cbranch") ||
      m.starts_with("s_setpc") || m.starts_with("s_swappc"))
    return InstClass::Branch;
  if (m.starts_with("s_waitcnt") || m.starts_with("s_barrier"))
    return InstClass::Wait;
  if (m.starts_with("s_nop") || m.starts_with("s_sleep") ||
      m.starts_with("s_endpgm"))
    return InstClass::Sync;
  if (m.starts_with("v_"))
    return InstClass::Valu;
  return InstClass::Salu;
}

void count(InstructionMix &mix, InstClass c) {
  switch (c) {
  case InstClass::Mfma:
    ++mix.mfma;
    return;
  case InstClass::Valu:
    ++mix.valu;
    return;
  case InstClass::Salu:
    ++mix.salu;
    return;
  case InstClass::Vmem:
    ++mix.vmem;
    return;
  case InstClass::Smem:
    ++mix.smem;
    return;
  case InstClass::Lds:
    ++mix.lds;
    return;
  case InstClass::Branch:
    ++mix.branch;
    return;
  case InstClass::Wait:
    ++mix.wait;
    return;
  case InstClass::Sync:
    ++mix.sync;
    return;
  }
}

/// The AMDGPU MC layer for one chip.
struct Disassembler {
  std::unique_ptr<MCRegisterInfo> regInfo;
  std::unique_ptr<MCAsmInfo> asmInfo;
  std::unique_ptr<MCSubtargetInfo> subtarget;
  std::unique_ptr<MCInstrInfo> instrInfo;
  std::unique_ptr<MCContext> context;
  std::unique_ptr<MCDisassembler> disassembler;
  std::unique_ptr<MCInstrAnalysis> analysis;
  std::unique_ptr<MCInstPrinter> printer;

  static Expected<Disassembler> create(StringRef chip) {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    Triple triple("amdgcn-amd-amdhsa");
    std::string err;
    const Target *target = TargetRegistry::lookupTarget(triple, err);
    if (!target)
      return makeError("no AMDGPU target in this LLVM: " + err);
    Disassembler d;
    d.regInfo.reset(target->createMCRegInfo(triple));
    MCTargetOptions options;
    d.asmInfo.reset(target->createMCAsmInfo(*d.regInfo, triple, options));
    d.subtarget.reset(target->createMCSubtargetInfo(triple, chip, ""));
    d.instrInfo.reset(target->createMCInstrInfo());
    if (!d.regInfo || !d.asmInfo || !d.subtarget || !d.instrInfo)
      return makeError("cannot set up the AMDGPU MC layer for " + chip);
    d.context = std::make_unique<MCContext>(triple, d.asmInfo.get(),
                                            d.regInfo.get(),
                                            d.subtarget.get());
    d.disassembler.reset(
        target->createMCDisassembler(*d.subtarget, *d.context));
    d.analysis.reset(target->createMCInstrAnalysis(d.instrInfo.get()));
    d.printer.reset(target->createMCInstPrinter(
        triple, d.asmInfo->getAssemblerDialect(), *d.asmInfo, *d.instrInfo,
        *d.regInfo));
    if (!d.disassembler || !d.analysis || !d.printer)
      return makeError("cannot create the AMDGPU disassembler for " + chip);
    return d;
  }

  /// Fills the instruction mixes and the hot loop of `kernel` from `code`.
  void analyze(ArrayRef<uint8_t> code, uint64_t address, KernelReport &kernel) {
    struct Inst {
      uint64_t offset;
      InstClass cls;
    };
    SmallVector<Inst> insts;
    SmallVector<std::pair<uint64_t, uint64_t>> loops; // [begin, end) offsets
    for (uint64_t off = 0; off < code.size();) {
      MCInst inst;
      uint64_t size = 0;
      if (disassembler->getInstruction(inst, size, code.slice(off),
                                       address + off, nulls()) !=
          MCDisassembler::Success) {
        // Undecodable words (padding) are skipped a dword at a time.
        off += std::max<uint64_t>(size, 4);
        continue;
      }
      StringRef mnemonic = printer->getMnemonic(inst).first;
      insts.push_back({off, classify(mnemonic.trim())});
      uint64_t target = 0;
      if (instrInfo->get(inst.getOpcode()).isBranch() &&
          analysis->evaluateBranch(inst, address + off, size, target) &&
          target >= address && target <= address + off)
        loops.push_back({target - address, off + size});
      off += size;
    }

    for (const Inst &i : insts)
      count(kernel.wholeKernel, i.cls);

    // The hot loop is the innermost of the loops with the most MFMAs (a main
    // loop may hold small staging loops, which are innermost but cold);
    // without MFMA in any loop, the longest innermost loop.
    auto contains = [](std::pair<uint64_t, uint64_t> outer,
                       std::pair<uint64_t, uint64_t> inner) {
      return outer != inner && outer.first <= inner.first &&
             inner.second <= outer.second;
    };
    auto countIn = [&](std::pair<uint64_t, uint64_t> loop, bool mfmaOnly) {
      return llvm::count_if(insts, [&](const Inst &i) {
        return i.offset >= loop.first && i.offset < loop.second &&
               (!mfmaOnly || i.cls == InstClass::Mfma);
      });
    };
    std::optional<std::pair<uint64_t, uint64_t>> hot;
    for (auto loop : loops) {
      if (!hot) {
        hot = loop;
        continue;
      }
      auto mfma = countIn(loop, true), hotMfma = countIn(*hot, true);
      bool better = mfma > hotMfma;
      if (mfma == hotMfma && mfma > 0)
        better = countIn(loop, false) < countIn(*hot, false);
      if (mfma == hotMfma && mfma == 0) {
        bool innermost = llvm::none_of(
            loops, [&](auto other) { return contains(loop, other); });
        bool hotInnermost = llvm::none_of(
            loops, [&](auto other) { return contains(*hot, other); });
        better = innermost > hotInnermost ||
                 (innermost == hotInnermost &&
                  countIn(loop, false) > countIn(*hot, false));
      }
      if (better)
        hot = loop;
    }
    if (!hot) {
      kernel.hotLoop = kernel.wholeKernel;
      return;
    }
    kernel.hasLoop = true;
    kernel.loopBegin = hot->first;
    kernel.loopEnd = hot->second;
    for (const Inst &i : insts)
      if (i.offset >= hot->first && i.offset < hot->second)
        count(kernel.hotLoop, i.cls);
  }
};

/// msgpack::Document::readFromBlob reaches llvm_unreachable ("bad map key
/// type") when a map key is an array or a map, as in a corrupted note; the
/// streaming reader checks the blob first.
bool hasScalarMapKeys(StringRef blob) {
  struct Frame {
    uint64_t left; // items (map: key/value pairs) still to come
    bool isMap;
    bool atKey; // the next item of a map is a key
  };
  SmallVector<Frame> stack;
  msgpack::Reader reader(blob);
  while (true) {
    msgpack::Object obj;
    Expected<bool> more = reader.read(obj);
    if (!more) {
      consumeError(more.takeError());
      return false;
    }
    if (!*more)
      return true;
    bool container =
        obj.Kind == msgpack::Type::Map || obj.Kind == msgpack::Type::Array;
    if (!stack.empty()) {
      Frame &parent = stack.back();
      if (parent.isMap && parent.atKey && container)
        return false;
      if (parent.isMap && parent.atKey) {
        parent.atKey = false;
      } else {
        parent.atKey = parent.isMap;
        --parent.left;
      }
    }
    if (container)
      stack.push_back({obj.Length, obj.Kind == msgpack::Type::Map, true});
    while (!stack.empty() && stack.back().left == 0)
      stack.pop_back();
  }
}

/// The amdhsa metadata note's msgpack blob.
Expected<std::string>
readMetadataNote(const object::ELF64LEObjectFile &obj) {
  const auto &elf = obj.getELFFile();
  auto phdrs = elf.program_headers();
  if (!phdrs)
    return phdrs.takeError();
  for (const auto &phdr : *phdrs) {
    if (phdr.p_type != ELF::PT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf.notes(phdr, err))
      if (note.getName() == "AMDGPU" &&
          note.getType() == ELF::NT_AMDGPU_METADATA)
        return note.getDescAsStringRef(phdr.p_align).str();
    if (err)
      return std::move(err);
  }
  return makeError("no AMDGPU metadata note (not a HSACO?)");
}

/// The kernel function's code bytes and address (its STT_FUNC symbol).
Expected<std::pair<ArrayRef<uint8_t>, uint64_t>>
findKernelCode(const object::ELF64LEObjectFile &obj, StringRef name) {
  for (object::ELFSymbolRef sym : obj.symbols()) {
    // A corrupted table may claim billions of entries: stop at the first
    // unreadable one instead of walking them all.
    Expected<StringRef> symName = sym.getName();
    if (!symName)
      return symName.takeError();
    if (*symName != name || sym.getELFType() != ELF::STT_FUNC)
      continue;
    Expected<uint64_t> addr = sym.getAddress();
    if (!addr)
      return addr.takeError();
    Expected<object::section_iterator> sec = sym.getSection();
    if (!sec)
      return sec.takeError();
    if (*sec == obj.section_end())
      break;
    Expected<StringRef> contents = (*sec)->getContents();
    if (!contents)
      return contents.takeError();
    uint64_t begin = *addr - (*sec)->getAddress();
    uint64_t size = sym.getSize();
    if (*addr < (*sec)->getAddress() || begin + size > contents->size())
      return makeError("kernel '" + name + "' lies outside its section");
    ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>(contents->data()) + begin, size);
    return std::make_pair(bytes, *addr);
  }
  return makeError("no code symbol for kernel '" + name + "'");
}
} // namespace

static Expected<std::unique_ptr<object::ObjectFile>>
openCodeObject(StringRef elf) {
  if (!elf.starts_with("\x7f" "ELF"))
    return makeError("not an ELF code object");
  Expected<std::unique_ptr<object::ObjectFile>> file =
      object::ObjectFile::createELFObjectFile(MemoryBufferRef(elf, "hsaco"));
  if (!file)
    return file.takeError();
  auto *obj = dyn_cast<object::ELF64LEObjectFile>(file->get());
  if (!obj || obj->getArch() != Triple::amdgcn)
    return makeError("not an AMDGPU (amdgcn) ELF code object");
  return file;
}

/// The note's blob, when msgpack::Document can read it.
static Expected<std::string>
readCheckedMetadata(const object::ELF64LEObjectFile &obj) {
  Expected<std::string> blob = readMetadataNote(obj);
  if (!blob)
    return blob.takeError();
  if (!hasScalarMapKeys(*blob))
    return makeError("malformed AMDGPU metadata note");
  return blob;
}

Error rocke::checkAmdgpuMetadata(StringRef elf) {
  Expected<std::unique_ptr<object::ObjectFile>> file = openCodeObject(elf);
  if (!file)
    return file.takeError();
  return readCheckedMetadata(*cast<object::ELF64LEObjectFile>(file->get()))
      .takeError();
}

/// The chip of EF_AMDGPU_MACH in an AMDGPU ELF header's e_flags, among the
/// chips this report models; empty for any other.
static std::string chipFromElfFlags(unsigned flags) {
  switch (flags & ELF::EF_AMDGPU_MACH) {
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A:
    return "gfx90a";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX942:
    return "gfx942";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX950:
    return "gfx950";
  default:
    return "";
  }
}

Expected<CodeObjectReport> rocke::analyzeCodeObject(StringRef elf) {
  Expected<std::unique_ptr<object::ObjectFile>> file = openCodeObject(elf);
  if (!file)
    return file.takeError();
  auto *obj = cast<object::ELF64LEObjectFile>(file->get());

  Expected<std::string> blob = readCheckedMetadata(*obj);
  if (!blob)
    return blob.takeError();
  msgpack::Document doc;
  if (!doc.readFromBlob(*blob, /*Multi=*/false) || !doc.getRoot().isMap())
    return makeError("malformed AMDGPU metadata note");
  msgpack::MapDocNode &root = doc.getRoot().getMap();

  CodeObjectReport report;
  report.target = getString(root, "amdhsa.target").value_or("").str();
  // amdgcn-amd-amdhsa--gfx942[:feature+...]
  StringRef chip = StringRef(report.target).rsplit("--").second;
  report.chip = chip.split(':').first.str();
  // Hand-written code objects (AMD's own assembly kernels) may have no
  // amdhsa.target; the ELF header's e_flags always name the chip.
  if (report.chip.empty()) {
    report.chip = chipFromElfFlags(obj->getPlatformFlags());
    if (!report.chip.empty())
      report.target = "amdgcn-amd-amdhsa--" + report.chip;
  }
  std::optional<ChipInfo> info = lookupChip(report.chip, GpuVendor::Amd);
  if (!info)
    return makeError("code object for '" + report.target +
                     "'; supported chips: " + supportedChipList(GpuVendor::Amd));
  Expected<Disassembler> disasm = Disassembler::create(report.chip);
  if (!disasm)
    return disasm.takeError();

  auto kernels = root.find("amdhsa.kernels");
  if (kernels == root.end() || !kernels->second.isArray())
    return makeError("AMDGPU metadata has no amdhsa.kernels list");
  for (msgpack::DocNode &node : kernels->second.getArray()) {
    if (!node.isMap())
      return makeError("malformed amdhsa.kernels entry");
    msgpack::MapDocNode &meta = node.getMap();
    KernelReport k;
    k.name = getString(meta, ".name").value_or("").str();
    k.vgprs = getNumber(meta, ".vgpr_count");
    k.agprs = getNumber(meta, ".agpr_count");
    k.sgprs = getNumber(meta, ".sgpr_count");
    k.vgprSpills = getNumber(meta, ".vgpr_spill_count");
    k.sgprSpills = getNumber(meta, ".sgpr_spill_count");
    k.ldsBytes = getNumber(meta, ".group_segment_fixed_size");
    k.scratchBytes = getNumber(meta, ".private_segment_fixed_size");
    k.workgroupSize = getNumber(meta, ".max_flat_workgroup_size");
    k.occupancy =
        computeOccupancy(*info, k.vgprs, k.sgprs, k.ldsBytes, k.workgroupSize);
    auto code = findKernelCode(*obj, k.name);
    if (!code)
      return code.takeError();
    disasm->analyze(code->first, code->second, k);
    report.kernels.push_back(std::move(k));
  }
  return report;
}

static std::string mixString(const InstructionMix &m) {
  std::string s = formatv("{0} instructions: mfma {1}, valu {2}, salu {3}, "
                          "vmem {4}, smem {5}, lds {6}, branch {7}, wait {8}, "
                          "sync {9}",
                          m.total(), m.mfma, m.valu, m.salu, m.vmem, m.smem,
                          m.lds, m.branch, m.wait, m.sync)
                      .str();
  if (m.mfma)
    s += formatv("; mfma share {0:f1} %, per mfma: lds {1:f2}, waits {2:f2}",
                 100.0 * m.mfmaShare(), m.ldsPerMfma(), m.waitsPerMfma())
             .str();
  return s;
}

std::string rocke::formatReport(const CodeObjectReport &report) {
  std::string out;
  raw_string_ostream os(out);
  os << "target " << report.target << "\n";
  for (const KernelReport &k : report.kernels) {
    const Occupancy &o = k.occupancy;
    os << "kernel " << k.name << "\n"
       << formatv("  registers: vgpr {0} (agpr {1}), sgpr {2}; spills: vgpr "
                  "{3}, sgpr {4}\n",
                  k.vgprs, k.agprs, k.sgprs, k.vgprSpills, k.sgprSpills)
       << formatv("  memory: lds {0} bytes, scratch {1} bytes; workgroup {2}\n",
                  k.ldsBytes, k.scratchBytes, k.workgroupSize)
       << formatv("  occupancy: {0} waves/SIMD, limited by {1} (vgprs {2}, "
                  "sgprs {3}, lds {4})\n",
                  o.wavesPerSimd, o.limiter, o.byVgprs, o.bySgprs, o.byLds);
    if (k.hasLoop)
      os << formatv("  hot loop [{0:x}, {1:x}): ", k.loopBegin, k.loopEnd);
    else
      os << "  hot loop: none, whole kernel: ";
    os << mixString(k.hotLoop) << "\n"
       << "  kernel: " << mixString(k.wholeKernel) << "\n";
  }
  return out;
}

static json::Object mixJson(const InstructionMix &m) {
  return json::Object{{"total", m.total()}, {"mfma", m.mfma},
                      {"valu", m.valu},     {"salu", m.salu},
                      {"vmem", m.vmem},     {"smem", m.smem},
                      {"lds", m.lds},       {"branch", m.branch},
                      {"wait", m.wait},     {"sync", m.sync},
                      {"mfma_share", m.mfmaShare()},
                      {"lds_per_mfma", m.ldsPerMfma()},
                      {"waits_per_mfma", m.waitsPerMfma()}};
}

std::string rocke::formatReportJson(const CodeObjectReport &report) {
  json::Array kernels;
  for (const KernelReport &k : report.kernels) {
    json::Object loop = mixJson(k.hotLoop);
    loop["found"] = k.hasLoop;
    if (k.hasLoop) {
      loop["begin"] = k.loopBegin;
      loop["end"] = k.loopEnd;
    }
    kernels.push_back(json::Object{
        {"name", k.name},
        {"vgpr_count", k.vgprs},
        {"agpr_count", k.agprs},
        {"sgpr_count", k.sgprs},
        {"vgpr_spill_count", k.vgprSpills},
        {"sgpr_spill_count", k.sgprSpills},
        {"lds_bytes", k.ldsBytes},
        {"scratch_bytes", k.scratchBytes},
        {"workgroup_size", k.workgroupSize},
        {"waves_per_simd", k.occupancy.wavesPerSimd},
        {"occupancy_limiter", k.occupancy.limiter},
        {"hot_loop", std::move(loop)},
        {"kernel_mix", mixJson(k.wholeKernel)}});
  }
  json::Object root{{"target", report.target},
                    {"chip", report.chip},
                    {"kernels", std::move(kernels)}};
  return formatv("{0:2}", json::Value(std::move(root))).str() + "\n";
}
