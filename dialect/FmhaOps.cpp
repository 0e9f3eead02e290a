//===- FmhaOps.cpp - fmha op verifiers and helpers ------------------------===//
#include "dialect/FmhaDialect.h"
#include "dialect/ScoreMod.h"
#include "lib/Target/FragmentLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace rocke::fmha;

static bool inWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// What follows the attention ops' `score_mod` keyword: `softcap(C)`,
/// `alibi(%slopes : type)` (regions built here), or `[(%captures : types)]
/// { region }`.
static ParseResult
parseScoreMod(OpAsmParser &parser,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &captures,
              SmallVectorImpl<Type> &captureTypes, Region &region) {
  OpBuilder b(parser.getContext());
  SMLoc at = parser.getCurrentLocation();
  Location loc = parser.getEncodedSourceLoc(at);
  if (succeeded(parser.parseOptionalKeyword("softcap"))) {
    double cap;
    if (parser.parseLParen() || parser.parseFloat(cap) || parser.parseRParen())
      return failure();
    // The region multiplies by 1 / cap: both finite in f32.
    float capF32 = static_cast<float>(cap);
    if (!(cap > 0.0) || !std::isfinite(capF32) || !std::isfinite(1.0f / capF32))
      return parser.emitError(at, "softcap takes a cap in (0, 3.4e38] whose "
                                  "f32 reciprocal is finite, got ")
             << cap;
    buildSoftcapScoreMod(b, loc, region, capF32);
    return success();
  }
  bool alibi = succeeded(parser.parseOptionalKeyword("alibi"));
  if (succeeded(parser.parseOptionalLParen()) &&
      (parser.parseOperandList(captures) ||
       parser.parseColonTypeList(captureTypes) || parser.parseRParen()))
    return failure();
  if (!alibi)
    return parser.parseRegion(region, /*arguments=*/{});
  auto slopes = captureTypes.size() == 1
                    ? dyn_cast<MemRefType>(captureTypes.front())
                    : MemRefType();
  if (!slopes || !slopes.getElementType().isF32() ||
      (slopes.getRank() != 1 && slopes.getRank() != 2))
    return parser.emitError(at, "alibi takes one memref of f32 slopes, [Hq] "
                                "or [B, Hq]");
  buildAlibiScoreMod(b, loc, region, slopes);
  return success();
}

static void printScoreMod(OpAsmPrinter &p, Operation *, OperandRange captures,
                          TypeRange captureTypes, Region &region) {
  if (!captures.empty()) {
    p << "(" << captures << " : ";
    llvm::interleaveComma(captureTypes, p);
    p << ") ";
  }
  p.printRegion(region, /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

#define GET_OP_CLASSES
#include "dialect/FmhaOps.cpp.inc"

LogicalResult rocke::fmha::verifyKnownAttributes(Operation *op) {
  ArrayRef<StringAttr> known = op->getName().getAttributeNames();
  for (NamedAttribute attr : op->getAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name.contains('.') || llvm::is_contained(known, attr.getName()))
      continue;
    if (isa<AttentionFwdOp>(op) &&
        llvm::is_contained(AttentionBwdOp::getAttributeNames(), name))
      return op->emitOpError()
             << "does not take '" << name
             << "': a backward-only attribute (fmha.attention_bwd)";
    InFlightDiagnostic diag = op->emitOpError()
                              << "has no attribute '" << name << "' (";
    SmallVector<StringRef> names;
    for (StringAttr knownName : known)
      // Sizes the op's variadic operands: set by the op's builder, not by hand.
      if (knownName.getValue() != "operandSegmentSizes")
        names.push_back(knownName.getValue());
    if (names.empty())
      return diag << "it takes none)";
    diag << "it takes ";
    llvm::interleaveComma(names, diag);
    return diag << ")";
  }
  return success();
}

namespace {
/// Logical dims of the tile ops' [B, S, H, D] memrefs.
enum : unsigned { kBatch = 0, kSeq = 1, kHeads = 2, kHeadDim = 3 };

/// Shape checks shared by the forward and the backward op: operands [B, S,
/// H, D] and statistics [B, Hq, Sq], or, for packed batches (`varlen`),
/// [T, H, D] and [Hq, T_q].
struct AttentionVerifier {
  Operation *op;
  bool packed = false;

  InFlightDiagnostic error() { return op->emitOpError(); }

  int64_t rank() const { return packed ? 3 : 4; }
  /// The operands' token (sequence), head and head-dim dims.
  unsigned seqDim() const { return packed ? 0 : 1; }
  unsigned headsDim() const { return packed ? 1 : 2; }
  unsigned headDimDim() const { return packed ? 2 : 3; }

  static std::string dimStr(int64_t d) {
    return ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }

  LogicalResult checkTensor(StringRef name, Value v, MemRefType &type) {
    type = cast<MemRefType>(v.getType());
    if (type.getRank() != rank())
      return error() << name
                     << (packed ? " must be a rank-3 memref [T, H, D] (packed "
                                  "tokens of a varlen batch), got "
                                : " must be a rank-4 memref [B, S, H, D], got ")
                     << type;
    if (!type.isStrided())
      return error() << name << " must have a strided layout, got " << type;
    if (hasNegativeStride(type))
      return error() << name << " must have non-negative strides, got " << type;
    for (unsigned d : {headsDim(), headDimDim()})
      if (type.isDynamicDim(d))
        return error() << name << " must have static head count and head dim";
    for (unsigned d = 0; d < rank(); ++d)
      if (type.getDimSize(d) == 0)
        return error() << name << " has an empty dimension " << d
                       << (packed ? "; tokens, heads and head dim must be > 0"
                                  : "; batch, sequence, heads and head dim "
                                    "must be > 0");
    return success();
  }

  static bool hasNegativeStride(MemRefType type) {
    auto [strides, offset] = type.getStridesAndOffset();
    return llvm::any_of(strides, [](int64_t stride) {
      return !ShapedType::isDynamic(stride) && stride < 0;
    });
  }

  /// A [B, S, H, D] operand: S and H of the queries or of the keys, D of Q /
  /// K or of V.
  struct Tensor {
    StringRef name;
    MemRefType type;
    bool keySide, valueHeadDim;
  };

  /// Every static extent of each logical size agrees across `tensors` and
  /// the [B, Hq, Sq] `stats`: a dynamic extent between two static ones that
  /// differ must not hide the mismatch.
  LogicalResult agreeSizes(ArrayRef<Tensor> tensors, ValueRange stats) {
    // (operand, extent) per logical size, in the order they are checked.
    enum { B, Hq, Hkv, Sq, Sk, Dqk, Dv, kSizes };
    static constexpr const char *kWhat[kSizes] = {"batch",
                                                  "query head count",
                                                  "kv head count",
                                                  "query sequence length",
                                                  "key sequence length",
                                                  "qk head dim",
                                                  "v head dim"};
    SmallVector<std::pair<StringRef, int64_t>> extents[kSizes];
    for (const Tensor &t : tensors) {
      if (!packed)
        extents[B].push_back({t.name, t.type.getDimSize(0)});
      extents[t.keySide ? Sk : Sq].push_back(
          {t.name, t.type.getDimSize(seqDim())});
      extents[t.keySide ? Hkv : Hq].push_back(
          {t.name, t.type.getDimSize(headsDim())});
      extents[t.valueHeadDim ? Dv : Dqk].push_back(
          {t.name, t.type.getDimSize(headDimDim())});
    }
    for (Value s : stats) {
      auto st = cast<MemRefType>(s.getType());
      unsigned first = packed ? 0 : 1;
      if (!packed)
        extents[B].push_back({"statistics", st.getDimSize(0)});
      extents[Hq].push_back({"statistics", st.getDimSize(first)});
      extents[Sq].push_back({"statistics", st.getDimSize(first + 1)});
    }
    for (int size = 0; size < kSizes; ++size) {
      const std::pair<StringRef, int64_t> *first = nullptr;
      for (const auto &extent : extents[size]) {
        if (ShapedType::isDynamic(extent.second))
          continue;
        if (!first)
          first = &extent;
        else if (failed(same(packed && size == Sq   ? "query token count"
                             : packed && size == Sk ? "key token count"
                                                    : kWhat[size],
                             first->second, first->first, extent.second,
                             extent.first)))
          return failure();
      }
    }
    return success();
  }

  /// Fails when two extents that must agree are both static and differ.
  LogicalResult same(StringRef what, int64_t a, StringRef aName, int64_t b,
                     StringRef bName) {
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b)
      return success();
    return error() << what << " mismatch: " << aName << " has " << a << ", "
                   << bName << " has " << b;
  }

  LogicalResult checkElementType(StringRef name, Type t, Type expected) {
    if (t != expected)
      return error() << name << " element type " << t
                     << " differs from the query's " << expected;
    return success();
  }

  LogicalResult verifyInputs(Value q, Value k, Value v, Value o,
                             ValueRange stats, StatsEncoding encoding,
                             std::optional<float> scale) {
    MemRefType qt, kt, vt, ot;
    if (failed(checkTensor("query", q, qt)) ||
        failed(checkTensor("key", k, kt)) ||
        failed(checkTensor("value", v, vt)) ||
        failed(checkTensor("out", o, ot)))
      return failure();
    Type elt = qt.getElementType();
    if (!elt.isF16() && !elt.isBF16() && !elt.isF32())
      return error() << "element type must be f16, bf16 or f32, got " << elt;
    if (failed(checkElementType("key", kt.getElementType(), elt)) ||
        failed(checkElementType("value", vt.getElementType(), elt)) ||
        failed(checkElementType("out", ot.getElementType(), elt)))
      return failure();

    int64_t hq = qt.getDimSize(headsDim()), hkv = kt.getDimSize(headsDim());
    if (hq % hkv != 0)
      return error() << "query head count " << hq
                     << " is not a multiple of the kv head count " << hkv;
    for (auto [name, d] :
         {std::pair<StringRef, int64_t>{"qk", qt.getDimSize(headDimDim())},
          {"v", vt.getDimSize(headDimDim())}})
      if (!isSupportedHeadDim(d))
        return error() << "unsupported " << name << " head dim " << d
                       << " (supported: 32, 64, 96, 128, 192, 256)";

    if (scale && (!std::isfinite(*scale) || *scale <= 0.0f))
      return error() << "scale must be a positive finite number, got "
                     << *scale;

    size_t expectedStats = encoding == StatsEncoding::lse ? 1 : 2;
    if (stats.size() != expectedStats)
      return error() << "stats encoding '" << stringifyStatsEncoding(encoding)
                     << "' needs " << expectedStats
                     << " statistics operand(s), got " << stats.size();
    for (Value s : stats) {
      auto st = cast<MemRefType>(s.getType());
      if (st.getRank() != rank() - 1 || !st.getElementType().isF32() ||
          !st.isStrided() || hasNegativeStride(st))
        return error() << (packed ? "statistics of a varlen batch must be "
                                    "strided rank-2 f32 memrefs [Hq, T_q]"
                                  : "statistics must be strided rank-3 f32 "
                                    "memrefs [B, Hq, Sq]")
                       << " with non-negative strides, got " << st;
      // With dynamic B or Sq in the query, only this catches an empty one.
      if (llvm::is_contained(st.getShape(), 0))
        return error() << "statistics have an empty dimension, got " << st;
    }
    const Tensor tensors[] = {{"query", qt, false, false},
                              {"key", kt, true, false},
                              {"value", vt, true, true},
                              {"out", ot, false, true}};
    return agreeSizes(tensors, stats);
  }

  /// A gradient has the shape of its primal and the input or f32 element type.
  LogicalResult verifyGradient(StringRef name, Value grad, Value primal) {
    MemRefType gt;
    if (failed(checkTensor(name, grad, gt)))
      return failure();
    auto pt = cast<MemRefType>(primal.getType());
    for (unsigned d = 0; d < rank(); ++d)
      if (failed(same("gradient shape", gt.getDimSize(d), name,
                      pt.getDimSize(d), "its primal")))
        return failure();
    Type elt = gt.getElementType();
    if (elt != pt.getElementType() && !elt.isF32())
      return error() << name << " element type must be " << pt.getElementType()
                     << " or f32, got " << elt;
    return success();
  }

  /// The varlen clause: both offsets or neither (which sets `packed`), each
  /// a [B + 1] i32 memref of one length, and the maxima attributes only
  /// with it, positive, at most the static token counts, and given where
  /// those are dynamic.
  LogicalResult verifyVarlen(Value cuQ, Value cuK, std::optional<int64_t> maxQ,
                             std::optional<int64_t> maxK, Value q, Value k) {
    if (bool(cuQ) != bool(cuK))
      return error() << "takes cu_seqlens_q and cu_seqlens_k together (the "
                        "varlen clause), got only "
                     << (cuQ ? "cu_seqlens_q" : "cu_seqlens_k");
    packed = bool(cuQ);
    if (!packed) {
      for (auto [name, given] :
           {std::pair<StringRef, bool>{"max_seqlen_q", bool(maxQ)},
            {"max_seqlen_k", bool(maxK)}})
        if (given)
          return error() << name
                         << " applies to varlen batches only; without "
                            "varlen(cu_seqlens_q, cu_seqlens_k) the lengths "
                            "are the memrefs' sequence dims";
      return success();
    }
    SmallVector<int64_t, 2> lengths;
    for (auto [name, cu] : {std::pair<StringRef, Value>{"cu_seqlens_q", cuQ},
                            {"cu_seqlens_k", cuK}}) {
      auto type = cast<MemRefType>(cu.getType());
      if (type.getRank() != 1 || !type.getElementType().isSignlessInteger(32) ||
          !type.isStrided() || hasNegativeStride(type))
        return error() << name
                       << " must be a strided rank-1 i32 memref [B + 1] with "
                          "a non-negative stride, got "
                       << type;
      int64_t n = type.getDimSize(0);
      if (!ShapedType::isDynamic(n) && n < 2)
        return error() << name << " has " << n
                       << " elements; the offsets of B sequences are B + 1 "
                          ">= 2 elements";
      lengths.push_back(n);
    }
    if (failed(same("cu_seqlens length", lengths[0], "cu_seqlens_q", lengths[1],
                    "cu_seqlens_k")))
      return failure();
    for (auto [name, max, tensor, what] :
         {std::make_tuple(StringRef("max_seqlen_q"), maxQ, q, "query"),
          std::make_tuple(StringRef("max_seqlen_k"), maxK, k, "key")}) {
      int64_t tokens = cast<MemRefType>(tensor.getType()).getDimSize(0);
      if (!max) {
        if (ShapedType::isDynamic(tokens))
          return error() << "needs " << name << ": the " << what
                         << " token count is dynamic, and the longest "
                            "sequence sizes the launch grid";
        continue;
      }
      if (*max < 1)
        return error() << name << " must be positive, got " << *max;
      if (!ShapedType::isDynamic(tokens) && *max > tokens)
        return error() << name << " (" << *max << ") exceeds the " << tokens
                       << " " << what << " tokens of the batch";
    }
    return success();
  }

  /// An operand as the messages name it; outputs are written.
  struct Buffer {
    StringRef name;
    Value value;
    bool output;
  };

  /// The kernels address global memory only, and an output shares no
  /// element with another operand or with itself: workgroups would race on
  /// it, or read what another one writes. The `stats` are outputs with
  /// `statsAreOutputs`.
  LogicalResult verifyBuffers(ArrayRef<Buffer> tensors, ValueRange stats,
                              bool statsAreOutputs) {
    SmallVector<std::string> statsNames;
    for (unsigned i = 0; i < stats.size(); ++i)
      statsNames.push_back("stats[" + std::to_string(i) + "]");
    SmallVector<Buffer> buffers(tensors);
    for (auto [name, value] : llvm::zip(statsNames, stats))
      buffers.push_back({name, value, statsAreOutputs});
    for (const Buffer &b : buffers) {
      Attribute space = cast<MemRefType>(b.value.getType()).getMemorySpace();
      auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space);
      if (space &&
          (!gpuSpace || gpuSpace.getValue() != gpu::AddressSpace::Global))
        return error() << b.name << " is in memory space " << space
                       << "; the kernels take global memory (no memory space "
                          "or #gpu.address_space<global>)";
    }
    for (const Buffer &b : buffers) {
      if (!b.output)
        continue;
      for (const Buffer &other : buffers)
        if (&other != &b && other.value == b.value)
          return error() << "output " << b.name << " is the same buffer as "
                         << other.name
                         << ": an output must not alias another operand";
      auto type = cast<MemRefType>(b.value.getType());
      if (failed(verifyNoSelfOverlap(b.name, type)))
        return failure();
    }
    return success();
  }

  /// Distinct indices of `type` reach one element where a dimension of
  /// extent other than 1 has stride 0, or where i steps along one dimension
  /// land where j steps along another do (i * s_a == j * s_b, the least
  /// such i and j within the static extents).
  LogicalResult verifyNoSelfOverlap(StringRef name, MemRefType type) {
    auto [strides, offset] = type.getStridesAndOffset();
    ArrayRef<int64_t> shape = type.getShape();
    for (auto [dim, stride] : llvm::enumerate(strides))
      if (stride == 0 && shape[dim] != 1)
        return error() << "output " << name
                       << " overlaps itself: stride 0 along dim " << dim
                       << " of extent " << dimStr(shape[dim]) << " in " << type;
    auto known = [](int64_t n) { return !ShapedType::isDynamic(n); };
    for (unsigned a = 0; a < strides.size(); ++a)
      for (unsigned b = a + 1; b < strides.size(); ++b) {
        int64_t sa = strides[a], sb = strides[b];
        // Zero strides (on dimensions of extent 1) are checked above.
        if (!known(sa) || !known(sb) || !known(shape[a]) || !known(shape[b]) ||
            sa == 0 || sb == 0)
          continue;
        int64_t g = std::gcd(sa, sb);
        int64_t stepsA = sb / g, stepsB = sa / g;
        if (stepsA < shape[a] && stepsB < shape[b])
          return error() << "output " << name << " overlaps itself: index "
                         << stepsA << " along dim " << a << " and index "
                         << stepsB << " along dim " << b
                         << " reach the same element of " << type;
      }
    return success();
  }
};

/// The operands `written` are written, the others read.
void addReadWriteEffects(
    Operation *op, ValueRange written,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!llvm::is_contained(written, operand.get()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

std::optional<float> scaleValue(FloatAttr attr) {
  if (!attr)
    return std::nullopt;
  return static_cast<float>(attr.getValueAsDouble());
}

float defaultScale(Value query) {
  auto type = cast<MemRefType>(query.getType());
  int64_t d = type.getDimSize(type.getRank() - 1);
  return 1.0f / std::sqrt(static_cast<float>(d));
}

/// The varlen offsets, read by the kernels like the other inputs.
void appendVarlenBuffers(SmallVectorImpl<AttentionVerifier::Buffer> &buffers,
                         Value cuQ, Value cuK) {
  if (cuQ)
    buffers.push_back({"cu_seqlens_q", cuQ, false});
  if (cuK)
    buffers.push_back({"cu_seqlens_k", cuK, false});
}

/// max_seqlen, or the static token count of `tokens` (dim 0).
int64_t maxSeqlenOrTokens(std::optional<int64_t> max, Value tokens) {
  return max ? *max : cast<MemRefType>(tokens.getType()).getDimSize(0);
}

MaskAttr maskOrNone(MLIRContext *ctx, std::optional<MaskAttr> mask) {
  if (mask && *mask)
    return *mask;
  return MaskAttr::get(ctx, MaskKind::none, MaskAlignment::top_left,
                       std::nullopt, std::nullopt);
}
} // namespace

/// The attention ops are host-level: their lowerings launch kernels (or run
/// host loops), which kernel code cannot.
static LogicalResult verifyOutsideKernels(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<gpu::GPUFuncOp, gpu::GPUModuleOp, gpu::LaunchOp>(parent))
      return op->emitOpError("is a host-level op (its lowerings launch "
                             "kernels or run host loops): it may not be "
                             "inside kernel code ('")
             << parent->getName() << "')";
  return success();
}

/// The score_mod region, if any, and the operands it captures.
template <typename AttentionOp>
static LogicalResult verifyScoreModClause(AttentionOp op) {
  if (op.getScoreMod().empty()) {
    if (!op.getCaptures().empty())
      return op.emitOpError("captures operands without a score_mod region "
                            "that reads them");
    return success();
  }
  // Query heads, and the batch: [B, ...] or the offsets' B + 1.
  auto query = cast<MemRefType>(op.getQuery().getType());
  int64_t batch = query.getDimSize(0);
  if (op.isVarlen()) {
    int64_t offsets =
        cast<MemRefType>(op.getCuSeqlensQ().getType()).getDimSize(0);
    batch = ShapedType::isDynamic(offsets) ? offsets : offsets - 1;
  }
  return verifyScoreMod(op, op.getScoreMod(), op.getCaptures(),
                        query.getDimSize(query.getRank() - 2), batch);
}

/// Attention sinks and their gradient: f32 [Hq], one logit per query head;
/// the gradient only with the sinks it is the gradient of.
static LogicalResult verifySinks(Operation *op, Value query, Value sinks,
                                 Value gradSinks) {
  if (gradSinks && !sinks)
    return op->emitOpError("has grad_sinks but no sinks(...) operand to be "
                           "the gradient of");
  auto queryType = cast<MemRefType>(query.getType());
  int64_t heads = queryType.getDimSize(queryType.getRank() - 2);
  for (auto [name, value] : {std::pair<StringRef, Value>{"sinks", sinks},
                             {"grad_sinks", gradSinks}}) {
    if (!value)
      continue;
    auto type = cast<MemRefType>(value.getType());
    if (type.getRank() != 1 || !type.getElementType().isF32() ||
        !type.isStrided() || AttentionVerifier::hasNegativeStride(type))
      return op->emitOpError()
             << name
             << " must be a strided rank-1 f32 memref [Hq] (one logit per "
                "query head) with a non-negative stride, got "
             << type;
    if (type.getDimSize(0) != heads)
      return op->emitOpError()
             << name << " has " << AttentionVerifier::dimStr(type.getDimSize(0))
             << " elements; it needs one per query head (Hq = " << heads << ")";
  }
  return success();
}

/// An additive bias [B or 1, Hq or 1, Sq, Sk] of f32 or the query's
/// element type, and its f32 gradient of the same shape, only with the bias;
/// dense batches only.
static LogicalResult verifyBias(Operation *op, bool varlen, Value query,
                                Value key, Value bias, Value gradBias) {
  if (gradBias && !bias)
    return op->emitOpError("has grad_bias but no bias(...) operand to be the "
                           "gradient of");
  if (!bias)
    return success();
  if (varlen)
    return op->emitOpError("has a bias, which a varlen (packed) batch does "
                           "not take: its [B, H, Sq, Sk] layout is dense");
  auto queryType = cast<MemRefType>(query.getType());
  auto keyType = cast<MemRefType>(key.getType());
  auto type = cast<MemRefType>(bias.getType());
  Type elt = type.getElementType();
  if (type.getRank() != 4 || !type.isStrided() ||
      AttentionVerifier::hasNegativeStride(type) ||
      (!elt.isF32() && elt != queryType.getElementType()))
    return op->emitOpError()
           << "bias must be a strided rank-4 memref [B or 1, Hq or 1, Sq, "
              "Sk] of f32 or the query's element type with non-negative "
              "strides, got "
           << type;
  // Extent 1 broadcasts over the batch (dim 0) and the heads (dim 1).
  int64_t want[] = {queryType.getDimSize(0), queryType.getDimSize(2),
                    queryType.getDimSize(1), keyType.getDimSize(1)};
  const char *names[] = {"the batch B", "the query heads Hq", "Sq", "Sk"};
  for (unsigned d = 0; d < 4; ++d) {
    int64_t got = type.getDimSize(d);
    if (ShapedType::isDynamic(got) || ShapedType::isDynamic(want[d]) ||
        got == want[d] || (d < 2 && got == 1))
      continue;
    return op->emitOpError() << "bias dim " << d << " has extent " << got
                             << "; it must be " << names[d] << " (" << want[d]
                             << ")" << (d < 2 ? " or 1 (broadcast)" : "");
  }
  if (gradBias) {
    auto gradType = cast<MemRefType>(gradBias.getType());
    if (!gradType.getElementType().isF32() ||
        gradType.getShape() != type.getShape() || !gradType.isStrided() ||
        AttentionVerifier::hasNegativeStride(gradType))
      return op->emitOpError()
             << "grad_bias must be a strided f32 memref of the bias's shape "
                "with non-negative strides, got "
             << gradType << " for bias " << type;
  }
  return success();
}

/// Dropout: an i64 [2] memref {seed, offset} and a keep probability 1 - p
/// with 0 <= p < 1 (p = 0 keeps every score: u >= 0 always holds).
static LogicalResult verifyDropout(Operation *op, Value seedOffset,
                                   FloatAttr probability) {
  if (!seedOffset) {
    if (probability)
      return op->emitOpError("has dropout_p but no dropout(...) seed and "
                             "offset operand");
    return success();
  }
  auto type = cast<MemRefType>(seedOffset.getType());
  if (type.getRank() != 1 || type.getDimSize(0) != 2 ||
      !type.getElementType().isInteger(64) || !type.isStrided() ||
      AttentionVerifier::hasNegativeStride(type))
    return op->emitOpError()
           << "dropout seed and offset must be a strided memref<2xi64> "
              "{seed, offset} with a non-negative stride, got "
           << type;
  if (!probability)
    return op->emitOpError("has a dropout(...) operand but no dropout_p");
  double p = probability.getValueAsDouble();
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError()
           << "dropout probability p = " << p
           << " is outside [0, 1): p is the probability of dropping a score";
  return success();
}

/// The sinks, read like the other inputs; their gradient, written.
static void
appendSinkBuffers(SmallVectorImpl<AttentionVerifier::Buffer> &buffers,
                  Value sinks, Value gradSinks) {
  if (sinks)
    buffers.push_back({"sinks", sinks, false});
  if (gradSinks)
    buffers.push_back({"grad_sinks", gradSinks, true});
}

/// The captured operands, read by the kernels like the other inputs.
static void
appendCapturedBuffers(SmallVectorImpl<AttentionVerifier::Buffer> &buffers,
                      ValueRange captures) {
  for (Value c : captures)
    buffers.push_back({"a captured operand", c, false});
}

//===----------------------------------------------------------------------===//
// AttentionFwdOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionFwdOp::verify() {
  if (failed(verifyOutsideKernels(getOperation())))
    return failure();
  AttentionVerifier v{getOperation()};
  if (failed(v.verifyVarlen(getCuSeqlensQ(), getCuSeqlensK(), getMaxSeqlenQ(),
                            getMaxSeqlenK(), getQuery(), getKey())) ||
      failed(v.verifyInputs(getQuery(), getKey(), getValue(), getOut(),
                            getStats(), getStatsEncoding(),
                            scaleValue(getScaleAttr()))))
    return failure();
  if (failed(verifyScoreModClause(*this)) ||
      failed(verifySinks(*this, getQuery(), getSinks(), Value())))
    return failure();
  SmallVector<AttentionVerifier::Buffer> buffers{{"query", getQuery(), false},
                                                 {"key", getKey(), false},
                                                 {"value", getValue(), false},
                                                 {"out", getOut(), true}};
  appendVarlenBuffers(buffers, getCuSeqlensQ(), getCuSeqlensK());
  appendCapturedBuffers(buffers, getCaptures());
  appendSinkBuffers(buffers, getSinks(), Value());
  if (failed(verifyBias(*this, isVarlen(), getQuery(), getKey(), getBias(),
                        Value())))
    return failure();
  if (getBias())
    buffers.push_back({"bias", getBias(), false});
  if (failed(verifyDropout(*this, getDropoutSeedOffset(), getDropoutPAttr())))
    return failure();
  if (getDropoutSeedOffset())
    buffers.push_back(
        {"dropout seed and offset", getDropoutSeedOffset(), false});
  return v.verifyBuffers(buffers, getStats(), /*statsAreOutputs=*/true);
}

void AttentionFwdOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  SmallVector<Value> written{getOut()};
  llvm::append_range(written, getStats());
  addReadWriteEffects(getOperation(), written, effects);
}

float AttentionFwdOp::getScaleOrDefault() {
  return scaleValue(getScaleAttr()).value_or(defaultScale(getQuery()));
}

MaskAttr AttentionFwdOp::getMaskOrDefault() {
  return maskOrNone(getContext(), getMask());
}

int64_t AttentionFwdOp::getMaxSeqlenQOrDefault() {
  return maxSeqlenOrTokens(getMaxSeqlenQ(), getQuery());
}

int64_t AttentionFwdOp::getMaxSeqlenKOrDefault() {
  return maxSeqlenOrTokens(getMaxSeqlenK(), getKey());
}

//===----------------------------------------------------------------------===//
// AttentionBwdOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionBwdOp::verify() {
  if (failed(verifyOutsideKernels(getOperation())))
    return failure();
  AttentionVerifier v{getOperation()};
  if (failed(v.verifyVarlen(getCuSeqlensQ(), getCuSeqlensK(), getMaxSeqlenQ(),
                            getMaxSeqlenK(), getQuery(), getKey())) ||
      failed(v.verifyInputs(getQuery(), getKey(), getValue(), getOut(),
                            getStats(), getStatsEncoding(),
                            scaleValue(getScaleAttr()))))
    return failure();
  MemRefType dot;
  if (failed(v.checkTensor("grad_out", getGradOut(), dot)))
    return failure();
  auto ot = cast<MemRefType>(getOut().getType());
  if (failed(v.checkElementType("grad_out", dot.getElementType(),
                                ot.getElementType())))
    return failure();
  for (unsigned d = 0; d < v.rank(); ++d)
    if (failed(v.same("grad_out shape", dot.getDimSize(d), "grad_out",
                      ot.getDimSize(d), "out")))
      return failure();
  if (failed(v.verifyGradient("grad_query", getGradQuery(), getQuery())) ||
      failed(v.verifyGradient("grad_key", getGradKey(), getKey())) ||
      failed(v.verifyGradient("grad_value", getGradValue(), getValue())))
    return failure();
  auto type = [](Value x) { return cast<MemRefType>(x.getType()); };
  if (failed(v.agreeSizes({{"query", type(getQuery()), false, false},
                           {"key", type(getKey()), true, false},
                           {"value", type(getValue()), true, true},
                           {"out", type(getOut()), false, true},
                           {"grad_out", type(getGradOut()), false, true},
                           {"grad_query", type(getGradQuery()), false, false},
                           {"grad_key", type(getGradKey()), true, false},
                           {"grad_value", type(getGradValue()), true, true}},
                          getStats())))
    return failure();
  if (auto acc = getAccumulatorType())
    if (!acc->isF32() && !acc->isBF16())
      return emitOpError() << "accumulator_type must be f32 or bf16, got "
                           << *acc;
  SmallVector<AttentionVerifier::Buffer> buffers{
      {"query", getQuery(), false},      {"key", getKey(), false},
      {"value", getValue(), false},      {"out", getOut(), false},
      {"grad_out", getGradOut(), false}, {"grad_query", getGradQuery(), true},
      {"grad_key", getGradKey(), true},  {"grad_value", getGradValue(), true}};
  appendVarlenBuffers(buffers, getCuSeqlensQ(), getCuSeqlensK());
  appendCapturedBuffers(buffers, getCaptures());
  appendSinkBuffers(buffers, getSinks(), getGradSinks());
  if (getBias())
    buffers.push_back({"bias", getBias(), false});
  if (getGradBias())
    buffers.push_back({"grad_bias", getGradBias(), true});
  if (getDropoutSeedOffset())
    buffers.push_back(
        {"dropout seed and offset", getDropoutSeedOffset(), false});
  if (failed(verifySinks(*this, getQuery(), getSinks(), getGradSinks())) ||
      failed(verifyDropout(*this, getDropoutSeedOffset(), getDropoutPAttr())) ||
      failed(verifyBias(*this, isVarlen(), getQuery(), getKey(), getBias(),
                        getGradBias())) ||
      failed(v.verifyBuffers(buffers, getStats(), /*statsAreOutputs=*/false)) ||
      failed(verifyScoreModClause(*this)))
    return failure();
  // The statistics are those of the forward's modified scores: a forward of
  // this block that writes them must modify the scores as this op does.
  for (Operation *user : getStats().front().getUsers()) {
    auto fwd = dyn_cast<AttentionFwdOp>(user);
    if (!fwd || fwd->getBlock() != (*this)->getBlock() ||
        !llvm::is_contained(fwd.getStats(), getStats().front()))
      continue;
    auto mismatch = [&](const Twine &message) -> LogicalResult {
      InFlightDiagnostic diag = emitOpError(message);
      diag.attachNote(fwd.getLoc()) << "the forward";
      return diag;
    };
    // The backward needs its sinks only for their gradient; where it names
    // them they are the ones the statistics include.
    if (getSinks() && fwd.getSinks() != getSinks())
      return mismatch("sinks differ from those of the fmha.attention_fwd "
                      "writing its statistics, which include that forward's "
                      "sinks");
    if (fwd.getBias() != getBias())
      return mismatch("bias differs from that of the fmha.attention_fwd "
                      "writing its statistics; the backward recomputes the "
                      "softmax of the forward's biased scores");
    if (fwd.getDropoutSeedOffset() != getDropoutSeedOffset() ||
        fwd.getDropoutPAttr() != getDropoutPAttr())
      return mismatch("dropout differs from that of the fmha.attention_fwd "
                      "writing its statistics; the backward regenerates the "
                      "forward's mask from the same seed, offset and p");
    if (!sameScoreMod(fwd.getScoreMod(), fwd.getCaptures(), getScoreMod(),
                      getCaptures()))
      return mismatch("score_mod differs from that of the fmha.attention_fwd "
                      "writing its statistics; the backward recomputes the "
                      "softmax of the forward's modified scores");
  }
  return success();
}

void AttentionBwdOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  SmallVector<Value> written{getGradQuery(), getGradKey(), getGradValue()};
  if (getGradSinks())
    written.push_back(getGradSinks());
  if (getGradBias())
    written.push_back(getGradBias());
  addReadWriteEffects(getOperation(), written, effects);
}

float AttentionBwdOp::getScaleOrDefault() {
  return scaleValue(getScaleAttr()).value_or(defaultScale(getQuery()));
}

MaskAttr AttentionBwdOp::getMaskOrDefault() {
  return maskOrNone(getContext(), getMask());
}

int64_t AttentionBwdOp::getMaxSeqlenQOrDefault() {
  return maxSeqlenOrTokens(getMaxSeqlenQ(), getQuery());
}

int64_t AttentionBwdOp::getMaxSeqlenKOrDefault() {
  return maxSeqlenOrTokens(getMaxSeqlenK(), getKey());
}

Type AttentionBwdOp::getAccumulatorTypeOrDefault() {
  if (auto acc = getAccumulatorType())
    return *acc;
  return Float32Type::get(getContext());
}

LogicalResult MaskFragmentOp::verify() {
  const rocke::MatrixAtom *atom = rocke::lookupAtom(getAtom());
  if (!atom)
    return emitOpError() << "unknown matrix atom '" << getAtom() << "'";
  int64_t n = getValue().getType().getNumElements();
  if (n != atom->regs(rocke::MatrixOperand::C))
    return emitOpError() << "accumulator fragment of " << atom->name << " has "
                         << atom->regs(rocke::MatrixOperand::C)
                         << " elements per lane, got " << n;
  return success();
}

LogicalResult MmaOp::verify() {
  const rocke::MatrixAtom *atom = rocke::lookupAtom(getAtom());
  if (!atom)
    return emitOpError() << "unknown matrix atom '" << getAtom() << "'";
  auto check = [&](StringRef name, Value v,
                   rocke::MatrixOperand operand) -> LogicalResult {
    int64_t n = cast<VectorType>(v.getType()).getNumElements();
    if (n != atom->regs(operand))
      return emitOpError() << name << " fragment of " << atom->name << " has "
                           << atom->regs(operand) << " elements per lane, got "
                           << n;
    return success();
  };
  if (failed(check("lhs", getLhs(), rocke::MatrixOperand::A)) ||
      failed(check("rhs", getRhs(), rocke::MatrixOperand::B)) ||
      failed(check("acc", getAcc(), rocke::MatrixOperand::C)))
    return failure();
  Type lhsElt = getLhs().getType().getElementType();
  if (lhsElt != getRhs().getType().getElementType())
    return emitOpError() << "lhs and rhs element types differ";
  // Device atoms name their input type; host atoms take any float.
  if (!atom->isHost()) {
    StringRef want = atom->name.ends_with("bf16") ? "bf16" : "f16";
    if ((want == "bf16" && !lhsElt.isBF16()) ||
        (want == "f16" && !lhsElt.isF16()))
      return emitOpError() << atom->name << " takes " << want
                           << " operands, got " << lhsElt;
  }
  return success();
}

LogicalResult WarpgroupMmaOp::verify() {
  size_t steps = getDescriptors().size();
  if (steps == 0 || getLhs().size() + getLhsDescriptors().size() != steps ||
      (!getLhs().empty() && !getLhsDescriptors().empty()))
    return emitOpError("takes, per k step, one B descriptor and either an "
                       "A fragment or an A descriptor; got ")
           << getLhs().size() << " A fragments, " << getLhsDescriptors().size()
           << " A descriptors and " << steps << " B descriptors";
  if (getBuffers().empty())
    return emitOpError("names the workgroup buffers it reads");
  // One 16-bit input type, the PTX instruction's: in the buffers and the A
  // fragments.
  Type elt = cast<MemRefType>(getBuffers().front().getType()).getElementType();
  if (!elt.isF16() && !elt.isBF16())
    return emitOpError("multiplies f16 or bf16 operands, got ") << elt;
  for (Value buffer : getBuffers()) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!inWorkgroupMemory(type))
      return emitOpError("reads workgroup buffers, got ") << type;
    if (type.getElementType() != elt)
      return emitOpError("buffers of one element type, got ")
             << elt << " and " << type.getElementType();
  }
  if (getMnMajorA() && getLhsDescriptors().empty())
    return emitOpError("mn_major_a describes A in workgroup memory");
  if (!getLhs().empty()) {
    for (Value a : getLhs()) {
      auto type = cast<VectorType>(a.getType());
      if (type.getNumElements() != 8 || type.getElementType() != elt)
        return emitOpError("A fragments are vector<8x")
               << elt << "> (mma.sync m16n8k16, the buffers' type), got "
               << type;
    }
  }
  // The subgroup's 16 rows of N columns: N / 8 fragments of 4.
  int64_t regs = getAcc().getType().getNumElements();
  if (regs % 4 != 0 || regs < 4 || regs > 128)
    return emitOpError("accumulator holds 16 rows of N = 8..256 columns (4 "
                       "registers per 8), got ")
           << regs << " registers";
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  if (getPending() > 7)
    return emitOpError("pending must be 0..7 (wgmma.wait_group), got ")
           << getPending();
  if (!getValue().getDefiningOp<WarpgroupMmaOp>())
    return emitOpError("waits for the result of an fmha.warpgroup_mma");
  return success();
}

/// `count` consecutive elements of `type` (the `which` operand's) from an
/// index on: the innermost dimension must exist and be unit-stride, and hold
/// them; with `acrossRows`, the run may go on through the dimensions that
/// lie contiguously around it (a whole tile of rows), as far as their static
/// sizes tell.
static LogicalResult verifyConsecutiveRun(Operation *op, StringRef which,
                                          MemRefType type, int64_t count,
                                          bool acrossRows = false) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() == 0 || failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return op->emitOpError() << "adds " << count << " consecutive elements, so the "
                             << which
                             << "'s innermost dimension must have unit stride, "
                                "got "
                             << type;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t inner = shape.back();
  if (ShapedType::isDynamic(inner) || inner >= count)
    return success();
  if (!acrossRows)
    return op->emitOpError()
           << "adds " << count
           << " consecutive elements to an innermost dimension of " << inner
           << " in the " << which;
  // The elements contiguous from a row's start: rows of a dimension whose
  // stride is the run below it extend the run.
  int64_t run = inner;
  for (int64_t d = type.getRank() - 2; d >= 0 && run < count; --d) {
    if (strides[d] != run)
      break;
    if (ShapedType::isDynamic(shape[d]))
      return success();
    run *= shape[d];
  }
  if (run >= count)
    return success();
  return op->emitOpError() << "adds " << count
                           << " consecutive elements, more than the " << run
                           << " that lie contiguously in the " << which << " "
                           << type;
}

LogicalResult AtomicAddOp::verify() {
  VectorType valueType = getValue().getType();
  MemRefType memrefType = getMemref().getType();
  if (valueType.isScalable())
    return emitOpError() << "value must be a fixed-length vector, got "
                         << valueType;
  if (valueType.getElementType() != memrefType.getElementType())
    return emitOpError() << "value element type " << valueType.getElementType()
                         << " differs from the memref's "
                         << memrefType.getElementType();
  if (static_cast<int64_t>(getIndices().size()) != memrefType.getRank())
    return emitOpError() << "expects " << memrefType.getRank()
                         << " indices, got " << getIndices().size();
  if (IntegerAttr alignment = getAlignmentAttr()) {
    int64_t bytes = alignment.getInt();
    if (bytes <= 0 || !llvm::isPowerOf2_64(bytes))
      return emitOpError() << "alignment must be a positive power of two, got "
                           << bytes;
  }
  int64_t width = valueType.getNumElements();
  if (width == 1)
    return success();
  // Consecutive elements along the innermost dimension are what the vector
  // adds to.
  return verifyConsecutiveRun(*this, "memref", memrefType, width);
}

LogicalResult BulkAddOp::verify() {
  MemRefType source = getSource().getType(), dest = getDest().getType();
  if (!inWorkgroupMemory(source))
    return emitOpError("reads its source from workgroup memory, got ")
           << source;
  if (inWorkgroupMemory(dest))
    return emitOpError("adds to global memory, not workgroup memory");
  // cp.reduce.async.bulk moves whole 16-byte units.
  if (getCount() % 4 != 0)
    return emitOpError("adds whole 16-byte units (a multiple of 4 f32), got ")
           << getCount() << " elements";
  for (auto [which, type, numIndices] :
       {std::tuple{"source", source, getSourceIndices().size()},
        std::tuple{"dest", dest, getDestIndices().size()}}) {
    if (static_cast<int64_t>(numIndices) != type.getRank())
      return emitOpError() << "expects " << type.getRank() << " " << which
                           << " indices, got " << numIndices;
    if (failed(verifyConsecutiveRun(*this, which, type, getCount(),
                                    /*acrossRows=*/true)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

LogicalResult TileZeroOp::verify() {
  if (getType().getRole() != TileRole::c && !getType().isLineVector())
    return emitOpError("makes accumulator tiles (role c) or their per-row "
                       "(per-column) vectors, not role ")
           << stringifyTileRole(getType().getRole());
  return success();
}

namespace {
/// Dimension `from` of `a` is split like dimension `to` of `b`: the same
/// parts at the same subgroup stride.
bool sameSplit(TileType a, unsigned from, TileType b, unsigned to) {
  return a.getSplitParts(from) == b.getSplitParts(to) &&
         a.getSplitStride(from) == b.getSplitStride(to);
}

/// Workgroup tiles and subgroup tiles do not mix in one op.
LogicalResult verifyOneLevel(Operation *op, ArrayRef<TileType> tiles) {
  for (TileType t : tiles)
    if (t.isWorkgroupTile() != tiles.front().isWorkgroupTile())
      return op->emitOpError("mixes workgroup tiles (split over subgroups) "
                             "and subgroup tiles: ")
             << tiles.front() << " and " << t;
  return success();
}

/// A subgroup's tile only: the op works on the lane's fragments.
LogicalResult verifySubgroupTile(Operation *op, TileType type) {
  if (type.isWorkgroupTile())
    return op->emitOpError("works on a subgroup's tile, not the workgroup "
                           "tile ")
           << type << " (fmha-split-workgroup-tiles splits it)";
  return success();
}

/// Operand tiles (roles a and b) only; `what` names the op's product.
LogicalResult verifyOperandTile(Operation *op, TileType type) {
  if (type.getRole() != TileRole::a && type.getRole() != TileRole::b)
    return op->emitOpError("reads operand tiles (role a or b), not role ")
           << stringifyTileRole(type.getRole());
  return success();
}

/// `extent` elements from `offset` (null: 0) along dimension `dim` of a
/// buffer.
struct AccessExtent {
  unsigned dim;
  int64_t extent;
  Value offset = {};
};

/// The elements an op accesses lie inside `buffer` along its static
/// dimensions, also from their offsets where those are constants; `access`
/// ("reads a 32x32 tile from") begins the message.
LogicalResult verifyInBounds(Operation *op, const Twine &access,
                             MemRefType buffer,
                             ArrayRef<AccessExtent> extents) {
  for (const AccessExtent &e : extents) {
    int64_t size = buffer.getDimSize(e.dim);
    if (ShapedType::isDynamic(size))
      continue;
    if (e.extent > size)
      return op->emitOpError()
             << access << " " << buffer << ", which is smaller";
    APInt start(64, 0);
    if (e.offset && !matchPattern(e.offset, m_ConstantInt(&start)))
      continue;
    if (start.getSExtValue() < 0 || start.getSExtValue() > size - e.extent)
      return op->emitOpError() << access << " " << buffer << " from index "
                               << start.getSExtValue() << " along dim " << e.dim
                               << ", past its end (" << size << ")";
  }
  return success();
}

/// "reads a 32x16 tile from", for verifyInBounds.
std::string describeTileAccess(bool writes, TileType tile, bool transposed) {
  ArrayRef<int64_t> shape = tile.getShape();
  return (Twine(writes ? "writes a " : "reads a ") + Twine(shape[0]) + "x" +
          Twine(shape[1]) + " tile" + (transposed ? " transposed" : "") +
          (writes ? " into" : " from"))
      .str();
}

/// Rows and columns of the memory a tile (`transposed`: its transpose)
/// covers.
std::pair<int64_t, int64_t> tileExtents(TileType tile, bool transposed) {
  ArrayRef<int64_t> shape = tile.getShape();
  return transposed ? std::make_pair(shape[1], shape[0])
                    : std::make_pair(shape[0], shape[1]);
}

/// A tile at (row, col) of a 2-D buffer, or in a [R/8][C/W][8][W] buffer of
/// atoms (its extents only).
LogicalResult verifyTileInBuffer(Operation *op, bool writes, TileType tile,
                                 bool transposed, MemRefType buffer, Value row,
                                 Value col) {
  auto [rows, cols] = tileExtents(tile, transposed);
  std::string access = describeTileAccess(writes, tile, transposed);
  if (buffer.getRank() == 4)
    return verifyInBounds(
        op, access, buffer,
        {{0, llvm::divideCeilSigned(rows, int64_t(8))},
         {1, llvm::divideCeilSigned(cols, buffer.getDimSize(3))}});
  return verifyInBounds(op, access, buffer, {{0, rows, row}, {1, cols, col}});
}

/// The memref's element type is the tile's.
LogicalResult verifySameElements(Operation *op, Value memref, TileType type) {
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  if (elt != type.getElementType())
    return op->emitOpError("reads ")
           << elt << " elements into a tile of " << type.getElementType();
  return success();
}
} // namespace

LogicalResult TileReadOp::verify() {
  if (getBuffer().getType().getRank() != 2)
    return emitOpError("reads a 2-D buffer, not rank ")
           << getBuffer().getType().getRank();
  if (failed(verifyOperandTile(*this, getType())) ||
      failed(verifySameElements(*this, getBuffer(), getType())))
    return failure();
  return verifyTileInBuffer(*this, /*writes=*/false, getType(), getTransposed(),
                            getBuffer().getType(), getRow(), getCol());
}

LogicalResult TileLoadOp::verify() {
  if (getSource().getType().getRank() != 4)
    return emitOpError("reads a [B, S, H, D] memref, not rank ")
           << getSource().getType().getRank();
  if (failed(verifyOperandTile(*this, getType())) ||
      failed(verifySameElements(*this, getSource(), getType())))
    return failure();
  // Rows at or past seq_len are not read; columns are, up to col + cols.
  int64_t cols = tileExtents(getType(), getTransposed()).second;
  return verifyInBounds(*this,
                        describeTileAccess(false, getType(), getTransposed()),
                        getSource().getType(), {{kHeadDim, cols, getCol()}});
}

LogicalResult TileMmaOp::verify() {
  TileType a = getLhs().getType(), b = getRhs().getType(),
           c = getAcc().getType();
  if (a.getRole() != TileRole::a || b.getRole() != TileRole::b ||
      c.getRole() != TileRole::c)
    return emitOpError("takes tiles in roles a, b and c, got ")
           << stringifyTileRole(a.getRole()) << ", "
           << stringifyTileRole(b.getRole()) << " and "
           << stringifyTileRole(c.getRole());
  if (a.getAtom() != c.getAtom() || b.getAtom() != c.getAtom())
    return emitOpError("takes tiles of one atom, got '")
           << a.getAtom() << "', '" << b.getAtom() << "' and '" << c.getAtom()
           << "'";
  if (a.getElementType() != b.getElementType())
    return emitOpError("multiplies tiles of one element type, got ")
           << a.getElementType() << " and " << b.getElementType();
  ArrayRef<int64_t> sa = a.getShape(), sb = b.getShape(), sc = c.getShape();
  if (sa[1] != sb[0] || sa[0] != sc[0] || sb[1] != sc[1])
    return emitOpError("shapes do not chain: [")
           << sa[0] << " x " << sa[1] << "] * [" << sb[0] << " x " << sb[1]
           << "] + [" << sc[0] << " x " << sc[1] << "]";
  if (failed(verifyOneLevel(*this, {a, b, c})))
    return failure();
  // Each subgroup multiplies its rows of A by its columns of B over all of
  // K: A is split like C's rows, B like its columns, K not at all.
  if (!sameSplit(a, 0, c, 0) || !sameSplit(b, 1, c, 1) ||
      a.getSplitParts(1) != 1 || b.getSplitParts(0) != 1)
    return emitOpError("splits over subgroups do not chain: lhs ")
           << a << ", rhs " << b << ", acc " << c
           << " (A split like acc's rows, B like its columns, K whole)";
  return success();
}

/// A [R/8][C/W][8][W] workgroup buffer of atoms of `elt` (core matrices or
/// 128-byte swizzled rows: fmha::atomRowBytes) with static strides between
/// them, holding [rows x cols] at an atom-aligned origin (when its extents
/// are static).
static LogicalResult verifyAtomBuffer(Operation *op, StringRef what,
                                      MemRefType buf, Type elt, int64_t rows,
                                      int64_t cols) {
  if (buf.getRank() != 4 || !atomRowBytes(buf))
    return op->emitOpError()
           << "reads " << what
           << " from a [R/8][C/W][8][W] buffer of 8-row atoms with rows of 16 "
              "bytes (core matrices) or 128 (swizzled), got "
           << buf;
  if (buf.getElementType() != elt)
    return op->emitOpError() << what << " buffer element type "
                             << buf.getElementType() << " differs from " << elt;
  if (!inWorkgroupMemory(buf))
    return op->emitOpError()
           << "reads " << what << " from workgroup memory, got " << buf;
  // The descriptors give the strides between atoms; the atoms themselves
  // are dense.
  int64_t width = buf.getDimSize(3);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(buf.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides[0]) || ShapedType::isDynamic(strides[1]) ||
      strides[2] != width || strides[3] != 1)
    return op->emitOpError() << what
                             << " needs static strides between dense 8 x "
                             << width << " atoms, got " << buf;
  int64_t bufRows = buf.getDimSize(0), bufCols = buf.getDimSize(1);
  if ((!ShapedType::isDynamic(bufRows) && bufRows * 8 < rows) ||
      (!ShapedType::isDynamic(bufCols) && bufCols * width < cols))
    return op->emitOpError()
           << what << " [" << rows << " x " << cols << "] does not fit " << buf;
  return success();
}

LogicalResult TileMmaWarpgroupOp::verify() {
  TileType c = getAcc().getType();
  if (c.getRole() != TileRole::c)
    return emitOpError("accumulates into a tile in role c, got ")
           << stringifyTileRole(c.getRole());
  const rocke::MatrixAtom &atom = c.getMatrixAtom();
  if (atom.family != rocke::MatrixAtom::Family::MmaSync)
    return emitOpError("keeps the subgroup's registers in an mma.sync "
                       "layout, not '")
           << c.getAtom() << "'";
  Type elt = atom.name.ends_with("bf16") ? Type(BFloat16Type::get(getContext()))
                                         : Type(Float16Type::get(getContext()));
  // On workgroup tiles, groups of four consecutive subgroups (stride 1)
  // take 16 rows each of a warpgroup's 64; the checks below are on the
  // subgroup's block.
  bool workgroup = c.isWorkgroupTile();
  if (workgroup != bool(getThread()))
    return emitOpError(workgroup ? "on workgroup tiles needs the thread's id "
                                   "(thread)"
                                 : "takes thread only on workgroup tiles");
  if (workgroup && (c.getSplitParts(0) % 4 || c.getSplitStride(0) != 1))
    return emitOpError("splits acc's rows over warpgroups of four "
                       "consecutive subgroups, not ")
           << c;
  int64_t rowsOfA = workgroup ? c.getShape()[0] : 64;
  int64_t wholeN = c.getShape()[1];
  ArrayRef<int64_t> sc = c.getSubgroupTile().getShape();
  if (sc[0] != 16)
    return emitOpError("takes the subgroup's 16 rows of the warpgroup's 64, "
                       "got ")
           << sc[0];
  int64_t n = sc[1];
  if (n > 256)
    return emitOpError("N (") << n << ") must be at most 256";
  int64_t k;
  if (TypedValue<TileType> lhs = getLhs()) {
    if (getLhsBuffer() || getK())
      return emitOpError("takes A from registers (lhs) or from workgroup "
                         "memory (lhs_buffer and k), not both");
    TileType a = lhs.getType();
    if (a.getRole() != TileRole::a || a.getAtom() != c.getAtom())
      return emitOpError("lhs must be a tile in role a of '")
             << c.getAtom() << "'";
    if (failed(verifyOneLevel(*this, {a, c})))
      return failure();
    if (!sameSplit(a, 0, c, 0) || a.getSplitParts(1) != 1)
      return emitOpError("lhs ") << a << " is not split like acc's rows";
    if (a.getSubgroupTile().getShape()[0] != 16)
      return emitOpError("takes the subgroup's 16 rows of A, got ")
             << a.getSubgroupTile().getShape()[0];
    k = a.getShape()[1];
  } else {
    if (!getLhsBuffer() || !getK())
      return emitOpError("takes A from registers (lhs) or from workgroup "
                         "memory (lhs_buffer and k)");
    k = *getK();
    if (k <= 0 || k % 16 != 0)
      return emitOpError("k (") << k << ") must be a positive multiple of 16";
    bool t = getLhsTransposed();
    if (failed(verifyAtomBuffer(*this, "A", getLhsBuffer().getType(), elt,
                                  t ? k : rowsOfA, t ? rowsOfA : k)))
      return failure();
  }
  bool t = getTransposed();
  if (failed(verifyAtomBuffer(*this, "B", getBuffer().getType(), elt,
                              t ? wholeN : k, t ? k : wholeN)))
    return failure();
  // B's N along a swizzled buffer's rows spans whole ones (its descriptor
  // steps between atoms). A's M along them is the warpgroup's 64, a whole
  // row of 16-bit elements.
  MemRefType bBuf = getBuffer().getType();
  int64_t width = bBuf.getDimSize(3);
  if (!t && atomRowBytes(bBuf) == 128 && n % width)
    return emitOpError("B's ")
           << n << " columns along a swizzled buffer's rows are not whole "
           << "rows of " << width;
  return success();
}

LogicalResult TileConvertOp::verify() {
  TileType from = getSource().getType(), to = getType();
  if (from.getRole() != TileRole::c ||
      (to.getRole() != TileRole::a && to.getRole() != TileRole::b))
    return emitOpError("turns an accumulator tile (role c) into an operand "
                       "tile (role a or b)");
  ArrayRef<int64_t> s = from.getShape(), r = to.getShape();
  bool transposed = getTransposed();
  if (r[0] != (transposed ? s[1] : s[0]) || r[1] != (transposed ? s[0] : s[1]))
    return emitOpError("result shape must be the source's")
           << (transposed ? " transposed" : "");
  if (failed(verifyOneLevel(*this, {from, to})))
    return failure();
  if (!sameSplit(to, 0, from, transposed ? 1 : 0) ||
      !sameSplit(to, 1, from, transposed ? 0 : 1))
    return emitOpError("result must be split over subgroups like the "
                       "source")
           << (transposed ? " transposed" : "");
  // Each result atom must start at an atom of the source, or at a multiple
  // of its own extent within one.
  if (rocke::accumulatorOrigins(from.getMatrixAtom(), to.getMatrixAtom(),
                                to.getMatrixOperand(), transposed)
          .empty())
    return emitOpError("'") << to.getAtom() << "' atoms neither start at '"
                            << from.getAtom() << "' atoms nor split them";
  if (!rocke::operandTileFromAccumulators(from.getMatrixAtom(),
                                          to.getMatrixAtom(),
                                          to.getMatrixOperand(), transposed))
    return emitOpError("lanes do not hold the elements of their '")
           << to.getAtom() << "' " << stringifyTileRole(to.getRole())
           << " fragments in their '" << from.getAtom()
           << "' accumulators: the tile has to go through memory";
  return success();
}

namespace {
LogicalResult verifyFragments(Operation *op, TileType tile,
                              TypeRange fragments) {
  int64_t atoms = tile.getRowAtoms() * tile.getColAtoms();
  if (int64_t(fragments.size()) != atoms)
    return op->emitOpError("a ") << tile << " has " << atoms
                                 << " fragments, not " << fragments.size();
  for (Type t : fragments)
    if (t != tile.getFragmentType())
      return op->emitOpError("fragments of ")
             << tile << " are " << tile.getFragmentType() << ", not " << t;
  return success();
}
} // namespace

LogicalResult TileUnpackOp::verify() {
  if (failed(verifySubgroupTile(*this, getTile().getType())))
    return failure();
  return verifyFragments(*this, getTile().getType(), getFragments().getTypes());
}

LogicalResult TilePackOp::verify() {
  if (failed(verifySubgroupTile(*this, getType())))
    return failure();
  return verifyFragments(*this, getType(), getFragments().getTypes());
}

namespace {
/// Accumulator tiles (role c) only.
LogicalResult verifyAccumulatorTile(Operation *op, TileType type) {
  if (type.getRole() != TileRole::c)
    return op->emitOpError("works on accumulator tiles (role c), not role ")
           << stringifyTileRole(type.getRole());
  return success();
}
} // namespace

LogicalResult TileBroadcastOp::verify() {
  if (failed(verifyAccumulatorTile(*this, getType())))
    return failure();
  int64_t values = getType().getShape()[getDim() == 0 ? 0 : 1];
  return verifyInBounds(*this, describeTileAccess(false, getType(), false),
                        getBuffer().getType(), {{0, values, getBase()}});
}

LogicalResult TileMapOp::verify() {
  if (getInputs().empty() || getResults().empty())
    return emitOpError("maps at least one tile to at least one tile");
  auto layoutOf = [](TileType t) {
    return std::make_tuple(t.getShape(), t.getRole(), t.getAtom(),
                           t.getSubgroups(), t.getSubgroupStrides());
  };
  auto first = cast<TileType>(getResults().front().getType());
  for (Type t : getResultTypes())
    if (layoutOf(cast<TileType>(t)) != layoutOf(first))
      return emitOpError("result tiles must share shape, role and atom: ")
             << first << " and " << t;
  for (Type t : getInputs().getTypes()) {
    auto input = cast<TileType>(t);
    if (layoutOf(input) == layoutOf(first))
      continue;
    // Per-row (per-column) vectors of the results' rows (columns).
    // Per-row (per-column) vectors of the results' rows (columns), split
    // over subgroups like them.
    bool broadcast = first.getRole() == TileRole::c &&
                     rocke::sameAccumulatorLayout(input.getMatrixAtom(),
                                                  first.getMatrixAtom()) &&
                     input.isWorkgroupTile() == first.isWorkgroupTile() &&
                     ((input.getRole() == TileRole::rows &&
                       input.getShape()[0] == first.getShape()[0] &&
                       sameSplit(input, 0, first, 0)) ||
                      (input.getRole() == TileRole::cols &&
                       input.getShape()[1] == first.getShape()[1] &&
                       sameSplit(input, 1, first, 1)));
    if (!broadcast)
      return emitOpError("input ")
             << input << " is neither of the results' layout " << first
             << " nor a per-row or per-column vector of it";
  }
  bool positions = bool(getLane());
  if (positions != bool(getRow()) || positions != bool(getCol()))
    return emitOpError("takes positions as at(row, col) and a lane together");
  if (positions && first.getRole() != TileRole::c)
    return emitOpError("gives positions of accumulator (role c) elements, "
                       "not of a tile in role ")
           << stringifyTileRole(first.getRole());
  Block &body = getBody().front();
  size_t numArgs = getInputs().size() + (positions ? 2 : 0);
  if (body.getNumArguments() != numArgs)
    return emitOpError("body takes one element per input tile")
           << (positions ? " and the row and column index, " : ", ")
           << numArgs << ", not " << body.getNumArguments();
  for (auto [arg, input] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != cast<TileType>(input.getType()).getElementType())
      return emitOpError("body argument of type ")
             << arg.getType() << " for a tile of "
             << cast<TileType>(input.getType()).getElementType();
  for (BlockArgument arg : body.getArguments().drop_front(getInputs().size()))
    if (!arg.getType().isIndex())
      return emitOpError("body argument of type ")
             << arg.getType() << " for a position (index)";
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != getResults().size())
    return emitOpError("body yields ")
           << yield.getValues().size() << " elements for "
           << getResults().size() << " result tiles";
  for (auto [v, r] : llvm::zip(yield.getValues(), getResults()))
    if (v.getType() != cast<TileType>(r.getType()).getElementType())
      return emitOpError("body yields ")
             << v.getType() << " for a tile of "
             << cast<TileType>(r.getType()).getElementType();
  for (Operation &op : body.without_terminator()) {
    bool scalar = llvm::all_of(op.getResultTypes(),
                               [](Type t) { return t.isIntOrIndexOrFloat(); });
    // A load reads one element per position (an additive bias).
    if (!scalar || op.getNumRegions() != 0 ||
        !(op.hasTrait<OpTrait::Elementwise>() ||
          op.hasTrait<OpTrait::ConstantLike>() || isa<memref::LoadOp>(op)))
      return op.emitOpError("cannot be applied to fragments: a tile_map body "
                            "holds elementwise ops on scalars and loads");
  }
  return success();
}

LogicalResult TileMaskOp::verify() {
  return verifyAccumulatorTile(*this, getType());
}

LogicalResult TileWriteOp::verify() {
  MemRefType buf = getBuffer().getType();
  if (buf.getRank() == 4 && !atomRowBytes(buf))
    return emitOpError("writes a 4-D buffer of 8-row atoms with rows of 16 "
                       "bytes (core matrices) or 128 (swizzled), got ")
           << buf;
  if (failed(verifyAccumulatorTile(*this, getValue().getType())))
    return failure();
  // A one-lane (host) atom is written as whole 2-D blocks, which a buffer of
  // 8-row atoms does not hold.
  if (buf.getRank() == 4 && getValue().getType().getMatrixAtom().lanes == 1)
    return emitOpError("writes a tile of one-lane atoms ('")
           << getValue().getType().getMatrixAtom().name
           << "') into a 4-D buffer of 8-row atoms; those atoms go to 2-D "
              "buffers";
  return verifyTileInBuffer(*this, /*writes=*/true, getValue().getType(),
                            getTransposed(), buf, getRow(), getCol());
}

LogicalResult TileAccumulateOp::verify() {
  if (failed(verifyAccumulatorTile(*this, getValue().getType())))
    return failure();
  int64_t rank = getDest().getType().getRank();
  if (rank < 3)
    return emitOpError("needs a buffer ending in [S, H, D], not rank ") << rank;
  if (int64_t(getIndices().size()) != rank)
    return emitOpError("takes ") << rank << " indices for a rank-" << rank
                                 << " buffer, not " << getIndices().size();
  // Every element is written: no sequence bound guards the rows.
  TileType tile = getValue().getType();
  if (getPairedColumns()) {
    const MatrixAtom &atom = tile.getMatrixAtom();
    int64_t depth = getDest().getType().getShape().back();
    APInt colIndex;
    if (getTransposed() || atom.family != MatrixAtom::Family::MmaSync ||
        tile.getSubgroupTile().getColAtoms() % 2 ||
        (!ShapedType::isDynamic(depth) && depth % 16) ||
        (matchPattern(getIndices().back(), m_ConstantInt(&colIndex)) &&
         colIndex.getZExtValue() % 16))
      return emitOpError("paired_columns needs an untransposed tile of "
                         "mma.sync accumulators, an even number of atom "
                         "columns per subgroup, and buffer rows and a column "
                         "index in whole 16-column groups");
  }
  auto [rows, cols] = tileExtents(tile, getTransposed());
  unsigned rowDim = rank - 3, colDim = rank - 1;
  return verifyInBounds(*this, describeTileAccess(true, tile, getTransposed()),
                        getDest().getType(),
                        {{rowDim, rows, getIndices()[rowDim]},
                         {colDim, cols, getIndices()[colDim]}});
}

LogicalResult TileStoreOp::verify() {
  TileType tile = getValue().getType();
  if (failed(verifyAccumulatorTile(*this, tile)))
    return failure();
  // Rows at or past seq_len are not written; columns are, up to col + cols.
  int64_t cols = tileExtents(tile, getTransposed()).second;
  return verifyInBounds(*this, describeTileAccess(true, tile, getTransposed()),
                        getDest().getType(), {{kHeadDim, cols, getCol()}});
}

LogicalResult TileStoreScoresOp::verify() {
  return verifyAccumulatorTile(*this, getValue().getType());
}

LogicalResult TileReduceOp::verify() {
  TileType from = getValue().getType(), to = getType();
  if (failed(verifyAccumulatorTile(*this, from)))
    return failure();
  bool alongRows = getDim() == 1;
  TileRole role = alongRows ? TileRole::rows : TileRole::cols;
  ArrayRef<int64_t> s = from.getShape();
  SmallVector<int64_t> shape =
      alongRows ? SmallVector<int64_t>{s[0], 1} : SmallVector<int64_t>{1, s[1]};
  if (to.getRole() != role || to.getShape() != ArrayRef<int64_t>(shape) ||
      to.getAtom() != from.getAtom())
    return emitOpError("reducing dim ")
           << getDim() << " of " << from << " gives a " << shape[0] << "x"
           << shape[1] << " tile in role " << stringifyTileRole(role)
           << " of the same atom, not " << to;
  // A subgroup reduces its own registers and lanes: the reduced dimension
  // is not split over subgroups.
  unsigned kept = alongRows ? 0 : 1;
  if (failed(verifyOneLevel(*this, {from, to})))
    return failure();
  if (from.getSplitParts(1 - kept) != 1 || !sameSplit(to, kept, from, kept) ||
      to.getSplitParts(1 - kept) != 1)
    return emitOpError("reduces within subgroups: dim ")
           << getDim() << " of " << from
           << " must not be split, and the result is split like the rest, "
              "not "
           << to;
  return success();
}

LogicalResult TileStoreLinesOp::verify() {
  if (!getValue().getType().isLineVector())
    return emitOpError("stores per-row or per-column vectors (role rows or "
                       "cols), not role ")
           << stringifyTileRole(getValue().getType().getRole());
  return success();
}

//===----------------------------------------------------------------------===//
// Cooperative copies
//===----------------------------------------------------------------------===//

/// The row length D of a copy's [B, S, H, D] source, which must be static.
static FailureOr<int64_t> copyRowLength(Operation *op, MemRefType source) {
  int64_t cols = source.getDimSize(3);
  if (ShapedType::isDynamic(cols))
    return op->emitOpError("copies rows of static length, got ") << source;
  return cols;
}

/// The [B, S, H, D] source of a copy of `rows` rows into `elt` buffers.
static LogicalResult verifyCopySource(Operation *op, MemRefType source,
                                      Type elt, int64_t rows, int64_t cols) {
  if (source.getElementType() != elt)
    return op->emitOpError("copies ")
           << source.getElementType() << " rows into " << elt << " tiles";
  if (ShapedType::isDynamic(source.getDimSize(3)) ||
      source.getDimSize(3) != cols)
    return op->emitOpError("copies ")
           << rows << "x" << cols << " tiles from rows of static length "
           << cols << ", got " << source;
  return success();
}

/// The workgroup tiles a copy of a [rows x cols] tile in `chunk` pieces
/// stores into: `dest` ([rows x >= cols] or core matrices) and
/// `destTransposed` ([cols x >= rows], square pieces), after a leading slot
/// dimension of `slots` (0: none).
static LogicalResult verifyCopyDests(Operation *op, Type elt, int64_t rows,
                                     int64_t cols, ArrayRef<int64_t> chunk,
                                     Value dest, Value destTransposed,
                                     int64_t slots = 0) {
  if (!dest && !destTransposed)
    return op->emitOpError("needs a destination tile (into or transposed "
                           "into)");
  auto fits = [&](Value buf, int64_t r, int64_t c) -> LogicalResult {
    auto type = cast<MemRefType>(buf.getType());
    ArrayRef<int64_t> shape = type.getShape();
    if (type.getElementType() != elt)
      return op->emitOpError("stores ")
             << elt << " rows into a " << type.getElementType() << " tile";
    if (slots) {
      if (shape.front() != slots)
        return op->emitOpError("stores into slots of a [")
               << slots << " x ...] tile, got " << type;
      shape = shape.drop_front();
    }
    if (shape.size() == 4) {
      // Atoms of 16-byte rows (core matrices) or 128-byte swizzled ones.
      if (!atomRowBytes(type) || shape[0] * 8 != r || shape[1] * shape[3] != c)
        return op->emitOpError("stores a ")
               << r << "x" << c << " tile as [" << r / 8 << "][C/W][8][W] "
               << "atoms with rows of 16 bytes (core matrices) or 128 "
                  "(swizzled), got "
               << type;
      if (chunk[0] != 1 || chunk[1] * type.getElementTypeBitWidth() != 128)
        return op->emitOpError("stores atoms in 16-byte chunks of a row, its "
                               "chunks are ")
               << chunk[0] << "x" << chunk[1];
      return success();
    }
    if (ShapedType::isDynamic(shape[0]) || ShapedType::isDynamic(shape[1]))
      return op->emitOpError("stores into tiles of static shape, got ") << type;
    unsigned rowDim = slots ? 1 : 0;
    return verifyInBounds(
        op, "stores a " + Twine(r) + "x" + Twine(c) + " tile into", type,
        {{rowDim, r}, {rowDim + 1, c}});
  };
  if (dest && failed(fits(dest, rows, cols)))
    return failure();
  if (destTransposed && failed(fits(destTransposed, cols, rows)))
    return failure();
  if (destTransposed ? chunk[0] != chunk[1] : chunk[0] != 1)
    return op->emitOpError(destTransposed
                               ? "stores a transpose from square chunks, got "
                               : "stores rows from 1xW chunks, got ")
           << chunk[0] << "x" << chunk[1];
  return success();
}

LogicalResult TileCopyOp::verify() {
  MemRefType source = getSource().getType();
  FailureOr<int64_t> cols = copyRowLength(*this, source);
  if (failed(cols))
    return failure();
  SmallVector<int64_t, 2> chunk = FetchedType::chunkForCopy(
      source, getRows(), getThreads(), bool(getDestTransposed()));
  return verifyCopyDests(*this, source.getElementType(), getRows(), *cols,
                         chunk, getDest(), getDestTransposed());
}

LogicalResult TileCopyAsyncOp::verify() {
  MemRefType source = getSource().getType();
  FailureOr<int64_t> rowLength = copyRowLength(*this, source);
  if (failed(rowLength))
    return failure();
  int64_t cols = *rowLength;
  Type elt = source.getElementType();
  SmallVector<int64_t, 2> chunk =
      FetchedType::chunkForCopy(source, getRows(), getThreads(), false);
  if (chunk[1] * elt.getIntOrFloatBitWidth() != 128)
    return emitOpError("copies 16-byte pieces: rows of a multiple of 16 bytes "
                       "with unit stride, got ")
           << source;
  if (getRows() * (cols / chunk[1]) % getThreads())
    return emitOpError("the ") << getRows() * (cols / chunk[1])
                               << " 16-byte pieces do not split evenly over "
                               << getThreads() << " threads";
  return verifyCopyDests(*this, elt, getRows(), cols, chunk, getDest(), Value(),
                         /*slots=*/2);
}

LogicalResult TileFetchOp::verify() {
  FetchedType type = getType();
  MemRefType source = getSource().getType();
  if (failed(verifyCopySource(*this, source, type.getElementType(),
                              type.getRows(), type.getCols())))
    return failure();
  if (type.getChunkCols() > 1 && !hasUnitInnerStride(source))
    return emitOpError("loads ")
           << type.getChunkCols()
           << "-element vectors from rows without unit stride: " << source;
  return success();
}

LogicalResult TilePlaceOp::verify() {
  FetchedType type = getValue().getType();
  return verifyCopyDests(*this, type.getElementType(), type.getRows(),
                         type.getCols(), type.getChunk(), getDest(),
                         getDestTransposed());
}
