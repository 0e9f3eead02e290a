//===- KernelBuilder.cpp - shared helpers for attention kernels -----------===//
#include "lib/Kernels/KernelBuilder.h"
#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/bit.h"

#include <array>
#include <limits>

using namespace mlir;

namespace rocke {

//===----------------------------------------------------------------------===//
// Arithmetic helpers
//===----------------------------------------------------------------------===//

Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value constF32(OpBuilder &b, Location loc, float v) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(v));
}

Value ceilDiv(OpBuilder &b, Location loc, Value a, Value c) {
  return b.createOrFold<arith::CeilDivUIOp>(loc, a, c);
}

SmallVector<Value> memrefSizes(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  // A scratch buffer's sizes are the values it was allocated with
  // (memref.dim does not fold on gpu.alloc): static problems keep static
  // grids, which the launch limits are checked against.
  auto alloc = memref.getDefiningOp<gpu::AllocOp>();
  // So are a sequence view's (sequenceView): its length, not a memref.dim.
  auto view = memref.getDefiningOp<memref::ReinterpretCastOp>();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      sizes.push_back(constIndex(b, loc, type.getDimSize(d)));
    else if (alloc)
      sizes.push_back(alloc.getDynamicSizes()[type.getDynamicDimIndex(d)]);
    else if (view)
      sizes.push_back(view.getSizes()[type.getDynamicDimIndex(d)]);
    else
      sizes.push_back(b.createOrFold<memref::DimOp>(loc, memref, d));
  }
  return sizes;
}

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ValueRange sizes) {
  SmallVector<Value> coords(sizes.size());
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    if (d == 0) {
      coords[d] = linear;
      break;
    }
    coords[d] = b.createOrFold<arith::RemUIOp>(loc, linear, sizes[d]);
    linear = b.createOrFold<arith::DivUIOp>(loc, linear, sizes[d]);
  }
  return coords;
}

//===----------------------------------------------------------------------===//
// Problem sizes and element access
//===----------------------------------------------------------------------===//

AttentionSizes AttentionSizes::get(OpBuilder &b, Location loc, Value q,
                                   Value k, Value v) {
  auto qt = cast<MemRefType>(q.getType());
  auto kt = cast<MemRefType>(k.getType());
  auto vt = cast<MemRefType>(v.getType());
  AttentionSizes s;
  SmallVector<Value> qs = memrefSizes(b, loc, q);
  // [B, S, H, D], or a packed batch's [T, H, D].
  int64_t seq = qt.getRank() - 3;
  s.batch = seq == 1 ? qs[0] : Value();
  s.seqQ = qs[seq];
  s.seqK = memrefSizes(b, loc, k)[seq];
  s.headsQ = qt.getDimSize(seq + 1);
  s.headsKv = kt.getDimSize(seq + 1);
  s.headDimQk = qt.getDimSize(seq + 2);
  s.headDimV = vt.getDimSize(seq + 2);
  return s;
}

Value loadF32(OpBuilder &b, Location loc, Value memref, ValueRange idx) {
  Value v = memref::LoadOp::create(b, loc, memref, idx);
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

void storeF32(OpBuilder &b, Location loc, Value value, Value memref,
              ValueRange idx) {
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  if (elt != value.getType())
    value = arith::TruncFOp::create(b, loc, elt, value);
  memref::StoreOp::create(b, loc, value, memref, idx);
}

/// Largest element offset the target's signed index type can hold.
static int64_t indexLimit(const KernelTarget &target) {
  return target.indexBitwidth >= 64
             ? std::numeric_limits<int64_t>::max()
             : (int64_t(1) << (target.indexBitwidth - 1)) - 1;
}

/// Where the element offsets of a memref end: the last one's offset, or
/// that it passes int64 (then `last` is meaningless).
struct LastOffset {
  int64_t last = 0;
  bool overflows = false;

  /// Whether an offset passes `limit`.
  bool passes(int64_t limit) const { return overflows || last > limit; }
};

/// The last element offset of a memref with static shape, strides and
/// offset, or nullopt for any other layout.
static std::optional<LastOffset> lastElementOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  LastOffset result{offset};
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    int64_t term;
    if (llvm::MulOverflow(size - 1, std::abs(stride), term) ||
        llvm::AddOverflow(result.last, term, result.last))
      return LastOffset{0, /*overflows=*/true};
  }
  return result;
}

/// "<n + 1> elements" or, past int64, "more than 2^63 - 1 elements".
static std::string elementCount(const LastOffset &offsets) {
  if (offsets.overflows)
    return "more than " + std::to_string(std::numeric_limits<int64_t>::max()) +
           " elements";
  return std::to_string(offsets.last + 1) + " elements";
}

LogicalResult checkIndexRange(Operation *op, const KernelTarget &target) {
  const int64_t limit = indexLimit(target);
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      continue;
    std::optional<LastOffset> offsets = lastElementOffset(type);
    if (offsets && offsets->passes(limit))
      return op->emitOpError()
             << "operand of type " << type << " has element offsets past "
             << limit << ", beyond the target's " << target.indexBitwidth
             << "-bit indexing";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Cross-lane operations
//===----------------------------------------------------------------------===//

Value subgroupReduce(OpBuilder &b, Location loc, const KernelTarget &target,
                     Value value, gpu::AllReduceOperation kind,
                     unsigned clusterSize) {
  unsigned lanes = clusterSize ? clusterSize : target.subgroupSize;
  if (lanes <= 1)
    return value;
  std::optional<uint32_t> cluster;
  if (clusterSize && clusterSize < target.subgroupSize)
    cluster = clusterSize;
  return gpu::SubgroupReduceOp::create(b, loc, value, kind, /*uniform=*/true,
                                       cluster);
}

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

std::pair<Value, Value> laneCoordinates(OpBuilder &b, Location loc,
                                        const MatrixAtom &atom,
                                        MatrixOperand operand, Value lane) {
  LaneOffset offset = laneOffset(atom, operand);
  auto term = [&](LaneTerm t) -> Value {
    if (t.mul == 0 || t.mod == 1)
      return constIndex(b, loc, 0);
    Value v = lane;
    if (t.div != 1)
      v = arith::DivUIOp::create(b, loc, v, constIndex(b, loc, t.div));
    v = arith::RemUIOp::create(b, loc, v, constIndex(b, loc, t.mod));
    if (t.mul != 1)
      v = arith::MulIOp::create(b, loc, v, constIndex(b, loc, t.mul));
    return v;
  };
  Value row = term(offset.row);
  Value col = term(offset.col);
  return {row, col};
}

MaskBuilder::MaskBuilder(OpBuilder &b, Location loc, fmha::MaskBand band,
                         Value seqQ, Value seqK)
    : band(band), seqQ(seqQ), seqK(seqK) {
  offset = band.bottomRight
               ? b.createOrFold<arith::SubIOp>(loc, seqK, seqQ)
               : constIndex(b, loc, 0);
}

Value MaskBuilder::isVisible(OpBuilder &b, Location loc, Value q,
                             Value k) const {
  // Scalars, or vectors of indices (one element per fragment register).
  auto vecType = dyn_cast<VectorType>(q.getType());
  auto splat = [&](Value scalar) -> Value {
    if (!vecType)
      return scalar;
    return vector::BroadcastOp::create(
        b, loc, VectorType::get(vecType.getShape(), scalar.getType()), scalar);
  };
  Value visible =
      splat(arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  if (band.isNone())
    return visible;
  Value diag = b.createOrFold<arith::AddIOp>(loc, q, splat(offset));
  Value rel = b.createOrFold<arith::SubIOp>(loc, k, diag);
  if (band.lower >= 0)
    visible = b.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sge, rel,
        splat(constIndex(b, loc, -band.lower)));
  if (band.upper >= 0) {
    Value le = b.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sle, rel,
        splat(constIndex(b, loc, band.upper)));
    visible = band.lower >= 0
                  ? b.createOrFold<arith::AndIOp>(loc, visible, le)
                  : le;
  }
  return visible;
}

Value MaskBuilder::isBlockVisible(OpBuilder &b, Location loc, Value qFirst,
                                  Value qLast, Value kFirst,
                                  Value kLast) const {
  Value keysInSequence =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kLast, seqK);
  Value lowerLeft = isVisible(b, loc, qLast, kFirst);
  Value upperRight = isVisible(b, loc, qFirst, kLast);
  Value corners = arith::AndIOp::create(b, loc, lowerLeft, upperRight);
  return arith::AndIOp::create(b, loc, keysInSequence, corners);
}

/// The blocks of [first, last) (`block` elements each) that lie wholly in
/// [lo, hi): signed bounds that may be negative, null when unbounded.
static std::pair<Value, Value> blocksInside(OpBuilder &b, Location loc,
                                            Value lo, Value hi, int64_t block,
                                            Value first, Value last) {
  Value c0 = constIndex(b, loc, 0), cBlock = constIndex(b, loc, block);
  Value begin = first, end = last;
  if (lo) {
    lo = b.createOrFold<arith::MaxSIOp>(loc, lo, c0);
    begin =
        b.createOrFold<arith::MaxUIOp>(loc, begin, ceilDiv(b, loc, lo, cBlock));
    begin = b.createOrFold<arith::MinUIOp>(loc, begin, last);
  }
  if (hi) {
    hi = b.createOrFold<arith::MaxSIOp>(loc, hi, c0);
    end = b.createOrFold<arith::MinUIOp>(
        loc, end, b.createOrFold<arith::DivUIOp>(loc, hi, cBlock));
  }
  end = b.createOrFold<arith::MaxUIOp>(loc, end, begin);
  return {begin, end};
}

std::pair<Value, Value>
MaskBuilder::wholeQueryBlocks(OpBuilder &b, Location loc, Value kFirst,
                              Value kLast, int64_t blockQ, Value qbBegin,
                              Value qbEnd) const {
  // Query q sees every key of [kFirst, kLast] iff kLast - off - upper <= q
  // (upper >= 0) and q <= kFirst - off + lower (lower >= 0).
  Value qLo, qHi;
  if (band.upper >= 0)
    qLo = b.createOrFold<arith::SubIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, kLast, offset),
        constIndex(b, loc, band.upper));
  if (band.lower >= 0)
    qHi = b.createOrFold<arith::AddIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, kFirst, offset),
        constIndex(b, loc, band.lower + 1));
  auto [begin, end] = blocksInside(b, loc, qLo, qHi, blockQ, qbBegin, qbEnd);
  // Keys past Sk need the mask in every block.
  Value keysInSequence = b.createOrFold<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ult, kLast, seqK);
  begin = b.createOrFold<arith::SelectOp>(loc, keysInSequence, begin, qbEnd);
  end = b.createOrFold<arith::SelectOp>(loc, keysInSequence, end, qbEnd);
  return {begin, end};
}

std::pair<Value, Value> MaskBuilder::wholeKeyBlocks(OpBuilder &b, Location loc,
                                                    Value qFirst, Value qLast,
                                                    int64_t blockKv,
                                                    Value kbBegin,
                                                    Value kbEnd) const {
  // Key k is seen by every query of [qFirst, qLast] iff qLast + off - lower
  // <= k (lower >= 0) and k <= qFirst + off + upper (upper >= 0); only
  // blocks below Sk qualify.
  Value kLo, kHi = seqK;
  if (band.lower >= 0)
    kLo = b.createOrFold<arith::SubIOp>(
        loc, b.createOrFold<arith::AddIOp>(loc, qLast, offset),
        constIndex(b, loc, band.lower));
  if (band.upper >= 0)
    kHi = b.createOrFold<arith::MinSIOp>(
        loc, kHi,
        b.createOrFold<arith::AddIOp>(
            loc, b.createOrFold<arith::AddIOp>(loc, qFirst, offset),
            constIndex(b, loc, band.upper + 1)));
  return blocksInside(b, loc, kLo, kHi, blockKv, kbBegin, kbEnd);
}

Value MaskBuilder::isVisibleAt(OpBuilder &b, Location loc, Value keyMinusQuery,
                               ArrayRef<int64_t> deltas) const {
  auto type = VectorType::get({int64_t(deltas.size())}, b.getIndexType());
  auto boolType = VectorType::get({int64_t(deltas.size())}, b.getI1Type());
  if (band.isNone())
    return arith::ConstantOp::create(b, loc, boolType,
                                     DenseElementsAttr::get(boolType, true));
  // rel_i = keyMinusQuery + deltas[i] - offset; lower <= -rel_i and rel_i <=
  // upper become comparisons of the per-lane base against constants (no
  // overflow: indices and deltas are far below 2^62).
  Value base = arith::SubIOp::create(b, loc, keyMinusQuery, offset);
  Value bases = vector::BroadcastOp::create(b, loc, type, base);
  auto bound = [&](int64_t limit) {
    SmallVector<int64_t> values;
    for (int64_t d : deltas)
      values.push_back(limit - d);
    return arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef<int64_t>(values)));
  };
  Value visible;
  if (band.lower >= 0)
    visible = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, bases,
                                    bound(-band.lower));
  if (band.upper >= 0) {
    Value le = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, bases,
                                     bound(band.upper));
    visible = visible ? arith::AndIOp::create(b, loc, visible, le) : le;
  }
  return visible;
}

std::pair<Value, Value> MaskBuilder::visibleKeys(OpBuilder &b, Location loc,
                                                 Value qLo, Value qHi) const {
  Value kLo = constIndex(b, loc, 0), kHi = seqK;
  if (band.lower >= 0) {
    // First key of the lowest query's band.
    Value diag = b.createOrFold<arith::AddIOp>(loc, qLo, offset);
    Value lo = b.createOrFold<arith::AddIOp>(loc, diag,
                                             constIndex(b, loc, -band.lower));
    kLo = b.createOrFold<arith::MaxSIOp>(loc, kLo, lo);
  }
  if (band.upper >= 0) {
    // One past the last key of the highest query (qHi - 1) band.
    Value diag = b.createOrFold<arith::AddIOp>(loc, qHi, offset);
    Value hi = b.createOrFold<arith::AddIOp>(loc, diag,
                                             constIndex(b, loc, band.upper));
    kHi = b.createOrFold<arith::MinSIOp>(loc, kHi, hi);
  }
  kHi = b.createOrFold<arith::MaxSIOp>(loc, kHi, kLo);
  return {kLo, kHi};
}

std::pair<Value, Value> MaskBuilder::visibleQueries(OpBuilder &b,
                                                    Location loc, Value kLo,
                                                    Value kHi) const {
  // Query q sees k iff k - off - upper <= q <= k - off + lower.
  Value qLo = constIndex(b, loc, 0), qHi = seqQ;
  if (band.upper >= 0) {
    Value diag = b.createOrFold<arith::SubIOp>(loc, kLo, offset);
    Value lo = b.createOrFold<arith::SubIOp>(loc, diag,
                                             constIndex(b, loc, band.upper));
    qLo = b.createOrFold<arith::MaxSIOp>(loc, qLo, lo);
  }
  if (band.lower >= 0) {
    Value diag = b.createOrFold<arith::SubIOp>(loc, kHi, offset);
    Value hi = b.createOrFold<arith::AddIOp>(loc, diag,
                                             constIndex(b, loc, band.lower));
    qHi = b.createOrFold<arith::MinSIOp>(loc, qHi, hi);
  }
  qHi = b.createOrFold<arith::MaxSIOp>(loc, qHi, qLo);
  return {qLo, qHi};
}

//===----------------------------------------------------------------------===//
// Softmax statistics
//===----------------------------------------------------------------------===//

RowStats RowStats::load(OpBuilder &b, Location loc, ValueRange stats,
                        Value batch, Value head, Value query) {
  Value negInf = constF32(b, loc, -std::numeric_limits<float>::infinity());
  Value posInf = constF32(b, loc, std::numeric_limits<float>::infinity());
  SmallVector<Value, 3> idx{batch, head, query};
  RowStats rs;
  Value first = memref::LoadOp::create(b, loc, stats[0], idx);
  // A fully masked row has -inf (and L = 0); `ogt` is also false for NaN.
  Value valid = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                      first, negInf);
  if (stats.size() == 1) {
    Value log2Lse =
        arith::MulFOp::create(b, loc, first, constF32(b, loc, kLog2e));
    rs.offset = arith::SelectOp::create(b, loc, valid, log2Lse, posInf);
    return rs;
  }
  Value sum = memref::LoadOp::create(b, loc, stats[1], idx);
  Value zero = constF32(b, loc, 0.0f);
  valid = arith::AndIOp::create(
      b, loc, valid,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero));
  rs.offset = arith::SelectOp::create(b, loc, valid, first, posInf);
  // arcp lets the ROCDL finish use v_rcp_f32.
  Value inv = arith::DivFOp::create(b, loc, constF32(b, loc, 1.0f), sum,
                                    arith::FastMathFlags::arcp);
  rs.invSum = arith::SelectOp::create(b, loc, valid, inv, zero);
  return rs;
}

Value RowStats::normalizer(OpBuilder &b, Location loc) const {
  if (!invSum)
    return offset;
  // A fully masked row: +inf - log2(0) = +inf.
  Value log2InvSum = math::Log2Op::create(b, loc, invSum);
  return arith::SubFOp::create(b, loc, offset, log2InvSum);
}

Value RowStats::probability(OpBuilder &b, Location loc, Value sLog2) const {
  Value p = math::Exp2Op::create(
      b, loc, arith::SubFOp::create(b, loc, sLog2, offset));
  if (invSum)
    p = arith::MulFOp::create(b, loc, p, invSum);
  return p;
}

//===----------------------------------------------------------------------===//
// Kernel emission
//===----------------------------------------------------------------------===//

KernelEmitter::KernelEmitter(Operation *fmhaOp, KernelTarget target)
    : fmhaOp(fmhaOp), target(target), builder(fmhaOp) {}

Value VarlenBatch::numSequences(OpBuilder &b, Location loc) const {
  Value offsets = b.createOrFold<memref::DimOp>(loc, cuSeqlensQ, 0);
  return b.createOrFold<arith::SubIOp>(loc, offsets, constIndex(b, loc, 1));
}

/// `known` where static, else the runtime `value` (a memref's size, stride
/// or offset, from its type or its extract_strided_metadata).
static OpFoldResult staticOr(OpBuilder &b, int64_t known, Value value) {
  if (ShapedType::isDynamic(known))
    return value;
  return b.getIndexAttr(known);
}

/// The part of `packed` whose tokens start at `first`, `length` of them, as
/// `view` says: a reinterpret_cast to the same strides with a unit batch dim
/// added, so the memref lowering handles any strided layout.
static Value sequenceView(OpBuilder &b, Location loc, Value packed,
                          const SequenceView &view, Value first, Value length) {
  auto type = cast<MemRefType>(packed.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, packed);
  SmallVector<OpFoldResult> sizes, viewStrides;
  SmallVector<int64_t> shape, staticStrides;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    OpFoldResult size = d == view.tokenDim ? OpFoldResult(length)
                                           : staticOr(b, type.getDimSize(d),
                                                      meta.getSizes()[d]);
    sizes.push_back(size);
    shape.push_back(d == view.tokenDim ? ShapedType::kDynamic
                                       : type.getDimSize(d));
    viewStrides.push_back(staticOr(b, strides[d], meta.getStrides()[d]));
    staticStrides.push_back(strides[d]);
  }
  // The unit batch dim; its stride is never stepped along.
  sizes.insert(sizes.begin() + view.batchDim, b.getIndexAttr(1));
  shape.insert(shape.begin() + view.batchDim, 1);
  viewStrides.insert(viewStrides.begin() + view.batchDim,
                     viewStrides[view.tokenDim]);
  staticStrides.insert(staticStrides.begin() + view.batchDim,
                       staticStrides[view.tokenDim]);
  Value tokenStride = getValueOrCreateConstantIndexOp(
      b, loc,
      staticOr(b, strides[view.tokenDim], meta.getStrides()[view.tokenDim]));
  Value start =
      arith::AddIOp::create(b, loc, meta.getOffset(),
                            arith::MulIOp::create(b, loc, first, tokenStride));
  auto viewType =
      MemRefType::get(shape, type.getElementType(),
                      StridedLayoutAttr::get(
                          b.getContext(), ShapedType::kDynamic, staticStrides),
                      type.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, packed, OpFoldResult(start), sizes, viewStrides);
}

/// The body of a kernel over a packed batch's sequences (KernelLaunch's
/// varlen): the sequence's offsets from the two arguments after `launch`'s
/// (a GPU kernel's `args` go on with its workgroup buffers), an early exit
/// for workgroups past its end, then `body` on its views.
static void buildSequenceBody(OpBuilder &b, Location loc,
                              const KernelLaunch &launch, KernelBodyFn body,
                              ValueRange ids, Value tid, ValueRange args,
                              ValueRange wgBuffers) {
  Value seq = ids[2];
  Value next = arith::AddIOp::create(b, loc, seq, constIndex(b, loc, 1));
  // Every work-item reads the same offsets, which nothing writes: the early
  // exit is uniform, and barriers may go inside it.
  auto offset = [&](Value cu, Value at) -> Value {
    auto x = memref::LoadOp::create(b, loc, cu, at);
    x->setAttr(fmha::kWorkgroupUniformAttrName, b.getUnitAttr());
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
  };
  size_t numArgs = launch.args.size();
  Value cuQ = args[numArgs], cuK = args[numArgs + 1];
  Value firstQ = offset(cuQ, seq), firstK = offset(cuK, seq);
  Value lengthQ = arith::SubIOp::create(b, loc, offset(cuQ, next), firstQ);
  Value lengthK = arith::SubIOp::create(b, loc, offset(cuK, next), firstK);
  OpBuilder::InsertionGuard guard(b);
  if (launch.exitRows) {
    Value row0 = arith::MulIOp::create(b, loc, ids[0],
                                       constIndex(b, loc, launch.exitRows));
    Value inSequence =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row0,
                              launch.exitOnKeys ? lengthK : lengthQ);
    auto ifOp = scf::IfOp::create(b, loc, inSequence);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  SmallVector<Value> views(args.take_front(numArgs));
  for (auto [arg, view] : llvm::zip(views, launch.sequenceViews)) {
    if (!view)
      continue;
    Value first = view->keys ? firstK : firstQ;
    Value length = view->keys ? lengthK : lengthQ;
    if (view->padding) {
      Value pad = constIndex(b, loc, view->padding);
      first = arith::AddIOp::create(b, loc, first,
                                    arith::MulIOp::create(b, loc, seq, pad));
      length = arith::MulIOp::create(b, loc, ceilDiv(b, loc, length, pad), pad);
    }
    arg = sequenceView(b, loc, arg, *view, first, length);
  }
  Value c0 = constIndex(b, loc, 0);
  body(b, loc, {ids[0], ids[1], c0, seq}, tid, views, wgBuffers);
}

void orderHeavyFirst(OpBuilder &b, Location loc, KernelLaunch &launch) {
  Value count = b.createOrFold<arith::MulIOp>(
      loc, b.createOrFold<arith::MulIOp>(loc, launch.grid[0], launch.grid[1]),
      launch.grid[2]);
  Value c1 = constIndex(b, loc, 1);
  launch.grid = {count, c1, c1};
  launch.gridExpr = {launch.gridExpr[0] + "*" + launch.gridExpr[1] + "*" +
                         launch.gridExpr[2],
                     "1", "1"};
}

SmallVector<Value, 3> heavyFirstIds(OpBuilder &b, Location loc, Value linear,
                                    std::array<Value, 3> grid) {
  auto [x, y, z] = grid;
  Value pairs = arith::MulIOp::create(b, loc, y, z);
  Value groupPairs = constIndex(b, loc, kHeavyFirstPairs);
  Value span = arith::MulIOp::create(b, loc, groupPairs, x);
  Value group = arith::DivUIOp::create(b, loc, linear, span);
  Value inGroup = arith::RemUIOp::create(b, loc, linear, span);
  Value firstPair = arith::MulIOp::create(b, loc, group, groupPairs);
  // The last group may hold fewer pairs.
  Value left = arith::SubIOp::create(b, loc, pairs, firstPair);
  Value size = arith::MinUIOp::create(b, loc, groupPairs, left);
  Value rank = arith::DivUIOp::create(b, loc, inGroup, size);
  Value pairInGroup = arith::RemUIOp::create(b, loc, inGroup, size);
  Value pair = arith::AddIOp::create(b, loc, firstPair, pairInGroup);
  Value yId = arith::RemUIOp::create(b, loc, pair, y);
  Value zId = arith::DivUIOp::create(b, loc, pair, y);
  return {rank, yId, zId};
}

/// The `rocke.launch` dictionary of one kernel (see the header).
static DictionaryAttr
launchAttr(Builder &b, int64_t order, const KernelLaunch &launch,
           ArrayRef<std::pair<std::string, int64_t>> opSymbols) {
  SmallVector<Attribute> grid, args;
  for (const std::string &e : launch.gridExpr)
    grid.push_back(b.getStringAttr(e));
  for (const KernelArg &a : launch.args)
    args.push_back(b.getStringAttr(a.role));
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("order", b.getI64IntegerAttr(order)),
      b.getNamedAttr("grid", b.getArrayAttr(grid)),
      b.getNamedAttr("block", b.getI64ArrayAttr({launch.blockSize, 1, 1})),
      b.getNamedAttr("args", b.getArrayAttr(args))};
  if (launch.dynamicWorkgroupMemory)
    entries.push_back(b.getNamedAttr(
        "dynamic_shared_bytes",
        b.getI64IntegerAttr(workgroupBufferBytes(launch.workgroupBuffers))));
  SmallVector<NamedAttribute> symbols;
  for (const auto &[name, value] :
       llvm::concat<const std::pair<std::string, int64_t>>(opSymbols,
                                                           launch.symbols))
    symbols.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  if (!symbols.empty())
    entries.push_back(
        b.getNamedAttr("symbols", b.getDictionaryAttr(symbols)));
  return b.getDictionaryAttr(entries);
}

/// A workgroup buffer's alignment: 16 bytes (vector loads / stores of 16
/// bytes and NVIDIA's ldmatrix need it; the lowering defaults to element
/// alignment), kSwizzledBufferAlignment for 128-byte swizzled atoms.
static int64_t workgroupBufferAlignment(MemRefType t) {
  return fmha::atomRowBytes(t) == 128 ? kSwizzledBufferAlignment : 16;
}

/// Byte offsets of `buffers` laid out one after another at their
/// alignments, and the total size as a last entry: the one layout the
/// dynamic-memory views and the launch size share.
static SmallVector<int64_t> workgroupBufferLayout(ArrayRef<MemRefType> buffers) {
  SmallVector<int64_t> offsets;
  int64_t end = 0;
  for (MemRefType t : buffers) {
    offsets.push_back(llvm::alignTo(end, workgroupBufferAlignment(t)));
    end = offsets.back() + t.getNumElements() *
                               llvm::divideCeil(t.getElementTypeBitWidth(), 8);
  }
  offsets.push_back(end);
  return offsets;
}

void appendStatsArgs(SmallVectorImpl<KernelArg> &args, ValueRange stats) {
  if (stats.size() == 1) {
    args.push_back({stats[0], "lse"});
    return;
  }
  args.push_back({stats[0], "m"});
  args.push_back({stats[1], "l"});
}

void appendCaptureArgs(SmallVectorImpl<KernelArg> &args, ValueRange captures) {
  for (auto [i, c] : llvm::enumerate(captures))
    args.push_back({c, "capture" + std::to_string(i)});
}

int64_t workgroupBufferBytes(ArrayRef<MemRefType> buffers) {
  return workgroupBufferLayout(buffers).back();
}

/// The module's `gpu.module @fmha_kernels`, created on first use.
static gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module,
                                                Location loc) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>("fmha_kernels"))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, loc, "fmha_kernels");
}

LogicalResult KernelEmitter::emit(const KernelLaunch &launch,
                                  KernelBodyFn body) {
  Location loc = fmhaOp->getLoc();
  MLIRContext *ctx = fmhaOp->getContext();
  if (launch.varlen) {
    // The same kernel with the offsets as its last arguments and a body
    // that finds its sequence.
    KernelLaunch packed = launch;
    packed.varlen = {};
    packed.args.push_back({launch.varlen.cuSeqlensQ, "cu_seqlens_q"});
    packed.args.push_back({launch.varlen.cuSeqlensK, "cu_seqlens_k"});
    return emit(packed, [&](OpBuilder &b, Location l, ValueRange ids, Value tid,
                            ValueRange args, ValueRange wg) {
      buildSequenceBody(b, l, launch, body, ids, tid, args, wg);
    });
  }
  auto module = fmhaOp->getParentOfType<ModuleOp>();
  if (!module)
    return fmhaOp->emitOpError("must be inside a builtin.module to be "
                               "lowered into kernels");
  if (target.host && launch.blockSize != 1)
    return fmhaOp->emitOpError("kernel '")
           << launch.name << "' asks for " << launch.blockSize
           << " lanes; the host target runs one lane per workgroup";
  if (launch.blockSize < 1 ||
      launch.blockSize > std::numeric_limits<int32_t>::max())
    return fmhaOp->emitOpError("kernel '")
           << launch.name << "' has an invalid workgroup size "
           << launch.blockSize;
  if (!target.host && launch.blockSize > target.launch.maxWorkgroupSize)
    return fmhaOp->emitOpError("kernel '")
           << launch.name << "' asks for " << launch.blockSize
           << " work-items per workgroup, past the target's limit of "
           << target.launch.maxWorkgroupSize;

  SmallVector<Value> argValues;
  SmallVector<Type> argTypes;
  for (const KernelArg &a : launch.args) {
    argValues.push_back(a.value);
    argTypes.push_back(a.value.getType());
  }
  DictionaryAttr launchInfo = launchAttr(builder, order++, launch, symbols);

  if (target.host) {
    // func.func private @name(args..., gx, gy, gz) { scf.for z, y, x { body } }
    SmallVector<Type> fnTypes(argTypes);
    fnTypes.append(3, builder.getIndexType());
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto fn = func::FuncOp::create(mb, loc, launch.name,
                                   FunctionType::get(ctx, fnTypes, {}));
    fn.setPrivate();
    fn->setAttr("rocke.launch", launchInfo);
    SymbolTable(module).insert(fn);
    Block *entry = fn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    SmallVector<Value> wgBuffers;
    for (MemRefType t : launch.workgroupBuffers)
      wgBuffers.push_back(memref::AllocaOp::create(b, loc, t));
    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    ValueRange fnArgs = entry->getArguments();
    SmallVector<Value, 3> ids(3);
    // Nest z outermost so x (the fastest-varying id on a GPU) is innermost.
    for (int d = 2; d >= 0; --d) {
      auto loop = scf::ForOp::create(b, loc, c0, fnArgs[argTypes.size() + d],
                                     c1);
      ids[d] = loop.getInductionVar();
      b.setInsertionPointToStart(loop.getBody());
    }
    body(b, loc, ids, c0, fnArgs.take_front(argTypes.size()), wgBuffers);
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);

    SmallVector<Value> callArgs(argValues);
    callArgs.append(launch.grid.begin(), launch.grid.end());
    func::CallOp::create(builder, loc, fn, callArgs);
    return success();
  }

  gpu::GPUModuleOp kernelModule = getOrCreateKernelModule(module, loc);
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto globalSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  SmallVector<Type> wgTypes;
  if (!launch.dynamicWorkgroupMemory)
    for (MemRefType t : launch.workgroupBuffers)
      wgTypes.push_back(MemRefType::Builder(t).setMemorySpace(wgSpace));

  OpBuilder kb(ctx);
  // A static grid past the target's limits would only fail at launch time
  // (dynamic ones are the runner's to check: rocke.launch's grid_limit).
  // Checked before the function exists: a failure must leave nothing
  // unattached behind.
  const std::array<int64_t, 3> &maxGrid = target.launch.maxGrid;
  SmallVector<int32_t, 3> staticGrid;
  for (auto [d, g] : llvm::enumerate(launch.grid)) {
    std::optional<int64_t> c = getConstantIntValue(g);
    if (c && *c > maxGrid[d])
      return fmhaOp->emitOpError("kernel '")
             << launch.name << "' needs " << *c << " workgroups in "
             << "xyz"[d] << " (" << launch.gridExpr[d]
             << "), past the GPU grid limit of " << maxGrid[d]
             << " (x < 2^31, y and z < 65536)";
    if (c && *c > 0)
      staticGrid.push_back(static_cast<int32_t>(*c));
  }
  auto fn = gpu::GPUFuncOp::create(kb, loc, launch.name,
                                   FunctionType::get(ctx, argTypes, {}),
                                   wgTypes);
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  for (auto [i, t] : llvm::enumerate(wgTypes))
    fn.setWorkgroupAttributionAttr(
        i, "llvm.align",
        kb.getI64IntegerAttr(workgroupBufferAlignment(cast<MemRefType>(t))));
  fn.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr(
      {static_cast<int32_t>(launch.blockSize), 1, 1}));
  if (staticGrid.size() == 3)
    fn.setKnownGridSizeAttr(kb.getDenseI32ArrayAttr(staticGrid));
  fn->setAttr("rocke.launch", launchInfo);
  if (launch.agprAccumulators)
    fn->setAttr(fmha::kAgprAccumulatorsAttrName, kb.getUnitAttr());
  SymbolTable(kernelModule).insert(fn);

  Block &entry = fn.getBody().front();
  kb.setInsertionPointToStart(&entry);
  // The host passes plain memrefs; global address space in the kernel gives
  // global_load / global_atomic on AMD instead of flat ones.
  SmallVector<Value> kernelArgs;
  for (Value arg : fn.getArguments()) {
    auto t = cast<MemRefType>(arg.getType());
    if (t.getMemorySpace()) {
      kernelArgs.push_back(arg);
      continue;
    }
    kernelArgs.push_back(memref::MemorySpaceCastOp::create(
        kb, loc, MemRefType(MemRefType::Builder(t).setMemorySpace(globalSpace)),
        arg));
  }
  SmallVector<Value, 3> ids;
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    ids.push_back(gpu::BlockIdOp::create(kb, loc, d));
  Value tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
  SmallVector<Value> wgBuffers(fn.getWorkgroupAttributions());
  if (launch.dynamicWorkgroupMemory) {
    // One i8 buffer, 16-byte aligned by the lowering; typed views into it at
    // the offsets workgroupBufferLayout gives.
    Value bytes = gpu::DynamicSharedMemoryOp::create(
        kb, loc,
        MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                        MemRefLayoutAttrInterface(), wgSpace));
    SmallVector<int64_t> offsets =
        workgroupBufferLayout(launch.workgroupBuffers);
    for (auto [t, offset] : llvm::zip(launch.workgroupBuffers, offsets)) {
      MemRefType view = MemRefType::Builder(t).setMemorySpace(wgSpace);
      wgBuffers.push_back(memref::ViewOp::create(
          kb, loc, view, bytes, constIndex(kb, loc, offset), ValueRange{}));
    }
  }
  body(kb, loc, ids, tid, kernelArgs, wgBuffers);
  gpu::ReturnOp::create(kb, loc);

  // An empty dynamic problem (B, Sq or Sk = 0) launches nothing: a grid with
  // a zero extent is a launch error on both vendors' runtimes.
  OpBuilder::InsertionGuard guard(builder);
  if (staticGrid.size() != 3) {
    Value c0 = constIndex(builder, loc, 0);
    Value nonEmpty;
    for (Value g : launch.grid) {
      Value positive = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ugt, g, c0);
      nonEmpty = nonEmpty ? arith::AndIOp::create(builder, loc, nonEmpty,
                                                  positive)
                          : positive;
    }
    auto ifOp = scf::IfOp::create(builder, loc, nonEmpty);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  Value c1 = constIndex(builder, loc, 1);
  gpu::KernelDim3 grid{launch.grid[0], launch.grid[1], launch.grid[2]};
  gpu::KernelDim3 block{constIndex(builder, loc, launch.blockSize), c1, c1};
  Value dynamicBytes;
  if (launch.dynamicWorkgroupMemory)
    dynamicBytes = arith::ConstantIntOp::create(
        builder, loc, builder.getI32Type(),
        workgroupBufferBytes(launch.workgroupBuffers));
  gpu::LaunchFuncOp::create(builder, loc, fn, grid, block, dynamicBytes,
                            argValues);
  return success();
}

FailureOr<Value> KernelEmitter::allocScratch(MemRefType type,
                                             ValueRange dynamicSizes) {
  Location loc = fmhaOp->getLoc();
  // The buffer's shape where every size is a constant here.
  SmallVector<int64_t> shape;
  auto dynamicSize = dynamicSizes.begin();
  for (int64_t size : type.getShape()) {
    std::optional<int64_t> known = ShapedType::isDynamic(size)
                                       ? getConstantIntValue(*dynamicSize++)
                                       : std::optional<int64_t>(size);
    shape.push_back(known.value_or(ShapedType::kDynamic));
  }
  int64_t limit = indexLimit(target);
  std::optional<LastOffset> offsets =
      lastElementOffset(MemRefType::get(shape, type.getElementType()));
  if (offsets && offsets->passes(limit))
    return fmhaOp->emitOpError()
           << "needs a scratch buffer " << type << " of "
           << elementCount(*offsets) << ", whose offsets pass " << limit
           << ", beyond the target's " << target.indexBitwidth
           << "-bit indexing";
  Value buf;
  if (target.host)
    buf = memref::AllocOp::create(builder, loc, type, dynamicSizes);
  else
    buf = gpu::AllocOp::create(builder, loc, type, /*asyncToken=*/Type(),
                               ValueRange{}, dynamicSizes, ValueRange{},
                               /*hostShared=*/false)
              .getMemref();
  scratch.push_back(buf);
  return buf;
}

FailureOr<Value> KernelEmitter::allocScratchLike(Value like, Type elt) {
  Location loc = fmhaOp->getLoc();
  auto likeType = cast<MemRefType>(like.getType());
  auto type = MemRefType::get(likeType.getShape(), elt);
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < likeType.getRank(); ++d)
    if (likeType.isDynamicDim(d))
      dyn.push_back(builder.createOrFold<memref::DimOp>(loc, like, d));
  return allocScratch(type, dyn);
}

void KernelEmitter::finish() {
  Location loc = fmhaOp->getLoc();
  for (Value buf : scratch) {
    if (target.host)
      memref::DeallocOp::create(builder, loc, buf);
    else
      gpu::DeallocOp::create(builder, loc, /*asyncToken=*/Type(),
                             ValueRange{}, buf);
  }
  scratch.clear();
}

//===----------------------------------------------------------------------===//
// Shared small kernels
//===----------------------------------------------------------------------===//

/// Lanes per workgroup of the element-wise kernels on a GPU.
static constexpr int64_t kElementwiseBlock = 256;

/// Product of `sizes`.
static Value product(OpBuilder &b, Location loc, ValueRange sizes) {
  Value p = constIndex(b, loc, 1);
  for (Value s : sizes)
    p = b.createOrFold<arith::MulIOp>(loc, p, s);
  return p;
}

/// Largest power of two up to `maxWidth` that divides the static last
/// dimension of `memref` (1 where it is dynamic): how many consecutive
/// elements one lane of an element-wise kernel takes.
static int64_t runWidth(Value memref, int64_t maxWidth) {
  int64_t last = cast<MemRefType>(memref.getType()).getShape().back();
  if (ShapedType::isDynamic(last) || maxWidth < 1)
    return 1;
  int64_t width = llvm::bit_floor(static_cast<uint64_t>(maxWidth));
  while (width > 1 && last % width != 0)
    width /= 2;
  return width;
}

/// The f32 constant `v`, splat over a run of `width` elements (a scalar
/// for 1).
static Value constRunF32(OpBuilder &b, Location loc, float v, int64_t width) {
  Value x = constF32(b, loc, v);
  if (width == 1)
    return x;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({width}, b.getF32Type()), x);
}

/// A vector of `width` elements of `memref` from `idx` on along its last
/// dimension (unit-stride), as f32, read in 16-byte aligned pieces (the
/// buffer's rows are: scratch, or a role the runners check, kernel_abi's
/// ALIGNED_ROLES).
static Value loadRunF32(OpBuilder &b, Location loc, Value memref,
                        ValueRange idx, int64_t width) {
  if (width == 1)
    return loadF32(b, loc, memref, idx);
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  int64_t bytes = width * elt.getIntOrFloatBitWidth() / 8;
  Value v = vector::LoadOp::create(
      b, loc, VectorType::get({width}, elt), memref, idx,
      /*nontemporal=*/false, llvm::MaybeAlign(std::min<int64_t>(16, bytes)));
  if (elt.isF32())
    return v;
  return arith::ExtFOp::create(b, loc, VectorType::get({width}, b.getF32Type()),
                               v);
}

/// storeF32 of a run read by loadRunF32.
static void storeRunF32(OpBuilder &b, Location loc, Value value, Value memref,
                        ValueRange idx) {
  auto type = dyn_cast<VectorType>(value.getType());
  if (!type)
    return storeF32(b, loc, value, memref, idx);
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  if (!elt.isF32())
    value = arith::TruncFOp::create(b, loc, type.clone(elt), value);
  int64_t bytes = type.getNumElements() * elt.getIntOrFloatBitWidth() / 8;
  vector::StoreOp::create(b, loc, value, memref, idx, /*nontemporal=*/false,
                          llvm::MaybeAlign(std::min<int64_t>(16, bytes)));
}

/// One lane per run of `width` consecutive elements of `shapeOf` along its
/// last dimension (which `width` divides): calls `fn(coords)` with the
/// coordinates of every run's first element, with a bounds check for the
/// last, partial workgroup. Runs of 8 bf16 (16 bytes) cut the lanes, and the
/// workgroups to schedule, eightfold: the one-element kernels ran at
/// 1.4-1.9 TB/s on an H100.
/// With `varlen`, `shapeOf` is a packed batch's [T_q, ...]: one workgroup
/// row (grid z) per sequence, elements of its longest possible part
/// (max_seqlen_q rows, `countExpr` in those terms), and the arguments as
/// `views` say.
static LogicalResult
emitElementwise(KernelEmitter &emitter, StringRef name,
                SmallVector<KernelArg> args, Value shapeOf, int64_t shapeArg,
                StringRef countExpr, int64_t width,
                function_ref<void(OpBuilder &, Location, ValueRange args,
                                  ValueRange coords)>
                    fn,
                const VarlenBatch &varlen = {},
                ArrayRef<std::optional<SequenceView>> views = {}) {
  OpBuilder &cb = emitter.callSite();
  Location loc = shapeOf.getLoc();
  int64_t block = emitter.getTarget().host ? 1 : kElementwiseBlock;
  // Elements per workgroup: `block` lanes of `width` each.
  int64_t span = block * width;
  SmallVector<Value> sizes = memrefSizes(cb, loc, shapeOf);
  if (varlen)
    sizes.front() = constIndex(cb, loc, varlen.maxSeqlenQ);
  Value count = product(cb, loc, sizes);
  KernelLaunch launch;
  launch.name = name.str();
  launch.args = std::move(args);
  Value c1 = constIndex(cb, loc, 1);
  launch.grid = {ceilDiv(cb, loc, count, constIndex(cb, loc, span)), c1,
                 varlen ? varlen.numSequences(cb, loc) : c1};
  launch.gridExpr = {span == 1 ? countExpr.str()
                               : "ceildiv(" + countExpr.str() + "," +
                                     std::to_string(span) + ")",
                     "1", varlen ? "B" : "1"};
  launch.blockSize = block;
  launch.varlen = varlen;
  launch.sequenceViews.assign(views.begin(), views.end());
  return emitter.emit(launch, [&](OpBuilder &b, Location loc,
                                  ValueRange ids, Value tid, ValueRange kargs,
                                  ValueRange) {
    SmallVector<Value> sizes = memrefSizes(b, loc, kargs[shapeArg]);
    Value cWidth = constIndex(b, loc, width);
    sizes.back() = b.createOrFold<arith::DivUIOp>(loc, sizes.back(), cWidth);
    Value total = product(b, loc, sizes);
    Value linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, ids[0], constIndex(b, loc, block)),
        tid);
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          linear, total);
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> coords = delinearize(b, loc, linear, sizes);
    coords.back() = b.createOrFold<arith::MulIOp>(loc, coords.back(), cWidth);
    fn(b, loc, kargs, coords);
  });
}

LogicalResult emitZeroFill(KernelEmitter &emitter, StringRef name,
                           Value buffer, StringRef role, StringRef countExpr,
                           bool alignedRows) {
  // Four f32 (16 bytes) a lane where the rows are aligned.
  int64_t width = alignedRows ? runWidth(buffer, 4) : 1;
  return emitElementwise(
      emitter, name, {{buffer, role.str()}}, buffer, 0, countExpr, width,
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange coords) {
        storeRunF32(b, loc, constRunF32(b, loc, 0.0f, width), args[0],
                    coords);
      });
}

Value pairedColumn(OpBuilder &b, Location loc, Value col) {
  // One op per statement (the IR's order must not depend on the compiler's
  // argument order).
  auto bits = [&](int64_t mask) -> Value {
    return arith::AndIOp::create(b, loc, col, constIndex(b, loc, mask));
  };
  Value group = bits(~int64_t(15));
  Value pair = bits(6);
  Value pairAt = arith::ShLIOp::create(b, loc, pair, constIndex(b, loc, 1));
  Value atom = bits(8);
  Value atomAt = arith::ShRUIOp::create(b, loc, atom, constIndex(b, loc, 2));
  Value element = bits(1);
  Value at = arith::AddIOp::create(b, loc, group, pairAt);
  at = arith::AddIOp::create(b, loc, at, atomAt);
  return arith::AddIOp::create(b, loc, at, element);
}

/// pairedColumn within one group of 16 columns.
static int64_t pairedColumnInGroup(int64_t col) {
  return 4 * (col % 8 / 2) + 2 * (col / 8) + col % 2;
}

Value accumRows(OpBuilder &b, Location loc, Value accum,
                const AccumLayout &layout) {
  if (!layout.headMajor)
    return accum;
  // [B, H, S, D + padding] -> [B, S, H, D]: dims 1 and 2 swapped, the
  // padding left out.
  auto type = cast<MemRefType>(accum.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, accum);
  const std::array<unsigned, 4> order{0, 2, 1, 3};
  SmallVector<OpFoldResult> sizes, viewStrides;
  SmallVector<int64_t> shape, staticStrides;
  for (unsigned d : order) {
    int64_t size = type.getDimSize(d);
    if (d == 3)
      size -= layout.padding;
    shape.push_back(size);
    sizes.push_back(d == 3 ? b.getIndexAttr(size)
                           : staticOr(b, size, meta.getSizes()[d]));
    staticStrides.push_back(strides[d]);
    viewStrides.push_back(staticOr(b, strides[d], meta.getStrides()[d]));
  }
  auto viewType = MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), offset, staticStrides),
      type.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, accum, staticOr(b, offset, meta.getOffset()), sizes,
      viewStrides);
}

LogicalResult emitConvert(KernelEmitter &emitter, StringRef name, Value accum,
                          StringRef accumRole, Value grad, StringRef gradRole,
                          StringRef countExpr, float factor,
                          const VarlenBatch &varlen, SequenceView accumView,
                          AccumLayout accumLayout, bool pairedColumns) {
  // On a GPU a lane converts 8 elements (16 bytes of bf16), or with paired
  // columns a whole group of 16 (read in order, permuted in registers). The
  // accumulator is scratch; the gradient's rows are checked (ALIGNED_ROLES).
  int64_t width = emitter.getTarget().host
                      ? 1
                      : runWidth(grad, pairedColumns ? 16 : 8);
  if (pairedColumns && width != 16)
    return emitError(accum.getLoc())
           << "paired columns need whole 16-column groups converted by one "
              "lane (a GPU target, a head dim that 16 divides)";
  return emitElementwise(
      emitter, name, {{accum, accumRole.str()}, {grad, gradRole.str()}}, grad,
      1, countExpr, width,
      [&](OpBuilder &b, Location loc, ValueRange gridArgs, ValueRange coords) {
        Value accumArg = accumRows(b, loc, gridArgs[0], accumLayout);
        // With paired columns the run is a whole group of 16, which starts
        // where its logical group does.
        SmallVector<Value> accumAt(coords);
        Value x;
        if (cast<MemRefType>(accumArg.getType()).getRank() ==
            static_cast<int64_t>(coords.size())) {
          x = loadRunF32(b, loc, accumArg, accumAt, width);
        } else {
          // Partials: summed in the order of their leading index, the same
          // on every run.
          Value c0 = constIndex(b, loc, 0);
          Value partials = memref::DimOp::create(b, loc, accumArg, c0);
          Value c1 = constIndex(b, loc, 1);
          Value zero = constRunF32(b, loc, 0.0f, width);
          auto sum = scf::ForOp::create(b, loc, c0, partials, c1, zero);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(sum.getBody());
          SmallVector<Value> at{sum.getInductionVar()};
          llvm::append_range(at, accumAt);
          Value part = loadRunF32(b, loc, accumArg, at, width);
          Value added =
              arith::AddFOp::create(b, loc, sum.getRegionIterArgs()[0], part);
          scf::YieldOp::create(b, loc, added);
          x = sum.getResult(0);
        }
        if (pairedColumns) {
          SmallVector<int64_t> order;
          for (int64_t col = 0; col < 16; ++col)
            order.push_back(pairedColumnInGroup(col));
          x = vector::ShuffleOp::create(b, loc, x, x, order);
        }
        if (factor != 1.0f)
          x = arith::MulFOp::create(b, loc, x,
                                    constRunF32(b, loc, factor, width));
        storeRunF32(b, loc, x, gridArgs[1], coords);
      },
      varlen, {accumView, SequenceView{}});
}

LogicalResult emitBwdPreprocess(KernelEmitter &emitter, Value out,
                                Value gradOut, Value rowOutput,
                                int64_t subgroupsPerWorkgroup,
                                ValueRange stats, const VarlenBatch &varlen,
                                const ZeroFilledRows &zeroRows) {
  const KernelTarget &target = emitter.getTarget();
  OpBuilder &cb = emitter.callSite();
  Location loc = out.getLoc();
  int64_t subgroups = target.host ? 1 : subgroupsPerWorkgroup;
  int64_t lanes = target.subgroupSize;
  // On a GPU each lane reads runs of up to 8 elements of a row (16 bytes;
  // "o" and "do" rows are aligned, kernel_abi's ALIGNED_ROLES), and a row
  // takes as many lanes as it has runs (a power of two, at most the
  // subgroup): D = 128 16 lanes, two rows a 32-lane subgroup; D = 64 eight
  // lanes, four rows. One row a subgroup read 4-byte runs at D = 64.
  int64_t dv = cast<MemRefType>(out.getType()).getShape().back();
  int64_t width =
      target.host || ShapedType::isDynamic(dv) ? 1 : runWidth(out, 8);
  int64_t rowLanes =
      ShapedType::isDynamic(dv)
          ? lanes
          : static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(
                std::clamp<int64_t>(dv / width, 1, lanes))));
  int64_t rows = subgroups * (lanes / rowLanes);
  SmallVector<Value> sizes = memrefSizes(cb, loc, out); // [B, Sq, Hq, Dv]
  KernelLaunch launch;
  launch.name = "fmha_bwd_preprocess";
  launch.args = {{out, "o"},
                 {gradOut, "do"},
                 {rowOutput, stats.empty() ? "delta:f32:none"
                             : varlen      ? "row_stats:f32:none:[Hq,Sq,2]"
                                           : "row_stats:f32:none:[B,Hq,Sq,2]"}};
  if (!stats.empty())
    appendStatsArgs(launch.args, stats);
  if (zeroRows.buffer)
    launch.args.push_back({zeroRows.buffer, zeroRows.role});
  std::string rowsStr = std::to_string(rows);
  if (varlen) {
    // Per sequence: O and dO rows, and the [Hq, S] statistics and records.
    launch.grid = {
        constIndex(cb, loc, llvm::divideCeil(varlen.maxSeqlenQ, rows)),
        sizes[1], varlen.numSequences(cb, loc)};
    launch.gridExpr = {"ceildiv(max_seqlen_q," + rowsStr + ")", "Hq", "B"};
    launch.varlen = varlen;
    SequenceView rowsView{/*keys=*/false, /*tokenDim=*/1, /*batchDim=*/0};
    launch.sequenceViews = {SequenceView{}, SequenceView{}, rowsView};
    launch.sequenceViews.append(stats.size(), rowsView);
    if (zeroRows.buffer)
      launch.sequenceViews.push_back(zeroRows.view);
    launch.exitRows = rows;
  } else {
    launch.grid = {ceilDiv(cb, loc, sizes[1], constIndex(cb, loc, rows)),
                   sizes[2], sizes[0]};
    launch.gridExpr = {"ceildiv(Sq," + rowsStr + ")", "Hq", "B"};
  }
  launch.blockSize = subgroups * lanes;
  return emitter.emit(launch, [&](OpBuilder &b, Location loc, ValueRange ids,
                                  Value tid, ValueRange args, ValueRange) {
    Value o = args[0], dO = args[1], d = args[2];
    SmallVector<Value> ks = memrefSizes(b, loc, o);
    Value cRowLanes = constIndex(b, loc, rowLanes);
    Value firstRow =
        arith::MulIOp::create(b, loc, ids[0], constIndex(b, loc, rows));
    Value rowInGroup = arith::DivUIOp::create(b, loc, tid, cRowLanes);
    Value row = arith::AddIOp::create(b, loc, firstRow, rowInGroup);
    Value lane = arith::RemUIOp::create(b, loc, tid, cRowLanes);
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                        ks[1]);
    // The row's lanes over [0, end) in runs of `runs` elements: lane * runs
    // by rowLanes * runs, nothing past Sq. One op per statement (the IR's
    // order must not depend on the compiler's argument order).
    auto laneRuns = [&](int64_t runs, Value end) -> std::array<Value, 3> {
      Value hi =
          arith::SelectOp::create(b, loc, valid, end, constIndex(b, loc, 0));
      Value cRuns = constIndex(b, loc, runs);
      Value first = arith::MulIOp::create(b, loc, lane, cRuns);
      Value step = arith::MulIOp::create(b, loc, cRowLanes, cRuns);
      return {first, hi, step};
    };
    // Rows past Sq read nothing but still join the (uniform) reduction.
    auto [firstDim, hi, dimStep] = laneRuns(width, ks[3]);
    Value zero = constRunF32(b, loc, 0.0f, width);
    auto loop = scf::ForOp::create(
        b, loc, firstDim, hi, dimStep, ValueRange{zero},
        [&](OpBuilder &lb, Location l, Value dim, ValueRange acc) {
          SmallVector<Value, 4> idx{ids[2], row, ids[1], dim};
          Value x = loadRunF32(lb, l, o, idx, width);
          Value dx = loadRunF32(lb, l, dO, idx, width);
          Value prod = arith::MulFOp::create(lb, l, x, dx);
          scf::YieldOp::create(lb, l,
                               ValueRange{arith::AddFOp::create(
                                   lb, l, acc[0], prod)});
        });
    if (zeroRows.buffer) {
      // The row of the accumulator, by its lanes in 16-byte runs; rows past
      // Sq are never read.
      Value accum = accumRows(b, loc, args.back(), zeroRows.layout);
      int64_t accWidth = runWidth(accum, 4);
      auto [firstCol, colHi, colStep] =
          laneRuns(accWidth, memref::DimOp::create(b, loc, accum, 3));
      Value zeroRun = constRunF32(b, loc, 0.0f, accWidth);
      scf::ForOp::create(b, loc, firstCol, colHi, colStep, ValueRange{},
                         [&](OpBuilder &lb, Location l, Value col, ValueRange) {
                           storeRunF32(lb, l, zeroRun, accum,
                                       ValueRange{ids[2], row, ids[1], col});
                           scf::YieldOp::create(lb, l);
                         });
    }
    Value partial = loop.getResult(0);
    if (width > 1)
      partial = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                            partial);
    Value sum = subgroupReduce(b, loc, target, partial,
                               gpu::AllReduceOperation::ADD, rowLanes);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                        constIndex(b, loc, 0));
    auto ifOp = scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, valid, first), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    if (stats.empty()) {
      memref::StoreOp::create(b, loc, sum, d, ValueRange{ids[2], ids[1], row});
      return;
    }
    Value norm =
        RowStats::load(b, loc, args.slice(3, stats.size()), ids[2], ids[1], row)
            .normalizer(b, loc);
    std::array<Value, 2> record{norm, sum};
    for (auto [field, x] : llvm::enumerate(record))
      memref::StoreOp::create(
          b, loc, x, d,
          ValueRange{ids[2], ids[1], row, constIndex(b, loc, field)});
  });
}

LogicalResult emitSinkGradient(KernelEmitter &emitter, Value rowRecord,
                               Value sinks, Value gradSinks, bool varlen) {
  const KernelTarget &target = emitter.getTarget();
  OpBuilder &cb = emitter.callSite();
  Location loc = gradSinks.getLoc();
  int64_t lanes = target.subgroupSize;
  auto recordType = cast<MemRefType>(rowRecord.getType());
  int64_t heads = recordType.getDimSize(varlen ? 0 : 1);
  KernelLaunch launch;
  launch.name = "fmha_bwd_sink_grad";
  launch.args = {{rowRecord, varlen ? "row_stats:f32:none:[Hq,Sq,2]"
                                    : "row_stats:f32:none:[B,Hq,Sq,2]"},
                 {sinks, "sinks"},
                 {gradSinks, "dsinks"}};
  Value c1 = constIndex(cb, loc, 1);
  launch.grid = {constIndex(cb, loc, heads), c1, c1};
  launch.gridExpr = {"Hq", "1", "1"};
  launch.blockSize = lanes;
  return emitter.emit(launch, [&](OpBuilder &b, Location loc, ValueRange ids,
                                  Value lane, ValueRange args, ValueRange) {
    Value record = args[0], head = ids[0];
    Value sink = memref::LoadOp::create(b, loc, args[1], head);
    Value sinkLog2 =
        arith::MulFOp::create(b, loc, sink, constF32(b, loc, kLog2e));
    // Rows r = (batch, query) of the dense record, or packed tokens.
    Value seqQ = memref::DimOp::create(b, loc, record, varlen ? 1 : 2);
    Value numRows = seqQ;
    if (!varlen)
      numRows = arith::MulIOp::create(
          b, loc, memref::DimOp::create(b, loc, record, 0), seqQ);
    // One op per statement: g++ and clang evaluate arguments in different
    // orders.
    Value step = constIndex(b, loc, lanes);
    Value zero = constF32(b, loc, 0.0f);
    auto loop = scf::ForOp::create(
        b, loc, lane, numRows, step, ValueRange{zero},
        [&](OpBuilder &lb, Location l, Value r, ValueRange acc) {
          auto field = [&](int64_t f) -> Value {
            SmallVector<Value, 4> at{head, r, constIndex(lb, l, f)};
            if (!varlen) {
              Value batch = arith::DivUIOp::create(lb, l, r, seqQ);
              Value row = arith::RemUIOp::create(lb, l, r, seqQ);
              at = {batch, head, row, constIndex(lb, l, f)};
            }
            return memref::LoadOp::create(lb, l, record, at);
          };
          Value norm = field(0);
          Value delta = field(1);
          // P_sink = exp2(sink log2 e - c): the sink's probability in the row.
          Value pSink = math::Exp2Op::create(
              lb, l, arith::SubFOp::create(lb, l, sinkLog2, norm));
          Value term = arith::MulFOp::create(lb, l, pSink, delta);
          scf::YieldOp::create(
              lb, l, ValueRange{arith::AddFOp::create(lb, l, acc[0], term)});
        });
    Value sum = subgroupReduce(b, loc, target, loop.getResult(0),
                               gpu::AllReduceOperation::ADD);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                        constIndex(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, arith::NegFOp::create(b, loc, sum), args[2],
                            head);
  });
}

} // namespace rocke
