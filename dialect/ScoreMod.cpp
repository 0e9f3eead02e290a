//===- ScoreMod.cpp - score_mod regions: checks, named ones, inlining -----===//
#include "dialect/ScoreMod.h"
#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace rocke::fmha;

namespace {
constexpr double kLog2e = 1.44269504088896340736;
constexpr double kLn2 = 0.693147180559945309417;

/// The closed set of ops a score_mod body may hold (besides fmha.yield):
/// those ScoreModInliner can emit on every target and differentiate.
bool isScoreModOp(Operation *op) {
  return isa<arith::ConstantOp, arith::AddFOp, arith::SubFOp, arith::MulFOp,
             arith::DivFOp, arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::CmpFOp, arith::SelectOp, arith::AddIOp, arith::SubIOp,
             arith::MulIOp, arith::CmpIOp, arith::IndexCastOp, arith::SIToFPOp,
             math::TanhOp, math::ExpOp, math::Exp2Op, math::LogOp, math::AbsFOp,
             memref::LoadOp>(op);
}

constexpr const char *kScoreModOpList =
    "arith.constant, addf, subf, mulf, divf, negf, maximumf, minimumf, "
    "cmpf, select, addi, subi, muli, cmpi, index_cast, sitofp; math.tanh, "
    "exp, exp2, log, absf; memref.load of a captured operand";

/// Values of the body that depend on the score or a position (the block
/// arguments score, query, key and what is computed from them).
DenseSet<Value> varyingValues(Block &body) {
  DenseSet<Value> varying{body.getArgument(kScoreArg),
                          body.getArgument(kQueryArg),
                          body.getArgument(kKeyArg)};
  for (Operation &op : body)
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      varying.insert(op.result_begin(), op.result_end());
  return varying;
}

bool isScalarType(Type t) { return t.isF32() || t.isSignlessIntOrIndex(); }
} // namespace

LogicalResult rocke::fmha::verifyScoreMod(Operation *op, Region &region,
                                          ValueRange captures, int64_t heads,
                                          int64_t batch) {
  for (auto [i, c] : llvm::enumerate(captures))
    if (cast<MemRefType>(c.getType()).getElementType() !=
        Float32Type::get(op->getContext()))
      return op->emitOpError("captured operand #")
             << i << " must be a memref of f32, got " << c.getType();
  Block &body = region.front();
  unsigned expected = kNumScoreModPositionalArgs + captures.size();
  if (body.getNumArguments() != expected)
    return op->emitOpError("score_mod takes (score: f32, batch, head, query, "
                           "key: index) and one argument per captured "
                           "operand: ")
           << expected << " block arguments, not " << body.getNumArguments();
  Type f32 = Float32Type::get(op->getContext());
  Type index = IndexType::get(op->getContext());
  for (BlockArgument arg : body.getArguments()) {
    unsigned n = arg.getArgNumber();
    Type want = n == kScoreArg ? f32
                : n < kNumScoreModPositionalArgs
                    ? index
                    : captures[n - kNumScoreModPositionalArgs].getType();
    if (arg.getType() != want)
      return op->emitOpError("score_mod block argument #")
             << n << " must be " << want << ", not " << arg.getType();
  }
  // The last op, where the block has one (the verifier of its terminator
  // runs after this one).
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield || yield.getValues().size() != 1 ||
      !yield.getValues()[0].getType().isF32())
    return op->emitOpError(
        "score_mod must end in fmha.yield of one f32, the modified score");
  DenseSet<Value> varying = varyingValues(body);
  for (Operation &inner : body.without_terminator()) {
    if (!isScoreModOp(&inner))
      return inner.emitOpError("cannot be differentiated or lowered in a "
                               "score_mod; the region takes ")
             << kScoreModOpList;
    for (Type t :
         llvm::concat<Type>(inner.getOperandTypes(), inner.getResultTypes()))
      if (!isScalarType(t) && !isa<MemRefType>(t))
        return inner.emitOpError("computes on ")
               << t << "; a score_mod computes on f32, integers and index";
    auto load = dyn_cast<memref::LoadOp>(inner);
    if (!load)
      continue;
    // The region is isolated and creates no memref: loads read captures.
    // Indices whose range is known: a constant, the head, the batch.
    MemRefType type = load.getMemRefType();
    for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
      int64_t extent = type.getDimSize(dim);
      if (ShapedType::isDynamic(extent))
        continue;
      auto arg = dyn_cast<BlockArgument>(index);
      std::optional<int64_t> constant = getConstantIntValue(index);
      if (constant && (*constant < 0 || *constant >= extent))
        return load.emitOpError("in a score_mod reads index ")
               << *constant << " of dim " << dim << " of " << type;
      if (!arg ||
          (arg.getArgNumber() != kHeadArg && arg.getArgNumber() != kBatchArg))
        continue;
      bool head = arg.getArgNumber() == kHeadArg;
      int64_t needed = head ? heads : batch;
      if (!ShapedType::isDynamic(needed) && extent < needed)
        return load.emitOpError("in a score_mod indexes dim ")
               << dim << " of " << type << " by the "
               << (head ? "query head, of which there are "
                        : "batch, whose size is ")
               << needed;
    }
    if (llvm::any_of(load.getIndices(),
                     [&](Value v) { return varying.contains(v); }))
      return load.emitOpError(
          "in a score_mod is indexed by the score or the query / key "
          "position; captured operands are indexed by batch, head and "
          "constants (per-position tensors, such as an additive bias, are "
          "not supported yet)");
  }
  return success();
}

bool rocke::fmha::sameScoreMod(Region &a, ValueRange capturesA, Region &b,
                               ValueRange capturesB) {
  if (a.empty() || b.empty())
    return a.empty() == b.empty();
  return llvm::equal(capturesA, capturesB) &&
         OperationEquivalence::isRegionEquivalentTo(
             &a, &b, OperationEquivalence::IgnoreLocations);
}

bool rocke::fmha::scoreModUsesPositions(Region &region) {
  Block &body = region.front();
  return !body.getArgument(kQueryArg).use_empty() ||
         !body.getArgument(kKeyArg).use_empty();
}

/// The entry block of the empty `region` with the positional arguments and
/// `captures`, b positioned at its start.
static Block *createScoreModBlock(OpBuilder &b, Location loc, Region &region,
                                  TypeRange captures) {
  SmallVector<Type> types{b.getF32Type(), b.getIndexType(), b.getIndexType(),
                          b.getIndexType(), b.getIndexType()};
  llvm::append_range(types, captures);
  return b.createBlock(&region, {}, types,
                       SmallVector<Location>(types.size(), loc));
}

void rocke::fmha::buildSoftcapScoreMod(OpBuilder &b, Location loc,
                                       Region &region, float cap) {
  OpBuilder::InsertionGuard guard(b);
  Block *body = createScoreModBlock(b, loc, region, {});
  // s * (1 / cap): a multiply where each element would otherwise divide.
  Value inverse = arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                                 APFloat(1.0f / cap));
  Value capValue =
      arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(cap));
  Value x =
      arith::MulFOp::create(b, loc, body->getArgument(kScoreArg), inverse);
  Value t = math::TanhOp::create(b, loc, x);
  YieldOp::create(b, loc,
                  ValueRange{arith::MulFOp::create(b, loc, t, capValue)});
}

void rocke::fmha::buildAlibiScoreMod(OpBuilder &b, Location loc, Region &region,
                                     MemRefType slopes) {
  OpBuilder::InsertionGuard guard(b);
  Block *body = createScoreModBlock(b, loc, region, {slopes});
  // Slopes per query head, or per (batch, query head).
  SmallVector<Value> at{body->getArgument(kHeadArg)};
  if (slopes.getRank() == 2)
    at.insert(at.begin(), body->getArgument(kBatchArg));
  Value slope = memref::LoadOp::create(
      b, loc, body->getArgument(kNumScoreModPositionalArgs), at);
  Value offset = arith::SubIOp::create(b, loc, body->getArgument(kQueryArg),
                                       body->getArgument(kKeyArg));
  Value offset32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), offset);
  Value distance = math::AbsFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, b.getF32Type(), offset32));
  Value bias = arith::MulFOp::create(b, loc, slope, distance);
  YieldOp::create(b, loc,
                  ValueRange{arith::SubFOp::create(
                      b, loc, body->getArgument(kScoreArg), bias)});
}

//===----------------------------------------------------------------------===//
// Inlining and derivatives
//===----------------------------------------------------------------------===//

namespace {
Value constF32(OpBuilder &b, Location loc, double v) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                        APFloat(static_cast<float>(v)));
}

/// `op` emitted with its operands mapped by `map`: math.tanh / exp / log as
/// exp2 / log2 arithmetic (what the targets lower natively: no device
/// library), the rest cloned. Maps its results.
void emitMapped(OpBuilder &b, Operation &op, IRMapping &map) {
  Location loc = op.getLoc();
  auto operand = [&](unsigned i) { return map.lookup(op.getOperand(i)); };
  Value result =
      TypeSwitch<Operation *, Value>(&op)
          .Case([&](math::TanhOp) -> Value {
            // tanh x = 1 - 2 / (exp2(2 x log2 e) + 1): +-1 at +-inf.
            Value e = math::Exp2Op::create(
                b, loc,
                arith::MulFOp::create(b, loc, operand(0),
                                      constF32(b, loc, 2 * kLog2e)));
            // One op per statement: g++ and clang evaluate arguments in
            // different orders.
            Value one = constF32(b, loc, 1.0);
            Value two = constF32(b, loc, 2.0);
            Value denominator = arith::AddFOp::create(b, loc, e, one);
            // An approximate division (afn: NVIDIA's div.approx.f32, AMD's
            // v_rcp_f32 and a multiply; at most 2 ulp): the denominator lies
            // in [1, +inf], where it returns 0 for +inf as the exact one
            // does, and an exact f32 division is a sequence of ten or more
            // instructions on every score the tanh modifies.
            Value q = arith::DivFOp::create(b, loc, two, denominator,
                                            arith::FastMathFlags::afn);
            return arith::SubFOp::create(b, loc, one, q);
          })
          .Case([&](math::ExpOp) -> Value {
            return math::Exp2Op::create(
                b, loc,
                arith::MulFOp::create(b, loc, operand(0),
                                      constF32(b, loc, kLog2e)));
          })
          .Case([&](math::LogOp) -> Value {
            Value log2 = math::Log2Op::create(b, loc, operand(0));
            return arith::MulFOp::create(b, loc, log2, constF32(b, loc, kLn2));
          })
          .Default([&](Operation *) -> Value {
            Operation *clone = b.clone(op, map);
            return clone->getNumResults() ? clone->getResult(0) : Value();
          });
  if (result)
    map.map(op.getResult(0), result);
}

/// Forward-mode derivatives of the closed op set: each f32 value's
/// derivative with respect to the score, a null Value for 0 (values that
/// do not depend on it). Emitted with createOrFold, so constant factors
/// fold (softcap's is one product of constants).
class Tangents {
public:
  Tangents(OpBuilder &b, Location loc, DenseMap<Value, Value> &of)
      : b(b), loc(loc), of(of) {}

  /// Records the derivative of `op`'s result, whose operands and result
  /// `map` gives in the emitted IR.
  void derive(Operation &op, IRMapping &map) {
    if (op.getNumResults() != 1 || !op.getResult(0).getType().isF32())
      return;
    // Every rule is linear in the operands' derivatives.
    if (llvm::none_of(op.getOperands(),
                      [&](Value v) { return of.contains(v); }))
      return;
    auto primal = [&](unsigned i) { return map.lookup(op.getOperand(i)); };
    auto dual = [&](unsigned i) { return of.lookup(op.getOperand(i)); };
    Value y = map.lookup(op.getResult(0));
    Value t =
        TypeSwitch<Operation *, Value>(&op)
            .Case([&](arith::AddFOp) { return add(dual(0), dual(1)); })
            .Case([&](arith::SubFOp) { return add(dual(0), neg(dual(1))); })
            .Case([&](arith::MulFOp) {
              return add(mul(dual(0), primal(1)), mul(primal(0), dual(1)));
            })
            .Case([&](arith::DivFOp) {
              // (da - y db) / b
              Value num = add(dual(0), neg(mul(y, dual(1))));
              return fold<arith::DivFOp>(num, primal(1));
            })
            .Case([&](arith::NegFOp) { return neg(dual(0)); })
            .Case<arith::MaximumFOp, arith::MinimumFOp>([&](Operation *m) {
              auto pred = isa<arith::MaximumFOp>(m) ? arith::CmpFPredicate::OGE
                                                    : arith::CmpFPredicate::OLE;
              return pick(fold<arith::CmpFOp>(pred, primal(0), primal(1)),
                          dual(0), dual(1));
            })
            .Case([&](arith::SelectOp) {
              return pick(primal(0), dual(1), dual(2));
            })
            .Case([&](math::AbsFOp) {
              Value negative = fold<arith::CmpFOp>(
                  arith::CmpFPredicate::OLT, primal(0), constF32(b, loc, 0.0));
              return pick(negative, neg(dual(0)), dual(0));
            })
            .Case([&](math::TanhOp) {
              // (1 - y^2) dx
              Value square = fold<arith::MulFOp>(y, y);
              Value slope = fold<arith::SubFOp>(constF32(b, loc, 1.0), square);
              return mul(dual(0), slope);
            })
            .Case([&](math::ExpOp) { return mul(dual(0), y); })
            .Case([&](math::Exp2Op) {
              Value t = mul(dual(0), y);
              return mul(t, constF32(b, loc, kLn2));
            })
            .Case([&](math::LogOp) {
              return fold<arith::DivFOp>(dual(0), primal(0));
            })
            .Default([](Operation *) { return Value(); });
    if (t)
      of[op.getResult(0)] = t;
  }

private:
  template <typename OpT, typename... Args> Value fold(Args &&...args) {
    return b.createOrFold<OpT>(loc, std::forward<Args>(args)...);
  }
  Value add(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return fold<arith::AddFOp>(x, y);
  }
  Value mul(Value x, Value y) {
    if (!x || !y)
      return Value();
    return fold<arith::MulFOp>(x, y);
  }
  Value neg(Value x) { return x ? fold<arith::NegFOp>(x) : Value(); }
  /// cond ? x : y of derivatives, not both 0.
  Value pick(Value cond, Value x, Value y) {
    Value zero = constF32(b, loc, 0.0);
    return fold<arith::SelectOp>(cond, x ? x : zero, y ? y : zero);
  }

  OpBuilder &b;
  Location loc;
  DenseMap<Value, Value> &of;
};
} // namespace

ScoreModInliner::ScoreModInliner(OpBuilder &b, Location loc, Region &region,
                                 Value batch, Value head, ValueRange captures)
    : region(region), loc(loc) {
  Block &body = region.front();
  invariant.map(body.getArgument(kBatchArg), batch);
  invariant.map(body.getArgument(kHeadArg), head);
  invariant.map(body.getArguments().drop_front(kNumScoreModPositionalArgs),
                captures);
  DenseSet<Value> varyingSet = varyingValues(body);
  for (Operation &op : body.without_terminator()) {
    if (llvm::any_of(op.getResults(),
                     [&](Value r) { return varyingSet.contains(r); }))
      varying.insert(&op);
    else
      emitMapped(b, op, invariant);
  }
}

std::pair<Value, Value> ScoreModInliner::emitVarying(OpBuilder &b, Value score,
                                                     Value query, Value key,
                                                     bool withDerivative) {
  Block &body = region.front();
  IRMapping map = invariant;
  map.map(body.getArgument(kScoreArg), score);
  // A region that reads no position may be given none.
  if (query)
    map.map(body.getArgument(kQueryArg), query);
  if (key)
    map.map(body.getArgument(kKeyArg), key);
  DenseMap<Value, Value> tangents;
  Tangents derive(b, loc, tangents);
  if (withDerivative)
    tangents[body.getArgument(kScoreArg)] = constF32(b, loc, 1.0);
  for (Operation &op : body.without_terminator()) {
    if (!varying.contains(&op))
      continue;
    emitMapped(b, op, map);
    if (withDerivative)
      derive.derive(op, map);
  }
  Value yielded = cast<YieldOp>(body.getTerminator()).getValues()[0];
  Value tangent = tangents.lookup(yielded);
  if (withDerivative && !tangent)
    tangent = constF32(b, loc, 0.0);
  return {map.lookup(yielded), tangent};
}

Value ScoreModInliner::emit(OpBuilder &b, Value score, Value query, Value key) {
  return emitVarying(b, score, query, key, /*withDerivative=*/false).first;
}

std::pair<Value, Value> ScoreModInliner::emitWithDerivative(OpBuilder &b,
                                                            Value score,
                                                            Value query,
                                                            Value key) {
  return emitVarying(b, score, query, key, /*withDerivative=*/true);
}
