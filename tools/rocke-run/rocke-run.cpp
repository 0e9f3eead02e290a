//===- rocke-run.cpp - run fmha modules on the CPU and check their numbers ===//
//
// The executable oracle of issue 3. Takes a module whose one public function
// feeds its memref arguments to fmha.attention_fwd / attention_bwd ops (a lone
// forward, a lone backward, or a forward whose O and statistics feed a
// backward), lowers it with `--lowering` (default fmha-lower-to-loops) and a
// fixed host pipeline to the LLVM dialect, JITs it, runs it on generated
// inputs and compares every output with the independent float64 reference of
// test/lib/ReferenceAttention. Exits non-zero on any mismatch. Packed
// (varlen) batches take their sequence lengths from the function's
// rocke.seqlens_q / rocke.seqlens_k attributes and are checked sequence by
// sequence against the same reference. A score_mod's operands are generated
// like the inputs, and the reference evaluates its region in float64 dual
// numbers (ScoreModReference).
//
//===----------------------------------------------------------------------===//
#include "ReferenceAttention.h"
#include "ScoreModReference.h"
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

using namespace mlir;
using namespace rocke;
namespace ref = rocke::reference;

#ifndef ROCKE_C_RUNNER_UTILS
#define ROCKE_C_RUNNER_UTILS ""
#endif

namespace {
//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

enum class Layout { BSHD, BHSD };
enum class Distribution { Uniform, Normal };

// --help shows these, not the hundreds of options LLVM's libraries register.
llvm::cl::OptionCategory runCategory("rocke-run options");
llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::cat(runCategory),
                                         llvm::cl::desc("<input file>"),
                                         llvm::cl::init("-"));
llvm::cl::opt<std::string> lowering(
    "lowering", llvm::cl::cat(runCategory),
    llvm::cl::desc("Textual pass pipeline that lowers the fmha ops to host "
                   "func/scf/vector/memref/math/arith IR; ops it leaves can be "
                   "caught by appending fmha-lower-to-loops"),
    llvm::cl::init("fmha-lower-to-loops"));
llvm::cl::opt<int64_t> batchFlag("batch", llvm::cl::cat(runCategory),
                                 llvm::cl::desc("Batch size, if dynamic"));
llvm::cl::opt<int64_t>
    seqQFlag("seq-q", llvm::cl::cat(runCategory),
             llvm::cl::desc("Query sequence length, if dynamic"));
llvm::cl::opt<int64_t>
    seqKFlag("seq-k", llvm::cl::cat(runCategory),
             llvm::cl::desc("Key sequence length, if dynamic"));
llvm::cl::opt<Layout> layoutFlag(
    "layout", llvm::cl::cat(runCategory),
    llvm::cl::desc("Strides of [B,S,H,D] memrefs whose type leaves "
                   "them dynamic"),
    llvm::cl::values(clEnumValN(Layout::BSHD, "bshd", "[B, S, H, D] row-major"),
                     clEnumValN(Layout::BHSD, "bhsd",
                                "[B, H, S, D] row-major")),
    llvm::cl::init(Layout::BSHD));
llvm::cl::opt<uint64_t> seedFlag("seed", llvm::cl::cat(runCategory),
                                 llvm::cl::desc("Seed of the generated inputs"),
                                 llvm::cl::init(1));
llvm::cl::opt<Distribution> distFlag(
    llvm::cl::cat(runCategory), "dist",
    llvm::cl::desc("Distribution of the generated inputs"),
    llvm::cl::values(clEnumValN(Distribution::Uniform, "uniform", "U(-1, 1)"),
                     clEnumValN(Distribution::Normal, "normal", "N(0, 1)")),
    llvm::cl::init(Distribution::Uniform));
llvm::cl::opt<unsigned>
    repeatFlag("repeat", llvm::cl::cat(runCategory),
               llvm::cl::desc("Runs of the module on the same inputs"),
               llvm::cl::init(1));
llvm::cl::opt<bool> expectIdentical(
    "expect-identical", llvm::cl::cat(runCategory),
    llvm::cl::desc("Fail unless every run gives bitwise identical outputs"));
llvm::cl::opt<bool> fdCheck(
    "fd-check", llvm::cl::cat(runCategory),
    llvm::cl::desc("Also compare the backward outputs with central finite "
                   "differences of the float64 reference forward"));
llvm::cl::opt<unsigned> fdSamples(
    "fd-samples", llvm::cl::cat(runCategory),
    llvm::cl::desc("Elements per input checked by --fd-check (0 = all)"),
    llvm::cl::init(0));
llvm::cl::opt<uint64_t> dropoutSeedFlag(
    "dropout-seed", llvm::cl::cat(runCategory),
    llvm::cl::desc("Dropout's seed, below 2^53 (the values travel as doubles)"),
    llvm::cl::init(0x123456789ABCDull));
llvm::cl::opt<uint64_t> dropoutOffsetFlag(
    "dropout-offset", llvm::cl::cat(runCategory),
    llvm::cl::desc("Dropout's offset, below 2^53; the default carries into "
                   "the counter's high word from the second (batch, head)"),
    llvm::cl::init(0xFFFFFFFFull));
llvm::cl::opt<bool> splitInputFile(
    "split-input-file", llvm::cl::cat(runCategory),
    llvm::cl::desc("Run each '// -----' chunk of the input as its own case"));

/// rocke-run's own lowering to the LLVM dialect, applied after --lowering:
/// any mix of scf (incl. forall / parallel), vector (incl. contract and
/// transfer ops), affine, math, memref (incl. alloc and atomic_rmw), arith,
/// index, cf, ub and func. Two halves, with flattenTiles between them.
constexpr const char *kHostTransfers =
    // Fully unrolled transfers: the partial unrolling staged each 2-D
    // transfer in a memref.alloca inside the kernels' grid loops, whose
    // stack grew with every workgroup (a segfault at 8 MiB: tiled D = 128,
    // B = 2, S = 128, Hq = 8).
    "scf-forall-to-for,convert-vector-to-scf{full-unroll=true}";
constexpr const char *kHostToLLVM =
    "expand-strided-metadata,"
    "lower-affine,convert-scf-to-cf,arith-expand{include-bf16=true},"
    "convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,"
    "finalize-memref-to-llvm,convert-index-to-llvm,convert-arith-to-llvm,"
    "convert-func-to-llvm,convert-cf-to-llvm,convert-ub-to-llvm,"
    "reconcile-unrealized-casts";

/// Tolerances on max|err| / max|ref| (see README): f32 is limited by f32
/// accumulation, f16 / bf16 by rounding the outputs (2^-11 / 2^-8) and by the
/// half-precision operands later strategies feed to their matrix units.
double toleranceFor(Type elt) {
  if (elt.isF32())
    return 1e-4;
  if (elt.isF16())
    return 5e-3;
  return 3e-2;
}
/// Central differences with step kFdStep on the float64 forward are accurate
/// to about 1e-6 relative (truncation ~ step^2), so they get f32's bound.
constexpr double kFdStep = 1e-3;
constexpr double kFdTolerance = 1e-4;

/// d loss / d x by central differences with step kFdStep; x is restored.
template <typename Loss> double centralDifference(double &x, Loss loss) {
  double saved = x;
  x = saved + kFdStep;
  double plus = loss();
  x = saved - kFdStep;
  double minus = loss();
  x = saved;
  return (plus - minus) / (2 * kFdStep);
}

//===----------------------------------------------------------------------===//
// Host buffers
//===----------------------------------------------------------------------===//

/// A strided memref's storage with its descriptor; elements are f32, f16 or
/// bf16 and are read and written as doubles (rounded to nearest-even), or
/// i32 (varlen offsets) or i64 (dropout's seed and offset), read and
/// written as integral doubles.
class Buffer {
public:
  Buffer(Type elt, ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
         int64_t offset)
      : elt(elt), shape(shape), strides(strides), offset(offset) {
    int64_t span = offset + 1;
    for (auto [n, s] : llvm::zip(shape, strides))
      span += (n - 1) * s;
    storage.assign((span * eltBytes() + 7) / 8, 0);
  }

  Type elementType() const { return elt; }
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }

  /// Dense row-major logical contents.
  std::vector<double> read() const {
    std::vector<double> out(numElements());
    for (int64_t i = 0, e = out.size(); i < e; ++i)
      out[i] = load(address(i));
    return out;
  }
  void write(const std::vector<double> &values) {
    for (int64_t i = 0, e = values.size(); i < e; ++i)
      store(address(i), values[i]);
  }
  /// Fills the whole storage with NaN, so an element the module never
  /// writes cannot pass as a result.
  void poison() {
    int64_t n = storage.size() * 8 / eltBytes();
    for (int64_t i = 0; i < n; ++i)
      store(bytes() + i * eltBytes(), std::nan(""));
  }
  bool bitwiseEqual(const Buffer &other) const {
    return storage == other.storage;
  }

  /// The ranked memref descriptor {allocated, aligned, offset, sizes,
  /// strides}; every field is 64-bit on the hosts we run on.
  SmallVector<int64_t> descriptor() {
    SmallVector<int64_t> d;
    auto ptr = reinterpret_cast<int64_t>(storage.data());
    d.append({ptr, ptr, offset});
    d.append(shape.begin(), shape.end());
    d.append(strides.begin(), strides.end());
    return d;
  }

  /// `x` rounded to the element type `elt`.
  static double round(Type elt, double x) {
    if (elt.isF32())
      return static_cast<float>(x);
    llvm::APFloat f(x);
    bool lost;
    f.convert(semantics(elt), llvm::APFloat::rmNearestTiesToEven, &lost);
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToDouble();
  }

private:
  static const llvm::fltSemantics &semantics(Type elt) {
    return elt.isF16() ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat();
  }
  int64_t eltBytes() const {
    if (elt.isInteger(64))
      return 8;
    return elt.isF32() || elt.isInteger(32) ? 4 : 2;
  }
  char *bytes() { return reinterpret_cast<char *>(storage.data()); }
  const char *bytes() const {
    return reinterpret_cast<const char *>(storage.data());
  }
  /// Storage address of the logical row-major element `flat`.
  int64_t address(int64_t flat) const {
    int64_t pos = offset;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      pos += (flat % shape[d]) * strides[d];
      flat /= shape[d];
    }
    return pos * eltBytes();
  }
  double load(int64_t at) const {
    if (elt.isInteger(64)) {
      int64_t i;
      std::memcpy(&i, bytes() + at, 8);
      return i;
    }
    if (elt.isInteger(32)) {
      int32_t i;
      std::memcpy(&i, bytes() + at, 4);
      return i;
    }
    if (elt.isF32()) {
      float f;
      std::memcpy(&f, bytes() + at, 4);
      return f;
    }
    uint16_t bits;
    std::memcpy(&bits, bytes() + at, 2);
    llvm::APFloat f(semantics(elt), llvm::APInt(16, bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToDouble();
  }
  void store(int64_t at, double x) { store(bytes() + at, x); }
  void store(char *p, double x) const {
    if (elt.isInteger(64)) {
      auto i = static_cast<int64_t>(x);
      std::memcpy(p, &i, 8);
      return;
    }
    if (elt.isInteger(32)) {
      auto i = static_cast<int32_t>(x);
      std::memcpy(p, &i, 4);
      return;
    }
    if (elt.isF32()) {
      float f = static_cast<float>(x);
      std::memcpy(p, &f, 4);
      return;
    }
    llvm::APFloat f(x);
    bool lost;
    f.convert(semantics(elt), llvm::APFloat::rmNearestTiesToEven, &lost);
    auto bits = static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
    std::memcpy(p, &bits, 2);
  }

  Type elt;
  SmallVector<int64_t> shape, strides;
  int64_t offset;
  std::vector<uint64_t> storage; // 8-byte aligned
};

/// Deterministic inputs: splitmix-seeded mt19937_64 with our own uniform and
/// Box-Muller transforms, so the values do not depend on the C++ library.
class Generator {
public:
  explicit Generator(uint64_t seed) : rng(seed) {}
  double uniform() { return 2.0 * unit() - 1.0; }
  double next(Distribution dist) {
    if (dist == Distribution::Uniform)
      return uniform();
    double u = 1.0 - unit(), w = unit();
    return std::sqrt(-2.0 * std::log(u)) *
           std::cos(2.0 * llvm::numbers::pi * w);
  }
  uint64_t index(uint64_t n) { return rng() % n; }

private:
  double unit() { return (rng() >> 11) * 0x1.0p-53; }
  std::mt19937_64 rng;
};

//===----------------------------------------------------------------------===//
// The module's interface: which argument plays which role
//===----------------------------------------------------------------------===//

/// Capture: an operand a score_mod captures (any number of them). Sinks:
/// the attention sinks [Hq], DSinks their gradient; Bias, DBias: the
/// additive bias and its gradient (static shapes, like a capture's);
/// Dropout: dropout's {seed, offset} (i64 [2]).
enum class Role {
  Q,
  K,
  V,
  O,
  DO,
  Stat0,
  Stat1,
  DQ,
  DK,
  DV,
  CuQ,
  CuK,
  Capture,
  Sinks,
  DSinks,
  Bias,
  DBias,
  Dropout
};
constexpr int kNumRoles = 18;
/// Logical sizes: B, Sq, Sk, Hq, Hkv, Dqk, Dv.
enum Sym { SB, SQ, SK, SHQ, SHKV, SDQK, SDV, kNumSyms };

/// The logical sizes of role `r`'s dims: [B, S, H, D] and [B, Hq, Sq], or
/// for a packed batch (`varlen`, Sq and Sk the token counts) [T, H, D] and
/// [Hq, T_q]. The offsets' [B + 1] and a capture's static shape are no
/// symbols (empty).
SmallVector<Sym> symbolsOf(Role r, bool varlen) {
  if (r == Role::CuQ || r == Role::CuK || r == Role::Capture ||
      r == Role::Bias || r == Role::DBias || r == Role::Dropout)
    return {};
  if (r == Role::Sinks || r == Role::DSinks)
    return {SHQ};
  if (varlen) {
    SmallVector<Sym> dims = symbolsOf(r, false);
    return SmallVector<Sym>(llvm::drop_begin(dims));
  }
  switch (r) {
  case Role::Q:
  case Role::DQ:
    return {SB, SQ, SHQ, SDQK};
  case Role::K:
  case Role::DK:
    return {SB, SK, SHKV, SDQK};
  case Role::V:
  case Role::DV:
    return {SB, SK, SHKV, SDV};
  case Role::O:
  case Role::DO:
    return {SB, SQ, SHQ, SDV};
  case Role::Stat0:
  case Role::Stat1:
    return {SB, SHQ, SQ};
  case Role::CuQ:
  case Role::CuK:
  case Role::Capture:
  case Role::Sinks:
  case Role::DSinks:
  case Role::Bias:
  case Role::DBias:
  case Role::Dropout:
    break;
  }
  llvm_unreachable("unknown role");
}

/// What rocke-run needs of the module, captured before lowering erases the
/// fmha ops and the func.func.
struct Interface {
  std::string funcName;
  Location loc;
  SmallVector<MemRefType> argTypes;
  bool hasFwd = false, hasBwd = false;
  /// The backward's gradient accumulator type (null without a backward).
  Type accumulator;
  /// Role of each function argument and the argument of each role (-1: none).
  SmallVector<Role> argRole;
  std::array<int, kNumRoles> roleArg;
  std::array<int64_t, kNumSyms> size;
  Type elt;
  fmha::StatsEncoding encoding;
  fmha::MaskAttr mask;
  float scale;
  /// A packed batch: its sequences' query and key lengths.
  bool varlen = false;
  SmallVector<int64_t> seqlensQ, seqlensK;
  /// The ops' score_mod (null: none; the lowering erases it, the reference
  /// copies it first) and the function arguments it captures, in order.
  Region *scoreMod = nullptr;
  SmallVector<unsigned> captureArgs;
  /// Dropout's drop probability (with Role::Dropout).
  float dropoutP = 0.0f;

  explicit Interface(Location loc) : loc(loc) {}

  bool has(Role r) const { return roleArg[int(r)] >= 0; }
  bool log2Stats() const {
    return encoding == fmha::StatsEncoding::log2_max_sum;
  }
  std::string name(Role r) const {
    static const char *names[] = {
        "Q",       "K",     "V",      "O",    "dO",           "",
        "",        "dQ",    "dK",     "dV",   "cu_seqlens_q", "cu_seqlens_k",
        "capture", "sinks", "dSinks", "bias", "dBias",        "dropout"};
    if (r == Role::Stat0)
      return log2Stats() ? "M" : "lse";
    if (r == Role::Stat1)
      return "L";
    return names[int(r)];
  }
  /// Roles written by the module (the rest are generated inputs).
  bool isOutput(Role r) const {
    switch (r) {
    case Role::O:
    case Role::Stat0:
    case Role::Stat1:
      return hasFwd;
    case Role::DQ:
    case Role::DK:
    case Role::DV:
    case Role::DSinks:
    case Role::DBias:
      return true;
    default:
      return false;
    }
  }
};

/// Largest buffer (in elements) rocke-run allocates for one argument.
constexpr int64_t kMaxElements = int64_t(1) << 28;

/// Names of the function attributes that give a varlen batch's sequence
/// lengths (rocke-run --help).
constexpr const char *kSeqlensQAttr = "rocke.seqlens_q";
constexpr const char *kSeqlensKAttr = "rocke.seqlens_k";

/// A varlen batch's lengths from `func`'s rocke.seqlens_q (and
/// rocke.seqlens_k, defaulting to the query lengths) into `in`, with B and
/// the token counts: non-negative, within the op's max_seqlen, one per
/// sequence of any static offsets' length, summing to any static token
/// counts. A dense module must not carry them.
LogicalResult readSeqlens(func::FuncOp func, Operation *first, Operation *op,
                          Interface &in) {
  auto lengthsQ = func->getAttrOfType<DenseI64ArrayAttr>(kSeqlensQAttr);
  auto lengthsK = func->getAttrOfType<DenseI64ArrayAttr>(kSeqlensKAttr);
  bool anyGiven = func->hasAttr(kSeqlensQAttr) || func->hasAttr(kSeqlensKAttr);
  if (!in.varlen) {
    if (anyGiven)
      return func.emitError() << kSeqlensQAttr << " / " << kSeqlensKAttr
                              << " give the lengths of a varlen batch; the "
                                 "fmha ops have no varlen clause";
    return success();
  }
  if (!lengthsQ || (func->hasAttr(kSeqlensKAttr) && !lengthsK))
    return func.emitError()
           << "a varlen batch needs its sequence lengths: " << kSeqlensQAttr
           << " = array<i64: ...> (and " << kSeqlensKAttr
           << " where the key lengths differ)";
  in.seqlensQ = llvm::to_vector(lengthsQ.asArrayRef());
  in.seqlensK = llvm::to_vector((lengthsK ? lengthsK : lengthsQ).asArrayRef());
  if (in.seqlensQ.empty() || in.seqlensQ.size() != in.seqlensK.size())
    return func.emitError()
           << kSeqlensQAttr << " and " << kSeqlensKAttr
           << " must give the same number (at least 1) of "
              "sequences, got "
           << in.seqlensQ.size() << " and " << in.seqlensK.size();
  auto maxOf = [&](bool key) -> int64_t {
    if (auto f = dyn_cast<fmha::AttentionFwdOp>(op))
      return key ? f.getMaxSeqlenKOrDefault() : f.getMaxSeqlenQOrDefault();
    auto b = cast<fmha::AttentionBwdOp>(op);
    return key ? b.getMaxSeqlenKOrDefault() : b.getMaxSeqlenQOrDefault();
  };
  in.size[SB] = in.seqlensQ.size();
  for (auto [sym, lengths, key] : {std::make_tuple(SQ, &in.seqlensQ, false),
                                   std::make_tuple(SK, &in.seqlensK, true)}) {
    const char *name = key ? kSeqlensKAttr : kSeqlensQAttr;
    int64_t tokens = 0;
    for (auto [b, n] : llvm::enumerate(*lengths)) {
      if (n < 0 || n > maxOf(key))
        return first->emitError()
               << name << ": sequence " << b << " has length " << n
               << ", outside [0, " << (key ? "max_seqlen_k" : "max_seqlen_q")
               << " = " << maxOf(key) << "]";
      tokens += n;
    }
    if (tokens == 0)
      return func.emitError() << name << " has no token at all; a memref "
                              << "needs one";
    if (!ShapedType::isDynamic(in.size[sym]) && in.size[sym] != tokens)
      return func.emitError() << name << " sums to " << tokens
                              << " tokens; the memrefs have " << in.size[sym];
    in.size[sym] = tokens;
  }
  for (Role r : {Role::CuQ, Role::CuK}) {
    int64_t n = in.argTypes[in.roleArg[int(r)]].getDimSize(0);
    if (!ShapedType::isDynamic(n) && n != in.size[SB] + 1)
      return func.emitError()
             << in.name(r) << " has " << n << " elements; " << kSeqlensQAttr
             << " gives " << in.size[SB] << " sequences";
  }
  return success();
}

/// Finds the public function, its fmha ops and the role of every argument.
FailureOr<Interface> analyze(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal())
      funcs.push_back(f);
  if (funcs.size() != 1)
    return module.emitError() << "rocke-run needs exactly one public "
                                 "func.func with a body, found "
                              << funcs.size();
  func::FuncOp func = funcs.front();
  Interface in(func.getLoc());
  in.funcName = func.getSymName().str();
  if (func.getNumResults() != 0)
    return func.emitError() << "rocke-run needs a function without results";
  for (auto [n, t] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = dyn_cast<MemRefType>(t);
    if (!type)
      return func.emitError() << "argument #" << n << " has type " << t
                              << "; rocke-run passes memrefs only";
    in.argTypes.push_back(type);
  }

  fmha::AttentionFwdOp fwd;
  fmha::AttentionBwdOp bwd;
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<fmha::AttentionFwdOp, fmha::AttentionBwdOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (auto f = dyn_cast<fmha::AttentionFwdOp>(op); f && !fwd && !bwd)
      fwd = f;
    else if (auto b = dyn_cast<fmha::AttentionBwdOp>(op); b && !bwd)
      bwd = b;
    else
      return op->emitError()
             << "rocke-run runs one attention_fwd, one attention_bwd, or an "
                "attention_fwd followed by an attention_bwd";
  }
  if (ops.empty())
    return func.emitError() << "no fmha.attention_fwd / attention_bwd op";
  in.hasFwd = bool(fwd);
  in.hasBwd = bool(bwd);
  if (bwd)
    in.accumulator = bwd.getAccumulatorTypeOrDefault();
  if (fwd && bwd && fwd->getBlock() != bwd->getBlock())
    return bwd.emitError() << "the forward and backward must be in one block";

  Block &entry = func.front();
  in.argRole.assign(entry.getNumArguments(), Role::Q);
  SmallVector<bool> assigned(entry.getNumArguments(), false);
  in.roleArg.fill(-1);
  auto assign = [&](Operation *op, Value v, Role r) -> LogicalResult {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &entry)
      return op->emitError() << "operand " << in.name(r)
                             << " must be an argument of the function";
    unsigned n = arg.getArgNumber();
    if ((assigned[n] && in.argRole[n] != r) ||
        (in.roleArg[int(r)] >= 0 && in.roleArg[int(r)] != int(n)))
      return op->emitError() << "argument #" << n << " and role " << in.name(r)
                             << " must map one to one";
    assigned[n] = true;
    in.argRole[n] = r;
    in.roleArg[int(r)] = n;
    return success();
  };
  Operation *first = fwd ? fwd.getOperation() : bwd.getOperation();
  auto attentionAttrs = [](auto op) {
    return std::make_tuple(op.getMaskOrDefault(), op.getScaleOrDefault(),
                           op.getStatsEncoding(), op.isVarlen());
  };
  // The varlen offsets, inputs of either op.
  auto varlenOperands = [](auto op) {
    SmallVector<std::pair<Value, Role>> operands;
    if (op.isVarlen())
      operands = {{op.getCuSeqlensQ(), Role::CuQ},
                  {op.getCuSeqlensK(), Role::CuK}};
    return operands;
  };
  if (fwd) {
    std::tie(in.mask, in.scale, in.encoding, in.varlen) = attentionAttrs(fwd);
    SmallVector<std::pair<Value, Role>> operands = {{fwd.getQuery(), Role::Q},
                                                    {fwd.getKey(), Role::K},
                                                    {fwd.getValue(), Role::V},
                                                    {fwd.getOut(), Role::O}};
    for (auto [i, s] : llvm::enumerate(fwd.getStats()))
      operands.push_back({s, i ? Role::Stat1 : Role::Stat0});
    llvm::append_range(operands, varlenOperands(fwd));
    if (fwd.getSinks())
      operands.push_back({fwd.getSinks(), Role::Sinks});
    if (fwd.getBias())
      operands.push_back({fwd.getBias(), Role::Bias});
    if (fwd.getDropoutSeedOffset())
      operands.push_back({fwd.getDropoutSeedOffset(), Role::Dropout});
    for (auto [v, r] : operands)
      if (failed(assign(fwd, v, r)))
        return failure();
  }
  if (bwd) {
    if (fwd && attentionAttrs(fwd) != attentionAttrs(bwd))
      return bwd.emitError() << "the backward's mask, scale, stats "
                                "encoding and varlen clause must match the "
                                "forward's";
    std::tie(in.mask, in.scale, in.encoding, in.varlen) = attentionAttrs(bwd);
    SmallVector<std::pair<Value, Role>> operands = {
        {bwd.getQuery(), Role::Q},    {bwd.getKey(), Role::K},
        {bwd.getValue(), Role::V},    {bwd.getOut(), Role::O},
        {bwd.getGradOut(), Role::DO}, {bwd.getGradQuery(), Role::DQ},
        {bwd.getGradKey(), Role::DK}, {bwd.getGradValue(), Role::DV}};
    for (auto [i, s] : llvm::enumerate(bwd.getStats()))
      operands.push_back({s, i ? Role::Stat1 : Role::Stat0});
    llvm::append_range(operands, varlenOperands(bwd));
    if (bwd.getSinks())
      operands.push_back({bwd.getSinks(), Role::Sinks});
    if (bwd.getGradSinks())
      operands.push_back({bwd.getGradSinks(), Role::DSinks});
    if (bwd.getBias())
      operands.push_back({bwd.getBias(), Role::Bias});
    if (bwd.getGradBias())
      operands.push_back({bwd.getGradBias(), Role::DBias});
    if (bwd.getDropoutSeedOffset())
      operands.push_back({bwd.getDropoutSeedOffset(), Role::Dropout});
    for (auto [v, r] : operands)
      if (failed(assign(bwd, v, r)))
        return failure();
  }
  // Captured operands: function arguments too, shared by a forward and
  // its backward (whose verifier requires the same score_mod).
  Operation *last = bwd ? bwd.getOperation() : fwd.getOperation();
  if (fwd && bwd && fwd.getDropoutPAttr() != bwd.getDropoutPAttr())
    return bwd.emitError() << "the backward's dropout must be the forward's";
  if (FloatAttr dropoutP = bwd ? bwd.getDropoutPAttr() : fwd.getDropoutPAttr())
    in.dropoutP = dropoutP.getValueAsDouble();
  auto captures = bwd ? bwd.getCaptures() : fwd.getCaptures();
  in.scoreMod = bwd ? &bwd.getScoreMod() : &fwd.getScoreMod();
  if (in.scoreMod->empty())
    in.scoreMod = nullptr;
  for (Value c : captures) {
    auto arg = dyn_cast<BlockArgument>(c);
    if (!arg || arg.getOwner() != &entry)
      return last->emitError()
             << "a captured operand must be an argument of the function";
    unsigned n = arg.getArgNumber();
    if (assigned[n] && in.argRole[n] != Role::Capture)
      return last->emitError() << "argument #" << n << " is both "
                               << in.name(in.argRole[n])
                               << " and a captured operand";
    if (!cast<MemRefType>(c.getType()).hasStaticShape())
      return last->emitError()
             << "captured operand argument #" << n
             << " must have a static shape: rocke-run generates its values";
    assigned[n] = true;
    in.argRole[n] = Role::Capture;
    in.captureArgs.push_back(n);
  }
  if (fwd)
    for (Value c : fwd.getCaptures())
      if (!llvm::is_contained(captures, c))
        return fwd.emitError() << "the forward and backward capture "
                                  "different operands";
  for (auto [n, isSet] : llvm::enumerate(assigned))
    if (!isSet)
      return func.emitError() << "argument #" << n << " feeds no fmha op";
  for (Role r : {Role::Bias, Role::DBias})
    if (in.has(r) && !in.argTypes[in.roleArg[int(r)]].hasStaticShape())
      return func.emitError()
             << in.name(r) << " (argument #" << in.roleArg[int(r)]
             << ") must have a static shape: rocke-run generates its values";

  in.elt = in.argTypes[in.roleArg[int(Role::Q)]].getElementType();
  // Static sizes from the types; the dynamic ones from the command line.
  in.size.fill(ShapedType::kDynamic);
  for (auto [n, r] : llvm::enumerate(in.argRole)) {
    MemRefType type = in.argTypes[n];
    if (type.getMemorySpace())
      return func.emitError() << "argument #" << n
                              << " has a memory space; rocke-run "
                                 "allocates host memory only";
    for (auto [d, sym] : llvm::enumerate(symbolsOf(r, in.varlen))) {
      int64_t extent = type.getDimSize(d);
      if (ShapedType::isDynamic(extent))
        continue;
      if (!ShapedType::isDynamic(in.size[sym]) && in.size[sym] != extent)
        return func.emitError() << "argument #" << n << " disagrees with "
                                << "the other arguments on dimension " << d;
      in.size[sym] = extent;
    }
  }
  struct Flag {
    Sym sym;
    const llvm::cl::opt<int64_t> &option;
    const char *name;
  };
  if (failed(readSeqlens(func, first, fwd ? fwd.getOperation() : bwd, in)))
    return failure();
  for (Flag f : {Flag{SB, batchFlag, "batch"}, Flag{SQ, seqQFlag, "seq-q"},
                 Flag{SK, seqKFlag, "seq-k"}}) {
    bool given = f.option.getNumOccurrences() > 0;
    if (given && in.varlen)
      return first->emitError()
             << "--" << f.name << " does not apply to a varlen batch: "
             << "the function's rocke.seqlens_q / rocke.seqlens_k give its "
                "sequence lengths";
    int64_t value = f.option;
    if (given && value < 1)
      return first->emitError()
             << "--" << f.name << " must be positive, got " << value;
    if (ShapedType::isDynamic(in.size[f.sym])) {
      if (!given)
        return first->emitError() << "the module has a dynamic " << f.name
                                  << " size; pass --" << f.name << "=N";
      in.size[f.sym] = value;
    } else if (given && value != in.size[f.sym]) {
      return first->emitError()
             << "--" << f.name << "=" << value
             << " contradicts the static size " << in.size[f.sym];
    }
  }
  return in;
}

/// The buffer for argument `n`: strides and offset from the type when static,
/// else the --layout strides (which must agree with any static stride).
FailureOr<Buffer> allocate(Interface &in, unsigned n) {
  MemRefType type = in.argTypes[n];
  SmallVector<int64_t> shape;
  for (Sym s : symbolsOf(in.argRole[n], in.varlen))
    shape.push_back(in.size[s]);
  Role role = in.argRole[n];
  if (role == Role::CuQ || role == Role::CuK)
    shape.push_back(in.size[SB] + 1);
  if (role == Role::Capture || role == Role::Bias || role == Role::DBias ||
      role == Role::Dropout)
    llvm::append_range(shape, type.getShape());
  // Row-major over the storage order of the logical dims.
  auto order = llvm::to_vector(llvm::seq<unsigned>(0, shape.size()));
  if (shape.size() == 4)
    order = layoutFlag == Layout::BHSD ? SmallVector<unsigned>{0, 2, 1, 3}
                                       : SmallVector<unsigned>{0, 1, 2, 3};
  // Sizes come from the command line: every product is checked, since a
  // wrapped element count allocated a tiny buffer the module overran (or a
  // huge one, std::length_error).
  bool overflow = false;
  auto mul = [&](int64_t a, int64_t b) {
    int64_t r;
    overflow |= llvm::MulOverflow(a, b, r);
    return r;
  };
  auto add = [&](int64_t a, int64_t b) {
    int64_t r;
    overflow |= llvm::AddOverflow(a, b, r);
    return r;
  };
  SmallVector<int64_t> strides(shape.size());
  int64_t running = 1;
  for (unsigned d : llvm::reverse(order)) {
    strides[d] = running;
    running = mul(running, shape[d]);
  }
  SmallVector<int64_t> typeStrides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(typeStrides, offset)))
    return emitError(in.loc) << "argument #" << n << " is not strided";
  if (type.getLayout().isIdentity()) {
    running = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      strides[d] = running;
      running = mul(running, shape[d]);
    }
  } else if (llvm::none_of(typeStrides, ShapedType::isDynamic)) {
    strides.assign(typeStrides.begin(), typeStrides.end());
  } else {
    for (auto [d, s] : llvm::enumerate(typeStrides))
      if (!ShapedType::isDynamic(s) && s != strides[d])
        return emitError(in.loc) << "argument #" << n << ": static stride " << s
                                 << " of dim " << d << " contradicts --layout";
  }
  offset = ShapedType::isDynamic(offset) ? 0 : offset;
  // The oracle is for small problems; refuse what would exhaust the host.
  int64_t span = add(offset, 1);
  for (auto [extent, stride] : llvm::zip(shape, strides))
    span = add(span, mul(extent - 1, stride));
  if (overflow)
    return emitError(in.loc)
           << "argument #" << n << " spans more elements than 64-bit "
           << "arithmetic counts, more than rocke-run's limit of "
           << kMaxElements;
  if (span > kMaxElements)
    return emitError(in.loc)
           << "argument #" << n << " spans " << span
           << " elements, more than rocke-run's limit of " << kMaxElements;
  return Buffer(type.getElementType(), shape, strides, offset);
}

//===----------------------------------------------------------------------===//
// Lowering and JIT
//===----------------------------------------------------------------------===//

/// Indices of row `pos` (over the leading vector dims) of an n-D vector
/// access at `indices`: the vector covers the memref's trailing dims.
SmallVector<Value> rowIndices(PatternRewriter &rewriter, Location loc,
                              ValueRange indices, ArrayRef<int64_t> pos) {
  SmallVector<Value> idx(indices);
  size_t first = idx.size() - pos.size() - 1;
  for (auto [d, p] : llvm::enumerate(pos))
    if (p)
      idx[first + d] = arith::AddIOp::create(
          rewriter, loc, idx[first + d],
          arith::ConstantIndexOp::create(rewriter, loc, p));
  return idx;
}

/// Calls fn(pos) for every row position of the leading dims of `type`.
void forEachRow(VectorType type, function_ref<void(ArrayRef<int64_t>)> fn) {
  ArrayRef<int64_t> leading = type.getShape().drop_back();
  SmallVector<int64_t> strides = computeSuffixProduct(leading);
  for (int64_t linear = 0, e = computeProduct(leading); linear < e; ++linear)
    fn(delinearize(linear, strides));
}

/// convert-vector-to-llvm only takes 1-D vector.load / vector.store; tiled
/// strategies move n-D register tiles, so split those into rows first.
struct SplitNdVectorLoad : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::LoadOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    if (type.getRank() < 2 || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed n-D vector");
    Location loc = op.getLoc();
    auto rowType =
        VectorType::get(type.getShape().back(), type.getElementType());
    Value result = arith::ConstantOp::create(
        rewriter, loc, type, cast<TypedAttr>(rewriter.getZeroAttr(type)));
    forEachRow(type, [&](ArrayRef<int64_t> pos) {
      Value row = vector::LoadOp::create(
          rewriter, loc, rowType, op.getBase(),
          rowIndices(rewriter, loc, op.getIndices(), pos));
      result = vector::InsertOp::create(rewriter, loc, row, result, pos);
    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitNdVectorStore : OpRewritePattern<vector::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::StoreOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    if (type.getRank() < 2 || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed n-D vector");
    Location loc = op.getLoc();
    forEachRow(type, [&](ArrayRef<int64_t> pos) {
      Value row =
          vector::ExtractOp::create(rewriter, loc, op.getValueToStore(), pos);
      vector::StoreOp::create(rewriter, loc, row, op.getBase(),
                              rowIndices(rewriter, loc, op.getIndices(), pos));
    });
    rewriter.eraseOp(op);
    return success();
  }
};

LogicalResult splitNdVectorMemoryOps(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  patterns.add<SplitNdVectorLoad, SplitNdVectorStore>(module.getContext());
  return applyPatternsGreedily(module, std::move(patterns));
}

/// A 2-D transpose as one shuffle of the flattened vector, whose flattening
/// FlattenByConcatenation then lowers (not 256 element moves for 16x16).
struct TransposeAsFlatShuffle : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    if (type.getRank() != 2 || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed 2-D transpose");
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    Location loc = op.getLoc();
    auto flat = VectorType::get({rows * cols}, type.getElementType());
    Value src =
        vector::ShapeCastOp::create(rewriter, loc, flat, op.getVector());
    SmallVector<int64_t> mask;
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r)
        mask.push_back(r * cols + c);
    Value moved = vector::ShuffleOp::create(rewriter, loc, src, src, mask);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(
        op, op.getResultVectorType(), moved);
    return success();
  }
};

/// A 2-D vector flattened to 1-D as a balanced tree of concatenating
/// shuffles of its rows. The upstream lowering inserts each row into the
/// full-width result (R shuffles of R*C lanes each), which x86's instruction
/// selection legalizes piece by piece: for the tiled host atoms' 16x16 tiles
/// that was most of rocke-run's JIT time.
struct FlattenByConcatenation : OpRewritePattern<vector::ShapeCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ShapeCastOp op,
                                PatternRewriter &rewriter) const override {
    VectorType from = op.getSourceVectorType();
    if (from.getRank() != 2 || op.getResultVectorType().getRank() != 1 ||
        from.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed 2-D to 1-D cast");
    Location loc = op.getLoc();
    SmallVector<Value> parts;
    for (int64_t r = 0; r < from.getDimSize(0); ++r)
      parts.push_back(
          vector::ExtractOp::create(rewriter, loc, op.getSource(), r));
    while (parts.size() > 1) {
      SmallVector<Value> joined;
      for (size_t i = 0; i + 1 < parts.size(); i += 2) {
        int64_t width =
            cast<VectorType>(parts[i].getType()).getNumElements() +
            cast<VectorType>(parts[i + 1].getType()).getNumElements();
        joined.push_back(vector::ShuffleOp::create(
            rewriter, loc, parts[i], parts[i + 1],
            llvm::to_vector(llvm::seq<int64_t>(0, width))));
      }
      if (parts.size() % 2)
        joined.push_back(parts.back());
      parts = std::move(joined);
    }
    rewriter.replaceOp(op, parts.front());
    return success();
  }
};

/// The tiled host atoms hold 16x16 tiles as vector<256>: flattened from the
/// rows convert-vector-to-scf reads, transposed as one shuffle each.
LogicalResult flattenTiles(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  patterns.add<TransposeAsFlatShuffle, FlattenByConcatenation>(
      module.getContext());
  vector::ShapeCastOp::getCanonicalizationPatterns(patterns,
                                                   module.getContext());
  return applyPatternsGreedily(module, std::move(patterns));
}

/// bf16 data moved as i16. LLVM's x86 backend has vector bf16 types only
/// with AVX512-BF16; elsewhere it legalizes every <N x bfloat> load, store
/// and shuffle element by element, and one tiled bf16 case (<256 x bfloat>
/// host atoms) takes minutes to JIT instead of two seconds. Once the host
/// pipeline has expanded bf16 arithmetic into integer ops (arith-expand),
/// bf16 values are only moved and bit-cast, and moving 16-bit integers
/// instead is the same program. Modules where any other op touches bf16 are
/// left alone (correct, only slower to compile).
void moveBf16AsI16(ModuleOp module) {
  auto isBf16 = [](Type type) {
    bool found = false;
    type.walk([&](BFloat16Type) { found = true; });
    return found;
  };
  WalkResult arithmetic = module.walk([&](Operation *op) {
    // Ops that move bits, whatever their element type.
    if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::ShuffleVectorOp, LLVM::GEPOp,
            LLVM::InsertValueOp, LLVM::ExtractValueOp, LLVM::InsertElementOp,
            LLVM::ExtractElementOp, LLVM::BitcastOp, LLVM::SelectOp,
            LLVM::ConstantOp, LLVM::PoisonOp, LLVM::UndefOp, LLVM::ZeroOp,
            LLVM::AllocaOp, LLVM::CallOp, LLVM::LLVMFuncOp, LLVM::ReturnOp,
            LLVM::BrOp, LLVM::CondBrOp, LLVM::MaskedLoadOp,
            LLVM::MaskedStoreOp>(op))
      return WalkResult::advance();
    bool touches = llvm::any_of(op->getOperandTypes(), isBf16) ||
                   llvm::any_of(op->getResultTypes(), isBf16);
    return touches ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (arithmetic.wasInterrupted())
    return;
  Type i16 = IntegerType::get(module.getContext(), 16);
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](BFloat16Type) { return i16; });
  replacer.addReplacement(
      [&](DenseElementsAttr attr) -> std::optional<Attribute> {
        if (!attr.getElementType().isBF16())
          return std::nullopt;
        return attr.bitcast(i16);
      });
  replacer.addReplacement([&](FloatAttr attr) -> std::optional<Attribute> {
    if (!attr.getType().isBF16())
      return std::nullopt;
    return IntegerAttr::get(i16, attr.getValue().bitcastToAPInt());
  });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

FailureOr<std::unique_ptr<ExecutionEngine>> compile(ModuleOp module,
                                                    StringRef name) {
  FunctionType type = module.lookupSymbol<func::FuncOp>(name).getFunctionType();
  PassManager pm(module.getContext(), ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  // Accept both `a,b` and the anchored `builtin.module(a,b)`.
  StringRef pipeline = lowering;
  if (pipeline.starts_with("builtin.module(") && pipeline.ends_with(")"))
    pipeline = pipeline.drop_front(strlen("builtin.module(")).drop_back();
  if (failed(parsePassPipeline(pipeline, pm, errorStream)))
    return module.emitError()
           << "invalid --lowering pipeline '" << lowering << "': " << error;
  if (failed(pm.run(module)))
    return module.emitError()
           << "the --lowering pipeline '" << lowering << "' failed";
  auto lowered = module.lookupSymbol<func::FuncOp>(name);
  if (!lowered || lowered.getFunctionType() != type)
    return module.emitError() << "the --lowering pipeline changed or removed "
                                 "the function @"
                              << name;
  WalkResult leftover = module.walk<WalkOrder::PreOrder>([](Operation *op) {
    if (isa<fmha::FmhaDialect>(op->getDialect())) {
      // Kernel ops carry their fmha op's location: name the op left.
      InFlightDiagnostic diag = op->emitError() << "'" << op->getName()
                                                << "' left by --lowering; ";
      if (isa<fmha::AttentionFwdOp, fmha::AttentionBwdOp>(op))
        diag << "append ',fmha-lower-to-loops' to lower what a strategy "
                "does not handle";
      else
        diag << "it needs '" << rocke::passesToLower(op)
             << "' after fmha-bwd-to-kernels";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (leftover.wasInterrupted())
    return failure();
  lowered->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   UnitAttr::get(module.getContext()));

  auto runPipeline = [&](StringRef pipeline) {
    PassManager pm(module.getContext(), ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    return success(succeeded(parsePassPipeline(pipeline, pm)) &&
                   succeeded(pm.run(module)));
  };
  if (failed(splitNdVectorMemoryOps(module)) ||
      failed(runPipeline(kHostTransfers)) || failed(flattenTiles(module)) ||
      failed(runPipeline(kHostToLLVM)))
    return module.emitError()
           << "rocke-run's host lowering to the LLVM dialect failed";
  moveBf16AsI16(module);
  // Nothing is inlined: the host atoms' matrix function, called at every
  // fmha.mma, would otherwise be inlined and unrolled at each call, and the
  // JIT would compile each copy.
  module.walk([](LLVM::LLVMFuncOp fn) {
    if (!fn.isExternal())
      fn.setNoInline(true);
  });

  ExecutionEngineOptions options;
  // Test-sized problems run in microseconds; what costs is compiling the
  // unrolled vector code of tiled strategies, so optimise lightly.
  auto transformer = makeOptimizingTransformer(1, 0, nullptr);
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Less;
  // With LLVM built for perf (Debian's is), the perf listener writes a
  // jitdump of every compiled function under $HOME/.debug/jit: megabytes
  // per case, left behind by every run of the test suite.
  options.enablePerfNotificationListener = false;
  SmallVector<StringRef> libs;
  if (llvm::sys::fs::exists(ROCKE_C_RUNNER_UTILS))
    libs.push_back(ROCKE_C_RUNNER_UTILS);
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine)
    return module.emitError()
           << "JIT compilation failed: " << llvm::toString(engine.takeError());
  (*engine)->initialize();
  return std::move(*engine);
}

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

/// Prints one comparison line; returns whether it passed.
bool report(StringRef name, const std::vector<double> &got,
            const std::vector<double> &want, double tol,
            ArrayRef<int64_t> subset = {}) {
  double maxAbs = 0.0, maxRef = 0.0;
  int64_t bad = 0;
  auto visit = [&](int64_t i) {
    double g = got[i], w = want[i];
    if (std::isinf(w) && g == w)
      return; // -inf statistics of fully masked rows, checked exactly
    if (!std::isfinite(g) || !std::isfinite(w)) {
      ++bad;
      return;
    }
    maxAbs = std::max(maxAbs, std::fabs(g - w));
    maxRef = std::max(maxRef, std::fabs(w));
  };
  if (subset.empty())
    for (int64_t i = 0, e = got.size(); i < e; ++i)
      visit(i);
  else
    llvm::for_each(subset, visit);
  // Relative to the largest reference magnitude; absolute if that is 0.
  double rel = maxRef > 0.0 ? maxAbs / maxRef : maxAbs;
  bool pass = bad == 0 && rel <= tol;
  llvm::outs() << llvm::format("%-7s max_abs=%.3e max_rel=%.3e tol=%.1e ",
                               name.str().c_str(), maxAbs, rel, tol);
  if (bad)
    llvm::outs() << bad << " non-finite mismatches ";
  llvm::outs() << (pass ? "PASS" : "FAIL") << "\n";
  return pass;
}

class Runner {
public:
  Runner(Interface &in, ModuleOp module) : in(in), module(module) {}
  LogicalResult run();

private:
  /// One sequence of the batch: its first query and key token in the
  /// packed token order ([B, S] flattened for a dense batch) and lengths.
  struct Sequence {
    int64_t index, firstQ, seqQ, firstK, seqK;
  };
  SmallVector<Sequence> sequences() const;
  /// Flat offset of query row `s` of sequence `seq`, head `h`, in the
  /// statistics: [B, Hq, Sq], or [Hq, T_q] for a varlen batch.
  int64_t statAt(const Sequence &seq, int64_t h, int64_t s) const;
  ref::Problem problem() const;
  /// The float64 reference of each sequence, on its rows of the packed
  /// arrays (the whole batch at once when dense).
  ref::Forward forwardReference() const;
  ref::Gradients backwardReference() const;
  void generate();
  bool checkOutputs();
  bool checkMaskedExactZeros();
  bool checkFiniteDifferences();
  bool checkBiasDifferences();
  bool checkDropoutRate();
  void describe();

  Interface &in;
  ModuleOp module;
  SmallVector<Buffer> buffers; // one per function argument
  std::array<std::vector<double>, kNumRoles> values; // inputs, as doubles
  /// Contents of each captured argument.
  DenseMap<unsigned, std::vector<double>> captureValues;
  ref::Problem p;
  ref::Forward fwdRef;
  ref::Gradients bwdRef;
};

SmallVector<Runner::Sequence> Runner::sequences() const {
  SmallVector<Sequence> seqs;
  int64_t q = 0, k = 0;
  for (int64_t b = 0; b < in.size[SB]; ++b) {
    int64_t sq = in.varlen ? in.seqlensQ[b] : in.size[SQ];
    int64_t sk = in.varlen ? in.seqlensK[b] : in.size[SK];
    seqs.push_back({b, q, sq, k, sk});
    q += sq;
    k += sk;
  }
  return seqs;
}

int64_t Runner::statAt(const Sequence &seq, int64_t h, int64_t s) const {
  if (in.varlen)
    return h * p.seqQ + seq.firstQ + s;
  return (seq.index * p.headsQ + h) * p.seqQ + s;
}

ref::Problem Runner::problem() const {
  ref::Problem p;
  // A varlen batch is one packed "sequence" of T_q / T_k tokens to the
  // buffers; the reference runs its sequences one by one.
  p.batch = in.varlen ? 1 : in.size[SB];
  p.seqQ = in.size[SQ];
  p.seqK = in.size[SK];
  p.headsQ = in.size[SHQ];
  p.headsKV = in.size[SHKV];
  p.headDimQK = in.size[SDQK];
  p.headDimV = in.size[SDV];
  p.scale = in.scale;
  switch (in.mask.getKind()) {
  case fmha::MaskKind::none:
    p.mask.kind = ref::MaskKind::None;
    break;
  case fmha::MaskKind::causal:
    p.mask.kind = ref::MaskKind::Causal;
    break;
  case fmha::MaskKind::sliding_window:
    p.mask.kind = ref::MaskKind::SlidingWindow;
    break;
  case fmha::MaskKind::one_sided_window:
    p.mask.kind = ref::MaskKind::OneSidedWindow;
    break;
  }
  p.mask.bottomRight =
      in.mask.getAlignment() == fmha::MaskAlignment::bottom_right;
  p.mask.left = in.mask.getLeft().value_or(-1);
  p.mask.right = in.mask.getRight().value_or(-1);
  return p;
}

/// Inputs from the seed (rounded to the element type) and the reference. A
/// lone backward gets O and statistics from the float64 forward, rounded as
/// a forward kernel would store them.
void Runner::generate() {
  Generator gen(seedFlag);
  auto fill = [&](Role r, size_t n) {
    values[int(r)].resize(n);
    for (double &x : values[int(r)])
      x = Buffer::round(in.elt, gen.next(distFlag));
  };
  int64_t nq = p.batch * p.seqQ * p.headsQ;
  int64_t nk = p.batch * p.seqK * p.headsKV;
  fill(Role::Q, nq * p.headDimQK);
  fill(Role::K, nk * p.headDimQK);
  fill(Role::V, nk * p.headDimV);
  if (in.hasBwd)
    fill(Role::DO, nq * p.headDimV);
  if (in.varlen) {
    std::vector<double> &cuQ = values[int(Role::CuQ)];
    std::vector<double> &cuK = values[int(Role::CuK)];
    cuQ = {0.0};
    cuK = {0.0};
    for (const Sequence &seq : sequences()) {
      cuQ.push_back(seq.firstQ + seq.seqQ);
      cuK.push_back(seq.firstK + seq.seqK);
    }
  }
  if (in.scoreMod) {
    // Captured operands are f32 (the verifier), after the other inputs so
    // theirs do not change.
    std::vector<std::vector<double>> contents;
    std::vector<SmallVector<int64_t>> shapes;
    for (unsigned n : in.captureArgs) {
      MemRefType type = in.argTypes[n];
      std::vector<double> &x = captureValues[n];
      x.resize(type.getNumElements());
      for (double &e : x)
        e = static_cast<float>(gen.next(distFlag));
      contents.push_back(x);
      shapes.push_back(llvm::to_vector(type.getShape()));
    }
    p.scoreMod = ScoreModReference(*in.scoreMod, std::move(contents),
                                   std::move(shapes));
  }
  if (in.has(Role::Sinks)) {
    // f32 logits around log Sk, where a sink weighs as much as the keys.
    std::vector<double> &sinks = values[int(Role::Sinks)];
    sinks.resize(p.headsQ);
    for (double &x : sinks)
      x = static_cast<float>(gen.next(distFlag) + std::log(double(p.seqK)));
    p.sinks = sinks;
  }
  if (in.has(Role::Bias)) {
    MemRefType type = in.argTypes[in.roleArg[int(Role::Bias)]];
    std::vector<double> &bias = values[int(Role::Bias)];
    bias.resize(type.getNumElements());
    for (double &x : bias)
      x = Buffer::round(type.getElementType(), gen.next(distFlag));
    p.bias = bias;
    p.biasBatch = type.getDimSize(0);
    p.biasHeads = type.getDimSize(1);
  }
  if (in.has(Role::Dropout)) {
    values[int(Role::Dropout)] = {double(dropoutSeedFlag),
                                  double(dropoutOffsetFlag)};
    p.dropout = ref::philoxDropout(dropoutSeedFlag, dropoutOffsetFlag,
                                   in.dropoutP, p.headsQ);
    p.dropoutScale = 1.0 / (1.0 - double(in.dropoutP));
  }
  fwdRef = forwardReference();
  auto rounded = [](Type elt, std::vector<double> x) {
    for (double &e : x)
      e = Buffer::round(elt, e);
    return x;
  };
  Type f32 = Float32Type::get(module.getContext());
  values[int(Role::O)] = rounded(in.elt, fwdRef.out);
  values[int(Role::Stat0)] =
      rounded(f32, in.log2Stats() ? fwdRef.max2 : fwdRef.lse);
  values[int(Role::Stat1)] = rounded(f32, fwdRef.sum2);
  if (in.hasBwd)
    bwdRef = backwardReference();
}

/// Rows [first, first + count) of `rows` of `width` elements each.
static std::vector<double> rowsOf(const std::vector<double> &rows,
                                  int64_t first, int64_t count, int64_t width) {
  auto begin = rows.begin() + first * width;
  return std::vector<double>(begin, begin + count * width);
}

/// Writes `part` into `rows` from row `first` (`width` elements a row).
static void placeRows(std::vector<double> &rows,
                      const std::vector<double> &part, int64_t first,
                      int64_t width) {
  std::copy(part.begin(), part.end(), rows.begin() + first * width);
}

/// Elements per token of the packed Q, K, V and O arrays.
struct TokenWidths {
  int64_t q, k, v, o;
  explicit TokenWidths(const ref::Problem &p)
      : q(p.headsQ * p.headDimQK), k(p.headsKV * p.headDimQK),
        v(p.headsKV * p.headDimV), o(p.headsQ * p.headDimV) {}
};

/// `p` restricted to one sequence's lengths: a batch of one, which its
/// score_mod sees as sequence `index`.
static ref::Problem sequenceProblem(ref::Problem p, int64_t index,
                                    int64_t seqQ, int64_t seqK) {
  p.seqQ = seqQ;
  p.seqK = seqK;
  if (ref::ScoreMod mod = p.scoreMod)
    p.scoreMod = [mod, index](double s, int64_t, int64_t h, int64_t i,
                              int64_t j) { return mod(s, index, h, i, j); };
  if (ref::DropoutMask keep = p.dropout)
    p.dropout = [keep, index](int64_t, int64_t h, int64_t i, int64_t j) {
      return keep(index, h, i, j);
    };
  return p;
}

ref::Forward Runner::forwardReference() const {
  const std::vector<double> &q = values[int(Role::Q)],
                            &k = values[int(Role::K)],
                            &v = values[int(Role::V)];
  if (!in.varlen)
    return ref::forward(p, q, k, v);
  ref::Forward all;
  TokenWidths w(p);
  all.out.assign(p.seqQ * w.o, 0.0);
  for (auto *stat : {&all.lse, &all.max2, &all.sum2})
    stat->assign(p.headsQ * p.seqQ, 0.0);
  for (const Sequence &seq : sequences()) {
    ref::Problem one = sequenceProblem(p, seq.index, seq.seqQ, seq.seqK);
    ref::Forward f = ref::forward(one, rowsOf(q, seq.firstQ, seq.seqQ, w.q),
                                  rowsOf(k, seq.firstK, seq.seqK, w.k),
                                  rowsOf(v, seq.firstK, seq.seqK, w.v));
    placeRows(all.out, f.out, seq.firstQ, w.o);
    for (int64_t h = 0; h < p.headsQ; ++h)
      for (int64_t i = 0; i < seq.seqQ; ++i) {
        int64_t from = one.stat(0, h, i), to = statAt(seq, h, i);
        all.lse[to] = f.lse[from];
        all.max2[to] = f.max2[from];
        all.sum2[to] = f.sum2[from];
      }
  }
  return all;
}

ref::Gradients Runner::backwardReference() const {
  const std::vector<double> &q = values[int(Role::Q)],
                            &k = values[int(Role::K)],
                            &v = values[int(Role::V)],
                            &o = values[int(Role::O)],
                            &dO = values[int(Role::DO)];
  if (!in.varlen)
    return ref::backward(p, q, k, v, o, dO);
  ref::Gradients all;
  TokenWidths w(p);
  all.dq.assign(p.seqQ * w.q, 0.0);
  all.dk.assign(p.seqK * w.k, 0.0);
  all.dv.assign(p.seqK * w.v, 0.0);
  all.dsink.assign(p.sinks.size(), 0.0);
  for (const Sequence &seq : sequences()) {
    ref::Gradients g = ref::backward(
        sequenceProblem(p, seq.index, seq.seqQ, seq.seqK),
        rowsOf(q, seq.firstQ, seq.seqQ, w.q),
        rowsOf(k, seq.firstK, seq.seqK, w.k),
        rowsOf(v, seq.firstK, seq.seqK, w.v),
        rowsOf(o, seq.firstQ, seq.seqQ, w.o),
        rowsOf(dO, seq.firstQ, seq.seqQ, w.o));
    placeRows(all.dq, g.dq, seq.firstQ, w.q);
    placeRows(all.dk, g.dk, seq.firstK, w.k);
    placeRows(all.dv, g.dv, seq.firstK, w.v);
    for (auto [sum, part] : llvm::zip(all.dsink, g.dsink))
      sum += part;
  }
  return all;
}

void Runner::describe() {
  llvm::outs() << (in.hasFwd && in.hasBwd ? "fwd+bwd"
                   : in.hasFwd            ? "fwd"
                                          : "bwd")
               << " " << in.elt;
  if (in.varlen) {
    llvm::outs() << " varlen Sq=[";
    llvm::interleaveComma(in.seqlensQ, llvm::outs());
    llvm::outs() << "] Sk=[";
    llvm::interleaveComma(in.seqlensK, llvm::outs());
    llvm::outs() << "]";
  } else {
    llvm::outs() << " B=" << p.batch << " Sq=" << p.seqQ << " Sk=" << p.seqK;
  }
  llvm::outs() << " Hq=" << p.headsQ << " Hkv=" << p.headsKV
               << " Dqk=" << p.headDimQK << " Dv=" << p.headDimV
               << " mask=" << in.mask
               << " stats=" << fmha::stringifyStatsEncoding(in.encoding);
  if (in.scoreMod)
    llvm::outs() << " score_mod";
  if (in.has(Role::Sinks))
    llvm::outs() << " sinks";
  if (in.has(Role::Bias))
    llvm::outs() << " bias";
  if (in.has(Role::Dropout))
    llvm::outs() << " dropout(p=" << llvm::format("%g", double(in.dropoutP))
                 << ")";
  llvm::outs() << " lowering=" << lowering << "\n";
}

bool Runner::checkOutputs() {
  double tol = toleranceFor(in.elt);
  // bf16 gradient accumulators may lose what bf16 inputs lose.
  double gradTol = tol;
  if (in.accumulator && in.accumulator.isBF16())
    gradTol = std::max(tol, toleranceFor(in.accumulator));
  bool pass = true;
  auto check = [&](Role r, const std::vector<double> &want, double t) {
    if (in.has(r) && in.isOutput(r))
      pass &= report(in.name(r), buffers[in.roleArg[int(r)]].read(), want, t);
  };
  check(Role::O, fwdRef.out, tol);
  check(Role::Stat0, in.log2Stats() ? fwdRef.max2 : fwdRef.lse, tol);
  check(Role::Stat1, fwdRef.sum2, tol);
  check(Role::DQ, bwdRef.dq, gradTol);
  check(Role::DK, bwdRef.dk, gradTol);
  check(Role::DV, bwdRef.dv, gradTol);
  check(Role::DSinks, bwdRef.dsink, gradTol);
  check(Role::DBias, bwdRef.dbias, gradTol);
  return pass;
}

/// The reference's mask drops about p of all scores: a binomial count
/// within five standard deviations of p N (the kernels' masks are the
/// reference's where their outputs match it).
bool Runner::checkDropoutRate() {
  int64_t dropped = 0, total = 0;
  for (const Sequence &seq : sequences())
    for (int64_t h = 0; h < p.headsQ; ++h)
      for (int64_t i = 0; i < seq.seqQ; ++i)
        for (int64_t j = 0; j < seq.seqK; ++j, ++total)
          dropped += !p.dropout(seq.index, h, i, j);
  double rate = double(dropped) / double(total);
  double sigma = std::sqrt(in.dropoutP * (1.0 - in.dropoutP) / double(total));
  bool pass = std::abs(rate - in.dropoutP) <= 5.0 * sigma + 1.0 / total;
  llvm::outs() << "dropout dropped " << dropped << " of " << total << " ("
               << llvm::format("%.4f", rate)
               << ", p = " << llvm::format("%g", double(in.dropoutP)) << ") "
               << (pass ? "PASS" : "FAIL") << "\n";
  return pass;
}

/// Fully masked query rows must give O = 0, empty statistics (with sinks,
/// those of the sink alone, checked within tolerance) and dQ = 0, and
/// keys no query sees dK = dV = 0, all exactly (not merely within tolerance).
/// Sequence by sequence (a varlen batch's lengths differ; a query row of an
/// empty key sequence sees nothing, and no query sees a key of an empty
/// query sequence). The counts printed are per sequence for a dense batch
/// (its sequences are alike), totals for a varlen one.
bool Runner::checkMaskedExactZeros() {
  int64_t wrong = 0, emptyRows = 0, unseenKeys = 0;
  std::array<std::vector<double>, kNumRoles> got;
  for (Role r :
       {Role::O, Role::Stat0, Role::Stat1, Role::DQ, Role::DK, Role::DV})
    if (in.has(r) && in.isOutput(r))
      got[int(r)] = buffers[in.roleArg[int(r)]].read();
  for (const Sequence &seq : sequences()) {
    SmallVector<int64_t> rows, cols;
    for (int64_t i = 0; i < seq.seqQ; ++i)
      if (llvm::none_of(llvm::seq<int64_t>(0, seq.seqK), [&](int64_t j) {
            return p.mask.visible(i, j, seq.seqQ, seq.seqK);
          }))
        rows.push_back(i);
    for (int64_t j = 0; j < seq.seqK; ++j)
      if (llvm::none_of(llvm::seq<int64_t>(0, seq.seqQ), [&](int64_t i) {
            return p.mask.visible(i, j, seq.seqQ, seq.seqK);
          }))
        cols.push_back(j);
    emptyRows += rows.size();
    unseenKeys += cols.size();
    // Counts elements of output `r` at sequence positions `at` that differ
    // from `expect`.
    auto count = [&](Role r, ArrayRef<int64_t> at, double expect) {
      if (got[int(r)].empty())
        return;
      bool stats = r == Role::Stat0 || r == Role::Stat1;
      bool keySide = r == Role::DK || r == Role::DV;
      int64_t heads = keySide ? p.headsKV : p.headsQ;
      int64_t first = keySide ? seq.firstK : seq.firstQ;
      int64_t dim = r == Role::DQ || r == Role::DK ? p.headDimQK : p.headDimV;
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t s : at) {
          if (stats) {
            wrong += got[int(r)][statAt(seq, h, s)] != expect;
            continue;
          }
          // The token's [H, D] row of the packed ([B * S] or T) tokens.
          for (int64_t d = 0; d < dim; ++d)
            wrong += got[int(r)][((first + s) * heads + h) * dim + d] != expect;
        }
    };
    double negInf = -std::numeric_limits<double>::infinity();
    count(Role::O, rows, 0.0);
    if (!in.has(Role::Sinks)) {
      count(Role::Stat0, rows, negInf);
      count(Role::Stat1, rows, 0.0);
    }
    count(Role::DQ, rows, 0.0);
    count(Role::DK, cols, 0.0);
    count(Role::DV, cols, 0.0);
  }
  if (emptyRows == 0 && unseenKeys == 0)
    return true;
  if (!in.varlen) {
    emptyRows /= p.batch;
    unseenKeys /= p.batch;
  }
  llvm::outs() << "masked  " << emptyRows << " empty query rows, " << unseenKeys
               << " unseen keys: " << wrong << " inexact elements "
               << (wrong ? "FAIL" : "PASS") << "\n";
  return wrong == 0;
}

/// Central differences of loss = sum(O * dO) of the float64 forward, against
/// the module's gradients, on all or --fd-samples elements of Q, K and V,
/// and on every sink where the module computes their gradient.
bool Runner::checkFiniteDifferences() {
  Generator gen(seedFlag + 1);
  bool pass = true;
  int64_t group = p.headsQ / p.headsKV;
  for (auto roles : {std::pair{Role::Q, Role::DQ},
                     {Role::K, Role::DK},
                     {Role::V, Role::DV}}) {
    Role input = roles.first, grad = roles.second;
    std::vector<double> &x = values[int(input)];
    std::vector<double> fd(x.size(), 0.0);
    SmallVector<int64_t> subset;
    if (fdSamples == 0 || fdSamples >= x.size())
      subset = llvm::to_vector(llvm::seq<int64_t>(0, x.size()));
    else
      for (unsigned s = 0; s < fdSamples; ++s)
        subset.push_back(gen.index(x.size()));
    int64_t dim = input == Role::V ? p.headDimV : p.headDimQK;
    int64_t heads = input == Role::Q ? p.headsQ : p.headsKV;
    int64_t seq = input == Role::Q ? p.seqQ : p.seqK;
    for (int64_t e : subset) {
      // [B, S, H, D] coordinates of the element and the rows it influences.
      int64_t h = (e / dim) % heads, s = (e / dim / heads) % seq;
      int64_t b = e / dim / heads / seq;
      auto loss = [&] {
        double l = 0.0;
        if (input == Role::Q)
          return ref::rowLoss(p, values[int(Role::Q)], values[int(Role::K)],
                              values[int(Role::V)], values[int(Role::DO)], b, h,
                              s);
        for (int64_t hq = h * group; hq < (h + 1) * group; ++hq)
          for (int64_t i = 0; i < p.seqQ; ++i)
            l += ref::rowLoss(p, values[int(Role::Q)], values[int(Role::K)],
                              values[int(Role::V)], values[int(Role::DO)], b,
                              hq, i);
        return l;
      };
      fd[e] = centralDifference(x[e], loss);
    }
    double tol = std::max(kFdTolerance, toleranceFor(in.elt));
    pass &= report(in.name(grad) + "(fd)",
                   buffers[in.roleArg[int(grad)]].read(), fd, tol, subset);
  }
  if (in.has(Role::DBias))
    pass &= checkBiasDifferences();
  if (!in.has(Role::DSinks))
    return pass;
  // A sink enters every row of its head.
  std::vector<double> fd(p.headsQ);
  for (int64_t h = 0; h < p.headsQ; ++h) {
    auto loss = [&] {
      double l = 0.0;
      for (int64_t b = 0; b < p.batch; ++b)
        for (int64_t i = 0; i < p.seqQ; ++i)
          l += ref::rowLoss(p, values[int(Role::Q)], values[int(Role::K)],
                            values[int(Role::V)], values[int(Role::DO)], b, h,
                            i);
      return l;
    };
    fd[h] = centralDifference(p.sinks[h], loss);
  }
  double tol = std::max(kFdTolerance, toleranceFor(in.elt));
  pass &= report(in.name(Role::DSinks) + "(fd)",
                 buffers[in.roleArg[int(Role::DSinks)]].read(), fd, tol);
  return pass;
}

/// Central differences of the loss with respect to --fd-samples (or all)
/// elements of the bias, each entering query row i of every batch and head
/// it broadcasts over.
bool Runner::checkBiasDifferences() {
  Generator gen(seedFlag + 2);
  std::vector<double> fd(p.bias.size(), 0.0);
  SmallVector<int64_t> subset;
  if (fdSamples == 0 || fdSamples >= p.bias.size())
    subset = llvm::to_vector(llvm::seq<int64_t>(0, p.bias.size()));
  else
    for (unsigned s = 0; s < fdSamples; ++s)
      subset.push_back(gen.index(p.bias.size()));
  for (int64_t e : subset) {
    int64_t i = (e / p.seqK) % p.seqQ;
    int64_t h = (e / p.seqK / p.seqQ) % p.biasHeads;
    int64_t b = e / p.seqK / p.seqQ / p.biasHeads;
    auto loss = [&] {
      double l = 0.0;
      for (int64_t bi = 0; bi < p.batch; ++bi)
        for (int64_t hi = 0; hi < p.headsQ; ++hi)
          if ((p.biasBatch == 1 || bi == b) && (p.biasHeads == 1 || hi == h))
            l += ref::rowLoss(p, values[int(Role::Q)], values[int(Role::K)],
                              values[int(Role::V)], values[int(Role::DO)], bi,
                              hi, i);
      return l;
    };
    fd[e] = centralDifference(p.bias[e], loss);
  }
  double tol = std::max(kFdTolerance, toleranceFor(in.elt));
  return report(in.name(Role::DBias) + "(fd)",
                buffers[in.roleArg[int(Role::DBias)]].read(), fd, tol, subset);
}

LogicalResult Runner::run() {
  p = problem();
  describe();
  if (fdCheck && in.varlen)
    return emitError(in.loc)
           << "--fd-check checks dense batches; a varlen one is checked "
              "against the reference sequence by sequence";
  if (fdCheck && !in.hasBwd)
    return emitError(in.loc) << "--fd-check needs an attention_bwd";
  for (const llvm::cl::opt<uint64_t> *flag :
       {&dropoutSeedFlag, &dropoutOffsetFlag})
    if (*flag >= (uint64_t(1) << 53))
      return emitError(in.loc)
             << "--" << flag->ArgStr << " must be below 2^53, got "
             << uint64_t(*flag);
  for (unsigned n = 0; n < in.argRole.size(); ++n) {
    FailureOr<Buffer> b = allocate(in, n);
    if (failed(b))
      return failure();
    buffers.push_back(std::move(*b));
  }
  generate();

  auto engine = compile(module, in.funcName);
  if (failed(engine))
    return failure();
  std::string entry = "_mlir_ciface_" + in.funcName;
  SmallVector<SmallVector<int64_t>> descriptors;
  SmallVector<void *> descriptorPtrs, args;
  for (Buffer &b : buffers)
    descriptors.push_back(b.descriptor());
  for (auto &d : descriptors)
    descriptorPtrs.push_back(d.data());
  for (void *&d : descriptorPtrs)
    args.push_back(&d);

  SmallVector<Buffer> firstRun;
  bool identical = true;
  for (unsigned run = 0; run < std::max(1u, unsigned(repeatFlag)); ++run) {
    for (auto [n, r] : llvm::enumerate(in.argRole)) {
      if (in.isOutput(r))
        buffers[n].poison();
      else if (r == Role::Capture)
        buffers[n].write(captureValues[n]);
      else
        buffers[n].write(values[int(r)]);
    }
    if (llvm::Error err = (*engine)->invokePacked(entry, args))
      return emitError(in.loc)
             << "execution failed: " << llvm::toString(std::move(err));
    if (run == 0)
      firstRun = buffers;
    else
      for (auto [a, b] : llvm::zip(firstRun, buffers))
        identical &= a.bitwiseEqual(b);
  }

  bool pass = checkOutputs();
  pass &= checkMaskedExactZeros();
  if (in.has(Role::Dropout))
    pass &= checkDropoutRate();
  if (fdCheck)
    pass &= checkFiniteDifferences();
  if (expectIdentical) {
    llvm::outs() << "repeat  " << repeatFlag << " runs "
                 << (identical ? "bitwise identical PASS" : "differ FAIL")
                 << "\n";
    pass &= identical;
  }
  return success(pass);
}

LogicalResult processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            MLIRContext &context, int &caseNumber) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  int number = caseNumber++;
  // Each case ends with "case N: PASS" or "case N: FAIL"; errors that stop
  // it early are diagnostics on stderr.
  LogicalResult result = [&]() -> LogicalResult {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return failure();
    FailureOr<Interface> in = analyze(*module);
    if (failed(in))
      return failure();
    llvm::outs() << "case " << number << ": ";
    return Runner(*in, *module).run();
  }();
  llvm::outs() << "case " << number << ": "
               << (succeeded(result) ? "PASS" : "FAIL") << "\n";
  return result;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllPasses();
  registerRockePasses();
  registerPipelines();
  llvm::cl::HideUnrelatedOptions(runCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "rocke-run: execute fmha modules on the CPU and check them against a "
      "float64 reference\n\n"
      "Varlen (packed) batches: the public function states its sequences' "
      "lengths as attributes, e.g.\n"
      "  func.func @f(...) attributes {rocke.seqlens_q = array<i64: 3, 0, "
      "17>,\n"
      "                               rocke.seqlens_k = array<i64: 5, 2, 17>}\n"
      "(rocke.seqlens_k defaults to rocke.seqlens_q); rocke-run fills "
      "cu_seqlens_q / cu_seqlens_k\nwith their prefix sums and checks each "
      "sequence against the float64 reference.\n");

  if (expectIdentical && repeatFlag < 2) {
    llvm::errs() << "rocke-run: --expect-identical compares runs; pass "
                    "--repeat=N with N >= 2\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<fmha::FmhaDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Results and diagnostics interleave in the order they happen.
  llvm::outs().SetUnbuffered();

  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << "rocke-run: " << error << "\n";
    return 1;
  }
  int caseNumber = 0;
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk, raw_ostream &) {
    return processBuffer(std::move(chunk), context, caseNumber);
  };
  LogicalResult result =
      splitInputFile
          ? splitAndProcessBuffer(std::move(file), process, llvm::outs())
          : process(std::move(file), llvm::outs());
  return failed(result) ? 1 : 0;
}
