//===- LowerToLoops.cpp - fmha ops -> scalar host loops (CPU oracle) ------===//
//
// The reference lowering every other strategy is tested against (issue 3):
// plain scf.for nests of scalar memref.load/store, f32 arithmetic and
// math.exp/exp2/log, written for obviousness rather than speed. Every row is
// computed in two passes over the keys (row max, then sum and weighted V), and
// the backward recomputes P from the saved statistics, one loop nest for dQ
// (rows) and one for dK/dV (columns), so no scratch buffer larger than one
// head-dim vector and no atomics are needed; the result is deterministic.
// A packed (varlen) batch loops over its sequences the same way, each with
// its own lengths and token offsets read from cu_seqlens. A score_mod is
// inlined per visible (query, key) pair, with its derivative in the
// backward (dialect/ScoreMod.h). Attention sinks start each row's max and
// sum; their gradient sums -P_sink D over the rows in the dQ nest. An
// additive bias is added to each (modified) score; its gradient, dS before
// the score_mod's slope, accumulates in the dQ nest too. Dropout multiplies
// each probability by Z / (1 - p) where it meets V or dP (dialect/Dropout.h
// regenerates Z per pair from the seed and offset; the statistics are those
// of the undropped softmax).
//
//===----------------------------------------------------------------------===//
#include "dialect/Dropout.h"
#include "dialect/FmhaDialect.h"
#include "dialect/ScoreMod.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <optional>

namespace rocke {
#define GEN_PASS_DEF_LOWERTOLOOPS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using namespace rocke::fmha;

namespace {
/// Emits the scalar loop nests of one attention op. Indices are `index`
/// values, arithmetic is f32; inputs are widened on load and outputs rounded
/// to their memref's element type on store.
class LoopEmitter {
public:
  /// `cuSeqlensQ` / `cuSeqlensK`: the offsets of a packed batch, or null;
  /// `scoreMod` (empty: none) reads `captures`; `sinks` [Hq] and `bias`
  /// [B or 1, Hq or 1, Sq, Sk] or null; `dropoutSeedOffset` (memref<2xi64>)
  /// or null, with drop probability `dropoutP`.
  LoopEmitter(OpBuilder &b, Location loc, Value query, Value key, Value value,
              MaskAttr mask, float scale, StatsEncoding encoding,
              Value cuSeqlensQ, Value cuSeqlensK, Region &scoreMod,
              ValueRange captures, Value sinks, Value bias,
              Value dropoutSeedOffset, float dropoutP)
      : b(b), loc(loc), q(query), k(key), v(value), cuQ(cuSeqlensQ),
        cuK(cuSeqlensK), sinks(sinks), bias(bias),
        dropoutSeedOffset(dropoutSeedOffset), dropoutP(dropoutP),
        band(mask.getBand()), scale(scale), encoding(encoding),
        scoreMod(scoreMod), captures(captures) {
    f32 = b.getF32Type();
    auto qt = cast<MemRefType>(q.getType());
    auto kt = cast<MemRefType>(k.getType());
    int64_t last = qt.getRank() - 1;
    hq = qt.getDimSize(last - 1);
    hkv = kt.getDimSize(last - 1);
    dqk = qt.getDimSize(last);
    dv = cast<MemRefType>(v.getType()).getDimSize(last);
    if (cuQ) {
      Value offsets = dim(cuQ, 0);
      batch = arith::SubIOp::create(b, loc, offsets, idx(1));
      return;
    }
    batch = dim(q, 0);
    // One statement each: argument evaluation order differs between
    // compilers, and so would the IR (issue 12).
    Value sq = dim(q, 1);
    Value sk = dim(k, 1);
    setLengths(sq, sk);
  }

  void emitForward(Value out, ValueRange stats);
  /// `gradSinks`: null, or dSink [Hq] to write; `gradBias` likewise.
  void emitBackward(Value out, Value gradOut, ValueRange stats, Value gradQ,
                    Value gradK, Value gradV, Value gradSinks, Value gradBias);

private:
  using BodyFn = function_ref<void(Value)>;

  /// Sequence lengths and the mask's diagonal offset: bottom-right
  /// alignment puts it at Sk - Sq, from runtime sizes.
  void setLengths(Value sq, Value sk) {
    seqQ = sq;
    seqK = sk;
    diagOffset = band.bottomRight
                     ? arith::SubIOp::create(b, loc, seqK, seqQ).getResult()
                     : idx(0);
  }
  /// At the top of batch `bi`'s loop body: a packed batch's sequence reads
  /// its token offsets and lengths from cu_seqlens.
  void beginSequence(Value bi) {
    if (!cuQ)
      return;
    Value next = arith::AddIOp::create(b, loc, bi, idx(1));
    auto offset = [&](Value cu, Value at) -> Value {
      Value x = memref::LoadOp::create(b, loc, cu, at);
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
    };
    qStart = offset(cuQ, bi);
    kStart = offset(cuK, bi);
    Value qEnd = offset(cuQ, next), kEnd = offset(cuK, next);
    Value sq = arith::SubIOp::create(b, loc, qEnd, qStart);
    Value sk = arith::SubIOp::create(b, loc, kEnd, kStart);
    setLengths(sq, sk);
  }
  /// Indices of element (batch bi, position s of the sequence, head h, d)
  /// of a query-side ([B, Sq, H, D] or [T_q, H, D]) or key-side operand.
  SmallVector<Value> at(bool keySide, Value bi, Value s, Value h, Value d) {
    if (!cuQ)
      return {bi, s, h, d};
    Value token = arith::AddIOp::create(b, loc, keySide ? kStart : qStart, s);
    return {token, h, d};
  }
  SmallVector<Value> qAt(Value bi, Value s, Value h, Value d) {
    return at(false, bi, s, h, d);
  }
  SmallVector<Value> kAt(Value bi, Value s, Value h, Value d) {
    return at(true, bi, s, h, d);
  }
  /// Indices of query row s's statistics: [B, Hq, Sq] or [Hq, T_q].
  SmallVector<Value> statAt(Value bi, Value h, Value s) {
    if (!cuQ)
      return {bi, h, s};
    return {h, arith::AddIOp::create(b, loc, qStart, s)};
  }
  using ReduceFn = function_ref<Value(Value, Value)>;

  Value idx(int64_t c) { return arith::ConstantIndexOp::create(b, loc, c); }
  Value cst(double c) {
    return arith::ConstantFloatOp::create(b, loc, f32, APFloat(float(c)));
  }
  Value dim(Value m, int64_t d) {
    return b.createOrFold<memref::DimOp>(loc, m, d);
  }

  /// for iv in [0, ub) { body(iv) }
  void loop(Value ub, BodyFn body) {
    // The body builder is handed `b` itself, positioned in the loop body.
    // (Ops are created in statements, never two in one argument list: the
    // order C++ evaluates arguments in differs between compilers.)
    Value lb = idx(0);
    Value step = idx(1);
    scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                       [&](OpBuilder &, Location, Value iv, ValueRange) {
                         body(iv);
                         scf::YieldOp::create(b, loc);
                       });
  }
  void loop(int64_t ub, BodyFn body) { loop(idx(ub), body); }

  /// acc = init; for iv in [0, ub) { acc = step(iv, acc) }; return acc
  Value reduce(Value ub, Value init, ReduceFn step) {
    Value lb = idx(0);
    Value one = idx(1);
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, one, ValueRange{init},
        [&](OpBuilder &, Location, Value iv, ValueRange acc) {
          scf::YieldOp::create(b, loc, step(iv, acc.front()));
        });
    return forOp.getResult(0);
  }
  Value reduce(int64_t ub, Value init, ReduceFn step) {
    return reduce(idx(ub), init, step);
  }

  /// cond ? thenFn() : orElse, with thenFn's ops only executed under cond.
  /// A null cond means "always".
  Value select(Value cond, function_ref<Value()> thenFn, Value orElse) {
    if (!cond)
      return thenFn();
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{orElse.getType()}, cond,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, thenFn());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, orElse);
    return ifOp.getResult(0);
  }
  /// if (cond) { fn() }; a null cond means "always".
  void when(Value cond, function_ref<void()> fn) {
    if (!cond)
      return fn();
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    fn();
  }
  Value both(Value a, Value c) {
    if (!a || !c)
      return a ? a : c;
    return arith::AndIOp::create(b, loc, a, c);
  }

  Value load(Value m, ValueRange ix) {
    Value x = memref::LoadOp::create(b, loc, m, ix);
    return x.getType() == f32 ? x : arith::ExtFOp::create(b, loc, f32, x);
  }
  void store(Value x, Value m, ValueRange ix) {
    Type elt = cast<MemRefType>(m.getType()).getElementType();
    if (elt != f32)
      x = arith::TruncFOp::create(b, loc, elt, x);
    memref::StoreOp::create(b, loc, x, m, ix);
  }
  Value add(Value a, Value c) { return arith::AddFOp::create(b, loc, a, c); }
  Value mul(Value a, Value c) { return arith::MulFOp::create(b, loc, a, c); }
  Value sub(Value a, Value c) { return arith::SubFOp::create(b, loc, a, c); }

  /// sum_d a[bi, ia, ha, d] * c[bi, ic, hc, d], a query-side operand and c
  /// a key-side one.
  Value dot(Value a, Value ia, Value ha, Value c, Value ic, Value hc, int64_t d,
            Value bi) {
    return reduce(d, cst(0.0), [&](Value dd, Value acc) {
      Value x = load(a, qAt(bi, ia, ha, dd));
      Value y = load(c, kAt(bi, ic, hc, dd));
      return add(acc, mul(x, y));
    });
  }

  /// The band test of dialect/Mask.h as IR; null when every key is visible.
  Value visible(Value i, Value j) {
    if (band.isNone())
      return {};
    // rel = j - (i + off), visible iff -lower <= rel <= upper.
    Value rel = arith::SubIOp::create(
        b, loc, j, arith::AddIOp::create(b, loc, i, diagOffset));
    Value cond;
    if (band.lower >= 0)
      cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, rel,
                                   idx(-band.lower));
    if (band.upper >= 0)
      cond = both(cond, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                              rel, idx(band.upper)));
    return cond;
  }

  bool log2Stats() const { return encoding == StatsEncoding::log2_max_sum; }
  /// Head h's sink in the statistics' domain (null without sinks).
  Value sinkStat(Value h) {
    if (!sinks)
      return Value();
    return mul(load(sinks, h), cst(log2Stats() ? llvm::numbers::log2e : 1.0));
  }
  /// The scores are kept in the statistics' domain: s * scale (lse) or
  /// s * scale * log2e (log2_max_sum), exponentiated with exp resp. exp2.
  /// With a score_mod, s' = f(s * scale) in its place; with `derivative`
  /// also d(s')/d(s * scale) (null without a score_mod).
  std::pair<Value, Value> scoreAndSlope(Value bi, Value i, Value h, Value j,
                                        Value hk, bool derivative) {
    Value s = dot(q, i, h, k, j, hk, dqk, bi);
    double toStats = log2Stats() ? llvm::numbers::log2e : 1.0;
    if (scoreMod.empty() && !bias)
      return {mul(s, cst(double(scale) * toStats)), Value()};
    Value modified = mul(s, cst(scale)), slope;
    if (!scoreMod.empty()) {
      ScoreModInliner inliner(b, loc, scoreMod, bi, h, captures);
      std::tie(modified, slope) =
          derivative ? inliner.emitWithDerivative(b, modified, i, j)
                     : std::make_pair(inliner.emit(b, modified, i, j), Value());
    }
    if (bias)
      modified = add(modified, load(bias, biasAt(bi, h, i, j)));
    if (log2Stats())
      modified = mul(modified, cst(toStats));
    return {modified, slope};
  }
  /// Indices of the bias element (or its gradient's) of pair (i, j) of
  /// batch bi, head h: dims of extent 1 broadcast.
  SmallVector<Value> biasAt(Value bi, Value h, Value i, Value j) {
    auto type = cast<MemRefType>(bias.getType());
    Value batchAt = type.getDimSize(0) == 1 ? idx(0) : bi;
    Value headAt = type.getDimSize(1) == 1 ? idx(0) : h;
    return {batchAt, headAt, i, j};
  }
  Value scaledScore(Value bi, Value i, Value h, Value j, Value hk) {
    return scoreAndSlope(bi, i, h, j, hk, /*derivative=*/false).first;
  }
  Value expStat(Value x) {
    return log2Stats() ? math::Exp2Op::create(b, loc, x).getResult()
                       : math::ExpOp::create(b, loc, x).getResult();
  }
  /// Batch bi's head h's dropout stream (none without dropout).
  std::optional<DropoutStream> dropoutStream(Value bi, Value h) {
    if (!dropoutSeedOffset)
      return std::nullopt;
    return emitDropoutStream(b, loc, dropoutSeedOffset, bi, h, hq);
  }
  /// Z / (1 - p) of pair (i, j): what dropout multiplies P by (null
  /// without dropout).
  Value keptFactor(const std::optional<DropoutStream> &stream, Value i,
                   Value j) {
    if (!stream)
      return Value();
    Value keep =
        emitDropoutKeep(b, loc, *stream, i, j, dropoutThreshold(dropoutP));
    return arith::SelectOp::create(b, loc, keep, cst(dropoutScale(dropoutP)),
                                   cst(0.0));
  }
  Value times(Value x, Value factor) { return factor ? mul(x, factor) : x; }
  Value kvHead(Value h) {
    return arith::DivUIOp::create(b, loc, h, idx(hq / hkv));
  }
  /// A [n] f32 scratch row, allocated once in front of the loop nests.
  Value scratch(int64_t n) {
    return memref::AllocaOp::create(b, loc, MemRefType::get({n}, f32));
  }
  void fill(Value row, int64_t n, Value x) {
    loop(n, [&](Value d) { memref::StoreOp::create(b, loc, x, row, d); });
  }

  OpBuilder &b;
  Location loc;
  Value q, k, v, cuQ, cuK, sinks, bias, dropoutSeedOffset;
  float dropoutP;
  MaskBand band;
  float scale;
  StatsEncoding encoding;
  Region &scoreMod;
  ValueRange captures;
  FloatType f32;
  int64_t hq, hkv, dqk, dv;
  Value batch, seqQ, seqK, diagOffset;
  /// The current sequence's first query and key token (packed batches).
  Value qStart, kStart;
};

void LoopEmitter::emitForward(Value out, ValueRange stats) {
  Value acc = scratch(dv);
  Value negInf = cst(-std::numeric_limits<double>::infinity());
  loop(batch, [&](Value bi) {
    beginSequence(bi);
    loop(hq, [&](Value h) {
      Value hk = kvHead(h);
      Value sink = sinkStat(h);
      std::optional<DropoutStream> stream = dropoutStream(bi, h);
      loop(seqQ, [&](Value i) {
        // The sink, a key with no value, starts the max and the sum.
        Value rowMax =
            reduce(seqK, sink ? sink : negInf, [&](Value j, Value m) {
              return select(
                  visible(i, j),
                  [&] {
                    return arith::MaximumFOp::create(
                        b, loc, m, scaledScore(bi, i, h, j, hk));
                  },
                  m);
            });
        fill(acc, dv, cst(0.0));
        Value sumInit = sink ? expStat(sub(sink, rowMax)) : cst(0.0);
        Value rowSum = reduce(seqK, sumInit, [&](Value j, Value l) {
          return select(
              visible(i, j),
              [&] {
                Value p = expStat(sub(scaledScore(bi, i, h, j, hk), rowMax));
                // The sum is of the undropped P; O of the dropped one.
                Value pDropped = times(p, keptFactor(stream, i, j));
                loop(dv, [&](Value d) {
                  Value a = memref::LoadOp::create(b, loc, acc, d);
                  memref::StoreOp::create(
                      b, loc, add(a, mul(pDropped, load(v, kAt(bi, j, hk, d)))),
                      acc, d);
                });
                return add(l, p);
              },
              l);
        });
        // A fully masked row has no visible key: O = 0, stats say "empty".
        Value nonEmpty = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT, rowSum, cst(0.0));
        loop(dv, [&](Value d) {
          Value a = memref::LoadOp::create(b, loc, acc, d);
          Value normalized = arith::DivFOp::create(b, loc, a, rowSum);
          Value o =
              arith::SelectOp::create(b, loc, nonEmpty, normalized, cst(0.0));
          store(o, out, qAt(bi, i, h, d));
        });
        if (log2Stats()) {
          store(rowMax, stats[0], statAt(bi, h, i));
          store(rowSum, stats[1], statAt(bi, h, i));
        } else {
          Value lse = add(rowMax, math::LogOp::create(b, loc, rowSum));
          store(arith::SelectOp::create(b, loc, nonEmpty, lse, negInf),
                stats[0], statAt(bi, h, i));
        }
      });
    });
  });
}

void LoopEmitter::emitBackward(Value out, Value gradOut, ValueRange stats,
                               Value gradQ, Value gradK, Value gradV,
                               Value gradSinks, Value gradBias) {
  // Row statistics: P = exp(s - offset) (lse) or exp2(t - M) / L. Only
  // visible (query, key) pairs are ever evaluated, so the -inf statistics of
  // fully masked rows are never read and their gradients stay exactly 0.
  struct Row {
    Value offset, divisor;
  };
  auto rowStats = [&](Value bi, Value h, Value i) {
    Value m = load(stats[0], statAt(bi, h, i));
    return Row{m, log2Stats() ? load(stats[1], statAt(bi, h, i)) : Value()};
  };
  // P and the score_mod's slope d(s')/d(s) (null without one).
  auto prob = [&](const Row &row, Value bi, Value i, Value h, Value j,
                  Value hk) -> std::pair<Value, Value> {
    auto [s, slope] = scoreAndSlope(bi, i, h, j, hk, /*derivative=*/true);
    Value p = expStat(sub(s, row.offset));
    if (row.divisor)
      p = arith::DivFOp::create(b, loc, p, row.divisor);
    return {p, slope};
  };
  // D_i = rowsum(dO * O).
  auto delta = [&](Value bi, Value i, Value h) {
    return reduce(dv, cst(0.0), [&](Value d, Value acc) {
      Value g = load(gradOut, qAt(bi, i, h, d));
      Value o = load(out, qAt(bi, i, h, d));
      return add(acc, mul(g, o));
    });
  };
  // dS' = P * (dP_ij - D_i), dP_ij = dO_i . V_j (times Z / (1 - p) with
  // dropout, `kept`), the gradient with respect to the (modified, biased)
  // score s', hence the bias's; times the score_mod's slope, dS with
  // respect to the scaled score s.
  auto dsModifiedOf = [&](Value p, Value bi, Value i, Value h, Value j,
                          Value hk, Value di, Value kept) {
    Value dp = times(dot(gradOut, i, h, v, j, hk, dv, bi), kept);
    return mul(p, sub(dp, di));
  };
  auto withSlope = [&](Value dsModified, Value slope) {
    return slope ? mul(dsModified, slope) : dsModified;
  };
  auto dsOf = [&](std::pair<Value, Value> pAndSlope, Value bi, Value i, Value h,
                  Value j, Value hk, Value di, Value kept) {
    auto [p, slope] = pAndSlope;
    return withSlope(dsModifiedOf(p, bi, i, h, j, hk, di, kept), slope);
  };
  // Rows of key-side (K, dK, dV) or query-side operands.
  auto axpy = [&](Value row, int64_t n, Value a, Value x, bool keySide,
                  Value bi, Value xi, Value xh) {
    loop(n, [&](Value d) {
      Value r = memref::LoadOp::create(b, loc, row, d);
      Value xd = load(x, at(keySide, bi, xi, xh, d));
      memref::StoreOp::create(b, loc, add(r, mul(a, xd)), row, d);
    });
  };
  auto storeScaled = [&](Value row, int64_t n, Value factor, Value dst,
                         bool keySide, Value bi, Value s, Value h) {
    loop(n, [&](Value d) {
      Value r = memref::LoadOp::create(b, loc, row, d);
      store(factor ? mul(r, factor) : r, dst, at(keySide, bi, s, h, d));
    });
  };
  Value accQ = scratch(dqk), accK = scratch(dqk), accV = scratch(dv);
  Value scaleCst = cst(scale);

  // dQ_i = scale * sum_j dS_ij K_j, one query row at a time; dSink[h] =
  // -sum_i P_sink,i D_i (the sink is a key with no value: dP = 0).
  if (gradSinks)
    loop(hq, [&](Value h) {
      memref::StoreOp::create(b, loc, cst(0.0), gradSinks, h);
    });
  // dBias sums dS' over the dims it broadcasts: zeroed first, accumulated
  // pair by pair.
  if (gradBias) {
    auto type = cast<MemRefType>(gradBias.getType());
    loop(dim(gradBias, 0), [&](Value b0) {
      loop(type.getDimSize(1), [&](Value b1) {
        loop(dim(gradBias, 2), [&](Value b2) {
          loop(dim(gradBias, 3), [&](Value b3) {
            memref::StoreOp::create(b, loc, cst(0.0), gradBias,
                                    ValueRange{b0, b1, b2, b3});
          });
        });
      });
    });
  }
  loop(batch, [&](Value bi) {
    beginSequence(bi);
    loop(hq, [&](Value h) {
      Value hk = kvHead(h);
      std::optional<DropoutStream> stream = dropoutStream(bi, h);
      loop(seqQ, [&](Value i) {
        Row row = rowStats(bi, h, i);
        Value di = delta(bi, i, h);
        if (gradSinks) {
          Value pSink = expStat(sub(sinkStat(h), row.offset));
          if (row.divisor)
            pSink = arith::DivFOp::create(b, loc, pSink, row.divisor);
          Value sum = memref::LoadOp::create(b, loc, gradSinks, h);
          memref::StoreOp::create(b, loc, sub(sum, mul(pSink, di)), gradSinks,
                                  h);
        }
        fill(accQ, dqk, cst(0.0));
        loop(seqK, [&](Value j) {
          when(visible(i, j), [&] {
            auto [p, slope] = prob(row, bi, i, h, j, hk);
            Value dsModified =
                dsModifiedOf(p, bi, i, h, j, hk, di, keptFactor(stream, i, j));
            if (gradBias) {
              SmallVector<Value> at = biasAt(bi, h, i, j);
              Value sum = memref::LoadOp::create(b, loc, gradBias, at);
              memref::StoreOp::create(b, loc, add(sum, dsModified), gradBias,
                                      at);
            }
            Value ds = withSlope(dsModified, slope);
            axpy(accQ, dqk, ds, k, /*keySide=*/true, bi, j, hk);
          });
        });
        storeScaled(accQ, dqk, scaleCst, gradQ, /*keySide=*/false, bi, i, h);
      });
    });
  });

  // dK_j = scale * sum_{h in group, i} dS_ij Q_i, dV_j = sum P_ij dO_i: one
  // key row at a time, summing over the query heads that share its kv head.
  int64_t group = hq / hkv;
  loop(batch, [&](Value bi) {
    beginSequence(bi);
    loop(hkv, [&](Value hk) {
      loop(seqK, [&](Value j) {
        fill(accK, dqk, cst(0.0));
        fill(accV, dv, cst(0.0));
        loop(group, [&](Value g) {
          Value h = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, hk, idx(group)), g);
          std::optional<DropoutStream> stream = dropoutStream(bi, h);
          loop(seqQ, [&](Value i) {
            when(visible(i, j), [&] {
              auto pAndSlope = prob(rowStats(bi, h, i), bi, i, h, j, hk);
              Value kept = keptFactor(stream, i, j);
              Value ds =
                  dsOf(pAndSlope, bi, i, h, j, hk, delta(bi, i, h), kept);
              axpy(accK, dqk, ds, q, /*keySide=*/false, bi, i, h);
              axpy(accV, dv, times(pAndSlope.first, kept), gradOut,
                   /*keySide=*/false, bi, i, h);
            });
          });
        });
        storeScaled(accK, dqk, scaleCst, gradK, /*keySide=*/true, bi, j, hk);
        storeScaled(accV, dv, Value(), gradV, /*keySide=*/true, bi, j, hk);
      });
    });
  });
}

struct LowerFwd : OpRewritePattern<AttentionFwdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionFwdOp op,
                                PatternRewriter &rewriter) const override {
    LoopEmitter e(rewriter, op.getLoc(), op.getQuery(), op.getKey(),
                  op.getValue(), op.getMaskOrDefault(), op.getScaleOrDefault(),
                  op.getStatsEncoding(), op.getCuSeqlensQ(), op.getCuSeqlensK(),
                  op.getScoreMod(), op.getCaptures(), op.getSinks(),
                  op.getBias(), op.getDropoutSeedOffset(),
                  dropoutProbability(op.getDropoutPAttr()));
    e.emitForward(op.getOut(), op.getStats());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerBwd : OpRewritePattern<AttentionBwdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionBwdOp op,
                                PatternRewriter &rewriter) const override {
    // Accumulation is f32 whatever accumulator_type asks for: the oracle is at
    // least as precise as any strategy, and sequential, so deterministic.
    LoopEmitter e(rewriter, op.getLoc(), op.getQuery(), op.getKey(),
                  op.getValue(), op.getMaskOrDefault(), op.getScaleOrDefault(),
                  op.getStatsEncoding(), op.getCuSeqlensQ(), op.getCuSeqlensK(),
                  op.getScoreMod(), op.getCaptures(), op.getSinks(),
                  op.getBias(), op.getDropoutSeedOffset(),
                  dropoutProbability(op.getDropoutPAttr()));
    e.emitBackward(op.getOut(), op.getGradOut(), op.getStats(),
                   op.getGradQuery(), op.getGradKey(), op.getGradValue(),
                   op.getGradSinks(), op.getGradBias());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerToLoopsPass
    : public rocke::impl::LowerToLoopsBase<LowerToLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateLowerToLoopsPatterns(patterns);
    // The strategies' atomic accumulations, as scalar host atomics, and
    // their score masks.
    rocke::populateLowerAtomicAddPatterns(patterns, /*ptxRedWidth=*/1);
    rocke::populateLowerMasksPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionFwdOp, AttentionBwdOp>(op)) {
        op->emitOpError("was not lowered to loops");
        signalPassFailure();
      }
    });
  }
};
} // namespace

void rocke::populateLowerToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerFwd, LowerBwd>(patterns.getContext());
}
