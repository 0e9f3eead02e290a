//===- ScoreModReference.cpp - score_mod regions in float64 dual numbers --===//
#include "ScoreModReference.h"

#include "dialect/FmhaDialect.h"
#include "dialect/ScoreMod.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace rocke;

namespace {
/// A value of the region: a float as a dual number x + dx eps (dx = d/ds),
/// an integer, index or i1 as `i`.
struct Dual {
  double x = 0.0, dx = 0.0;
  int64_t i = 0;
};

bool compare(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::AlwaysTrue:
    return true;
  case P::ORD:
    return !unordered;
  case P::UNO:
    return unordered;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  }
  return false;
}

bool compare(arith::CmpIPredicate p, int64_t a, int64_t b) {
  using P = arith::CmpIPredicate;
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (p) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return ua < ub;
  case P::ule:
    return ua <= ub;
  case P::ugt:
    return ua > ub;
  case P::uge:
    return ua >= ub;
  }
  return false;
}

/// `x` as the signed value of an integer of `type`'s width (index: 64).
int64_t wrap(Type type, int64_t x) {
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (width >= 64)
    return x;
  if (width == 1)
    return x & 1;
  uint64_t mask = (uint64_t(1) << width) - 1, sign = uint64_t(1) << (width - 1);
  uint64_t bits = static_cast<uint64_t>(x) & mask;
  return static_cast<int64_t>((bits ^ sign) - sign);
}
} // namespace

ScoreModReference::ScoreModReference(Region &source,
                                     std::vector<std::vector<double>> captures,
                                     std::vector<SmallVector<int64_t>> shapes)
    : region(std::make_shared<Region>()), captures(std::move(captures)),
      shapes(std::move(shapes)) {
  IRMapping map;
  source.cloneInto(region.get(), map);
}

reference::ModifiedScore ScoreModReference::operator()(double s, int64_t b,
                                                       int64_t h, int64_t i,
                                                       int64_t j) const {
  Block &body = region->front();
  DenseMap<Value, Dual> env;
  env[body.getArgument(fmha::kScoreArg)] = {s, 1.0};
  env[body.getArgument(fmha::kBatchArg)].i = b;
  env[body.getArgument(fmha::kHeadArg)].i = h;
  env[body.getArgument(fmha::kQueryArg)].i = i;
  env[body.getArgument(fmha::kKeyArg)].i = j;
  auto at = [&](Operation &op, unsigned n) { return env[op.getOperand(n)]; };
  for (Operation &op : body.without_terminator()) {
    Dual a = op.getNumOperands() > 0 ? at(op, 0) : Dual();
    Dual c = op.getNumOperands() > 1 ? at(op, 1) : Dual();
    Dual r =
        TypeSwitch<Operation *, Dual>(&op)
            .Case([&](arith::ConstantOp k) {
              Dual d;
              if (auto f = dyn_cast<FloatAttr>(k.getValue()))
                d.x = f.getValueAsDouble();
              else
                d.i = cast<IntegerAttr>(k.getValue()).getValue().getSExtValue();
              return d;
            })
            .Case([&](arith::AddFOp) {
              return Dual{a.x + c.x, a.dx + c.dx};
            })
            .Case([&](arith::SubFOp) {
              return Dual{a.x - c.x, a.dx - c.dx};
            })
            .Case([&](arith::MulFOp) {
              return Dual{a.x * c.x, a.dx * c.x + a.x * c.dx};
            })
            .Case([&](arith::DivFOp) {
              return Dual{a.x / c.x, (a.dx * c.x - a.x * c.dx) / (c.x * c.x)};
            })
            .Case([&](arith::NegFOp) {
              return Dual{-a.x, -a.dx};
            })
            .Case([&](arith::MaximumFOp) {
              if (std::isnan(a.x) || std::isnan(c.x))
                return Dual{std::nan(""), std::nan("")};
              return a.x >= c.x ? a : c;
            })
            .Case([&](arith::MinimumFOp) {
              if (std::isnan(a.x) || std::isnan(c.x))
                return Dual{std::nan(""), std::nan("")};
              return a.x <= c.x ? a : c;
            })
            .Case([&](arith::CmpFOp cmp) {
              Dual d;
              d.i = compare(cmp.getPredicate(), a.x, c.x);
              return d;
            })
            .Case([&](arith::SelectOp) { return a.i ? c : at(op, 2); })
            .Case([&](arith::AddIOp add) {
              Dual d;
              d.i = wrap(add.getType(), a.i + c.i);
              return d;
            })
            .Case([&](arith::SubIOp sub) {
              Dual d;
              d.i = wrap(sub.getType(), a.i - c.i);
              return d;
            })
            .Case([&](arith::MulIOp mul) {
              Dual d;
              d.i = wrap(mul.getType(), a.i * c.i);
              return d;
            })
            .Case([&](arith::CmpIOp cmp) {
              Dual d;
              d.i = compare(cmp.getPredicate(), a.i, c.i);
              return d;
            })
            .Case([&](arith::IndexCastOp cast) {
              Dual d;
              d.i = wrap(cast.getType(), a.i);
              return d;
            })
            .Case([&](arith::SIToFPOp) {
              return Dual{static_cast<double>(a.i), 0.0};
            })
            .Case([&](math::TanhOp) {
              double t = std::tanh(a.x);
              return Dual{t, a.dx * (1.0 - t * t)};
            })
            .Case([&](math::ExpOp) {
              double e = std::exp(a.x);
              return Dual{e, a.dx * e};
            })
            .Case([&](math::Exp2Op) {
              double e = std::exp2(a.x);
              return Dual{e, a.dx * e * std::log(2.0)};
            })
            .Case([&](math::LogOp) {
              return Dual{std::log(a.x), a.dx / a.x};
            })
            .Case([&](math::AbsFOp) {
              return Dual{std::fabs(a.x), a.x < 0 ? -a.dx : a.dx};
            })
            .Case([&](memref::LoadOp load) {
              unsigned n =
                  cast<BlockArgument>(load.getMemRef()).getArgNumber() -
                  fmha::kNumScoreModPositionalArgs;
              int64_t flat = 0;
              for (auto [index, extent] :
                   llvm::zip(load.getIndices(), shapes[n]))
                flat = flat * extent + env[index].i;
              return Dual{captures[n][flat], 0.0};
            });
    env[op.getResult(0)] = r;
  }
  Dual result = env[cast<fmha::YieldOp>(body.getTerminator()).getValues()[0]];
  return {result.x, result.dx};
}
