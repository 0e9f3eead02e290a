//===- WarpBwdKernels.cpp - the warp strategy of fmha-bwd-to-kernels ------===//
//
// Parity with the origin system: one workgroup of one subgroup per (batch,
// query token, query head). Lane l owns head-dim elements l, l + S, l + 2S...
// (S = subgroup size) of its query row, so global accesses are coalesced.
// For every visible key the row's score and dO.V dot products are reduced
// across lanes; dQ stays in registers (the subgroup owns its row) and dK, dV
// are accumulated by f32 atomics into zero-filled buffers.
//
// Kernels, in launch order: zero-fill of the dK and dV accumulators,
// the shared preprocess D = rowsum(dO * O), the main kernel, and the
// conversions of the accumulators into dK / dV when those are not f32.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "lib/BwdKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

Accumulator makeAccumulator(KernelEmitter &emitter, Value grad,
                            StringRef name) {
  if (cast<MemRefType>(grad.getType()).getElementType().isF32())
    return {grad, name.str(), false};
  return {emitter.allocScratchLike(grad, Float32Type::get(grad.getContext())),
          (name + "_accum:f32:zero").str(), true};
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

/// Head-dim index of this lane's element `i`: lane + i * subgroupSize.
Value laneDim(OpBuilder &b, Location loc, Value lane, int64_t i,
              unsigned lanes) {
  return b.createOrFold<arith::AddIOp>(loc, lane,
                                       constIndex(b, loc, i * lanes));
}

} // namespace

LogicalResult buildWarpBwdKernels(fmha::AttentionBwdOp op,
                                  const BwdKernelOptions &options) {
  const KernelTarget &target = options.target;
  const unsigned lanes = target.subgroupSize;
  if (failed(checkIndexRange(op, target)))
    return failure();
  if (op.getDeterministic())
    return op.emitOpError("strategy=warp accumulates dK and dV with atomics "
                          "and cannot be deterministic; use strategy=tiled");
  if (!op.getAccumulatorTypeOrDefault().isF32())
    return op.emitOpError("strategy=warp accumulates in f32; accumulator_type ")
           << op.getAccumulatorTypeOrDefault() << " needs strategy=tiled";
  if (options.matrixAtom != "auto")
    return op.emitOpError("strategy=warp uses no matrix atoms; matrix-atom "
                          "must be 'auto', got '")
           << options.matrixAtom << "'";
  auto qType = cast<MemRefType>(op.getQuery().getType());
  auto vType = cast<MemRefType>(op.getValue().getType());
  const int64_t dimQk = qType.getDimSize(3), dimV = vType.getDimSize(3);
  for (auto [name, dim] :
       {std::pair<StringRef, int64_t>{"qk", dimQk}, {"v", dimV}})
    if (dim % lanes != 0)
      return op.emitOpError("strategy=warp splits the head dims over the ")
             << lanes << " lanes of a subgroup; the " << name << " head dim "
             << dim << " is not a multiple of it";
  const int64_t perLaneQk = dimQk / lanes, perLaneV = dimV / lanes;

  KernelEmitter emitter(op, target);
  OpBuilder &cb = emitter.callSite();
  Location loc = op.getLoc();
  const float scale = op.getScaleOrDefault();
  const fmha::MaskBand band = op.getMaskOrDefault().getBand();
  const bool lse = op.getStatsEncoding() == fmha::StatsEncoding::lse;

  Accumulator dk = makeAccumulator(emitter, op.getGradKey(), "dk");
  Accumulator dv = makeAccumulator(emitter, op.getGradValue(), "dv");
  // delta[b, h, q] = rowsum(dO * O), [B, Hq, Sq].
  SmallVector<Value> qSizes = memrefSizes(cb, loc, op.getQuery());
  SmallVector<Value> deltaDyn;
  SmallVector<int64_t> deltaShape;
  for (int d : {0, 2, 1}) {
    deltaShape.push_back(qType.getDimSize(d));
    if (qType.isDynamicDim(d))
      deltaDyn.push_back(qSizes[d]);
  }
  Value delta = emitter.allocScratch(
      MemRefType::get(deltaShape, cb.getF32Type()), deltaDyn);

  if (failed(emitZeroFill(emitter, "fmha_bwd_zero_dk", dk.buffer, dk.role,
                          "B*Sk*Hkv*Dqk")) ||
      failed(emitZeroFill(emitter, "fmha_bwd_zero_dv", dv.buffer, dv.role,
                          "B*Sk*Hkv*Dv")) ||
      failed(emitPreprocessDelta(emitter, op.getOut(), op.getGradOut(), delta,
                                 options.numWarps)))
    return failure();

  KernelLaunch main;
  main.name = "fmha_bwd_warp";
  main.args = {{op.getQuery(), "q"},   {op.getKey(), "k"},
               {op.getValue(), "v"},   {op.getGradOut(), "do"},
               {delta, "delta:f32:none"}, {op.getGradQuery(), "dq"},
               {dk.buffer, dk.role},   {dv.buffer, dv.role}};
  if (lse) {
    main.args.push_back({op.getStats()[0], "lse"});
  } else {
    main.args.push_back({op.getStats()[0], "m"});
    main.args.push_back({op.getStats()[1], "l"});
  }
  main.grid = {qSizes[1], qSizes[2], qSizes[0]};
  main.gridExpr = {"Sq", "Hq", "B"};
  main.blockSize = lanes;

  auto body = [&](OpBuilder &b, Location loc, ValueRange ids, Value lane,
                  ValueRange args, ValueRange) {
    Value q = args[0], k = args[1], v = args[2], dO = args[3], dlt = args[4],
          dq = args[5], dkAcc = args[6], dvAcc = args[7];
    ValueRange stats = args.drop_front(8);
    Value row = ids[0], head = ids[1], batch = ids[2];
    AttentionSizes sizes = AttentionSizes::get(b, loc, q, k, v);
    Value kvHead = arith::DivUIOp::create(
        b, loc, head, constIndex(b, loc, sizes.groupSize()));

    // This lane's slice of the query row and of dO (kept in registers).
    SmallVector<Value> qRow, doRow;
    for (int64_t i = 0; i < perLaneQk; ++i)
      qRow.push_back(loadF32(
          b, loc, q, {batch, row, head, laneDim(b, loc, lane, i, lanes)}));
    for (int64_t i = 0; i < perLaneV; ++i)
      doRow.push_back(loadF32(
          b, loc, dO, {batch, row, head, laneDim(b, loc, lane, i, lanes)}));
    RowStats rowStats = RowStats::load(b, loc, stats, batch, head, row);
    Value rowDelta =
        memref::LoadOp::create(b, loc, dlt, ValueRange{batch, head, row});

    // For one query the band's key range is exact: no element mask inside.
    MaskBuilder mask(b, loc, band, sizes.seqQ, sizes.seqK);
    Value nextRow = arith::AddIOp::create(b, loc, row, constIndex(b, loc, 1));
    auto [kLo, kHi] = mask.visibleKeys(b, loc, row, nextRow);

    Value scoreScale = constF32(b, loc, scale * kLog2e);
    Value gradScale = constF32(b, loc, scale);
    SmallVector<Value> dqInit(perLaneQk, constF32(b, loc, 0.0f));
    auto loop = scf::ForOp::create(
        b, loc, kLo, kHi, constIndex(b, loc, 1), dqInit,
        [&](OpBuilder &lb, Location l, Value key, ValueRange dqAcc) {
          SmallVector<Value> kRow, vRow, dims;
          for (int64_t i = 0; i < perLaneQk; ++i) {
            dims.push_back(laneDim(lb, l, lane, i, lanes));
            kRow.push_back(loadF32(lb, l, k, {batch, key, kvHead, dims[i]}));
          }
          for (int64_t i = 0; i < perLaneV; ++i)
            vRow.push_back(loadF32(lb, l, v,
                                   {batch, key, kvHead,
                                    laneDim(lb, l, lane, i, lanes)}));
          Value s = subgroupReduce(lb, l, target, laneDot(lb, l, qRow, kRow),
                                   gpu::AllReduceOperation::ADD);
          Value dp = subgroupReduce(lb, l, target,
                                    laneDot(lb, l, doRow, vRow),
                                    gpu::AllReduceOperation::ADD);
          Value p = rowStats.probability(
              lb, l, arith::MulFOp::create(lb, l, s, scoreScale));
          // dS = P * (dP - D); dK += scale * dS * q; dV += P * dO.
          Value ds = arith::MulFOp::create(
              lb, l, p, arith::SubFOp::create(lb, l, dp, rowDelta));
          Value dsScaled = arith::MulFOp::create(lb, l, ds, gradScale);
          SmallVector<Value> next;
          for (int64_t i = 0; i < perLaneQk; ++i) {
            next.push_back(arith::AddFOp::create(
                lb, l, dqAcc[i], arith::MulFOp::create(lb, l, ds, kRow[i])));
            atomicAddF32(lb, l,
                         arith::MulFOp::create(lb, l, dsScaled, qRow[i]),
                         dkAcc, {batch, key, kvHead, dims[i]});
          }
          for (int64_t i = 0; i < perLaneV; ++i)
            atomicAddF32(lb, l, arith::MulFOp::create(lb, l, p, doRow[i]),
                         dvAcc,
                         {batch, key, kvHead, laneDim(lb, l, lane, i, lanes)});
          scf::YieldOp::create(lb, l, next);
        });
    // dQ = scale * dS K; rows with no visible key get exact zeros.
    for (int64_t i = 0; i < perLaneQk; ++i)
      storeF32(b, loc,
               arith::MulFOp::create(b, loc, loop.getResult(i), gradScale), dq,
               {batch, row, head, laneDim(b, loc, lane, i, lanes)});
  };
  if (failed(emitter.emit(main, body)))
    return failure();

  if (dk.needsConvert &&
      failed(emitConvert(emitter, "fmha_bwd_convert_dk", dk.buffer, dk.role,
                         op.getGradKey(), "dk", "B*Sk*Hkv*Dqk")))
    return failure();
  if (dv.needsConvert &&
      failed(emitConvert(emitter, "fmha_bwd_convert_dv", dv.buffer, dv.role,
                         op.getGradValue(), "dv", "B*Sk*Hkv*Dv")))
    return failure();
  emitter.finish();
  return success();
}

} // namespace rocke
