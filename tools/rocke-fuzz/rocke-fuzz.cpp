//===- rocke-fuzz.cpp - libFuzzer target: parse, verify, pipelines --------===//
//
// Each input is MLIR text. It is parsed (the parser verifies), printed and
// parsed again (printers must round-trip), then every pipeline of
// getPipelines() (on one input in kCodegenEvery, getCodegenPipelines() too)
// and every IR-to-IR pipeline on the input's own RUN lines runs on its own
// clone of the module (mutated RUN lines fuzz the pass options).
// Diagnostics are the expected outcome of bad input and are swallowed; what the
// fuzzer reports are crashes, assertion failures, sanitizer errors, time-outs
// and report_fatal_error.
//
// Built only with -DROCKE_ENABLE_FUZZER=ON (tools/fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace mlir;

namespace {
/// The project's pipelines, each a list of stages in textual pass-pipeline
/// syntax (filled in LLVMFuzzerInitialize). A stage that does not parse (its
/// pass is not registered yet) is left out, so the target builds and runs
/// before every pass has landed. The ROCDL finish emits ISA text
/// (format=isa): the same code generation as a HSACO without spawning ld.lld
/// for every input.
std::vector<std::vector<std::string>> &getPipelines() {
  static std::vector<std::vector<std::string>> pipelines;
  return pipelines;
}

/// Pipelines that end in LLVM code generation (AMDGPU / NVPTX at O3 on the
/// tiled kernels: about a second each, most of an input's time). They run
/// on one input in `kCodegenEvery`, chosen by a hash of the input text, so
/// a finding still reproduces from its input alone; the kernel-level
/// stages before them run on every input through the other pipelines.
std::vector<std::vector<std::string>> &getCodegenPipelines() {
  static std::vector<std::vector<std::string>> pipelines;
  return pipelines;
}
constexpr uint64_t kCodegenEvery = 8;

DialectRegistry &getRegistry() {
  static DialectRegistry registry;
  return registry;
}

/// Parses `text` into a module in `ctx`; null when it does not parse/verify.
OwningOpRef<ModuleOp> parse(MLIRContext &ctx, const std::string &text) {
  ParserConfig config(&ctx);
  // std::string keeps a NUL after the data, which the lexer relies on.
  return parseSourceString<ModuleOp>(text, config, "fuzz-input");
}

/// Words of a RUN line, with '...' and "..." quoting as the shell does.
SmallVector<std::string> splitShellWords(StringRef line) {
  SmallVector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t') {
      if (inWord)
        words.push_back(word);
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord)
    words.push_back(word);
  return words;
}

/// Passes a RUN-line pipeline may use: this project's IR-to-IR passes and the
/// upstream ones its pipelines expand to. Anything that writes files or
/// spawns tools (fmha-dump-binary, gpu-module-to-binary) is left out.
bool isAllowedPass(StringRef name) {
  if (name.starts_with("fmha-"))
    return name != "fmha-dump-binary";
  return llvm::is_contained(
      {"rocdl-attach-target", "nvvm-attach-target", "convert-gpu-to-rocdl",
       "convert-gpu-to-nvvm", "convert-nvgpu-to-nvvm", "convert-vector-to-scf",
       "convert-vector-to-llvm", "convert-scf-to-cf", "convert-ub-to-llvm",
       "expand-strided-metadata", "lower-affine", "reconcile-unrealized-casts",
       "canonicalize", "cse"},
      name);
}

/// Every pass of the printed (expanded) pipeline is allowed. Option values
/// sit in {...} and op anchors contain a '.', so the rest are pass names.
bool onlyAllowedPasses(const OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  std::string name;
  int braces = 0;
  auto check = [&] {
    bool ok =
        name.empty() || StringRef(name).contains('.') || isAllowedPass(name);
    name.clear();
    return ok;
  };
  for (char c : text) {
    if (c == '{')
      ++braces;
    else if (c == '}')
      --braces;
    else if (braces == 0 && (c == '(' || c == ')' || c == ',')) {
      if (!check())
        return false;
    } else if (braces == 0 && c != ' ') {
      name += c;
    }
  }
  return check();
}

/// Pipelines named on the input's lit RUN lines (-pass-pipeline='...' or
/// -fmha-<pass>[='<options>']), so mutated pass options are fuzzed too.
std::vector<OpPassManager> runLinePipelines(StringRef text) {
  std::vector<OpPassManager> pipelines;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front("//") || !line.trim().consume_front("RUN:"))
      continue;
    for (StringRef word : splitShellWords(line.trim())) {
      word = word.ltrim('-');
      std::string pipeline;
      if (word.consume_front("pass-pipeline="))
        pipeline = word.str();
      else if (word.starts_with("fmha-")) {
        auto [name, options] = word.split('=');
        pipeline = ("builtin.module(" + name + "{" + options + "})").str();
      } else
        continue;
      FailureOr<OpPassManager> pm = parsePassPipeline(pipeline, llvm::nulls());
      if (succeeded(pm) && onlyAllowedPasses(*pm))
        pipelines.push_back(std::move(*pm));
    }
  }
  return pipelines;
}

void runPipeline(ModuleOp module, const std::vector<std::string> &stages) {
  OwningOpRef<ModuleOp> clone = module.clone();
  for (const std::string &stage : stages) {
    PassManager pm(module.getContext());
    if (failed(parsePassPipeline(stage, pm, llvm::nulls())))
      continue;
    if (failed(pm.run(*clone)))
      return;
  }
}
} // namespace

// The project's code is built with ASan, LLVM/MLIR's libraries are not: the
// inline BumpPtrAllocator code in our objects poisons slabs that the
// libraries' copies then use without unpoisoning, a false use-after-poison.
// Manual poisoning is therefore off; heap/stack checks stay.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registerAllPasses();
  rocke::registerRockePasses();
  rocke::registerPipelines();

  // The same registry as rocke-opt, so every finding reproduces there.
  DialectRegistry &registry = getRegistry();
  registerAllDialects(registry);
  registry.insert<rocke::fmha::FmhaDialect>();
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);

  // fmha-dump-binary also runs on the input itself: gpu.binary ops with
  // arbitrary objects and rocke.kernels attributes reach its readers.
  SmallString<128> out;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, out);
  llvm::sys::path::append(
      out, "rocke-fuzz-" + std::to_string(llvm::sys::Process::getProcessId()) +
               ".bin");
  std::string dump = "fmha-dump-binary{output='" + out.str().str() + "'}";
  // The tiled kernels hold fmha tile ops until fmha-lower-tile-copies,
  // fmha-split-workgroup-tiles and fmha-distribute-tiles, so the GPU chains run
  // the end-to-end pipelines' stages, forward included.
  std::string hostTiles =
      "fmha-bwd-to-kernels{strategy=tiled target=host block-q=16 block-kv=32 "
      "forward=true";
  getPipelines() = {
      {"fmha-lower-to-loops"},
      {"fmha-lower-mma"},
      {"fmha-lower-tile-copies"},
      {"fmha-split-workgroup-tiles"},
      {"fmha-distribute-tiles"},
      {"fmha-lower-atomic-add{chip=sm_90}"},
      // The CPU oracles of the tiled forward and backward (lit's %tiled_host
      // and %tiled_mfma_host): tile ops on the host atom, then loops.
      {hostTiles + "}", "fmha-lower-tile-copies", "fmha-split-workgroup-tiles",
       "fmha-distribute-tiles", "fmha-lower-mma", "fmha-lower-to-loops"},
      {hostTiles + " score-layout=q-kv operand-staging=transposed-copies "
                   "fwd-score-layout=kv-q}",
       "fmha-lower-tile-copies", "fmha-split-workgroup-tiles",
       "fmha-distribute-tiles", "fmha-lower-mma", "fmha-lower-to-loops"},
      // The GPU kernels of the end-to-end pipelines (forward included) up
      // to their finishes, with the workgroup barriers placed: AMD (wave64,
      // MFMA atoms, K/V through registers) and NVIDIA (mma.sync, K/V by
      // cp.async).
      {"fmha-bwd-to-kernels{chip=gfx942 forward=true}",
       "fmha-lower-tile-copies", "fmha-split-workgroup-tiles",
       "fmha-distribute-tiles", "fmha-lower-subgroup-reduce{subgroup-size=64}",
       "fmha-lower-mma", "gpu.module(gpu.func(fmha-place-workgroup-barriers))"},
      {"fmha-bwd-to-kernels{chip=sm_90 forward=true}", "fmha-lower-tile-copies",
       "fmha-split-workgroup-tiles", "fmha-distribute-tiles",
       "fmha-lower-subgroup-reduce{subgroup-size=32}", "fmha-lower-mma",
       "gpu.module(gpu.func(fmha-place-workgroup-barriers))"},
      {dump},
  };
  getCodegenPipelines() = {
      // fmha-bwd-rocdl{chip=gfx942} stage by stage (the same HSACO), with
      // the finish writing ISA text (no ld.lld process per input); without
      // end-to-end=true, so hand-written gpu kernels reach the finish too.
      {"fmha-bwd-to-kernels{chip=gfx942 forward=true}",
       "fmha-lower-tile-copies", "fmha-split-workgroup-tiles",
       "fmha-distribute-tiles", "fmha-lower-subgroup-reduce{subgroup-size=64}",
       "fmha-lower-mma", "fmha-rocdl-to-hsaco{chip=gfx942 format=isa}", dump},
      // The NVIDIA end-to-end pipeline as it is: PTX text, no tool spawned;
      // the dump reads the PTX entries back.
      {"fmha-bwd-nvvm{chip=sm_90}", dump},
  };

  // Say which stages run, so a pipeline that never registers is visible.
  std::vector<std::vector<std::string>> all = getPipelines();
  llvm::append_range(all, getCodegenPipelines());
  for (const std::vector<std::string> &stages : all)
    for (const std::string &stage : stages) {
      OpPassManager probe(ModuleOp::getOperationName());
      std::string why;
      llvm::raw_string_ostream os(why);
      if (succeeded(parsePassPipeline(stage, probe, os)))
        llvm::errs() << "rocke-fuzz: stage '" << stage << "' runs\n";
      else
        llvm::errs() << "rocke-fuzz: stage '" << stage
                     << "' does not parse, skipped: " << why << "\n";
    }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  MLIRContext ctx(getRegistry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });

  OwningOpRef<ModuleOp> module = parse(ctx, text);
  if (!module)
    return 0;

  // What the printers write, the parser must read back.
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  if (!parse(ctx, printed))
    llvm::report_fatal_error(llvm::Twine("printed module does not parse:\n") +
                             printed);

  for (const std::vector<std::string> &stages : getPipelines())
    runPipeline(*module, stages);
  if (llvm::xxh3_64bits(StringRef(text)) % kCodegenEvery == 0)
    for (const std::vector<std::string> &stages : getCodegenPipelines())
      runPipeline(*module, stages);
  for (OpPassManager &pipeline : runLinePipelines(text)) {
    PassManager pm(&ctx);
    static_cast<OpPassManager &>(pm) = std::move(pipeline);
    OwningOpRef<ModuleOp> clone = module->clone();
    (void)pm.run(*clone);
  }
  return 0;
}
