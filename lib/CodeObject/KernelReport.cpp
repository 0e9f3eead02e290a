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
#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
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

/// 2*M*N*K of a v_mfma_f32_<M>x<N>x<K>... mnemonic, 0 for any other
/// (amd_compare.py's count: the shape in the name, whatever its blocks).
uint64_t mfmaFlop(StringRef mnemonic) {
  uint64_t m = 0, n = 0, k = 0;
  if (!mnemonic.consume_front("v_mfma_f32_") ||
      mnemonic.consumeInteger(10, m) || !mnemonic.consume_front("x") ||
      mnemonic.consumeInteger(10, n) || !mnemonic.consume_front("x") ||
      mnemonic.consumeInteger(10, k))
    return 0;
  return 2 * m * n * k;
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
    // As llvm-objdump prints, whose text amd_compare.py gives llvm-mca.
    d.printer->setPrintImmHex(true);
    return d;
  }

  /// Fills the instruction mixes and the hot loop of `kernel` from `code`.
  void analyze(ArrayRef<uint8_t> code, uint64_t address, KernelReport &kernel) {
    struct Inst {
      uint64_t offset;
      InstClass cls;
      MCInst inst;
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
      insts.push_back({off, classify(mnemonic.trim()), inst});
      // A loop branches back before itself (amd_compare.py's test; a branch
      // to itself spins on one instruction).
      uint64_t target = 0;
      if (instrInfo->get(inst.getOpcode()).isBranch() &&
          analysis->evaluateBranch(inst, address + off, size, target) &&
          target >= address && target < address + off)
        loops.push_back({target - address, off + size});
      off += size;
    }

    for (const Inst &i : insts)
      count(kernel.wholeKernel, i.cls);

    // amd_compare.py's hot loop: the most MFMAs, then the fewest
    // instructions, then the first. (This report used to prefer the
    // innermost loop among those with no MFMA; one definition now serves
    // both tools.)
    auto inLoop = [](const Inst &i, std::pair<uint64_t, uint64_t> loop) {
      return i.offset >= loop.first && i.offset < loop.second;
    };
    auto weigh = [&](std::pair<uint64_t, uint64_t> loop) {
      size_t mfma = 0, total = 0;
      for (const Inst &i : insts) {
        if (!inLoop(i, loop))
          continue;
        ++total;
        mfma += i.cls == InstClass::Mfma;
      }
      return std::make_pair(mfma, total);
    };
    std::optional<std::pair<uint64_t, uint64_t>> hot;
    std::pair<size_t, size_t> hotWeight;
    for (auto loop : loops) {
      auto weight = weigh(loop);
      if (!hot || weight.first > hotWeight.first ||
          (weight.first == hotWeight.first &&
           weight.second < hotWeight.second)) {
        hot = loop;
        hotWeight = weight;
      }
    }
    if (!hot) {
      kernel.hotLoop = kernel.wholeKernel;
      return;
    }
    kernel.hasLoop = true;
    kernel.loopBegin = hot->first;
    kernel.loopEnd = hot->second;
    raw_string_ostream assembly(kernel.hotLoopAssembly);
    for (const Inst &i : insts) {
      if (!inLoop(i, *hot))
        continue;
      count(kernel.hotLoop, i.cls);
      if (i.cls == InstClass::Branch)
        continue;
      StringRef mnemonic = StringRef(printer->getMnemonic(i.inst).first).trim();
      kernel.hotLoopMfmaFlop += mfmaFlop(mnemonic);
      std::string text;
      raw_string_ostream textStream(text);
      printer->printInst(&i.inst, address + i.offset, /*Annot=*/"", *subtarget,
                         textStream);
      assembly << StringRef(text).trim() << "\n";
    }
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

/// The code entry kernel descriptor `kd` points at: its
/// kernel_code_entry_byte_offset counts from the descriptor's own address.
Expected<uint64_t> descriptorEntry(const object::ELF64LEObjectFile &obj,
                                   object::ELFSymbolRef kd) {
  Expected<uint64_t> addr = kd.getAddress();
  if (!addr)
    return addr.takeError();
  Expected<object::section_iterator> sec = kd.getSection();
  if (!sec)
    return sec.takeError();
  if (*sec == obj.section_end())
    return makeError("kernel descriptor in no section");
  Expected<StringRef> contents = (*sec)->getContents();
  if (!contents)
    return contents.takeError();
  uint64_t begin = *addr - (*sec)->getAddress();
  if (*addr < (*sec)->getAddress() || begin > contents->size() ||
      contents->size() - begin < sizeof(amdhsa::kernel_descriptor_t))
    return makeError("kernel descriptor lies outside its section");
  int64_t entryOffset = support::endian::read64le(
      contents->data() + begin + amdhsa::KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET);
  return *addr + static_cast<uint64_t>(entryOffset);
}

/// The executable section holding `address`: its address and bytes.
std::optional<std::pair<uint64_t, StringRef>>
codeSectionAt(const object::ELF64LEObjectFile &obj, uint64_t address) {
  for (const object::SectionRef &sec : obj.sections()) {
    if (!sec.isText() || address < sec.getAddress())
      continue;
    Expected<StringRef> contents = sec.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      continue;
    }
    if (address - sec.getAddress() < contents->size())
      return std::make_pair(sec.getAddress(), *contents);
  }
  return std::nullopt;
}

/// A kernel's machine code: its bytes and their address.
struct KernelCode {
  ArrayRef<uint8_t> bytes;
  uint64_t address;
};

/// The code of kernel `name`, whose descriptor symbol is `descriptorName`.
/// It starts where the descriptor points (else at the function symbol) and
/// runs for the function symbol's size; AMD's hand-written code objects give
/// that symbol size 0 (their code runs on past branch-target labels), and
/// then it runs to the next code start (a function symbol or a descriptor's
/// entry) or to the end of its section.
Expected<KernelCode> findKernelCode(const object::ELF64LEObjectFile &obj,
                                    StringRef name, StringRef descriptorName) {
  struct FunctionSymbol {
    uint64_t address, size;
  };
  std::optional<FunctionSymbol> function;
  std::optional<object::ELFSymbolRef> descriptor;
  SmallVector<object::ELFSymbolRef> otherDescriptors;
  SmallVector<uint64_t> codeStarts;
  // .symtab, and .dynsym, all a stripped code object keeps.
  for (object::ELFObjectFileBase::elf_symbol_iterator_range table :
       {obj.symbols(), obj.getDynamicSymbolIterators()}) {
    for (object::ELFSymbolRef sym : table) {
      // A corrupted table may claim billions of entries: stop at the first
      // unreadable one instead of walking them all.
      Expected<StringRef> symName = sym.getName();
      if (!symName)
        return symName.takeError();
      if (sym.getELFType() == ELF::STT_FUNC) {
        Expected<uint64_t> addr = sym.getAddress();
        if (!addr)
          return addr.takeError();
        codeStarts.push_back(*addr);
        if (*symName == name)
          function = FunctionSymbol{*addr, sym.getSize()};
      } else if (sym.getELFType() == ELF::STT_OBJECT) {
        if (*symName == descriptorName)
          descriptor = sym;
        else if (symName->ends_with(".kd"))
          otherDescriptors.push_back(sym);
      }
    }
  }
  // Another kernel's unreadable descriptor bounds nothing; this kernel's
  // is an error.
  for (object::ELFSymbolRef kd : otherDescriptors) {
    Expected<uint64_t> entry = descriptorEntry(obj, kd);
    if (entry)
      codeStarts.push_back(*entry);
    else
      consumeError(entry.takeError());
  }

  uint64_t entry = 0;
  if (descriptor) {
    Expected<uint64_t> kdEntry = descriptorEntry(obj, *descriptor);
    if (!kdEntry)
      return makeError("kernel '" + name +
                       "': " + toString(kdEntry.takeError()));
    entry = *kdEntry;
  } else if (function) {
    entry = function->address;
  } else {
    return makeError("no code symbol or descriptor for kernel '" + name + "'");
  }
  std::optional<std::pair<uint64_t, StringRef>> section =
      codeSectionAt(obj, entry);
  if (!section)
    return makeError(formatv("kernel '{0}': its code entry {1:x} lies in no "
                             "code section",
                             name, entry));
  auto [sectionAddress, contents] = *section;
  uint64_t available = contents.size() - (entry - sectionAddress);
  uint64_t size = available;
  if (function && function->address == entry && function->size) {
    size = function->size;
    if (size > available)
      return makeError("kernel '" + name + "' lies outside its section");
  } else {
    for (uint64_t start : codeStarts)
      if (start > entry && start - entry < size)
        size = start - entry;
  }
  return KernelCode{
      ArrayRef(reinterpret_cast<const uint8_t *>(contents.data()) +
                   (entry - sectionAddress),
               size),
      entry};
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
    std::string descriptorName = k.name + ".kd";
    if (std::optional<StringRef> symbol = getString(meta, ".symbol"))
      descriptorName = symbol->str();
    Expected<KernelCode> code = findKernelCode(*obj, k.name, descriptorName);
    if (!code)
      return code.takeError();
    disasm->analyze(code->bytes, code->address, k);
    report.kernels.push_back(std::move(k));
  }
  return report;
}

/// llvm-mca's estimate of `kernel`'s hot loop on `chip`, as amd_compare.py
/// runs it: the loop's instructions but its branches, 10 iterations, cycles
/// per iteration = Total Cycles / 10. A subprocess rather than the MCA
/// library: llvm-mca's tool sets up the AMDGPU pipeline (custom behaviour,
/// instruction post-processing) itself, so the same program gives the same
/// numbers, and a run that never finishes can be killed.
static LoopEstimate estimateHotLoop(const KernelReport &kernel, StringRef chip,
                                    const McaOptions &options) {
  constexpr unsigned iterations = 10;
  LoopEstimate estimate;
  auto fail = [&](const Twine &why) {
    estimate.failure = why.str();
    return estimate;
  };
  if (!kernel.hasLoop)
    return fail("no loop");
  if (options.llvmMca.empty())
    return fail("no llvm-mca program given");
  SmallString<128> input, output, errors;
  for (auto [path, suffix] : {std::pair(&input, "s"), std::pair(&output, "txt"),
                              std::pair(&errors, "txt")})
    if (std::error_code ec =
            sys::fs::createTemporaryFile("rocke-report-mca", suffix, *path))
      return fail("cannot create a temporary file: " + ec.message());
  FileRemover removeInput(input), removeOutput(output), removeErrors(errors);
  {
    std::error_code ec;
    raw_fd_ostream os(input, ec);
    if (ec)
      return fail("cannot write " + input + ": " + ec.message());
    os << kernel.hotLoopAssembly;
  }
  std::string mcpu = ("-mcpu=" + chip).str();
  std::string iterationsArg = formatv("-iterations={0}", iterations).str();
  StringRef args[] = {options.llvmMca, "-mtriple=amdgcn-amd-amdhsa", mcpu,
                      iterationsArg, input};
  std::optional<StringRef> redirects[] = {StringRef(), StringRef(output),
                                          StringRef(errors)};
  std::string message;
  bool notRun = false;
  auto start = std::chrono::steady_clock::now();
  int status = sys::ExecuteAndWait(options.llvmMca, args, std::nullopt,
                                   redirects, options.timeoutSeconds,
                                   /*MemoryLimit=*/0, &message, &notRun);
  // -2 is a crash or a kill at the timeout: the clock tells which.
  if (notRun)
    return fail("cannot run " + options.llvmMca + ": " + message);
  if (status == -2 && options.timeoutSeconds &&
      std::chrono::steady_clock::now() - start >=
          std::chrono::seconds(options.timeoutSeconds))
    return fail(
        formatv("llvm-mca timed out after {0} s", options.timeoutSeconds));
  if (status != 0) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> stderrText =
        MemoryBuffer::getFile(errors);
    StringRef firstLine =
        stderrText ? (*stderrText)->getBuffer().trim().split('\n').first
                   : StringRef();
    return fail("llvm-mca failed: " +
                (firstLine.empty() ? StringRef(message) : firstLine));
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> report = MemoryBuffer::getFile(output);
  if (!report)
    return fail("cannot read llvm-mca's output: " +
                report.getError().message());
  StringRef totalCycles =
      (*report)->getBuffer().split("Total Cycles:").second.ltrim();
  uint64_t cycles = 0;
  if (totalCycles.consumeInteger(10, cycles) || cycles == 0)
    return fail("llvm-mca printed no Total Cycles");
  estimate.totalCycles = cycles;
  estimate.iterations = iterations;
  estimate.cyclesPerIteration = double(cycles) / iterations;
  estimate.mfmaFlopPerCycle =
      kernel.hotLoopMfmaFlop / estimate.cyclesPerIteration;
  return estimate;
}

void rocke::estimateHotLoops(CodeObjectReport &report,
                             const McaOptions &options) {
  for (KernelReport &k : report.kernels)
    k.estimate = estimateHotLoop(k, report.chip, options);
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
    if (!k.estimate)
      continue;
    if (!k.estimate->failure.empty())
      os << "  estimate: none (" << k.estimate->failure << ")\n";
    else
      os << formatv("  estimate (llvm-mca -mcpu={0}): {1:f1} cycles/iteration, "
                    "{2:f1} MFMA FLOP/cycle ({3} MFMA FLOP/iteration)\n",
                    report.chip, k.estimate->cyclesPerIteration,
                    k.estimate->mfmaFlopPerCycle, k.hotLoopMfmaFlop);
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
      loop["mfma_flop"] = k.hotLoopMfmaFlop;
    }
    json::Object kernel{
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
        {"kernel_mix", mixJson(k.wholeKernel)}};
    if (k.estimate) {
      const LoopEstimate &e = *k.estimate;
      kernel["estimate"] =
          e.failure.empty()
              ? json::Object{{"found", true},
                             {"total_cycles", e.totalCycles},
                             {"iterations", e.iterations},
                             {"cycles_per_iteration", e.cyclesPerIteration},
                             {"mfma_flop_per_cycle", e.mfmaFlopPerCycle}}
              : json::Object{{"found", false}, {"reason", e.failure}};
    }
    kernels.push_back(std::move(kernel));
  }
  json::Object root{{"target", report.target},
                    {"chip", report.chip},
                    {"kernels", std::move(kernels)}};
  return formatv("{0:2}", json::Value(std::move(root))).str() + "\n";
}
