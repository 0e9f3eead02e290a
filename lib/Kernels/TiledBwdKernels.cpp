//===- TiledBwdKernels.cpp - FlashAttention-2 backward on matrix atoms ----===//
//
// strategy=tiled of fmha-bwd-to-kernels. Kernels, in launch order:
//   1. with `deterministic`, zero-fill of the per-KV-block dQ partials;
//   2. preprocess: each query row's record of its softmax normalizer and
//      delta = rowsum(dO * O) (lib/Kernels/KernelBuilder), and the zero-fill
//      of the row in the f32 dQ accumulator;
//   3. the main kernel, one workgroup per (KV block, kv head, batch): K of the
//      block sits in workgroup memory, each subgroup keeps the V fragments and
//      the dK / dV accumulators of its slice of KV rows in registers while it
//      loops over the group's query heads and the query blocks the mask lets
//      through. Per query block it recomputes the scores S = Q K^T of its
//      rows and P from the saved statistics, dP = dO V^T, dS = P (dP -
//      delta), and accumulates dV += P^T dO and dK += dS^T Q straight from
//      the score registers, and dQ += dS K through one workgroup-memory copy
//      of dS (atomics, or per-KV-block partials when deterministic);
//   4. dQ conversion (or the fixed-order reduction of the partials).
// With grad_sinks, a kernel between 2 and 3 sums each head's sink gradient
// from the row records (emitSinkGradient).
// The main kernel is written on the workgroup's tiles, each split over the
// subgroups as its type says (fmha-split-workgroup-tiles gives each
// subgroup its block). Every block contraction is a grid of fmha.mma atoms
// (lib/Target/FragmentLayout): fragments are read from workgroup memory at the
// coordinates the atom's layout gives each lane, so one body serves MFMA,
// mma.sync and the host atom that runs the same algorithm on the CPU with
// one lane per workgroup. The score tiles are held as S^T [kv x q] or S [q
// x kv], whichever orientation lets the atoms' accumulators be the A
// operand of the next product (operandFromAccumulators): S^T for mma.sync
// and the host, S for MFMA.
// Where the chip has warpgroup products (sm_90a), the products are
// fmha.tile_mma_warpgroup instead: four subgroups multiply together, reading
// K, V, Q, dO and dS^T once per warpgroup from buffers of 8-row atoms (V too
// then sits in workgroup memory), and dQ is split over the warpgroups.
// A packed (varlen) batch runs the same kernels on each sequence's views
// (KernelLaunch::varlen); its dQ accumulator keeps each sequence's rows
// padded to whole query blocks (KernelBuilder.h).
//
//===----------------------------------------------------------------------===//
#include "lib/Kernels/AttentionKernels.h"

#include "dialect/FmhaDialect.h"
#include "lib/Target/ChipInfo.h"
#include "lib/Target/FragmentLayout.h"
#include "lib/Kernels/Fragments.h"
#include "lib/Kernels/TiledKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

using namespace mlir;
using namespace rocke;

namespace {

/// Workgroup buffers of the main kernel; a configuration uses some of them
/// (TiledConfig::buffers).
enum WorkgroupBuffer {
  kKey,
  kValue, ///< V [blockKv x Dv] (warpgroup products)
  kQuery,
  kGradOut,
  kQueryT,   ///< Q^T [Dqk x blockQ] (transposed copies)
  kGradOutT, ///< dO^T [Dv x blockQ] (transposed copies)
  kScores,
  kRowNormalizer,
  kRowDelta,
  kDqStaged ///< dQ [slots][blockQ x Dqk] f32 for the bulk-copy unit
};

/// f32 elements appended to each row of the staged dQ: 32 bytes, so the
/// eight rows a warpgroup accumulator's store covers start 8 banks apart
/// and a warp's two-element writes take the two wavefronts they need.
constexpr int64_t kDqStagedPad = 8;

/// Tile shape of one main-kernel workgroup.
struct TiledConfig {
  /// Atom of the score products (S, dP) and of dQ.
  const MatrixAtom *atom = nullptr;
  /// Atom of dV += P^T dO and dK += dS^T Q, whose A operand is read out of
  /// the score accumulators: `repack[r]` is where its register r comes from.
  const MatrixAtom *gradAtom = nullptr;
  SmallVector<RegisterSource> repack;
  /// Score tiles are S^T [kv x q] (true) or S [q x kv].
  bool scoresTransposed = true;
  /// OperandStaging::TransposedCopies: Q^T and dO^T are staged next to Q and
  /// dO, and K stays in registers.
  bool transposedCopies = false;
  /// QueryPipelining::AsyncCopies: Q and dO tiles have two slots, the next
  /// block's rows land in one by cp.async while the other is read.
  bool asyncCopies = false;
  /// WarpgroupMma::On: every product is a warpgroup product whose operands
  /// from workgroup memory (K, V, Q, dO, dS^T, staged as 8-row atoms) are
  /// read once per four subgroups: S^T = K Q^T and dP^T = V dO^T, dV and dK
  /// with P^T and dS^T from registers, and dQ = dS K, split over the
  /// warpgroups as dqQGroups blocks of 64 query rows x the rest of Dqk.
  bool warpgroup = false;
  /// How those operands are laid out (warpgroup-layout); dS^T's rows are
  /// whole query blocks, multiples of 64 with warpgroup products.
  WarpgroupLayout atomLayout = WarpgroupLayout::Auto;
  int64_t dqQGroups = 1;
  /// DqAccumulation::BulkReduce: dQ is written into kDqStaged and added to
  /// the accumulator by fmha.bulk_add, one row a work-item; query block i
  /// uses the stage's slot i mod dqStageSlots.
  bool dqBulk = false;
  int64_t dqStageSlots = 1;
  /// useWholeBlockLoops: whole and cut query blocks in loops of their own.
  bool wholeBlockLoops = true;
  /// dV += P^T dO is written before dS = P (dP - delta), whose vector work
  /// then follows dV's matrix ops (fmha-interleave-matrix-ops moves it into
  /// them: gfx942 bf16 D=64 0.83 -> 0.90 of AITER's loop under llvm-mca);
  /// NVIDIA keeps the order its kernels were measured with, gfx950 the one
  /// that does not spill.
  bool dvBeforeDs = true;
  /// ChipInfo::bufferLoads: a query block's Q / dO rows and row records are
  /// read, and its dQ atomics issued, through buffer descriptors of the
  /// block's rows (MUBUF: a scalar base, 32-bit offsets, zeros past Sq),
  /// not 64-bit addresses (FLAT), which gfx9 also counts in lgkmcnt, the
  /// LDS reads' wait counter.
  bool bufferRows = false;
  int64_t blockQ = 0, blockKv = 0, numWarps = 0;
  int64_t lanes = 0; ///< lanes of a subgroup (= the atom's lanes)
  int64_t kvRowsPerWarp = 0;
  /// dQ [blockQ x Dqk] is split over a grid of dqWarpRows x (numWarps /
  /// dqWarpRows) subgroups, the split that reads the least of dS and K.
  int64_t dqWarpRows = 1;
  int64_t dqk = 0, dv = 0, group = 0;
  /// Elements appended to each workgroup-memory row: rows 16 bytes apart
  /// modulo the bank width, so fragment reads down a column do not conflict.
  int64_t pad = 0;
  bool dynamicWorkgroupMemory = false;
  Type elt; ///< input element type (= fragment element type)

  int64_t threads() const { return numWarps * lanes; }
  /// Warpgroup products start S^T and dP^T from the block's statistics
  /// instead of zeros (S^T - N / c, dP^T - delta): the statistics live in
  /// the accumulators, not in registers of their own beside them (32 a lane
  /// at D = 128, 64 at D = 64, where ptxas spilled).
  bool statsInAccumulators() const { return warpgroup; }
  int64_t warpgroups() const { return numWarps / 4; }
  int64_t dqCols() const {
    return warpgroup ? dqk / (warpgroups() / dqQGroups)
                     : dqk / (numWarps / dqWarpRows);
  }
  /// dQ's accumulator (or partials) holds paired columns: mma.sync
  /// accumulators leave in runs of four (half the atomics), each subgroup's
  /// columns being whole 16-column groups.
  bool pairedDq() const {
    return !dqBulk && atom->family == MatrixAtom::Family::MmaSync &&
           dqCols() % 16 == 0;
  }
  /// The workgroup buffers in use, in KernelLaunch order: K [blockKv x Dqk]
  /// (unless in registers), Q [blockQ x Dqk], dO [blockQ x Dv] (two slots
  /// each with async copies) and, with transposed copies, their transposes;
  /// dS [blockQ x blockKv] (all in the input type, rows padded) and two
  /// f32 row vectors of statistics (normalizer, delta); then the staged
  /// dQ (bulk-reduce).
  SmallVector<WorkgroupBuffer> buffers() const {
    SmallVector<WorkgroupBuffer> list;
    if (warpgroup)
      list = {kKey,    kValue,     kQuery,     kGradOut,
              kScores, kRowNormalizer, kRowDelta};
    else if (transposedCopies)
      list = {kQuery,  kGradOut,   kQueryT,    kGradOutT,
              kScores, kRowNormalizer, kRowDelta};
    else
      list = {kKey, kQuery, kGradOut, kScores, kRowNormalizer, kRowDelta};
    if (dqBulk)
      list.push_back(kDqStaged);
    return list;
  }
  MemRefType bufferType(MLIRContext *ctx, WorkgroupBuffer buf) const {
    auto tile = [&](int64_t r, int64_t c) {
      return operandTileType(elt, r, c, pad, std::nullopt);
    };
    auto atoms = [&](int64_t r, int64_t c) {
      return operandTileType(elt, r, c, pad, atomLayout);
    };
    // Q and dO: rows, or atoms; two slots with async copies.
    auto slotted = [&](int64_t r, int64_t c) {
      return operandTileType(
          elt, r, c, pad,
          warpgroup ? std::optional(atomLayout) : std::nullopt, asyncCopies);
    };
    switch (buf) {
    case kKey:
      return warpgroup ? atoms(blockKv, dqk) : tile(blockKv, dqk);
    case kValue:
      return atoms(blockKv, dv);
    case kQuery:
      return slotted(blockQ, dqk);
    case kGradOut:
      return slotted(blockQ, dv);
    case kQueryT:
      return tile(dqk, blockQ);
    case kGradOutT:
      return tile(dv, blockQ);
    case kScores: // dS, or dS^T with warpgroup products
      return warpgroup ? atoms(blockKv, blockQ) : tile(blockQ, blockKv);
    case kDqStaged:
      return MemRefType::get({dqStageSlots, blockQ, dqk + kDqStagedPad},
                             Float32Type::get(ctx));
    case kRowNormalizer:
    case kRowDelta:
      break;
    }
    return MemRefType::get({blockQ}, Float32Type::get(ctx));
  }
  SmallVector<MemRefType> workgroupBuffers(MLIRContext *ctx) const {
    SmallVector<MemRefType> types;
    for (WorkgroupBuffer buf : buffers())
      types.push_back(bufferType(ctx, buf));
    return types;
  }
  int64_t workgroupBytes(MLIRContext *ctx) const {
    return workgroupBufferBytes(workgroupBuffers(ctx));
  }
  /// Registers (32-bit) a lane holds across the query-block loop and in the
  /// score phase: dK / dV accumulators, the V (and with transposed copies or
  /// MFMA K) fragments, S and dP accumulators, and the next block's Q / dO
  /// rows being fetched (GPU). Async copies keep that last term: the tile candidates
  /// were tuned with it, and without it sm_90 would take 64 query rows at
  /// D = 128 and 128 at D = 64, which spill (ptxas).
  int64_t liveRegisters() const {
    int64_t perWarpRows = kvRowsPerWarp;
    int64_t acc = perWarpRows * (dqk + dv) / lanes;
    int64_t frags = warpgroup ? 0 : perWarpRows * dv / lanes / 2;
    // K's fragments of S and dQ: in registers with transposed copies; read
    // from K's copy otherwise, which MFMA products issue k steps ahead:
    // counted alike (gfx950 bf16 D=192 spilled at 128x4x32 without them).
    bool mfma = atom->family == MatrixAtom::Family::MfmaSquare ||
                atom->family == MatrixAtom::Family::MfmaWideK;
    if (transposedCopies || mfma)
      frags += (perWarpRows * dqk + blockKv * dqCols()) / lanes / 2;
    int64_t scores = 2 * perWarpRows * blockQ / lanes;
    int64_t prefetch = lanes > 1 ? blockQ * (dqk + dv) / threads() / 2 : 0;
    return acc + frags + scores + prefetch;
  }
};

/// Picks the atom of the gradient products and the score orientation: the
/// score atom itself when its accumulators can be its A operand (as S^T, else
/// as S), then the chip's other atoms in order of preference.
bool selectGradAtom(const AttentionKernelOptions &options, TiledConfig &cfg) {
  SmallVector<const MatrixAtom *> candidates{cfg.atom};
  if (options.chip)
    for (StringRef name : options.chip->matrixAtoms)
      if (const MatrixAtom *a = lookupAtomFor(name, cfg.elt))
        candidates.push_back(a);
  for (const MatrixAtom *candidate : candidates)
    for (bool transposedScores : {true, false}) {
      if (options.scoreLayout != ScoreLayout::Auto &&
          transposedScores != (options.scoreLayout == ScoreLayout::KvByQ))
        continue;
      // S^T holds P^T itself (the A operand of dV); S holds its transpose.
      auto repack = operandFromAccumulators(*cfg.atom, *candidate,
                                            MatrixOperand::A,
                                            /*transposed=*/!transposedScores);
      if (!repack ||
          !operandTileFromAccumulators(*cfg.atom, *candidate, MatrixOperand::A,
                                       /*transposed=*/!transposedScores))
        continue;
      cfg.gradAtom = candidate;
      cfg.repack = std::move(*repack);
      cfg.scoresTransposed = transposedScores;
      return true;
    }
  return false;
}

struct TileChoice {
  int64_t blockKv, numWarps, blockQ;
};

/// Tile shapes tried in order when the options leave them at 0 (auto). On
/// the H200 (docs/BENCHMARKS.md) 128 KV rows over 8 warps won at D <= 128,
/// with as many query rows as the registers allow without spilling.
SmallVector<TileChoice> tileCandidates(const KernelTarget &target) {
  if (target.host)
    return {{16, 1, 16}};
  if (target.subgroupSize == 32)
    return {{128, 8, 128}, {128, 8, 64}, {128, 8, 32}, {64, 4, 64},
            {64, 4, 32},   {64, 4, 16},  {32, 2, 16}};
  return {{128, 4, 64}, {128, 4, 32}, {64, 4, 64},
          {64, 4, 32},  {64, 4, 16},  {32, 2, 16}};
}

LogicalResult makeConfig(fmha::AttentionBwdOp op,
                         const AttentionKernelOptions &options,
                         const AttentionSizes &sizes, TiledConfig &cfg) {
  const KernelTarget &target = options.target;
  MLIRContext *ctx = op.getContext();
  cfg.elt = cast<MemRefType>(op.getQuery().getType()).getElementType();
  if (!target.host && cfg.elt.isF32())
    return op.emitOpError("strategy=tiled on a GPU needs f16 or bf16 inputs "
                          "(matrix cores); use strategy=warp for f32");
  FailureOr<const MatrixAtom *> atom = selectAtom(op, options, cfg.elt);
  if (failed(atom))
    return failure();
  cfg.atom = *atom;
  if (!selectGradAtom(options, cfg))
    return op.emitOpError("matrix atom '")
           << cfg.atom->name
           << "': no atom of the target can take the scores from its "
              "accumulator registers"
           << (options.scoreLayout == ScoreLayout::Auto
                   ? ""
                   : " in the requested score layout");

  // MFMA reads A and B along k only: the products contracting over queries
  // and keys would gather their operands 16 bits at a time from one copy,
  // unless the chip reads them down the copy's columns (gfx950).
  cfg.transposedCopies =
      options.operandStaging == OperandStaging::TransposedCopies ||
      (options.operandStaging == OperandStaging::Auto &&
       (cfg.atom->family == MatrixAtom::Family::MfmaSquare ||
        cfg.atom->family == MatrixAtom::Family::MfmaWideK) &&
       !(options.chip && options.chip->transposedLdsReads));
  cfg.lanes = cfg.atom->lanes;
  cfg.wholeBlockLoops = useWholeBlockLoops(options);
  cfg.dqk = sizes.headDimQk;
  cfg.dv = sizes.headDimV;
  cfg.group = sizes.groupSize();
  // cp.async moves 16 bytes of consecutive elements: Q and dO rows with a
  // unit inner stride, head dims in whole 16-byte chunks.
  bool asyncRequested = options.queryPipelining == QueryPipelining::AsyncCopies;
  bool nvidia = !target.host && options.chip && options.chip->isNvidia();
  cfg.dvBeforeDs =
      target.host || (options.chip && options.chip->interleavedBackward);
  if (asyncRequested && !nvidia) {
    InFlightDiagnostic diag =
        op.emitOpError("query-pipelining=async-copies needs an NVIDIA chip "
                       "(cp.async, sm_80+): ");
    if (target.host)
      return diag << "target=host has none";
    if (options.chip)
      return diag << "chip " << options.chip->name << " has none";
    return diag << "set chip=";
  }
  int64_t chunkElems = 128 / cfg.elt.getIntOrFloatBitWidth();
  bool rowsInChunks = hasUnitInnerStride(op.getQuery()) &&
                      hasUnitInnerStride(op.getGradOut()) &&
                      cfg.dqk % chunkElems == 0 && cfg.dv % chunkElems == 0;
  bool kvRowsInChunks = rowsInChunks && hasUnitInnerStride(op.getKey()) &&
                        hasUnitInnerStride(op.getValue());
  // Warpgroup products: the chip has them; the subgroups hold S^T in mma.sync
  // accumulators that feed dV / dK themselves; K, V, Q and dO rows are
  // copied in 16-byte chunks into 8-row atoms. The tile shapes are checked
  // per candidate.
  bool warpgroupRequested = options.warpgroupMma == WarpgroupMma::On;
  bool warpgroupLayout =
      cfg.scoresTransposed && cfg.gradAtom == cfg.atom &&
      cfg.atom->family == MatrixAtom::Family::MmaSync && !cfg.transposedCopies;
  FailureOr<bool> wantWarpgroup =
      warpgroupProducts(op, options, "warpgroup-mma", warpgroupLayout,
                        "S^T tiles of mma.sync atoms (score-layout=kv-q, "
                        "operand-staging=transposing-reads)",
                        kvRowsInChunks, "Q, K, V and dO");
  if (failed(wantWarpgroup))
    return failure();
  FailureOr<WarpgroupLayout> atomLayout =
      resolveWarpgroupLayout(op, options, "warpgroup-layout", *wantWarpgroup,
                             cfg.elt, {cfg.dqk, cfg.dv});
  if (failed(atomLayout))
    return failure();
  if (asyncRequested && !rowsInChunks)
    return op.emitOpError("query-pipelining=async-copies needs Q and dO rows "
                          "of consecutive elements and head dims in whole "
                          "16-byte chunks");
  if (options.numWarps < 0 || options.blockKv < 0 || options.blockQ < 0)
    return op.emitOpError("block sizes and num-warps must be positive or 0 "
                          "(auto)");
  // Bounds first: the divisibility and tile-size products below overflowed
  // for huge values (a division by zero, a 2^58-element vector:
  // test/Fuzz/bwd-to-kernels-huge-options.mlir). The pass bounds num-warps by
  // the workgroup size.
  if (failed(checkTileBounds(op, options, "")))
    return failure();
  if (!target.host) {
    cfg.pad = 16 / (cfg.elt.getIntOrFloatBitWidth() / 8);
    cfg.dynamicWorkgroupMemory = target.subgroupSize == 32;
  }

  const MatrixAtom &a = *cfg.atom, &g = *cfg.gradAtom;
  // dQ through the bulk-copy unit: a chip with bulk reductions, warpgroup
  // products, dQ added in no fixed order, one staged row a work-item.
  auto bulkChip = [&] {
    return options.chip && options.chip->asyncBulkReduce;
  };
  auto bulkPossible = [&] {
    return bulkChip() && cfg.warpgroup && !op.getDeterministic() &&
           cfg.blockQ <= cfg.threads();
  };
  // Takes tile `c` and derives the per-subgroup split, checking the
  // divisibility each product needs.
  auto apply = [&](const TileChoice &c, bool report) -> LogicalResult {
    cfg.blockKv = c.blockKv;
    cfg.numWarps = c.numWarps;
    cfg.blockQ = c.blockQ;
    cfg.kvRowsPerWarp = cfg.blockKv / cfg.numWarps;
    int64_t scoreKv = cfg.scoresTransposed ? a.m : a.n;
    int64_t scoreQ = cfg.scoresTransposed ? a.n : a.m;
    int64_t gm = g.m, gk = g.k, gn = g.n, am = a.m, an = a.n;
    Divisibility needs[] = {
        {cfg.blockKv, cfg.numWarps * std::max(scoreKv, gm), "block-kv",
         "num-warps * atom rows"},
        {cfg.blockQ, std::max({scoreQ, gk, am}), "block-q",
         "the atoms' query extent"},
        {cfg.blockKv, a.k, "block-kv", "atom K"},
        {cfg.dqk, a.k, "Dqk", "atom K"},
        {cfg.dv, a.k, "Dv", "atom K"},
        {cfg.dv, gn, "Dv", "atom N"},
        {cfg.dqk, gn, "Dqk", "atom N"},
    };
    std::string context = ("strategy=tiled with atom " + a.name).str();
    if (failed(checkDivisible(op, needs, context, report)))
      return failure();
    // Each subgroup of the dQ grid reads blockKv x (its dS rows + its K
    // columns): pick the split with the fewest.
    std::optional<int64_t> best;
    for (int64_t rows = 1; rows <= cfg.numWarps; ++rows) {
      int64_t cols = cfg.numWarps / rows;
      if (cfg.numWarps % rows || cfg.blockQ % (rows * am) ||
          cfg.dqk % (cols * an))
        continue;
      auto reads = [&](int64_t r) {
        return cfg.blockQ / r + cfg.dqk / (cfg.numWarps / r);
      };
      if (!best || reads(rows) < reads(*best))
        best = rows;
    }
    if (!best) {
      if (report)
        op.emitOpError("strategy=tiled with atom ")
            << a.name << ": no split of num-warps (" << cfg.numWarps
            << ") over dQ's block-q (" << cfg.blockQ << ") rows and Dqk ("
            << cfg.dqk << ") columns fits the atom";
      return failure();
    }
    cfg.dqWarpRows = *best;
    // A warpgroup is four subgroups of 16 rows each (m64) multiplying by at
    // most 256 columns (n): 64 KV rows of S^T, dP^T, dV and dK; of dQ, 64
    // query rows by the columns its share of Dqk.
    int64_t warpgroups = cfg.numWarps / 4;
    cfg.dqQGroups = cfg.blockQ / 64;
    cfg.warpgroup = *wantWarpgroup && cfg.numWarps % 4 == 0 &&
                    cfg.kvRowsPerWarp == 16 && cfg.blockQ % 64 == 0 &&
                    cfg.blockQ <= 256 && cfg.dqk <= 256 && cfg.dv <= 256 &&
                    cfg.dqQGroups > 0 && warpgroups % cfg.dqQGroups == 0 &&
                    cfg.dqk % (warpgroups / cfg.dqQGroups * 8) == 0;
    // dQ's B is a warpgroup's share of K's columns, whose descriptor in
    // 128-byte swizzled rows must start a row: a share of part of a row
    // takes core matrices (auto), or is an error (swizzle-128b asked for).
    cfg.atomLayout = *atomLayout;
    if (cfg.warpgroup && cfg.atomLayout == WarpgroupLayout::Swizzle128B) {
      int64_t share = cfg.dqk / (warpgroups / cfg.dqQGroups);
      int64_t rowElems =
          atomRowElements(WarpgroupLayout::Swizzle128B, cfg.elt);
      if (share % rowElems != 0) {
        if (options.warpgroupLayout != WarpgroupLayout::Auto) {
          if (report)
            op.emitOpError("warpgroup-layout=swizzle-128b: each warpgroup's ")
                << share << " columns of dQ (Dqk " << cfg.dqk << " over "
                << warpgroups / cfg.dqQGroups << " warpgroups a 64-row block "
                << "of block-q " << cfg.blockQ << ") are not whole 128-byte "
                << "rows of " << rowElems << " elements; raise block-q or use "
                << "warpgroup-layout=core-matrices";
          return failure();
        }
        cfg.atomLayout = WarpgroupLayout::CoreMatrices;
      }
    }
    if (warpgroupRequested && !cfg.warpgroup) {
      if (report)
        op.emitOpError("warpgroup-mma=on: warpgroups of four subgroups with "
                       "16 KV rows each (num-warps a multiple of 4, block-kv "
                       "= 16 * num-warps), block-q a multiple of 64 whose "
                       "64-row blocks divide the warpgroups, head dims of at "
                       "most 256; got ")
            << cfg.numWarps << " subgroups of " << cfg.kvRowsPerWarp
            << " rows, block-q " << cfg.blockQ;
      return failure();
    }
    // Every work-item issues as many 16-byte copies of each tile, and
    // prefetches the statistics of at most one row.
    int64_t threads = cfg.threads();
    // auto: async copies with warpgroup products (on the H200 4-9 % faster
    // than registers, which also spilled: docs/BENCHMARKS.md run 19), else
    // registers (async copies were 3-6 % slower with causal masks and within
    // 4 % either way without: run 13).
    bool wantAsync =
        asyncRequested ||
        (options.queryPipelining == QueryPipelining::Auto && cfg.warpgroup);
    cfg.asyncCopies = wantAsync && cfg.blockQ <= threads &&
                      cfg.blockQ * cfg.dqk / chunkElems % threads == 0 &&
                      cfg.blockQ * cfg.dv / chunkElems % threads == 0;
    if (asyncRequested && !cfg.asyncCopies) {
      if (report)
        op.emitOpError("query-pipelining=async-copies: the ")
            << cfg.blockQ << "-row Q and dO tiles do not split evenly into "
            << "16-byte copies over the " << threads << " work-items";
      return failure();
    }
    bool bulkRequested =
        options.dqAccumulation == DqAccumulation::BulkReduce;
    cfg.dqBulk = bulkRequested && bulkPossible();
    cfg.dqStageSlots = options.dqStageSlots;
    if (bulkRequested && !cfg.dqBulk) {
      if (report) {
        InFlightDiagnostic diag = op.emitOpError("dq-accumulation=bulk-reduce ");
        if (!bulkChip())
          diag << "needs a chip with bulk reductions (sm_90, sm_90a), got "
               << (options.chip ? options.chip->name : StringRef("none"));
        else if (!cfg.warpgroup)
          diag << "needs warpgroup products (warpgroup-mma, sm_90a)";
        else if (op.getDeterministic())
          diag << "adds dQ in no fixed order; deterministic=true stores "
                  "per-KV-block partials instead";
        else
          diag << "stages one dQ row a work-item: block-q (" << cfg.blockQ
               << ") exceeds the " << threads << " work-items";
      }
      return failure();
    }
    return success();
  };

  int64_t limit = workgroupMemoryLimit(options);
  SmallVector<TileChoice> candidates;
  for (const TileChoice &c : tileCandidates(target))
    candidates.push_back(
        {options.blockKv ? options.blockKv : c.blockKv,
         target.host ? 1 : (options.numWarps ? options.numWarps : c.numWarps),
         options.blockQ ? options.blockQ : c.blockQ});
  // The first candidate that divides, fits workgroup memory and the register
  // budget; else the one that fits memory with the fewest live registers
  // (head dims past 128 keep more accumulators than fit without spilling).
  // The one needing the least workgroup memory names the shortfall where
  // none fits.
  std::optional<TileChoice> chosen, fewest, leanest;
  int64_t fewestRegs = std::numeric_limits<int64_t>::max();
  int64_t leanestBytes = std::numeric_limits<int64_t>::max();
  for (const TileChoice &c : candidates) {
    if (failed(apply(c, /*report=*/false)))
      continue;
    if (cfg.workgroupBytes(ctx) < leanestBytes) {
      leanest = c;
      leanestBytes = cfg.workgroupBytes(ctx);
    }
    if (cfg.workgroupBytes(ctx) > limit)
      continue;
    if (cfg.liveRegisters() <= registerBudget(options, cfg.numWarps)) {
      chosen = c;
      break;
    }
    if (cfg.liveRegisters() < fewestRegs) {
      fewest = c;
      fewestRegs = cfg.liveRegisters();
    }
  }
  if (!chosen)
    chosen = fewest;
  if (chosen) {
    (void)apply(*chosen, /*report=*/false);
    // auto: bulk reductions in one slot, one operation a block (H100:
    // 1.12-1.15x the atomics at D = 128, 1.06-1.08x a row an operation at
    // D = 64: docs/BENCHMARKS.md run 53), where the stage fits beside the
    // chosen tiles, which auto never changes.
    if (options.dqAccumulation == DqAccumulation::Auto && bulkPossible()) {
      cfg.dqBulk = true;
      if (cfg.workgroupBytes(ctx) > limit)
        cfg.dqBulk = false;
    }
    cfg.bufferRows = !target.host && options.chip &&
                     options.chip->bufferLoads && !cfg.asyncCopies &&
                     TileCopier::fitsRowsBuffer(op.getQuery(), cfg.blockQ) &&
                     TileCopier::fitsRowsBuffer(op.getGradOut(), cfg.blockQ);
    return checkRegisterEstimate(
        op, options, cfg.numWarps, cfg.liveRegisters(),
        tileOptionsText("", cfg.blockQ, cfg.blockKv, cfg.numWarps),
        options.blockQ || options.blockKv || options.numWarps);
  }
  // Nothing fits: the first candidate's divisibility errors (the explicit
  // options, when given, are in every one), else the leanest one's memory.
  if (failed(apply(candidates.front(), /*report=*/true)))
    return failure();
  (void)apply(*leanest, /*report=*/false);
  InFlightDiagnostic diag =
      op.emitOpError("strategy=tiled: the tiles need ")
      << leanestBytes << " bytes of workgroup memory at the least ("
      << tileOptionsText("", cfg.blockQ, cfg.blockKv, cfg.numWarps)
      << "), more than the " << limit << " the target has";
  if (cfg.dqBulk) {
    diag << ", of which the dQ stage of dq-accumulation=bulk-reduce takes "
         << workgroupBufferBytes({cfg.bufferType(ctx, kDqStaged)});
    if (cfg.dqStageSlots > 1)
      diag << " in " << cfg.dqStageSlots
           << " slots (dq-stage-slots=1 needs half, dq-accumulation=atomics "
              "none)";
    else
      diag << " (dq-accumulation=atomics needs none)";
  } else
    diag << "; lower block-q or block-kv";
  return diag;
}

struct MainKernel {
  fmha::AttentionBwdOp op;
  const TiledConfig &cfg;
  const KernelTarget &target;
  float scale;
  /// The op's mask (null: none).
  fmha::MaskAttr maskAttr;
  bool deterministic;
  /// The op's score_mod (null: none).
  Region *scoreMod;
  /// The number of captured operands; dropout's drop probability where the
  /// op has dropout (its {seed, offset} the argument after the captures).
  unsigned numCaptures;
  std::optional<float> dropoutP;

  /// Whether the op has an additive bias, its gradient, and adds that
  /// atomically (a bias broadcast over the batch or the heads) rather than
  /// storing it.
  bool bias, gradBias, biasGradAtomic;

  /// Kernel argument positions; the score_mod's captured operands follow,
  /// then the bias and its gradient, where the op has them, then dropout's
  /// seed and offset.
  enum Arg { kQ, kK, kV, kDO, kRows, kDq, kDk, kDv, kCaptures };

  void build(OpBuilder &b, Location loc, ValueRange ids, Value tid,
             ValueRange args, ValueRange wgBuffers) const;
};

void MainKernel::build(OpBuilder &b, Location loc, ValueRange ids, Value tid,
                       ValueRange args, ValueRange wgBuffers) const {
  const MatrixAtom &atom = *cfg.atom, &gAtom = *cfg.gradAtom;
  const bool sT = cfg.scoresTransposed, copiesT = cfg.transposedCopies;
  SmallVector<WorkgroupBuffer> present = cfg.buffers();
  auto wg = [&](WorkgroupBuffer which) -> Value {
    auto *it = llvm::find(present, which);
    return it == present.end() ? Value() : wgBuffers[it - present.begin()];
  };
  Value q = args[kQ], k = args[kK], v = args[kV], dO = args[kDO];
  Value rowRecord = args[kRows], dqAcc = args[kDq], dk = args[kDk],
        dv = args[kDv];
  AttentionSizes sizes = AttentionSizes::get(b, loc, q, k, v);
  Value kvBlock = ids[0], headKv = ids[1], batch = ids[2];

  // The workgroup's tiles, split over its subgroups as their types say
  // (fmha-split-workgroup-tiles gives each subgroup its block,
  // fmha-distribute-tiles each lane its fragments).
  TileBuilder tiles{b, loc, cfg.elt, tid};
  auto tileType = [&](int64_t rows, int64_t cols, fmha::TileRole role,
                      const MatrixAtom &a, ArrayRef<int64_t> grid,
                      ArrayRef<int64_t> strides = {}) {
    return tiles.type(rows, cols, role, a).split(grid, strides);
  };
  const SmallVector<int64_t, 2> whole{1, 1};

  Value kv0 = arith::MulIOp::create(b, loc, kvBlock,
                                    constIndex(b, loc, cfg.blockKv));
  // Each subgroup holds blockKv / numWarps KV rows of the score and dK /
  // dV tiles (S^T: the rows; S: the columns).
  const SmallVector<int64_t, 2> kvSplit{cfg.numWarps, 1};
  const SmallVector<int64_t, 2> kvSplitT{1, cfg.numWarps};
  // dQ [blockQ x Dqk] over subgroups: a dqWarpRows x (numWarps /
  // dqWarpRows) grid, row-major; with warpgroup products warpgroup g takes
  // 64 query rows (g % dqQGroups, its subgroups 16 rows each) by a share (g
  // / dqQGroups) of Dqk: rows split 4 * dqQGroups ways at subgroup stride
  // 1, columns at stride 4 * dqQGroups.
  int64_t dqRowParts = cfg.warpgroup ? 4 * cfg.dqQGroups : cfg.dqWarpRows;
  int64_t dqColParts = cfg.numWarps / dqRowParts;
  SmallVector<int64_t, 2> dqGrid{dqRowParts, dqColParts};
  SmallVector<int64_t, 2> dqStrides =
      cfg.warpgroup ? SmallVector<int64_t, 2>{1, dqRowParts}
                    : SmallVector<int64_t, 2>{dqColParts, 1};
  auto transposedSplit = [](ArrayRef<int64_t> x) {
    return SmallVector<int64_t, 2>{x[1], x[0]};
  };

  // The key side of the score products, [kv x depth] rows of K or V: the A
  // operand of S^T = K Q^T and dP^T = V dO^T, or, transposed, the B operand
  // of S = Q K^T and dP = dO V^T.
  auto keySideType = [&](int64_t depth) {
    return sT ? tileType(cfg.blockKv, depth, fmha::TileRole::a, atom, kvSplit)
              : tileType(depth, cfg.blockKv, fmha::TileRole::b, atom, kvSplitT);
  };
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  // Rows [row, +rows) x columns [col, +cols) of a [B, S, H, D] memref (or
  // the transpose), loaded once from global memory.
  auto loadTile = [&](Value src, Value row, Value col, bool transposed,
                      fmha::TileType type) -> Value {
    auto op = fmha::TileLoadOp::create(b, loc, type, src, batch, row, headKv,
                                       col, tid, sizes.seqK);
    op.setTransposed(transposed);
    return op;
  };
  // V rows of the subgroup stay in registers; so do K's with transposed
  // copies (and the K columns of the subgroup's part of dQ), else K is
  // staged in workgroup memory.
  TileCopier copier{b, loc, tid, cfg.threads(), !target.host};
  if (!copiesT)
    copier.copy(k, batch, kv0, headKv, sizes.seqK, cfg.blockKv, wg(kKey),
                Value());
  // Warpgroup products read V from workgroup memory too.
  Value vTile;
  if (cfg.warpgroup)
    copier.copy(v, batch, kv0, headKv, sizes.seqK, cfg.blockKv, wg(kValue),
                Value());
  else
    vTile = loadTile(v, kv0, c0, !sT, keySideType(cfg.dv));
  // dQ is computed as dQ^T = K^T dS^T where the atom's accumulator
  // registers run along its rows (MFMA): each lane's registers then hold
  // consecutive columns of a dQ row, which leave from one address (one
  // vector store into the partials).
  const bool dqT =
      AccRuns::get(atom, /*transposed=*/true).width > AccRuns::get(atom).width;
  // K [blockKv x Dqk] for dQ, each subgroup its dQ columns: B of dS K, or
  // transposed, A of K^T dS^T.
  fmha::TileType kDqType =
      dqT ? tileType(cfg.dqk, cfg.blockKv, fmha::TileRole::a, atom,
                     {dqColParts, 1}, {dqStrides[1], 1})
          : tileType(cfg.blockKv, cfg.dqk, fmha::TileRole::b, atom,
                     {1, dqColParts}, {1, dqStrides[1]});
  Value kTile, kDqTile;
  if (copiesT) {
    kTile = loadTile(k, kv0, c0, !sT, keySideType(cfg.dqk));
    kDqTile = loadTile(k, kv0, c0, dqT, kDqType);
  }

  // Query blocks that see any key of this KV block (block skipping).
  fmha::MaskBand band = maskAttr ? maskAttr.getBand() : fmha::MaskBand();
  MaskBuilder mask(b, loc, band, sizes.seqQ, sizes.seqK);
  Value kvEnd = arith::MinUIOp::create(
      b, loc, addIdx(b, loc, kv0, cfg.blockKv), sizes.seqK);
  auto [qLo, qHi] = mask.visibleQueries(b, loc, kv0, kvEnd);
  Value cBlockQ = constIndex(b, loc, cfg.blockQ);
  Value qbBegin = arith::DivUIOp::create(b, loc, qLo, cBlockQ);
  Value qbEnd = ceilDiv(b, loc, qHi, cBlockQ);

  // dK / dV accumulators, each subgroup its KV rows, in the gradient atom's
  // layout.
  auto zeroTile = [&](fmha::TileType type) { return tiles.zero(type); };
  SmallVector<Value> init{
      zeroTile(
          tileType(cfg.blockKv, cfg.dqk, fmha::TileRole::c, gAtom, kvSplit)),
      zeroTile(
          tileType(cfg.blockKv, cfg.dv, fmha::TileRole::c, gAtom, kvSplit))};

  Value cScale = constF32(b, loc, scale);

  // Query block qb's slot of the dQ stage: qb mod the slots.
  auto stageSlot = [&](Value qb) {
    Value slot = cfg.dqStageSlots == 1
                     ? c0
                     : arith::RemUIOp::create(
                           b, loc, qb, constIndex(b, loc, cfg.dqStageSlots))
                           .getResult();
    return slotView(b, loc, wg(kDqStaged), slot);
  };
  // The staged dQ of the block before qb (where qb is past the first
  // visible block) added to head headQ's accumulator rows by the bulk-copy
  // unit: the slot, padding included, is one run of the head-major
  // accumulator, issued by work-item 0 in one operation. Then a bulk group
  // committed by every work-item (empty where none was issued), so that all
  // count the blocks' groups alike. Rows past Sq land in the accumulator's
  // padding rows (whole query blocks), which nobody reads.
  auto addStagedDqBefore = [&](Value qb, Value headQ) {
    auto any = scf::IfOp::create(
        b, loc, cmp(b, loc, arith::CmpIPredicate::ugt, qb, qbBegin));
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(any.thenBlock());
      Value staged = arith::SubIOp::create(b, loc, qb, c1);
      Value slot = stageSlot(staged);
      auto issuer = scf::IfOp::create(
          b, loc, cmp(b, loc, arith::CmpIPredicate::eq, tid, c0));
      b.setInsertionPointToStart(issuer.thenBlock());
      Value row = arith::MulIOp::create(b, loc, staged, cBlockQ);
      fmha::BulkAddOp::create(b, loc, slot, ValueRange{c0, c0}, dqAcc,
                              ValueRange{batch, headQ, row, c0},
                              cfg.blockQ * (cfg.dqk + kDqStagedPad));
    }
    fmha::BulkCommitOp::create(b, loc);
  };
  auto headLoop = scf::ForOp::create(b, loc, c0,
                                     constIndex(b, loc, cfg.group), c1, init);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(headLoop.getBody());
  Value headQ = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, headKv, constIndex(b, loc, cfg.group)),
      headLoop.getInductionVar());
  // Dropout's stream of this batch and query head, shared by its blocks.
  std::optional<fmha::DropoutStream> dropoutStream;
  if (dropoutP)
    dropoutStream =
        fmha::emitDropoutStream(b, loc,
                                args[kCaptures + numCaptures + bias + gradBias],
                                batchIndexOf(ids), headQ, sizes.headsQ);
  // The block's Q and dO rows and statistics. With `throughRegisters`, the
  // rows are fetched into registers, then placed in workgroup memory; with
  // async copies they are copied into a slot of the double-buffered tiles
  // and waited for; either way each thread reads the statistics of one row.
  // fmha-pipeline-tile-fetches issues those reads an iteration ahead (the
  // fetches and statistics before this block's dQ product, so their latency
  // hides behind it; the copies right after the wait, into the other slot).
  // Query rows past Sq get P = 0 from their statistics (see loadRowStats),
  // which also zeroes their dS: their Q / dO values never reach a gradient,
  // so the copies need not zero them (tail unspecified).
  const bool async = cfg.asyncCopies;
  fmha::FetchedType qFetched =
      copier.fetchedType(q, cfg.blockQ, wg(kQuery), wg(kQueryT));
  fmha::FetchedType doFetched =
      copier.fetchedType(dO, cfg.blockQ, wg(kGradOut), wg(kGradOutT));
  bool throughRegisters = !async && !target.host && qFetched && doFetched &&
                          cfg.blockQ <= cfg.threads();
  // (normalizer, delta) of `row` from the row record, by one read that
  // needs no guard: past Sq both are 2^100, so P = exp2(s - 2^100) = 0
  // and dS = 0 * (dP - 2^100) = 0.
  auto loadRowStats = [&](Value row) -> SmallVector<Value> {
    Value pastEnd = constF32(b, loc, 0x1p100f);
    Value record = vector::TransferReadOp::create(
        b, loc, VectorType::get({1, 2}, b.getF32Type()), rowRecord,
        ValueRange{batch, headQ, row, c0}, pastEnd,
        ArrayRef<bool>{false, true});
    return {vector::ExtractOp::create(b, loc, record, ArrayRef<int64_t>{0, 0}),
            vector::ExtractOp::create(b, loc, record, ArrayRef<int64_t>{0, 1})};
  };
  // Row q0 + tid of the block; threads past the block read past Sq, which
  // touches no memory.
  Value tidInBlock = cmp(b, loc, arith::CmpIPredicate::ult, tid, cBlockQ);
  auto loadThreadStats = [&](Value q0) {
    return loadRowStats(arith::SelectOp::create(
        b, loc, tidInBlock, arith::AddIOp::create(b, loc, q0, tid),
        sizes.seqQ));
  };
  // The same through a buffer descriptor of the block's records that ends
  // at Sq: the rows past it read zeros, which become 2^100.
  auto loadThreadStatsBuffered = [&](Value q0) -> SmallVector<Value> {
    Value records =
        copier.rowsBuffer(rowRecord, {batch, headQ, q0, b.getIndexAttr(0)},
                          /*rowDim=*/2, sizes.seqQ, cfg.blockQ);
    Value row = arith::SelectOp::create(b, loc, tidInBlock, tid, c0);
    Value record = vector::LoadOp::create(
        b, loc, VectorType::get({2}, b.getF32Type()), records,
        ValueRange{c0, c0, row, c0});
    Value inSeq = cmp(b, loc, arith::CmpIPredicate::ult,
                      arith::AddIOp::create(b, loc, q0, tid), sizes.seqQ);
    Value pastEnd = constF32(b, loc, 0x1p100f);
    SmallVector<Value> stats;
    for (int64_t i : {0, 1})
      stats.push_back(arith::SelectOp::create(
          b, loc, inSeq, vector::ExtractOp::create(b, loc, record, i),
          pastEnd));
    return stats;
  };
  auto storeStats = [&](Value r, ValueRange st) {
    std::array<Value, 2> bufs{wg(kRowNormalizer), wg(kRowDelta)};
    for (auto [buf, x] : llvm::zip(bufs, st))
      memref::StoreOp::create(b, loc, x, buf, r);
  };
  auto loadBlock = [&](Value q0) {
    if (!cfg.bufferRows) {
      SmallVector<Value> vals{
          copier.fetch(qFetched, q, batch, q0, headQ, sizes.seqQ,
                       /*tailUnspecified=*/true),
          copier.fetch(doFetched, dO, batch, q0, headQ, sizes.seqQ,
                       /*tailUnspecified=*/true)};
      vals.append(loadThreadStats(q0));
      return vals;
    }
    // The block's rows of Q and dO through buffer descriptors that end at
    // Sq, as rows [0, blockQ) of them.
    auto fetchRows = [&](Value src, Value dst, Value dstT) -> Value {
      Value rows =
          copier.rowsBuffer(src, batch, q0, headQ, sizes.seqQ, cfg.blockQ);
      return copier.fetch(copier.fetchedType(rows, cfg.blockQ, dst, dstT),
                          rows, c0, c0, c0, cBlockQ,
                          /*tailUnspecified=*/true);
    };
    SmallVector<Value> vals{fetchRows(q, wg(kQuery), wg(kQueryT)),
                            fetchRows(dO, wg(kGradOut), wg(kGradOutT))};
    vals.append(loadThreadStatsBuffered(q0));
    return vals;
  };
  // The statistics of row q0 + tid, read by loadThreadStats(q0).
  auto storeThreadStats = [&](ValueRange st) {
    auto ifOp = scf::IfOp::create(b, loc, tidInBlock);
    OpBuilder::InsertionGuard g4(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    storeStats(tid, st);
  };
  auto storeBlock = [&](ValueRange vals) {
    copier.place(vals[1], wg(kGradOut), wg(kGradOutT));
    copier.place(vals[0], wg(kQuery), wg(kQueryT));
    storeThreadStats(vals.take_back(2));
  };
  // Async copies: block qb lands in slot qb % 2 of the Q and dO tiles, a
  // group each. Rows past Sq, and the block after the last visible one
  // (which a pipelined loop's last iteration copies), are zero-filled
  // without reading memory.
  Value rowEnd;
  if (async) {
    Value visibleEnd = arith::MulIOp::create(b, loc, qbEnd, cBlockQ);
    rowEnd = arith::MinUIOp::create(b, loc, sizes.seqQ, visibleEnd);
  }
  auto copyBlock = [&](Value q0) {
    copier.copy(q, batch, q0, headQ, sizes.seqQ, cfg.blockQ, wg(kQuery),
                wg(kQueryT), /*tailUnspecified=*/true);
    copier.copy(dO, batch, q0, headQ, sizes.seqQ, cfg.blockQ, wg(kGradOut),
                wg(kGradOutT), /*tailUnspecified=*/true);
    auto rows = scf::ForOp::create(b, loc, tid, cBlockQ,
                                   constIndex(b, loc, cfg.threads()));
    OpBuilder::InsertionGuard g4(b);
    b.setInsertionPointToStart(rows.getBody());
    Value r = rows.getInductionVar();
    storeStats(r, loadRowStats(arith::AddIOp::create(b, loc, q0, r)));
  };

  ValueRange loopInit = headLoop.getRegionIterArgs();
  // The query blocks [lo, hi), carrying `carriedIn`, their scores masked as
  // `scoreMask` says.
  auto emitQueryLoop = [&](Value lo, Value hi, ValueRange carriedIn,
                           ScoreMask scoreMask) -> scf::ForOp {
    auto qLoop = scf::ForOp::create(b, loc, lo, hi, c1, carriedIn);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(qLoop.getBody());
    ValueRange carried = qLoop.getRegionIterArgs();
    Value dKi = carried[0], dVi = carried[1];
    Value q0 = arith::MulIOp::create(b, loc, qLoop.getInductionVar(), cBlockQ);

    // The kernel's workgroup-memory accesses are ordered by
    // fmha-place-workgroup-barriers: a barrier after this block's Q / dO /
    // statistics stores (also ordering this iteration's dS writes after the
    // previous dQ reads), and one after the dS stores, before the next
    // block's global loads (also ordering the next block's Q / dO writes
    // after this block's reads).
    Value qBuf = wg(kQuery), doBuf = wg(kGradOut);
    if (async) {
      // The statistics first: the barrier that publishes the copies'
      // landing publishes them too (one barrier less a block), and the
      // previous block's barrier after its dS writes orders them after its
      // reads.
      storeThreadStats(loadThreadStats(q0));
      std::tie(qBuf, doBuf) = copier.copyBlockPairAsync(
          qLoop.getInductionVar(), {q, dO}, {qBuf, doBuf}, batch, q0, headQ,
          rowEnd, cfg.blockQ);
      // The previous block's staged dQ: the barrier that publishes this
      // block's copies publishes it too.
      if (cfg.dqBulk)
        addStagedDqBefore(qLoop.getInductionVar(), headQ);
    } else if (throughRegisters) {
      storeBlock(loadBlock(q0));
    } else {
      copyBlock(q0);
    }

    // Scores of the subgroup's KV rows against the block's queries: S^T =
    // K Q^T and dP^T = V dO^T, or S = Q K^T and dP = dO V^T.
    fmha::TileType scoreType =
        sT ? tileType(cfg.blockKv, cfg.blockQ, fmha::TileRole::c, atom, kvSplit)
           : tileType(cfg.blockQ, cfg.blockKv, fmha::TileRole::c, atom,
                      kvSplitT);
    // P and dS = P (dP - delta) on the score tiles. The statistics of the
    // tile's queries (its columns with S^T, rows with S), read once per
    // lane from the block's copy.
    auto queryStats = [&](WorkgroupBuffer buf) -> Value {
      return fmha::TileBroadcastOp::create(b, loc, scoreType, wg(buf), c0, tid,
                                           /*dim=*/sT ? 1 : 0);
    };
    // exp2(s * c - N) is P for the scores s as the product leaves them.
    float scoreToLog2 = (scoreMod || bias ? 1.0f : scale) * kLog2e;
    // The statistics as the products' starting values, each times `factor`.
    auto statsTile = [&](WorkgroupBuffer buf, float factor) -> Value {
      return tiles.map(scoreType, {queryStats(buf)}, [&](ValueRange x) {
        return arith::MulFOp::create(b, loc, x[0], constF32(b, loc, factor))
            .getResult();
      });
    };
    // S^T starts at -N / c where its scores are P's (no score_mod or bias
    // in between), dP^T at -delta unless dropout's factors scale dP first.
    bool normalizerInScores = cfg.statsInAccumulators() && !scoreMod && !bias;
    bool deltaInGrads = cfg.statsInAccumulators() && !dropoutStream;
    auto scoreProduct = [&](Value queryBuf, Value keySide, Value keyBuf,
                            int64_t depth, Value acc) {
      // The warpgroup's 64 KV rows of K (V) times B = Q^T (dO^T): element (k
      // = d, n = q) is Q's (q, d).
      if (cfg.warpgroup)
        return tiles.mmaWarpgroup({keyBuf, c0, c0}, depth,
                                  {queryBuf, c0, c0, /*transposed=*/true}, acc);
      if (!keySide)
        keySide =
            tiles.read(keyBuf, c0, c0, /*transposed=*/!sT, keySideType(depth));
      // The query side (Q or dO rows): B = Q^T [d x q] of S^T, A [q x d] of
      // S.
      Value querySide =
          sT ? tiles.read(
                   queryBuf, c0, c0, /*transposed=*/true,
                   tileType(depth, cfg.blockQ, fmha::TileRole::b, atom, whole))
             : tiles.read(
                   queryBuf, c0, c0, /*transposed=*/false,
                   tileType(cfg.blockQ, depth, fmha::TileRole::a, atom, whole));
      return sT ? tiles.mma(keySide, querySide, acc)
                : tiles.mma(querySide, keySide, acc);
    };
    Value sTile = scoreProduct(
        qBuf, kTile, wg(kKey), cfg.dqk,
        normalizerInScores ? statsTile(kRowNormalizer, -1.0f / scoreToLog2)
                           : zeroTile(scoreType));
    Value dpTile = scoreProduct(doBuf, vTile, wg(kValue), cfg.dv,
                                deltaInGrads ? statsTile(kRowDelta, -1.0f)
                                             : zeroTile(scoreType));
    // With a score_mod, s' = f(s * scale) and its slope d(s')/d(s * scale)
    // (none where it is 1), which takes dS from s' back to the scaled
    // score.
    Value slopeTile;
    if (scoreMod) {
      SmallVector<Value, 2> modified =
          modifyScores(tiles, *scoreMod, scale, sTile, q0, kv0,
                       /*keysAlongRows=*/sT, batchIndexOf(ids), headQ,
                       args.slice(kCaptures, numCaptures), /*derivative=*/true);
      sTile = modified[0];
      if (modified.size() > 1)
        slopeTile = modified[1];
    }
    // s' + bias: the scores P is of (scaled here without a score_mod).
    if (bias)
      sTile = addBias(tiles, sTile, scoreMod ? 1.0f : scale,
                      args[kCaptures + numCaptures], batch, headQ, q0, kv0,
                      /*keysAlongRows=*/sT, sizes);

    SmallVector<Value> pInputs{sTile};
    if (!normalizerInScores)
      pInputs.push_back(queryStats(kRowNormalizer));
    Value pTile = tiles.map(scoreType, pInputs, [&](ValueRange x) -> Value {
      Value scaled =
          arith::MulFOp::create(b, loc, x[0], constF32(b, loc, scoreToLog2));
      if (!normalizerInScores)
        scaled = arith::SubFOp::create(b, loc, scaled, x[1]);
      return math::Exp2Op::create(b, loc, scaled);
    });
    // Keys past Sk and, with a mask, invisible pairs get P = 0 (queries past
    // Sq already have: their offset is +inf).
    pTile = maskScoreTile(b, loc, scoreMask, pTile, q0, kv0, tid, sizes,
                          maskAttr, /*keysAlongRows=*/sT, APFloat(0.0f));
    // acc += X^T rhs for X = P or dS, rhs the block's [q x D] tile read as
    // B[q][d]: dV += P^T dO and dK += dS^T Q (scaled once at the end). X^T
    // [kv x q] is the gradient atom's A operand, taken from the score
    // accumulators in registers. With transposed copies B[q][d] is read
    // along the rows of the [d][q] copy.
    auto accumulateFromScores = [&](Value scores, Value acc, Value rhs,
                                    Value rhsT) {
      auto xT = fmha::TileConvertOp::create(
          b, loc,
          tileType(cfg.blockKv, cfg.blockQ, fmha::TileRole::a, gAtom, kvSplit),
          scores);
      xT.setTransposed(!sT);
      if (cfg.warpgroup)
        return tiles.mmaWarpgroup(xT, {rhs, c0, c0}, acc);
      int64_t depth = cast<fmha::TileType>(acc.getType()).getShape()[1];
      fmha::TileType rhsType =
          tileType(cfg.blockQ, depth, fmha::TileRole::b, gAtom, whole);
      Value rhsTile =
          rhsT ? tiles.read(rhsT, c0, c0, /*transposed=*/true, rhsType)
               : tiles.read(rhs, c0, c0, /*transposed=*/false, rhsType);
      return tiles.mma(xT, rhsTile, acc);
    };
    // Dropout: dV sums (P Z / (1 - p))^T dO, and dP is (dO V^T) Z / (1 - p)
    // (the factors are the forward's: same stream, same positions).
    Value factors, pKept = pTile;
    if (dropoutStream) {
      factors = dropoutFactors(tiles, pTile, q0, kv0, /*keysAlongRows=*/sT,
                               *dropoutStream, *dropoutP);
      pKept =
          tiles.map(scoreType, {pTile, factors}, [&](ValueRange x) -> Value {
            return arith::MulFOp::create(b, loc, x[0], x[1]);
          });
    }
    if (cfg.dvBeforeDs)
      dVi = accumulateFromScores(pKept, dVi, doBuf, wg(kGradOutT));
    // dsInputs: P, dP (already less delta with deltaInGrads), delta
    // otherwise, dropout's factors, the slope.
    SmallVector<Value> dsInputs{pTile, dpTile};
    if (!deltaInGrads)
      dsInputs.push_back(queryStats(kRowDelta));
    if (factors)
      dsInputs.push_back(factors);
    // The slope too: a region need not be finite where the mask hides.
    if (slopeTile)
      dsInputs.push_back(maskScoreTile(b, loc, scoreMask, slopeTile, q0, kv0,
                                       tid, sizes, maskAttr,
                                       /*keysAlongRows=*/sT, APFloat(0.0f)));
    // dS' = P (dP - delta), the gradient of the (modified, biased) score,
    // dP through dropout's factors where the op has them.
    auto dsModified = [&](ValueRange x) -> Value {
      if (deltaInGrads)
        return arith::MulFOp::create(b, loc, x[0], x[1]);
      Value dp = factors ? arith::MulFOp::create(b, loc, x[1], x[3]) : x[1];
      return arith::MulFOp::create(b, loc, x[0],
                                   arith::SubFOp::create(b, loc, dp, x[2]));
    };
    Value dsTile = tiles.map(scoreType, dsInputs, [&](ValueRange x) -> Value {
      Value ds = dsModified(x);
      return slopeTile ? arith::MulFOp::create(b, loc, ds, x.back()) : ds;
    });
    // dBias = dS', before the slope (with one, its own map).
    if (gradBias) {
      Value dsBiased =
          slopeTile
              ? tiles.map(scoreType, ValueRange(dsInputs).drop_back(),
                          dsModified)
              : dsTile;
      storeBiasGradient(tiles, dsBiased, args[kCaptures + numCaptures + 1],
                        biasGradAtomic, batch, headQ, q0, kv0,
                        /*keysAlongRows=*/sT, sizes);
    }

    if (!cfg.dvBeforeDs)
      dVi = accumulateFromScores(pKept, dVi, doBuf, wg(kGradOutT));
    // Warpgroup products run asynchronously and complete in order: dK is
    // issued after dQ, so it runs during dQ's atomics.
    if (!cfg.warpgroup)
      dKi = accumulateFromScores(dsTile, dKi, qBuf, wg(kQueryT));

    // dS into workgroup memory as [q][kv] (the A operand of dQ), or as the
    // [kv][q] atoms of dS^T that warpgroups read as A.
    auto dsWrite =
        fmha::TileWriteOp::create(b, loc, dsTile, wg(kScores), c0, c0, tid);
    dsWrite.setTransposed(sT && !cfg.warpgroup);
    // The block's slot of the staged dQ is written after the dS barrier:
    // the reads of the rows it held (the block before with one slot, the
    // one before that with two) must be done before it.
    if (cfg.dqBulk)
      fmha::BulkWaitOp::create(b, loc, cfg.dqStageSlots - 1);

    // dQ += dS K over all KV rows of the block, each subgroup its part of
    // dqGrid (the scale is applied once, when dQ is converted): A[q][kv] =
    // dS, B[kv][d] = K[kv][d]; or its transpose, A = K^T, B[kv][q] = dS^T
    // read from dS's [q][kv] copy.
    fmha::TileType dqType =
        dqT ? tileType(cfg.dqk, cfg.blockQ, fmha::TileRole::c, atom,
                       transposedSplit(dqGrid), transposedSplit(dqStrides))
            : tileType(cfg.blockQ, cfg.dqk, fmha::TileRole::c, atom, dqGrid,
                       dqStrides);
    Value dqTile;
    if (cfg.warpgroup) {
      // Each warpgroup's 64 query rows: A[q][kv] = dS^T's (kv, q), B = K.
      dqTile =
          tiles.mmaWarpgroup({wg(kScores), c0, c0, /*transposed=*/true},
                             cfg.blockKv, {wg(kKey), c0, c0}, zeroTile(dqType));
    } else {
      // dS [q x kv], each subgroup its dQ rows, or dS^T read from the same
      // copy.
      Value dsT =
          dqT ? tiles.read(wg(kScores), c0, c0, /*transposed=*/true,
                           tileType(cfg.blockKv, cfg.blockQ, fmha::TileRole::b,
                                    atom, {1, dqRowParts}, {1, dqStrides[0]}))
              : tiles.read(wg(kScores), c0, c0, /*transposed=*/false,
                           tileType(cfg.blockQ, cfg.blockKv, fmha::TileRole::a,
                                    atom, {dqRowParts, 1}, {dqStrides[0], 1}));
      // K of the subgroup's dQ columns: in registers, or from K's copy.
      Value kTileDq =
          copiesT ? kDqTile : tiles.read(wg(kKey), c0, c0, dqT, kDqType);
      dqTile = dqT ? tiles.mma(kTileDq, dsT, zeroTile(dqType))
                   : tiles.mma(dsT, kTileDq, zeroTile(dqType));
    }
    if (cfg.warpgroup)
      dKi = accumulateFromScores(dsTile, dKi, qBuf, wg(kQueryT));
    if (cfg.dqBulk) {
      // Staged for the bulk-copy unit, which adds it after the next block's
      // first barrier.
      auto staged = fmha::TileWriteOp::create(
          b, loc, dqTile, stageSlot(qLoop.getInductionVar()), c0, c0, tid);
      staged.setTransposed(dqT);
    } else {
      // dQ leaves in runs of registers consecutive along its rows: atomic
      // adds (a vector reduction where the chip has one), or one vector
      // store per run into this KV block's partials. Rows past Sq land in
      // the buffers' padding rows (whole query blocks), which nobody reads:
      // no row check.
      SmallVector<Value> dqAt{batch, q0, headQ, c0};
      Value dqDest = dqAcc;
      if (deterministic) {
        dqAt.insert(dqAt.begin(), kvBlock);
      } else if (cfg.bufferRows &&
                 TileCopier::fitsRowsBuffer(dqAcc, cfg.blockQ)) {
        // Buffer atomics into the block's rows, all of which exist.
        dqDest = copier.rowsBuffer(dqAcc, batch, q0, headQ,
                                   /*seqLen=*/Value(), cfg.blockQ);
        dqAt = {c0, c0, c0, c0};
      }
      auto dqAdd = fmha::TileAccumulateOp::create(
          b, loc,
          deterministic ? fmha::AccumulateKind::store
                        : fmha::AccumulateKind::atomic_add,
          dqTile, dqDest, dqAt, tid);
      dqAdd.setTransposed(dqT);
      dqAdd.setPairedColumns(cfg.pairedDq());
    }

    scf::YieldOp::create(b, loc, ValueRange{dKi, dVi});
    return qLoop;
  };
  // With whole-block loops, the blocks the mask leaves whole for every key
  // of the workgroup run without it, in a loop of their own: no selects, no
  // branch per block. The cut ones (near the band's edges, or all with keys
  // past Sk) come before them and, for bands with a query end, after them.
  scf::ForOp qLoop;
  if (cfg.wholeBlockLoops) {
    auto [wholeBegin, wholeEnd] =
        mask.wholeQueryBlocks(b, loc, kv0, addIdx(b, loc, kv0, cfg.blockKv - 1),
                              cfg.blockQ, qbBegin, qbEnd);
    qLoop = emitQueryLoop(qbBegin, wholeBegin, loopInit, ScoreMask::every);
    qLoop = emitQueryLoop(wholeBegin, wholeEnd, qLoop.getResults(),
                          ScoreMask::none);
    if (mask.limitsBelowDiagonal())
      qLoop =
          emitQueryLoop(wholeEnd, qbEnd, qLoop.getResults(), ScoreMask::every);
  } else {
    qLoop = emitQueryLoop(qbBegin, qbEnd, loopInit, ScoreMask::cutBlocks);
  }
  // The head's last staged block (the kernel's last bulk_wait, after the
  // dK / dV stores, covers it).
  if (cfg.dqBulk)
    addStagedDqBefore(qbEnd, headQ);
  scf::YieldOp::create(b, loc, qLoop.getResults());
  b.setInsertionPointAfter(headLoop);

  // dK = scale * dS^T Q and dV, written once: this workgroup owns the rows.
  ValueRange results = headLoop.getResults();
  Value dkTile = tiles.map(cast<fmha::TileType>(results[0].getType()),
                           results[0], [&](ValueRange x) -> Value {
                             return arith::MulFOp::create(b, loc, x[0], cScale);
                           });
  // dk and dv rows are 16-byte aligned on GPUs (the runners' role checks).
  for (auto [tile, grad] : {std::pair{dkTile, dk}, std::pair{results[1], dv}}) {
    auto store = fmha::TileStoreOp::create(b, loc, tile, grad, batch, kv0,
                                           headKv, c0, tid, sizes.seqK);
    store.setAlignedRows(!target.host);
  }
  // The workgroup's memory stays until the last bulk reads are done.
  if (cfg.dqBulk)
    fmha::BulkWaitOp::create(b, loc);
}

} // namespace

LogicalResult
rocke::buildTiledBwdKernels(fmha::AttentionBwdOp op,
                            const AttentionKernelOptions &options) {
  Location loc = op.getLoc();
  KernelEmitter emitter(op, options.target);
  OpBuilder &cb = emitter.callSite();
  AttentionSizes sizes =
      AttentionSizes::get(cb, loc, op.getQuery(), op.getKey(), op.getValue());
  TiledConfig cfg;
  if (failed(makeConfig(op, options, sizes, cfg)))
    return failure();

  bool deterministic = op.getDeterministic();
  // The dQ buffers' shapes use them.
  emitter.defineSymbol("BKV", cfg.blockKv);
  emitter.defineSymbol("BQ", cfg.blockQ);
  VarlenBatch varlen = packedBatchOf(op, emitter);
  // KV blocks of the longest key sequence.
  Value nKvBlocks =
      varlen ? constIndex(cb, loc,
                          llvm::divideCeil(varlen.maxSeqlenK, cfg.blockKv))
             : ceilDiv(cb, loc, sizes.seqK, constIndex(cb, loc, cfg.blockKv));
  std::string nKvBlocksExpr =
      std::string(varlen ? "ceildiv(max_seqlen_k," : "ceildiv(Sk,") +
      std::to_string(cfg.blockKv) + ")";
  std::string dqkStr = std::to_string(cfg.dqk);

  // dQ accumulator: [B, Sq', Hq, Dqk] f32, or per KV block when
  // deterministic, with Sq' = Sq rounded up to whole query blocks: the main
  // kernel adds a block's rows past Sq (zeros) without checking them. With
  // bulk reductions it is head-major with the stage's padded rows, [B, Hq,
  // Sq', Dqk + pad], so that a staged block is one run of it.
  AccumLayout dqLayout;
  if (cfg.dqBulk)
    dqLayout = {/*headMajor=*/true, kDqStagedPad};
  std::string dqColumnsStr =
      dqLayout.headMajor ? "Dqk+" + std::to_string(dqLayout.padding) : "Dqk";
  int64_t dqColumns = cfg.dqk + dqLayout.padding;
  // The accumulator's row and head dims (sizes or expressions), in the
  // layout's order.
  auto rowsAndHeads = [&](auto rows, auto heads) {
    return dqLayout.headMajor ? std::pair{heads, rows}
                              : std::pair{rows, heads};
  };
  auto queryType = cast<MemRefType>(op.getQuery().getType());
  Value cBlockQ = constIndex(cb, loc, cfg.blockQ);
  std::string blockQStr = std::to_string(cfg.blockQ);
  SmallVector<int64_t> accShape;
  SmallVector<Value> accSizes;
  // The accumulator's shape and its rows (times Hq * Dqk: its elements),
  // as the launch expressions write them.
  std::string accShapeExpr, dqRole, accRowsExpr;
  if (varlen) {
    // [T_q + B * BQ, Hq, Dqk]: room for every sequence's last block
    // (head-major: [Hq, T_q + B * BQ, Dqk + pad]).
    Value rows = cb.createOrFold<arith::AddIOp>(
        loc, sizes.seqQ,
        cb.createOrFold<arith::MulIOp>(loc, varlen.numSequences(cb, loc),
                                       cBlockQ));
    std::optional<int64_t> staticRows = getConstantIntValue(rows);
    auto [dim0, dim1] = rowsAndHeads(
        staticRows.value_or(ShapedType::kDynamic), sizes.headsQ);
    accShape = {dim0, dim1, dqColumns};
    if (!staticRows)
      accSizes.push_back(rows);
    auto [expr0, expr1] =
        rowsAndHeads(std::string("Sq+B*BQ"), std::string("Hq"));
    accShapeExpr = expr0 + "," + expr1 + "," + dqColumnsStr;
    accRowsExpr = "(Sq+B*" + blockQStr + ")";
  } else {
    Value paddedRows = arith::MulIOp::create(
        cb, loc, ceilDiv(cb, loc, sizes.seqQ, cBlockQ), cBlockQ);
    int64_t staticPaddedRows =
        queryType.isDynamicDim(1)
            ? ShapedType::kDynamic
            : llvm::divideCeil(queryType.getDimSize(1), cfg.blockQ) *
                  cfg.blockQ;
    auto [dim1, dim2] = rowsAndHeads(staticPaddedRows, sizes.headsQ);
    accShape = {queryType.getDimSize(0), dim1, dim2, dqColumns};
    if (queryType.isDynamicDim(0))
      accSizes.push_back(memref::DimOp::create(cb, loc, op.getQuery(), 0));
    if (queryType.isDynamicDim(1))
      accSizes.push_back(paddedRows);
    auto [expr1, expr2] =
        rowsAndHeads(std::string("ceildiv(Sq,BQ)*BQ"), std::string("Hq"));
    accShapeExpr = "B," + expr1 + "," + expr2 + "," + dqColumnsStr;
    accRowsExpr = "B*ceildiv(Sq," + blockQStr + ")*" + blockQStr;
  }
  Value dqAcc;
  if (deterministic) {
    accShape.insert(accShape.begin(), ShapedType::kDynamic);
    accSizes.insert(accSizes.begin(), nKvBlocks);
    // One partial per KV block of the longest sequence when packed.
    dqRole = std::string("dq_partial:f32:zero:[") +
             (varlen ? "ceildiv(max_seqlen_k,BKV)," : "ceildiv(Sk,BKV),") +
             accShapeExpr + "]";
  } else {
    dqRole = "dq_accum:f32:zero:[" + accShapeExpr + "]";
  }
  FailureOr<Value> dqBuffer = emitter.allocScratch(
      MemRefType::get(accShape, cb.getF32Type()), accSizes);
  if (failed(dqBuffer))
    return failure();
  dqAcc = *dqBuffer;
  // A sequence's part of the dQ accumulator (of each partial).
  SequenceView dqView{/*keys=*/false,
                      /*tokenDim=*/deterministic || dqLayout.headMajor ? 1u
                                                                       : 0u,
                      /*batchDim=*/deterministic ? 1u : 0u, cfg.blockQ};
  // The accumulator's rows are zero-filled by the preprocess, whose lanes
  // own them (one launch fewer); the partials, one a KV block, by a kernel
  // of their own.
  ZeroFilledRows dqZeroRows;
  if (deterministic) {
    std::string partialsCount =
        nKvBlocksExpr + "*" + accRowsExpr + "*Hq*" + dqkStr;
    if (failed(emitZeroFill(emitter, "fmha_bwd_zero_dq", dqAcc, dqRole,
                            partialsCount, /*alignedRows=*/true)))
      return failure();
  } else {
    dqZeroRows = {dqAcc, dqRole, dqView, dqLayout};
  }
  // dBias: added atomically where the bias broadcasts (several query heads
  // or batches add to one element), else stored by the one workgroup that
  // computes the pair; zero-filled first where it is added or a mask skips
  // whole blocks.
  Value gradBias = op.getGradBias();
  bool biasGradAtomic = false;
  if (gradBias) {
    auto biasType = cast<MemRefType>(gradBias.getType());
    bool overBatch =
        biasType.getDimSize(0) == 1 && queryType.getDimSize(0) != 1;
    bool overHeads = biasType.getDimSize(1) == 1 && sizes.headsQ != 1;
    biasGradAtomic = overBatch || overHeads;
    if (biasGradAtomic && deterministic)
      return op.emitOpError(
                 "deterministic: grad_bias of a bias broadcast over ")
             << (overBatch ? "the batch" : "the heads")
             << " is summed by atomic adds in no fixed order; give the bias "
                "the batch and head extents (or drop deterministic)";
    std::string count = std::string(biasType.getDimSize(0) == 1 ? "" : "B*") +
                        (biasType.getDimSize(1) == 1 ? "" : "Hq*") + "Sq*Sk";
    if ((biasGradAtomic || op.getMaskAttr()) &&
        failed(emitZeroFill(emitter, "fmha_bwd_zero_dbias", gradBias, "dbias",
                            count, /*alignedRows=*/false)))
      return failure();
  }

  // The row record: [B, Hq, Sq, 2], or [Hq, T_q, 2] like the statistics.
  SmallVector<Value> qSizes = memrefSizes(cb, loc, op.getQuery());
  FailureOr<Value> rowBuffer =
      varlen ? emitter.allocScratch(
                   MemRefType::get({sizes.headsQ, ShapedType::kDynamic, 2},
                                   cb.getF32Type()),
                   {qSizes[0]})
             : emitter.allocScratch(
                   MemRefType::get({ShapedType::kDynamic, sizes.headsQ,
                                    ShapedType::kDynamic, 2},
                                   cb.getF32Type()),
                   {qSizes[0], qSizes[1]});
  if (failed(rowBuffer))
    return failure();
  Value rowRecord = *rowBuffer;
  if (failed(emitBwdPreprocess(emitter, op.getOut(), op.getGradOut(), rowRecord,
                               cfg.numWarps, op.getStats(), varlen,
                               dqZeroRows)))
    return failure();
  // The statistics include the sinks, so only their gradient needs them.
  if (op.getGradSinks() &&
      failed(emitSinkGradient(emitter, rowRecord, op.getSinks(),
                              op.getGradSinks(), static_cast<bool>(varlen))))
    return failure();

  // Main kernel.
  KernelLaunch launch;
  launch.name = "fmha_bwd_tiled_main";
  launch.args = {{op.getQuery(), "q"},
                 {op.getKey(), "k"},
                 {op.getValue(), "v"},
                 {op.getGradOut(), "do"},
                 {rowRecord, varlen ? "row_stats:f32:none:[Hq,Sq,2]"
                                    : "row_stats:f32:none:[B,Hq,Sq,2]"},
                 {dqAcc, dqRole},
                 {op.getGradKey(), "dk"},
                 {op.getGradValue(), "dv"}};
  appendCaptureArgs(launch.args, op.getCaptures());
  if (op.getBias())
    launch.args.push_back({op.getBias(), "bias"});
  if (gradBias)
    launch.args.push_back({gradBias, "dbias"});
  if (op.getDropoutSeedOffset())
    launch.args.push_back({op.getDropoutSeedOffset(), "dropout_seed_offset"});
  SmallVector<Value> kSizes = memrefSizes(cb, loc, op.getKey());
  if (varlen) {
    launch.grid = {nKvBlocks, kSizes[1], varlen.numSequences(cb, loc)};
    SequenceView queries, keys{/*keys=*/true};
    SequenceView columns{/*keys=*/false, /*tokenDim=*/1, /*batchDim=*/0};
    launch.varlen = varlen;
    launch.sequenceViews = {queries, keys,   keys, queries,
                            columns, dqView, keys, keys};
    launch.exitRows = cfg.blockKv;
    launch.exitOnKeys = true;
  } else {
    launch.grid = {nKvBlocks, kSizes[2], kSizes[0]};
  }
  launch.gridExpr = {nKvBlocksExpr, "Hkv", "B"};
  // A causal mask gives KV block 0 the most query blocks, the last the
  // fewest.
  bool heavyFirst = launchesHeavyFirst(op.getMaskAttr(),
                                       static_cast<bool>(varlen), options);
  if (heavyFirst)
    orderHeavyFirst(cb, loc, launch);
  launch.blockSize = cfg.threads();
  launch.workgroupBuffers = cfg.workgroupBuffers(op.getContext());
  launch.dynamicWorkgroupMemory = cfg.dynamicWorkgroupMemory;
  // Only the plain score chain: a mask's cut-block loops, a bias, dropout
  // and a score_mod keep registers live that liveRegisters does not count
  // (gfx942 bf16 D=128 with AGPR accumulators: causal, bias and dropout
  // spilled 13, 72 and 4 VGPRs; a softcap's llvm-mca cycles 2230 -> 2576).
  bool plainScores = !op.getMaskAttr() && !op.getBias() &&
                     !op.getDropoutSeedOffset() && op.getScoreMod().empty();
  launch.agprAccumulators = options.chip && options.chip->agprBackward &&
                            plainScores && cfg.liveRegisters() > kAmdArchVgprs;
  std::optional<float> dropoutP;
  if (op.getDropoutSeedOffset())
    dropoutP = fmha::dropoutProbability(op.getDropoutPAttr());
  MainKernel kernel{op,
                    cfg,
                    options.target,
                    op.getScaleOrDefault(),
                    op.getMaskAttr(),
                    deterministic,
                    op.getScoreMod().empty() ? nullptr : &op.getScoreMod(),
                    static_cast<unsigned>(op.getCaptures().size()),
                    dropoutP,
                    static_cast<bool>(op.getBias()),
                    static_cast<bool>(gradBias),
                    biasGradAtomic};
  if (failed(emitter.emit(launch, [&](OpBuilder &b, Location l, ValueRange ids,
                                      Value tid, ValueRange args,
                                      ValueRange wg) {
        if (!heavyFirst)
          return kernel.build(b, l, ids, tid, args, wg);
        SmallVector<Value> keySizes = memrefSizes(b, l, args[MainKernel::kK]);
        Value blocks =
            ceilDiv(b, l, keySizes[1], constIndex(b, l, cfg.blockKv));
        kernel.build(b, l,
                     heavyFirstIds(b, l, ids[0],
                                   {blocks, keySizes[2], keySizes[0]}),
                     tid, args, wg);
      })))
    return failure();

  // dQ in the output type: a fixed-order sum of the partials, or a
  // conversion of the accumulator; either applies dQ's softmax scale, which
  // the main kernel leaves out of its hot loop.
  if (failed(emitConvert(
          emitter, deterministic ? "fmha_bwd_reduce_dq" : "fmha_bwd_convert_dq",
          dqAcc, dqRole, op.getGradQuery(), "dq",
          (varlen ? "max_seqlen_q*Hq*" : "B*Sq*Hq*") + dqkStr,
          op.getScaleOrDefault(), varlen, dqView, dqLayout, cfg.pairedDq())))
    return failure();
  emitter.finish();
  return success();
}
