//===- WarpBwdKernels.cpp - the warp strategy of fmha-bwd-to-kernels ------===//
//
// Parity with the origin system: one workgroup of one subgroup per (batch,
// query token, query head). Lane l owns head-dim elements l, l + S, l + 2S...
// (S = subgroup size) of its rows, so global accesses are coalesced. For
// every visible (query, key) pair the score and dO.V dot products are reduced
// across lanes; dQ stays in registers (the subgroup owns its query row).
//
// dK and dV, by default, are accumulated by f32 atomics (fmha.atomic_add,
// which fmha-lower-atomic-add lowers) into zero-filled buffers. Kernels, in
// launch order: zero-fill of the dK and dV accumulators, the shared
// preprocess D = rowsum(dO * O), the main kernel, and conversions of the
// accumulators when dK / dV are not f32.
//
// With `deterministic` the atomics are replaced by a key-stationary kernel:
// one subgroup per (batch, key, kv head) walks the visible queries of every
// query head of its group in a fixed order and writes dK, dV once. Kernels:
// preprocess, main (dQ only), dK/dV.
//
// Accumulation is f32 in both modes, at least as precise as any
// accumulator_type.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "lib/Kernels/AttentionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace rocke {

namespace {

/// The f32 buffer a gradient is accumulated in: the gradient itself when it
/// is f32, else a scratch buffer converted at the end.
struct Accumulator {
  Value buffer;
  std::string role;
  bool needsConvert;
};

FailureOr<Accumulator> makeAccumulator(KernelEmitter &emitter, Value grad,
                                       StringRef name) {
  if (cast<MemRefType>(grad.getType()).getElementType().isF32())
    return Accumulator{grad, name.str(), false};
  FailureOr<Value> buffer =
      emitter.allocScratchLike(grad, Float32Type::get(grad.getContext()));
  if (failed(buffer))
    return failure();
  return Accumulator{*buffer, (name + "_accum:f32:zero").str(), true};
}

/// Adds the f32 `value` to `accum[idx]` with the gradient-accumulation op
/// (fmha.atomic_add of one element), which fmha-lower-atomic-add turns into
/// the target's atomic, as it does for the tiled strategy's dQ.
void accumulate(OpBuilder &b, Location loc, Value value, Value accum,
                ValueRange idx) {
  Value run = vector::BroadcastOp::create(
      b, loc, VectorType::get({1}, value.getType()), value);
  fmha::AtomicAddOp::create(b, loc, run, accum, idx, IntegerAttr());
}

/// Multiply-add chain sum_i a[i] * b[i] over this lane's elements.
Value laneDot(OpBuilder &b, Location loc, ArrayRef<Value> x,
              ArrayRef<Value> y) {
  Value acc = arith::MulFOp::create(b, loc, x[0], y[0]);
  for (size_t i = 1; i < x.size(); ++i)
    acc = arith::AddFOp::create(b, loc, acc,
                                arith::MulFOp::create(b, loc, x[i], y[i]));
  return acc;
}

/// acc[i] + factor * x[i] for each of this lane's elements.
SmallVector<Value> laneAxpy(OpBuilder &b, Location loc, ValueRange acc,
                            Value factor, ArrayRef<Value> x) {
  SmallVector<Value> out;
  for (auto [a, xi] : llvm::zip(acc, x))
    out.push_back(arith::AddFOp::create(
        b, loc, a, arith::MulFOp::create(b, loc, factor, xi)));
  return out;
}

/// Everything the kernels of one op share.
struct WarpBuilder {
  KernelTarget target;
  unsigned lanes;
  int64_t perLaneQk, perLaneV;
  float scale;
  fmha::MaskBand band;

  /// Head-dim index of this lane's element `i`: lane + i * lanes.
  Value laneDim(OpBuilder &b, Location loc, Value lane, int64_t i) const {
    return b.createOrFold<arith::AddIOp>(loc, lane,
                                         constIndex(b, loc, i * lanes));
  }

  /// This lane's `count` elements of row [batch, seq, head, :] of `m`.
  SmallVector<Value> loadLaneRow(OpBuilder &b, Location loc, Value m,
                                 Value batch, Value seq, Value head, Value lane,
                                 int64_t count) const {
    SmallVector<Value> row;
    for (int64_t i = 0; i < count; ++i)
      row.push_back(
          loadF32(b, loc, m, {batch, seq, head, laneDim(b, loc, lane, i)}));
    return row;
  }

  /// Stores scale * row into [batch, seq, head, :] of `m`.
  void storeLaneRow(OpBuilder &b, Location loc, ValueRange row, Value factor,
                    Value m, Value batch, Value seq, Value head,
                    Value lane) const {
    for (auto [i, x] : llvm::enumerate(row)) {
      Value y = factor ? arith::MulFOp::create(b, loc, x, factor) : x;
      storeF32(b, loc, y, m, {batch, seq, head, laneDim(b, loc, lane, i)});
    }
  }

  /// P and dS = P * (dP - D) of one (query, key) pair from the lane slices
  /// of the query, key, dO and value rows.
  std::pair<Value, Value> pairGrad(OpBuilder &b, Location loc,
                                   const RowStats &stats, Value rowDelta,
                                   ArrayRef<Value> qRow, ArrayRef<Value> kRow,
                                   ArrayRef<Value> doRow,
                                   ArrayRef<Value> vRow) const {
    Value s = subgroupReduce(b, loc, target, laneDot(b, loc, qRow, kRow),
                             gpu::AllReduceOperation::ADD);
    Value dp = subgroupReduce(b, loc, target, laneDot(b, loc, doRow, vRow),
                              gpu::AllReduceOperation::ADD);
    Value p = stats.probability(
        b, loc,
        arith::MulFOp::create(b, loc, s, constF32(b, loc, scale * kLog2e)));
    Value ds = arith::MulFOp::create(
        b, loc, p, arith::SubFOp::create(b, loc, dp, rowDelta));
    return {p, ds};
  }
};

} // namespace

LogicalResult buildWarpBwdKernels(fmha::AttentionBwdOp op,
                                  const AttentionKernelOptions &options) {
  const KernelTarget &target = options.target;
  if (options.matrixAtom != "auto")
    return op.emitOpError("strategy=warp uses no matrix atoms; matrix-atom "
                          "must be 'auto', got '")
           << options.matrixAtom << "'";
  auto qType = cast<MemRefType>(op.getQuery().getType());
  auto vType = cast<MemRefType>(op.getValue().getType());
  const int64_t dimQk = qType.getDimSize(3), dimV = vType.getDimSize(3);
  for (auto [name, dim] :
       {std::pair<StringRef, int64_t>{"qk", dimQk}, {"v", dimV}})
    if (dim % target.subgroupSize != 0)
      return op.emitOpError("strategy=warp splits the head dims over the ")
             << target.subgroupSize << " lanes of a subgroup; the " << name
             << " head dim " << dim << " is not a multiple of it";

  const WarpBuilder wb{target,
                       target.subgroupSize,
                       dimQk / target.subgroupSize,
                       dimV / target.subgroupSize,
                       op.getScaleOrDefault(),
                       op.getMaskOrDefault().getBand()};
  const bool deterministic = op.getDeterministic();
  KernelEmitter emitter(op, target);
  OpBuilder &cb = emitter.callSite();
  Location loc = op.getLoc();

  // delta[b, h, q] = rowsum(dO * O), [B, Hq, Sq].
  SmallVector<Value> qSizes = memrefSizes(cb, loc, op.getQuery());
  SmallVector<Value> deltaDyn;
  SmallVector<int64_t> deltaShape;
  for (int d : {0, 2, 1}) {
    deltaShape.push_back(qType.getDimSize(d));
    if (qType.isDynamicDim(d))
      deltaDyn.push_back(qSizes[d]);
  }
  FailureOr<Value> deltaBuffer = emitter.allocScratch(
      MemRefType::get(deltaShape, cb.getF32Type()), deltaDyn);
  if (failed(deltaBuffer))
    return failure();
  Value delta = *deltaBuffer;

  // Atomic mode: f32 accumulators, zero-filled before the main kernel.
  std::optional<Accumulator> dk, dv;
  if (!deterministic) {
    FailureOr<Accumulator> dkMade =
        makeAccumulator(emitter, op.getGradKey(), "dk");
    FailureOr<Accumulator> dvMade =
        makeAccumulator(emitter, op.getGradValue(), "dv");
    if (failed(dkMade) || failed(dvMade))
      return failure();
    dk = *dkMade;
    dv = *dvMade;
    // Scratch, or f32 dk / dv, whose rows the runners check are 16-byte
    // aligned (kernel_abi's ALIGNED_ROLES): four f32 a lane.
    if (failed(emitZeroFill(emitter, "fmha_bwd_zero_dk", dk->buffer, dk->role,
                            "B*Sk*Hkv*Dqk", /*alignedRows=*/true)) ||
        failed(emitZeroFill(emitter, "fmha_bwd_zero_dv", dv->buffer, dv->role,
                            "B*Sk*Hkv*Dv", /*alignedRows=*/true)))
      return failure();
  }
  if (failed(emitBwdPreprocess(emitter, op.getOut(), op.getGradOut(), delta,
                               options.numWarps)))
    return failure();

  // Query-stationary main kernel: dQ (and, with atomics, dK / dV).
  KernelLaunch main;
  main.name = "fmha_bwd_warp";
  main.args = {{op.getQuery(), "q"},      {op.getKey(), "k"},
               {op.getValue(), "v"},      {op.getGradOut(), "do"},
               {delta, "delta:f32:none"}, {op.getGradQuery(), "dq"}};
  if (!deterministic) {
    main.args.push_back({dk->buffer, dk->role});
    main.args.push_back({dv->buffer, dv->role});
  }
  const size_t mainStats = main.args.size();
  appendStatsArgs(main.args, op.getStats());
  main.grid = {qSizes[1], qSizes[2], qSizes[0]};
  main.gridExpr = {"Sq", "Hq", "B"};
  main.blockSize = wb.lanes;

  auto mainBody = [&](OpBuilder &b, Location loc, ValueRange ids, Value lane,
                      ValueRange args, ValueRange) {
    Value q = args[0], k = args[1], v = args[2], dO = args[3], dlt = args[4],
          dq = args[5];
    Value dkAcc = deterministic ? Value() : args[6];
    Value dvAcc = deterministic ? Value() : args[7];
    ValueRange stats = args.drop_front(mainStats);
    Value row = ids[0], head = ids[1], batch = ids[2];
    AttentionSizes sizes = AttentionSizes::get(b, loc, q, k, v);
    Value kvHead = arith::DivUIOp::create(
        b, loc, head, constIndex(b, loc, sizes.groupSize()));

    // This lane's slice of the query row and of dO (kept in registers).
    SmallVector<Value> qRow =
        wb.loadLaneRow(b, loc, q, batch, row, head, lane, wb.perLaneQk);
    SmallVector<Value> doRow =
        wb.loadLaneRow(b, loc, dO, batch, row, head, lane, wb.perLaneV);
    RowStats rowStats = RowStats::load(b, loc, stats, batch, head, row);
    Value rowDelta =
        memref::LoadOp::create(b, loc, dlt, ValueRange{batch, head, row});

    // For one query the band's key range is exact: no element mask inside.
    MaskBuilder mask(b, loc, wb.band, sizes.seqQ, sizes.seqK);
    Value nextRow = arith::AddIOp::create(b, loc, row, constIndex(b, loc, 1));
    auto [kLo, kHi] = mask.visibleKeys(b, loc, row, nextRow);

    Value gradScale = constF32(b, loc, wb.scale);
    SmallVector<Value> dqInit(wb.perLaneQk, constF32(b, loc, 0.0f));
    auto loop = scf::ForOp::create(
        b, loc, kLo, kHi, constIndex(b, loc, 1), dqInit,
        [&](OpBuilder &lb, Location l, Value key, ValueRange dqAcc) {
          SmallVector<Value> kRow =
              wb.loadLaneRow(lb, l, k, batch, key, kvHead, lane, wb.perLaneQk);
          SmallVector<Value> vRow =
              wb.loadLaneRow(lb, l, v, batch, key, kvHead, lane, wb.perLaneV);
          auto [p, ds] =
              wb.pairGrad(lb, l, rowStats, rowDelta, qRow, kRow, doRow, vRow);
          if (dkAcc) {
            // dK += scale * dS * q; dV += P * dO.
            Value dsScaled = arith::MulFOp::create(lb, l, ds, gradScale);
            for (int64_t i = 0; i < wb.perLaneQk; ++i)
              accumulate(lb, l, arith::MulFOp::create(lb, l, dsScaled, qRow[i]),
                         dkAcc,
                         {batch, key, kvHead, wb.laneDim(lb, l, lane, i)});
            for (int64_t i = 0; i < wb.perLaneV; ++i)
              accumulate(lb, l, arith::MulFOp::create(lb, l, p, doRow[i]),
                         dvAcc,
                         {batch, key, kvHead, wb.laneDim(lb, l, lane, i)});
          }
          scf::YieldOp::create(lb, l, laneAxpy(lb, l, dqAcc, ds, kRow));
        });
    // dQ = scale * dS K; rows with no visible key get exact zeros.
    wb.storeLaneRow(b, loc, loop.getResults(), gradScale, dq, batch, row, head,
                    lane);
  };
  if (failed(emitter.emit(main, mainBody)))
    return failure();

  if (!deterministic) {
    if (dk->needsConvert &&
        failed(emitConvert(emitter, "fmha_bwd_convert_dk", dk->buffer, dk->role,
                           op.getGradKey(), "dk", "B*Sk*Hkv*Dqk")))
      return failure();
    if (dv->needsConvert &&
        failed(emitConvert(emitter, "fmha_bwd_convert_dv", dv->buffer, dv->role,
                           op.getGradValue(), "dv", "B*Sk*Hkv*Dv")))
      return failure();
    emitter.finish();
    return success();
  }

  // Key-stationary dK / dV kernel: fixed summation order, no atomics.
  SmallVector<Value> kSizes = memrefSizes(cb, loc, op.getKey());
  KernelLaunch kv;
  kv.name = "fmha_bwd_warp_dkdv";
  kv.args = {{op.getQuery(), "q"},      {op.getKey(), "k"},
             {op.getValue(), "v"},      {op.getGradOut(), "do"},
             {delta, "delta:f32:none"}, {op.getGradKey(), "dk"},
             {op.getGradValue(), "dv"}};
  appendStatsArgs(kv.args, op.getStats());
  kv.grid = {kSizes[1], kSizes[2], kSizes[0]};
  kv.gridExpr = {"Sk", "Hkv", "B"};
  kv.blockSize = wb.lanes;

  auto kvBody = [&](OpBuilder &b, Location loc, ValueRange ids, Value lane,
                    ValueRange args, ValueRange) {
    Value q = args[0], k = args[1], v = args[2], dO = args[3], dlt = args[4],
          dk = args[5], dv = args[6];
    ValueRange stats = args.drop_front(7);
    Value key = ids[0], kvHead = ids[1], batch = ids[2];
    AttentionSizes sizes = AttentionSizes::get(b, loc, q, k, v);
    SmallVector<Value> kRow =
        wb.loadLaneRow(b, loc, k, batch, key, kvHead, lane, wb.perLaneQk);
    SmallVector<Value> vRow =
        wb.loadLaneRow(b, loc, v, batch, key, kvHead, lane, wb.perLaneV);
    MaskBuilder mask(b, loc, wb.band, sizes.seqQ, sizes.seqK);
    Value nextKey = arith::AddIOp::create(b, loc, key, constIndex(b, loc, 1));
    Value qLo, qHi;
    std::tie(qLo, qHi) = mask.visibleQueries(b, loc, key, nextKey);

    Value zero = constF32(b, loc, 0.0f), c1 = constIndex(b, loc, 1);
    SmallVector<Value> init(wb.perLaneQk + wb.perLaneV, zero);
    Value firstHead = arith::MulIOp::create(
        b, loc, kvHead, constIndex(b, loc, sizes.groupSize()));
    Value endHead = arith::AddIOp::create(
        b, loc, firstHead, constIndex(b, loc, sizes.groupSize()));
    // Query heads of the group, then the visible queries, in order.
    auto heads = scf::ForOp::create(
        b, loc, firstHead, endHead, c1, init,
        [&](OpBuilder &hb, Location hl, Value head, ValueRange headAcc) {
          auto queries = scf::ForOp::create(
              hb, hl, qLo, qHi, c1, headAcc,
              [&](OpBuilder &lb, Location l, Value row, ValueRange acc) {
                SmallVector<Value> qRow = wb.loadLaneRow(
                    lb, l, q, batch, row, head, lane, wb.perLaneQk);
                SmallVector<Value> doRow = wb.loadLaneRow(
                    lb, l, dO, batch, row, head, lane, wb.perLaneV);
                RowStats rowStats =
                    RowStats::load(lb, l, stats, batch, head, row);
                Value rowDelta = memref::LoadOp::create(
                    lb, l, dlt, ValueRange{batch, head, row});
                auto [p, ds] = wb.pairGrad(lb, l, rowStats, rowDelta, qRow,
                                           kRow, doRow, vRow);
                SmallVector<Value> next =
                    laneAxpy(lb, l, acc.take_front(wb.perLaneQk), ds, qRow);
                llvm::append_range(
                    next,
                    laneAxpy(lb, l, acc.drop_front(wb.perLaneQk), p, doRow));
                scf::YieldOp::create(lb, l, next);
              });
          scf::YieldOp::create(hb, hl, queries.getResults());
        });
    ValueRange acc = heads.getResults();
    // dK = scale * dS^T Q; dV = P^T dO; keys no query sees get zeros.
    wb.storeLaneRow(b, loc, acc.take_front(wb.perLaneQk),
                    constF32(b, loc, wb.scale), dk, batch, key, kvHead, lane);
    wb.storeLaneRow(b, loc, acc.drop_front(wb.perLaneQk), Value(), dv, batch,
                    key, kvHead, lane);
  };
  if (failed(emitter.emit(kv, kvBody)))
    return failure();
  emitter.finish();
  return success();
}

} // namespace rocke
