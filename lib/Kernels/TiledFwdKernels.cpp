//===- TiledFwdKernels.cpp - FlashAttention-2 forward on matrix atoms -----===//
//
// fmha-fwd-to-kernels: one kernel, one workgroup per (query block, query
// head, batch). Each subgroup owns a slice of the block's query rows: their
// Q fragments (in registers, or read from the block's workgroup copy when
// the registers are needed for the accumulators), the O accumulator and the
// running row maximum m and sum l of the online softmax. Per KV block the
// mask lets through (block skipping from the band), K and V are copied into
// workgroup memory and every subgroup computes
//   S = Q K^T (keys past Sk and hidden pairs -inf), m' = max(m, rowmax(S c)),
//   P = exp2(S c - m'), l = l exp2(m - m') + rowsum(P),
//   O = O exp2(m - m') + P V          (c = scale * log2 e)
// with P taken from the score accumulators as the operand of the next
// product (operandFromAccumulators): O = P V with P as the A operand on
// mma.sync and the host, O^T = V^T P^T with S^T's accumulators as the B
// operand on MFMA (whose C layout is its B layout). At the end O / l and the
// statistics (natural-log LSE, or the log2-domain m and l) are stored; rows
// that see no key get O = 0 and LSE = -inf (m = -inf, l = 0). Attention
// sinks start each row at its head's sink instead (m = sink log2 e, l = 1).
// Where the chip has warpgroup products (sm_90a), S = Q K^T and O += P V
// are fmha.tile_mma_warpgroup: four subgroups of 16 query rows multiply
// together, reading Q, K and V once per warpgroup from buffers of 8-row atoms;
// P stays in registers. With fwd-kv-pipelining=producer-warpgroup a third
// warpgroup copies the KV blocks and hands them over by mbarriers
// (SlotHandover), so the computing warpgroups meet no workgroup barrier in
// the loop.
// A packed (varlen) batch runs the same body on each sequence's views
// (KernelLaunch::varlen), grid x over its longest sequence's query blocks.
// Everything past the copies is written on the workgroup's fmha tiles
// (fmha-split-workgroup-tiles gives each subgroup its query rows,
// fmha-distribute-tiles each lane its fragments), so one body serves every
// atom.
//
//===----------------------------------------------------------------------===//
#include "lib/Kernels/AttentionKernels.h"

#include "dialect/FmhaDialect.h"
#include "lib/Kernels/TiledKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace rocke;

namespace {

/// Tile shape and operand placement of the forward kernel.
struct FwdConfig {
  /// Atom of S = Q K^T, and of O += P V, whose P operand comes from S's
  /// accumulators (the same atom, or one with S's accumulator layout).
  const MatrixAtom *atom = nullptr, *pvAtom = nullptr;
  /// Scores are S^T [kv x q] (P^T feeds O^T = V^T P^T as the B operand) or
  /// S [q x kv] (P feeds O = P V as the A operand).
  bool scoresTransposed = false;
  /// With S^T: V is staged as rows and V^T read down their columns
  /// (OperandStaging::TransposingReads; gfx950's transposed LDS reads), not
  /// staged transposed.
  bool valueRows = false;
  /// The subgroup's Q fragments stay in registers; else they are read from
  /// the block's workgroup copy at every KV block.
  bool queryInRegisters = true;
  /// KvPipelining::AsyncCopies: K and V tiles have two slots, the next
  /// block's rows land in one by cp.async while the other is read.
  bool asyncCopies = false;
  /// KvPipelining::ProducerWarpgroup (with asyncCopies): the copies are a
  /// producer warpgroup's, after the computing subgroups; the slots are
  /// handed over by mbarriers instead of workgroup barriers.
  bool producerWarpgroup = false;
  /// WarpgroupSchedule::PingPong: the two computing warpgroups take turns
  /// issuing their score products.
  bool pingPong = false;
  /// PvSchedule::NextBlock (with producerWarpgroup and one slice a block):
  /// a block's P V is issued after the next block's S, its P carried over.
  bool pvNextBlock = false;
  /// KvPipelining::Registers: K and V are fetched into registers and
  /// placed in workgroup memory (fmha-pipeline-tile-fetches fetches the
  /// next block while this one computes).
  bool fetchedCopies = false;
  /// K and V blocks read through buffer descriptors sized to the sequence
  /// (ChipInfo::bufferLoads, TileCopier::rowsBuffer).
  bool bufferLoads = false;
  /// The causal grid launched heaviest first (orderHeavyFirst): the kernel
  /// decodes its ids and keeps them.
  bool heavyFirst = false;
  /// useWholeBlockLoops: whole and cut KV blocks in loops of their own.
  bool wholeBlockLoops = true;
  /// WarpgroupMma::On (sm_90a): S = Q K^T and O += P V are warpgroup
  /// products. Each subgroup holds 16 query rows, four consecutive ones a
  /// warpgroup's 64; Q (the A operand of S), K and V (B) are staged as
  /// 8-row atoms and read once per warpgroup; P stays in registers as the A
  /// operand of P V.
  bool warpgroup = false;
  /// How those warpgroup operands are laid out (fwd-warpgroup-layout).
  WarpgroupLayout warpgroupLayout = WarpgroupLayout::Auto;
  /// Slices of a KV block's keys (fwd-kv-slices): every slice's S is
  /// issued before the first slice's softmax, and each slice's softmax and
  /// P V follow in turn, so that with asynchronous (warpgroup) products a
  /// slice's softmax runs while the next slice's S and the previous one's
  /// P V do.
  int64_t kvSlices = 1;
  int64_t blockQ = 0, blockKv = 0, numWarps = 0, lanes = 0;
  int64_t dqk = 0, dv = 0, group = 0;
  /// Elements appended to each workgroup-memory row (see TiledBwdKernels).
  int64_t pad = 0;
  bool dynamicWorkgroupMemory = false;
  Type elt;

  /// The work-items of the subgroups that compute (the tiles' threads).
  int64_t threads() const { return numWarps * lanes; }
  /// Those and the producer's.
  int64_t launchThreads() const {
    return threads() + (producerWarpgroup ? producerThreads() : 0);
  }
  int64_t producerThreads() const { return kWarpgroupWarps * lanes; }
  /// Elements of one 16-byte copy (cp.async) of K or V.
  int64_t chunkElements() const {
    return 128 / elt.getIntOrFloatBitWidth();
  }
  int64_t queryRowsPerWarp() const { return blockQ / numWarps; }
  bool valueTransposed() const { return scoresTransposed && !valueRows; }
  /// K [blockKv x Dqk]; V [blockKv x Dv] or, staged transposed with S^T,
  /// V^T [Dv x blockKv] (the A operand of O^T, read along its rows); Q
  /// [blockQ x Dqk] unless in registers. Rows padded, or atoms for
  /// warpgroup products.
  SmallVector<MemRefType> workgroupBuffers() const {
    std::optional<WarpgroupLayout> atoms;
    if (warpgroup)
      atoms = warpgroupLayout;
    auto tile = [&](int64_t r, int64_t c) {
      return operandTileType(elt, r, c, pad, atoms);
    };
    auto slotted = [&](int64_t r, int64_t c) {
      return operandTileType(elt, r, c, pad, atoms, asyncCopies);
    };
    SmallVector<MemRefType> types{slotted(blockKv, dqk),
                                  valueTransposed() ? tile(dv, blockKv)
                                                    : slotted(blockKv, dv)};
    if (!queryInRegisters)
      types.push_back(tile(blockQ, dqk));
    return types;
  }
  /// Workgroup memory the launch takes: the buffers, and with the producer
  /// warpgroup its static mbarriers, ahead of which ptxas pads the dynamic
  /// buffers to their alignment (fmha-declare-dynamic-shared-memory).
  int64_t workgroupMemoryBytes() const {
    return workgroupBufferBytes(workgroupBuffers()) +
           (producerWarpgroup ? kSwizzledBufferAlignment : 0);
  }
  /// 32-bit registers a lane keeps live in the KV loop: S, P as an
  /// operand, O, and Q when it stays in registers. On sm_90 at D = 128 this
  /// takes 128 query rows over 4 warps with Q read from workgroup memory,
  /// which ptxas spills 40 bytes of and still ran 14-17 % faster than 64
  /// rows without spills (docs/BENCHMARKS.md run 17).
  int64_t liveRegisters() const {
    int64_t rows = queryRowsPerWarp();
    int64_t scores = rows * blockKv / lanes;
    int64_t probs = scores / 2;
    int64_t out = rows * dv / lanes;
    int64_t query = queryInRegisters ? rows * dqk / lanes / 2 : 0;
    int64_t fetched = fetchedCopies ? blockKv * (dqk + dv) / threads() / 2 : 0;
    return scores + probs + out + query + fetched;
  }
};

struct FwdTileChoice {
  int64_t blockQ, numWarps, blockKv;
};

/// The slices fwd-kv-slices asks for; auto (0) needs none beyond one.
int64_t requestedSlices(const AttentionKernelOptions &options) {
  return options.kvSlices ? options.kvSlices : 1;
}

/// Tile shapes tried in order when the options leave them at 0 (auto): 128
/// query rows over 4 subgroups where the registers allow it, as
/// FlashAttention-2 and CK do; with warpgroup products first two
/// warpgroups of 64 query rows by 128 or 64 keys, as FlashAttention-3's
/// consumer warpgroups (16 query rows a subgroup: S and O take 32 + 16 +
/// Dv / 2 registers a lane at 128 keys). At Dv <= 64 (`dv`, 0 if not known)
/// one warpgroup by 128 keys comes first: its 72 KiB let several
/// workgroups share an SM, one's softmax running beside another's
/// products (1.22x two warpgroups on an H100, docs/BENCHMARKS.md run 38).
SmallVector<FwdTileChoice> fwdTileCandidates(const KernelTarget &target,
                                             bool warpgroup, int64_t dv) {
  if (target.host)
    return {{16, 1, 16}};
  SmallVector<FwdTileChoice> candidates;
  if (warpgroup && dv > 0 && dv <= 64)
    candidates = {{64, 4, 128}, {128, 8, 128}, {64, 4, 64}};
  else if (warpgroup)
    candidates = {{128, 8, 128}, {128, 8, 64}, {64, 4, 128}, {64, 4, 64}};
  candidates.append({{128, 4, 64},
                     {64, 4, 64},
                     {64, 4, 32},
                     {64, 2, 32},
                     {32, 2, 32},
                     {16, 1, 16}});
  return candidates;
}

SmallVector<FwdTileChoice>
fwdTileChoices(const AttentionKernelOptions &options, bool warpgroup,
               int64_t dv);
SmallVector<Divisibility> fwdTileNeeds(const FwdConfig &cfg,
                                       const FwdTileChoice &c, int64_t slices);

/// P V's atom for the score atom `a` into `cfg` (and the score
/// orientation): P straight from the score registers, as S (the A operand
/// of P V), else as S^T (the B operand of V^T P^T), with the score atom or
/// another of the chip's whose accumulators are laid out alike (so the
/// softmax's row values apply to O), the one with the widest k (the fewest
/// instructions). score-layout forces one orientation (the host then runs
/// the other targets' schedule). False when none fits.
bool choosePvAtom(const AttentionKernelOptions &options, Type elt,
                  const MatrixAtom &a, FwdConfig &cfg) {
  SmallVector<const MatrixAtom *> pvCandidates{&a};
  if (options.chip)
    for (StringRef name : options.chip->matrixAtoms)
      if (const MatrixAtom *c = lookupAtomFor(name, elt))
        pvCandidates.push_back(c);
  auto fits = [&](bool transposed) {
    if (options.scoreLayout != ScoreLayout::Auto &&
        transposed != (options.scoreLayout == ScoreLayout::KvByQ))
      return false;
    const MatrixAtom *best = nullptr;
    for (const MatrixAtom *c : pvCandidates)
      if (sameAccumulatorLayout(a, *c) &&
          operandTileFromAccumulators(
              a, *c, transposed ? MatrixOperand::B : MatrixOperand::A,
              /*transposed=*/false) &&
          (!best || c->k > best->k))
        best = c;
    if (best) {
      cfg.atom = &a;
      cfg.pvAtom = best;
      cfg.scoresTransposed = transposed;
      cfg.lanes = a.lanes;
    }
    return best != nullptr;
  };
  return fits(false) || fits(true);
}

/// The forward's atoms for `elt` inputs into `cfg`: S = Q K^T's and P V's
/// (choosePvAtom), and the score orientation; a diagnostic on `op` when
/// none fits. S's atom is options.matrixAtom, or, left to a chip with
/// ChipInfo::fwdAtomByWork, the chip's atom that does the most work per
/// instruction whose accumulators feed P V and whose extents divide the
/// tiles asked for (32x32: half the MFMAs of 16x16 for the same LDS reads,
/// and one lane exchange per row reduction instead of two), else the
/// chip's first.
LogicalResult chooseFwdAtoms(Operation *op,
                             const AttentionKernelOptions &options, Type elt,
                             FwdConfig &cfg) {
  if (options.matrixAtom == "auto" && options.chip &&
      options.chip->fwdAtomByWork && !options.target.host) {
    SmallVector<const MatrixAtom *> byWork;
    for (StringRef name : options.chip->matrixAtoms)
      if (const MatrixAtom *c = lookupAtomFor(name, elt))
        byWork.push_back(c);
    llvm::stable_sort(byWork, [](const MatrixAtom *x, const MatrixAtom *y) {
      return x->m * x->n * x->k > y->m * y->n * y->k;
    });
    for (const MatrixAtom *c : byWork) {
      FwdConfig trial = cfg;
      if (!choosePvAtom(options, elt, *c, trial))
        continue;
      // fwdAtomByWork chips are AMD's: no warpgroup products.
      SmallVector<FwdTileChoice> choices =
          fwdTileChoices(options, /*warpgroup=*/false, /*dv=*/0);
      if (llvm::any_of(choices, [&](const FwdTileChoice &t) {
            return succeeded(checkDivisible(
                op, fwdTileNeeds(trial, t, requestedSlices(options)), "",
                /*report=*/false));
          })) {
        cfg = trial;
        return success();
      }
    }
  }
  FailureOr<const MatrixAtom *> atom = selectAtom(op, options, elt);
  if (failed(atom))
    return failure();
  if (!choosePvAtom(options, elt, **atom, cfg))
    return op->emitOpError("matrix atom '")
           << (*atom)->name
           << "' cannot take the probabilities from its accumulator registers"
           << (options.scoreLayout == ScoreLayout::Auto
                   ? ""
                   : " in the requested score layout");
  return success();
}

/// The tile shapes to try (`warpgroup`: warpgroup products' first; `dv` as
/// fwdTileCandidates): the candidates with the explicit options in place
/// (the host runs one subgroup).
SmallVector<FwdTileChoice> fwdTileChoices(const AttentionKernelOptions &options,
                                          bool warpgroup, int64_t dv) {
  const KernelTarget &target = options.target;
  SmallVector<FwdTileChoice> choices;
  for (const FwdTileChoice &c : fwdTileCandidates(target, warpgroup, dv))
    choices.push_back(
        {options.blockQ ? options.blockQ : c.blockQ,
         target.host ? 1 : (options.numWarps ? options.numWarps : c.numWarps),
         options.blockKv ? options.blockKv : c.blockKv});
  return choices;
}

/// What tile `c` must divide with the atoms of `cfg`: fwd-block-q the
/// subgroups' query rows, fwd-block-kv `slices` of the atoms' key extent.
SmallVector<Divisibility> fwdTileNeeds(const FwdConfig &cfg,
                                       const FwdTileChoice &c, int64_t slices) {
  const MatrixAtom &a = *cfg.atom, &pv = *cfg.pvAtom;
  bool sT = cfg.scoresTransposed;
  int64_t atomQ = sT ? a.n : a.m, atomKv = sT ? a.m : a.n;
  return {{c.blockQ, c.numWarps * atomQ, "fwd-block-q",
           "fwd-num-warps * the atom's query rows"},
          {c.blockKv, slices * std::max({atomKv, int64_t(pv.k)}),
           "fwd-block-kv",
           slices > 1 ? "fwd-kv-slices * the atoms' key extent"
                      : "the atoms' key extent"}};
}

std::string fwdAtomContext(const FwdConfig &cfg) {
  return ("the forward with atom " + cfg.atom->name).str();
}

LogicalResult makeFwdConfig(fmha::AttentionFwdOp op,
                            const AttentionKernelOptions &options,
                            const AttentionSizes &sizes, FwdConfig &cfg) {
  const KernelTarget &target = options.target;
  cfg.elt = cast<MemRefType>(op.getQuery().getType()).getElementType();
  if (!target.host && cfg.elt.isF32())
    return op.emitOpError("has no GPU lowering for f32 inputs (the forward "
                          "runs on matrix cores: f16 or bf16)");
  if (failed(chooseFwdAtoms(op, options, cfg.elt, cfg)))
    return failure();
  const MatrixAtom &a = *cfg.atom;
  cfg.wholeBlockLoops = useWholeBlockLoops(options);
  cfg.dqk = sizes.headDimQk;
  cfg.dv = sizes.headDimV;
  cfg.group = sizes.groupSize();
  if (!target.host) {
    cfg.pad = 16 / (cfg.elt.getIntOrFloatBitWidth() / 8);
    cfg.dynamicWorkgroupMemory = target.subgroupSize == 32;
  }
  if (failed(checkTileBounds(op, options, "fwd-")))
    return failure();

  const bool sT = cfg.scoresTransposed;
  const MatrixAtom &pv = *cfg.pvAtom;
  cfg.valueRows =
      sT && (options.operandStaging == OperandStaging::TransposingReads ||
             (options.operandStaging == OperandStaging::Auto && options.chip &&
              options.chip->transposedLdsReads));
  // cp.async moves 16 bytes of consecutive elements: K and V rows with a
  // unit inner stride, head dims in whole chunks, V staged as rows.
  bool asyncRequested = options.kvPipelining == KvPipelining::AsyncCopies;
  bool producerRequested =
      options.kvPipelining == KvPipelining::ProducerWarpgroup;
  bool nvidia = !target.host && options.chip && options.chip->isNvidia();
  int64_t chunkElems = cfg.chunkElements();
  bool asyncPossible = nvidia && !sT && hasUnitInnerStride(op.getKey()) &&
                       hasUnitInnerStride(op.getValue()) &&
                       cfg.dqk % chunkElems == 0 && cfg.dv % chunkElems == 0;
  if ((asyncRequested || producerRequested) && !asyncPossible)
    return op.emitOpError("fwd-kv-pipelining=")
           << (producerRequested ? "producer-warpgroup" : "async-copies")
           << " needs an NVIDIA chip (cp.async), K and V rows of consecutive "
              "elements in whole 16-byte chunks, and scores as S "
              "(fwd-score-layout=q-kv)";
  bool wantAsync =
      asyncPossible && options.kvPipelining != KvPipelining::Synchronous;
  // Warpgroup products: S [q x kv] in accumulators of an mma.sync atom that
  // feed P V themselves; Q, K and V rows copied in 16-byte chunks into core
  // matrices. The tile shapes are checked per candidate.
  bool warpgroupRequested = options.warpgroupMma == WarpgroupMma::On;
  FailureOr<bool> wantWarpgroup = warpgroupProducts(
      op, options, "fwd-warpgroup-mma",
      !sT && &pv == &a && a.family == MatrixAtom::Family::MmaSync,
      "S tiles of mma.sync atoms (fwd-score-layout=q-kv)",
      hasUnitInnerStride(op.getQuery()) && hasUnitInnerStride(op.getKey()) &&
          hasUnitInnerStride(op.getValue()) && cfg.dqk % chunkElems == 0 &&
          cfg.dv % chunkElems == 0,
      "Q, K and V");
  if (failed(wantWarpgroup))
    return failure();
  FailureOr<WarpgroupLayout> layout =
      resolveWarpgroupLayout(op, options, "fwd-warpgroup-layout",
                             *wantWarpgroup, cfg.elt, {cfg.dqk, cfg.dv});
  if (failed(layout))
    return failure();
  cfg.warpgroupLayout = *layout;
  bool fetchRequested = options.kvPipelining == KvPipelining::Registers;
  bool bufferLoads = !target.host && options.chip &&
                     options.chip->bufferLoads;
  bool wantFetch = fetchRequested ||
                   (options.kvPipelining == KvPipelining::Auto &&
                    !target.host && options.chip && options.chip->kvFetchAhead);
  // The output's head dims along the atom.
  int64_t atomDv = sT ? pv.m : pv.n;
  auto apply = [&](const FwdTileChoice &c, bool report) -> LogicalResult {
    cfg.blockQ = c.blockQ;
    cfg.numWarps = c.numWarps;
    cfg.blockKv = c.blockKv;
    SmallVector<Divisibility> needs =
        fwdTileNeeds(cfg, c, requestedSlices(options));
    needs.push_back({cfg.dqk, a.k, "Dqk", "atom K"});
    needs.push_back({cfg.dv, atomDv, "Dv", "the atom's output extent"});
    if (failed(checkDivisible(op, needs, fwdAtomContext(cfg), report)))
      return failure();
    // A warpgroup is four subgroups of 16 query rows each (m64) multiplying
    // by at most 256 columns (n): the block's keys for S, Dv for O.
    cfg.warpgroup = *wantWarpgroup && c.numWarps % 4 == 0 &&
                    c.blockQ == 16 * c.numWarps && c.blockKv <= 256 &&
                    cfg.dv <= 256;
    if (warpgroupRequested && !cfg.warpgroup) {
      if (report)
        op.emitOpError("fwd-warpgroup-mma=on: warpgroups of four subgroups "
                       "with 16 query rows each (fwd-num-warps a multiple "
                       "of 4, fwd-block-q = 16 * fwd-num-warps), fwd-block-kv "
                       "and Dv of at most 256; got ")
            << c.numWarps << " subgroups of " << c.blockQ / c.numWarps
            << " rows, fwd-block-kv " << c.blockKv << ", Dv " << cfg.dv;
      return failure();
    }
    // Every copying work-item (the producer's, else all) issues as many
    // 16-byte copies of each block.
    int64_t threads = cfg.threads();
    auto splitsOver = [&](int64_t copiers) {
      return cfg.blockKv * cfg.dqk / chunkElems % copiers == 0 &&
             cfg.blockKv * cfg.dv / chunkElems % copiers == 0;
    };
    // Auto: a producer warpgroup for two computing warpgroups at Dv <= 128
    // on 128-byte swizzled rows (D = 128: 1.10-1.13x their own copies on an
    // H100, docs/BENCHMARKS.md run 42; core matrices, D = 96, never ran on a
    // GPU with it); beside one, the third warpgroup costs more than it saves
    // (0.6-0.8x: fewer workgroups share an SM; D = 64 on two computing
    // warpgroups and a producer: 0.83-0.85x the one-warpgroup forward, run
    // 42).
    bool producerAuto = options.kvPipelining == KvPipelining::Auto &&
                        c.numWarps == 2 * kWarpgroupWarps && cfg.dv <= 128 &&
                        cfg.warpgroupLayout == WarpgroupLayout::Swizzle128B &&
                        splitsOver(kWarpgroupWarps * cfg.lanes);
    cfg.producerWarpgroup =
        (producerRequested || producerAuto) && cfg.warpgroup && wantAsync;
    int64_t copiers = cfg.producerWarpgroup ? cfg.producerThreads() : threads;
    cfg.asyncCopies = wantAsync && splitsOver(copiers);
    // With the producer, auto issues a block's P V after the next block's S
    // (next-block: 1.17-1.28x the same-block order at D = 128, run 42) on
    // whole blocks, and the two computing warpgroups take turns on top
    // (ping-pong: another 1.02-1.06x; without next-block it was 0.96-0.98x,
    // run 40).
    bool nextBlockRequested = options.pvSchedule == PvSchedule::NextBlock;
    bool nextBlockAuto = options.pvSchedule == PvSchedule::Auto &&
                         cfg.producerWarpgroup && options.kvSlices == 0;
    // Asynchronous products overlap a slice's softmax with the next
    // slice's S and the previous one's P V: slices of 64 keys (an m64n64
    // product a k step) at Dv >= 128, 1.02-1.04x whole blocks on an H100;
    // at Dv = 64 P V is too short to hide a softmax and the extra O
    // rescaling costs more (0.97-0.99x, and one warpgroup by 128 keys
    // needs 182 registers instead of 148, 0.8x: docs/BENCHMARKS.md run 39).
    // Deferred P V overlaps the whole block's softmax instead (one slice).
    constexpr int64_t kSliceKeys = 64;
    cfg.kvSlices = options.kvSlices ? options.kvSlices
                   : cfg.warpgroup && cfg.dv >= 128 && !nextBlockRequested &&
                           !nextBlockAuto && c.blockKv % kSliceKeys == 0
                       ? c.blockKv / kSliceKeys
                       : 1;
    if ((asyncRequested || producerRequested) && !cfg.asyncCopies) {
      if (report)
        op.emitOpError("fwd-kv-pipelining=")
            << (producerRequested ? "producer-warpgroup" : "async-copies")
            << ": the " << cfg.blockKv
            << "-row K and V blocks do not split evenly into "
            << "16-byte copies over the " << copiers << " work-items";
      return failure();
    }
    if (producerRequested && !cfg.producerWarpgroup) {
      if (report)
        op.emitOpError("fwd-kv-pipelining=producer-warpgroup needs warpgroup "
                       "products (fwd-warpgroup-mma, sm_90a)");
      return failure();
    }
    // Schedules that need the producer warpgroup and `holds`: whether one
    // applies, or (failure) a diagnostic naming what it lacks.
    auto producerSchedule = [&](bool requested, bool holds, StringRef option,
                                StringRef needs, int64_t got,
                                StringRef unit) -> FailureOr<bool> {
      if (!requested)
        return false;
      if (cfg.producerWarpgroup && holds)
        return true;
      if (report)
        op.emitOpError(option)
            << " needs fwd-kv-pipelining=producer-warpgroup and " << needs
            << "; got " << got << " " << unit
            << (cfg.producerWarpgroup ? "" : " without a producer warpgroup");
      return failure();
    };
    FailureOr<bool> pvNextBlock = producerSchedule(
        nextBlockRequested, cfg.kvSlices == 1, "fwd-pv-schedule=next-block",
        "one score slice a block (fwd-kv-slices=1)", cfg.kvSlices, "slices");
    if (failed(pvNextBlock))
      return failure();
    *pvNextBlock |= nextBlockAuto;
    FailureOr<bool> pingPong = producerSchedule(
        options.warpgroupSchedule == WarpgroupSchedule::PingPong,
        c.numWarps == 2 * kWarpgroupWarps, "fwd-warpgroup-schedule=ping-pong",
        "two computing warpgroups (fwd-num-warps=8)", c.numWarps, "subgroups");
    if (failed(pingPong))
      return failure();
    *pingPong |= options.warpgroupSchedule == WarpgroupSchedule::Auto &&
                 *pvNextBlock && c.numWarps == 2 * kWarpgroupWarps;
    cfg.pingPong = *pingPong;
    cfg.pvNextBlock = *pvNextBlock;
    // Fetched tiles hold the same number of chunks in every work-item.
    auto fetchable = [&](Value src, bool transposing) {
      return bool(fmha::FetchedType::getForCopy(
          cast<MemRefType>(src.getType()), cfg.blockKv, threads, transposing,
          /*coreMatrixOrder=*/false));
    };
    cfg.bufferLoads = bufferLoads &&
                      TileCopier::fitsRowsBuffer(op.getKey(), cfg.blockKv) &&
                      TileCopier::fitsRowsBuffer(op.getValue(), cfg.blockKv);
    cfg.fetchedCopies = wantFetch && !cfg.asyncCopies &&
                        fetchable(op.getKey(), false) &&
                        fetchable(op.getValue(), cfg.valueTransposed());
    if (fetchRequested && !cfg.fetchedCopies) {
      if (report)
        op.emitOpError("fwd-kv-pipelining=registers: the ")
            << cfg.blockKv << "-row K and V blocks do not split evenly into "
            << "chunks over the " << threads << " work-items";
      return failure();
    }
    return success();
  };
  auto bytes = [&] { return cfg.workgroupMemoryBytes(); };

  int64_t limit = workgroupMemoryLimit(options);
  SmallVector<FwdTileChoice> candidates =
      fwdTileChoices(options, *wantWarpgroup, cfg.dv);
  // The first candidate that divides and fits workgroup memory and the
  // registers, with Q in registers where it fits, else read from memory;
  // else the one with the fewest live registers. The one needing the least
  // workgroup memory names the shortfall where none fits.
  std::optional<std::pair<FwdTileChoice, bool>> chosen, fewest;
  std::optional<FwdTileChoice> leanest;
  int64_t fewestRegs = std::numeric_limits<int64_t>::max();
  int64_t leanestBytes = std::numeric_limits<int64_t>::max();
  for (const FwdTileChoice &c : candidates) {
    if (failed(apply(c, /*report=*/false)))
      continue;
    for (bool inRegisters : {true, false}) {
      // Warpgroup products read Q from workgroup memory.
      if (inRegisters && cfg.warpgroup)
        continue;
      cfg.queryInRegisters = inRegisters;
      if (bytes() < leanestBytes) {
        leanest = c;
        leanestBytes = bytes();
      }
      if (bytes() > limit)
        continue;
      if (cfg.liveRegisters() <= registerBudget(options, cfg.numWarps)) {
        chosen = {c, inRegisters};
        break;
      }
      if (cfg.liveRegisters() < fewestRegs) {
        fewest = {c, inRegisters};
        fewestRegs = cfg.liveRegisters();
      }
    }
    if (chosen)
      break;
  }
  if (!chosen)
    chosen = fewest;
  if (chosen) {
    cfg.queryInRegisters = chosen->second;
    (void)apply(chosen->first, /*report=*/false);
    return checkRegisterEstimate(
        op, options, cfg.numWarps, cfg.liveRegisters(),
        tileOptionsText("fwd-", cfg.blockQ, cfg.blockKv, cfg.numWarps),
        options.blockQ || options.blockKv || options.numWarps);
  }
  // Nothing fits: the first candidate's errors (the explicit options, when
  // given, are in every one), else the leanest one's memory.
  if (failed(apply(candidates.front(), /*report=*/true)))
    return failure();
  (void)apply(*leanest, /*report=*/false);
  return op.emitOpError("the forward's tiles need ")
         << leanestBytes << " bytes of workgroup memory at the least ("
         << tileOptionsText("fwd-", cfg.blockQ, cfg.blockKv, cfg.numWarps)
         << "), more than the " << limit
         << " the target has; lower fwd-block-q or fwd-block-kv";
}

/// setmaxnreg's registers a lane for the producer warpgroup and for the
/// computing ones, where the launch's even share (what ptxas gives every
/// lane of a kernel that needs more) is short of what the computing ones
/// may use: the workgroup's registers split unevenly. An increase waits
/// for registers the decreases freed, so the split never asks for more
/// than the launch holds. The producer's copies address their chunks as
/// immediate offsets from one global and one shared base a tile
/// (fmha-lower-tile-copies), so it needs few registers: ptxas spilled none
/// at 40 (D = 64 and 128), some at 24 (D = 64, two computing warpgroups).
/// Launched heaviest first it keeps the decoded ids too: 48 bytes spilled
/// at 40 (D = 128), none at 56, which ran 1-2 % faster there (run 51); the
/// computing warpgroups then get 224, not 232.
std::optional<std::pair<int32_t, int32_t>>
registerSplit(const FwdConfig &cfg) {
  constexpr int64_t kMostConsumerRegisters = 240;
  const int64_t producerRegisters = cfg.heavyFirst ? 56 : 40;
  int64_t evenShare =
      std::min(kNvidiaMaxRegistersPerThread,
               kNvidiaRegistersPerBlock / cfg.launchThreads() / 8 * 8);
  if (evenShare >= kMostConsumerRegisters)
    return std::nullopt;
  int64_t producer = std::min(evenShare, producerRegisters);
  int64_t warpgroups = cfg.numWarps / kWarpgroupWarps;
  int64_t consumer =
      std::min(kMostConsumerRegisters,
               (evenShare * (warpgroups + 1) - producer) / warpgroups / 8 * 8);
  return std::make_pair(producer, consumer);
}

/// The two computing warpgroups' turns at issuing their score products
/// (WarpgroupSchedule::PingPong): warpgroup w waits at named barrier
/// kFirstTurnBarrier + w until the other arrives there, having issued its
/// own. Barrier 0 is the workgroup's.
struct ProductTurns {
  static constexpr int64_t kFirstTurnBarrier = 1;
  Value mine, other, threads;

  /// For work-item `tid` of the computing warpgroups of `lanes`-lane
  /// subgroups; the second warpgroup hands the first its first turn.
  static ProductTurns create(OpBuilder &b, Location loc, Value tid,
                             int64_t lanes) {
    Value warpgroup = arith::DivUIOp::create(
        b, loc, tid, constIndex(b, loc, kWarpgroupWarps * lanes));
    auto id = [&](Value w) {
      return arith::IndexCastOp::create(
          b, loc, b.getI32Type(), addIdx(b, loc, w, kFirstTurnBarrier));
    };
    Value otherWarpgroup = arith::SubIOp::create(
        b, loc, constIndex(b, loc, 1), warpgroup);
    ProductTurns turns{id(warpgroup), id(otherWarpgroup),
                       arith::ConstantIntOp::create(
                           b, loc, b.getI32Type(),
                           2 * kWarpgroupWarps * lanes)};
    Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         warpgroup, constIndex(b, loc, 1));
    auto ifSecond = scf::IfOp::create(b, loc, second);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifSecond.thenBlock()->getTerminator());
    turns.pass(b, loc);
    return turns;
  }
  void take(OpBuilder &b, Location loc) const {
    NVVM::BarrierOp::create(b, loc, Type(), mine, threads,
                            NVVM::BarrierReductionAttr(), Value());
  }
  void pass(OpBuilder &b, Location loc) const {
    NVVM::BarrierArriveOp::create(b, loc, other, threads);
  }
};

struct FwdKernel {
  const FwdConfig &cfg;
  const KernelTarget &target;
  float scale;
  fmha::MaskAttr maskAttr;
  fmha::StatsEncoding encoding;
  /// The op's score_mod (null: none).
  Region *scoreMod;
  /// The number of captured operands, and whether the op has attention
  /// sinks (the argument after them).
  unsigned numCaptures;
  bool sinks;
  /// Whether the op has an additive bias (the argument after the sinks).
  bool bias;
  /// Whether the op has dropout (its {seed, offset} the argument after the
  /// bias), and its drop probability.
  bool dropout;
  float dropoutP;

  /// Kernel argument positions; the statistics follow O, the score_mod's
  /// captured operands them, the sinks those, the bias those, dropout's
  /// seed and offset last.
  enum Arg { kQ, kK, kV, kO, kStats };

  void build(OpBuilder &b, Location loc, ValueRange ids, Value tid,
             ValueRange args, ValueRange wgBuffers) const;
};

void FwdKernel::build(OpBuilder &b, Location loc, ValueRange ids, Value tid,
                      ValueRange args, ValueRange wgBuffers) const {
  // The kernel body may end inside the consumers' branch (producerWarpgroup).
  OpBuilder::InsertionGuard bodyEnd(b);
  const MatrixAtom &atom = *cfg.atom, &pvAtom = *cfg.pvAtom;
  const bool sT = cfg.scoresTransposed;
  Value q = args[kQ], k = args[kK], v = args[kV], out = args[kO];
  size_t numStats = encoding == fmha::StatsEncoding::log2_max_sum ? 2 : 1;
  ValueRange stats = args.slice(kStats, numStats);
  ValueRange captures = args.slice(kStats + numStats, numCaptures);
  AttentionSizes sizes = AttentionSizes::get(b, loc, q, k, v);
  Value qBlock = ids[0], headQ = ids[1], batch = ids[2];
  Value headKv =
      arith::DivUIOp::create(b, loc, headQ, constIndex(b, loc, cfg.group));

  // The workgroup's tiles; each subgroup holds blockQ / numWarps query
  // rows of those along the queries (fmha-split-workgroup-tiles gives it
  // its block, fmha-distribute-tiles each lane its fragments).
  TileBuilder tiles{b, loc, cfg.elt, tid};
  using fmha::TileRole;
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);

  Value q0 =
      arith::MulIOp::create(b, loc, qBlock, constIndex(b, loc, cfg.blockQ));

  // Tiles in the score orientation: S [q x kv] and O [q x Dv], or their
  // transposes, split along the queries; the per-query statistics run
  // along the query dimension. Tiles of K or V rows every subgroup holds
  // whole.
  const SmallVector<int64_t, 2> querySplit =
      sT ? SmallVector<int64_t, 2>{1, cfg.numWarps}
         : SmallVector<int64_t, 2>{cfg.numWarps, 1};
  auto oriented = [&](int64_t other, TileRole role, const MatrixAtom &a) {
    return (sT ? tiles.type(other, cfg.blockQ, role, a)
               : tiles.type(cfg.blockQ, other, role, a))
        .split(querySplit);
  };
  auto whole = [&](int64_t rows, int64_t cols, TileRole role,
                   const MatrixAtom &a) {
    return tiles.type(rows, cols, role, a).split({1, 1});
  };
  // S of one slice of a KV block's keys.
  int64_t sliceKv = cfg.blockKv / cfg.kvSlices;
  fmha::TileType scoreType = oriented(sliceKv, TileRole::c, atom);
  fmha::TileType outType = oriented(cfg.dv, TileRole::c, pvAtom);
  fmha::TileType lineType =
      (sT ? tiles.type(1, cfg.blockQ, TileRole::cols, atom)
          : tiles.type(cfg.blockQ, 1, TileRole::rows, atom))
          .split(querySplit);
  // Q [q x Dqk] as the A operand of S = Q K^T, or Q^T as the B operand of
  // S^T = K Q^T.
  fmha::TileType queryType = sT ? oriented(cfg.dqk, TileRole::b, atom)
                                : oriented(cfg.dqk, TileRole::a, atom);
  Value qTile;
  Value qBuf = cfg.queryInRegisters ? Value() : wgBuffers[2];
  // Every work-item copies (a producer warpgroup takes part in Q's copy,
  // its only one outside its own loop).
  TileCopier copier{b, loc, tid, cfg.launchThreads(), !target.host};
  if (cfg.queryInRegisters) {
    auto load = fmha::TileLoadOp::create(b, loc, queryType, q, batch, q0, headQ,
                                         c0, tid, sizes.seqQ);
    load.setTransposed(sT);
    qTile = load;
  } else {
    copier.copy(q, batch, q0, headQ, sizes.seqQ, cfg.blockQ, qBuf, Value());
  }

  // KV blocks any query of the block sees (block skipping).
  fmha::MaskBand band = maskAttr ? maskAttr.getBand() : fmha::MaskBand();
  MaskBuilder mask(b, loc, band, sizes.seqQ, sizes.seqK);
  Value qEnd = arith::MinUIOp::create(b, loc, addIdx(b, loc, q0, cfg.blockQ),
                                      sizes.seqQ);
  auto [kLo, kHi] = mask.visibleKeys(b, loc, q0, qEnd);
  Value cBlockKv = constIndex(b, loc, cfg.blockKv);
  Value kbBegin = arith::DivUIOp::create(b, loc, kLo, cBlockKv);
  Value kbEnd = ceilDiv(b, loc, kHi, cBlockKv);

  // Scores in the log2 domain: s * scale * log2 e, or s' log2 e of the
  // modified scores s' = f(s * scale) (+ bias).
  Value cLog2 = constF32(b, loc, (scoreMod || bias ? 1.0f : scale) * kLog2e);
  Value negInf = constF32(b, loc, -std::numeric_limits<float>::infinity());
  Value zeroF = constF32(b, loc, 0.0f);
  // A row starts with no key (m = -inf, l = 0) or with its head's sink, a
  // key with no value: m = sink log2 e, l = 1, which the rescaling carries
  // into the statistics (a row that sees no key keeps O = 0, lse = sink).
  Value startMax = negInf, startSum = zeroF;
  if (sinks) {
    Value sink = memref::LoadOp::create(
        b, loc, args[kStats + numStats + numCaptures], headQ);
    startMax = arith::MulFOp::create(b, loc, sink, constF32(b, loc, kLog2e));
    startSum = constF32(b, loc, 1.0f);
  }
  // Dropout's stream of this batch and head: uniform scalars the score
  // tiles' Philox calls share.
  std::optional<fmha::DropoutStream> dropoutStream;
  if (dropout)
    dropoutStream = fmha::emitDropoutStream(
        b, loc, args[kStats + numStats + numCaptures + sinks + bias],
        batchIndexOf(ids), headQ, sizes.headsQ);
  Value noMax = tiles.map(lineType, tiles.zero(lineType),
                          [&](ValueRange) -> Value { return startMax; });
  Value noSum = sinks ? tiles.map(lineType, tiles.zero(lineType),
                                  [&](ValueRange) -> Value { return startSum; })
                      : tiles.zero(lineType);
  SmallVector<Value> init{tiles.zero(outType), noMax, noSum};
  // The blocks' K and V rows (V staged transposed with S^T unless read
  // transposed); rows past Sk hold finite data (or, copied asynchronously,
  // zeros) whose scores the mask makes -inf. Barriers:
  // fmha-place-workgroup-barriers.
  // Async copies: block kb lands in slot kb % 2 of the K and V tiles, a
  // group each; rows past Sk, and the block after the last one (which a
  // pipelined loop's last iteration copies), are zero-filled without
  // reading memory. fmha-pipeline-tile-fetches issues a block's copies an
  // iteration ahead, into the slot the previous block was read from.
  Value rowEnd;
  if (cfg.asyncCopies)
    rowEnd = arith::MinUIOp::create(
        b, loc, sizes.seqK, arith::MulIOp::create(b, loc, kbEnd, cBlockKv));
  std::optional<SlotHandover> handover;
  std::optional<ProductTurns> turns;
  // The handover's tiles: K and V together, or with deferred P V each on
  // its own (K's slot goes back once the block's scores are in, V's a block
  // later, once its P V is).
  constexpr int64_t kKeys = 0, kValues = 1;
  const int64_t handedTiles = cfg.pvNextBlock ? 2 : 1;
  // One KV block kb, carrying `carried` (O, m, l, and with deferred P V
  // the previous block's P), its scores masked as `scoreMask` says; returns
  // what it carries on. With `previous` (deferred P V, a block before this
  // one), the previous block's P V is issued right after this block's S,
  // so that it runs during this block's softmax.
  // Deferred P V of block `block` (P `p`) into `o`, once the producer has
  // handed its values over; returns O and the values' slot.
  auto deferredPv = [&](Value block, Value p, Value o) {
    Value slot = handover->waitFull(b, loc, kValues, block);
    return std::pair{
        tiles.mmaWarpgroup(p, {slotView(b, loc, wgBuffers[1], slot), c0, c0},
                           o),
        slot};
  };
  auto emitBlock = [&](Value kb, ValueRange carried, ScoreMask scoreMask,
                       bool previous) -> SmallVector<Value> {
    Value o = carried[0], m = carried[1], l = carried[2];
    Value k0 = arith::MulIOp::create(b, loc, kb, cBlockKv);
    // K and V of this block: with async copies, in a slot of the tiles,
    // both groups waited for (they complete in order), or the slot the
    // producer warpgroup hands over (V's a block later with deferred P V).
    Value kBuf = wgBuffers[0], vBuf = wgBuffers[1];
    Value slot;
    if (cfg.producerWarpgroup) {
      slot = handover->waitFull(b, loc, kKeys, kb);
      kBuf = slotView(b, loc, kBuf, slot);
      vBuf = slotView(b, loc, vBuf, slot);
    } else if (cfg.asyncCopies) {
      std::tie(kBuf, vBuf) = copier.copyBlockPairAsync(
          kb, {k, v}, {kBuf, vBuf}, batch, k0, headKv, rowEnd, cfg.blockKv);
    } else {
      // Rows past Sk hold finite data whose scores the mask makes -inf
      // (zeros, read through buffer descriptors that end at Sk).
      bool vT = cfg.valueTransposed();
      Value vRows = vT ? Value() : vBuf, vCols = vT ? vBuf : Value();
      Value kSrc = k, vSrc = v, srcBatch = batch, srcRow = k0, srcHead = headKv;
      Value srcSeq = sizes.seqK;
      if (cfg.bufferLoads) {
        kSrc = copier.rowsBuffer(k, batch, k0, headKv, sizes.seqK,
                                 cfg.blockKv);
        vSrc = copier.rowsBuffer(v, batch, k0, headKv, sizes.seqK,
                                 cfg.blockKv);
        srcBatch = srcRow = srcHead = c0;
        srcSeq = cBlockKv;
      }
      if (cfg.fetchedCopies) {
        Value kFetched = copier.fetch(
            copier.fetchedType(kSrc, cfg.blockKv, kBuf, Value()), kSrc,
            srcBatch, srcRow, srcHead, srcSeq, /*tailUnspecified=*/true);
        Value vFetched = copier.fetch(
            copier.fetchedType(vSrc, cfg.blockKv, vRows, vCols), vSrc,
            srcBatch, srcRow, srcHead, srcSeq, /*tailUnspecified=*/true);
        copier.place(kFetched, kBuf, Value());
        copier.place(vFetched, vRows, vCols);
      } else {
        copier.copy(kSrc, srcBatch, srcRow, srcHead, srcSeq, cfg.blockKv,
                    kBuf, Value(), /*tailUnspecified=*/true);
        copier.copy(vSrc, srcBatch, srcRow, srcHead, srcSeq, cfg.blockKv,
                    vRows, vCols, /*tailUnspecified=*/true);
      }
    }
    // S of every slice of keys first, then each slice's softmax and P V:
    // the products are asynchronous with warpgroups (the waits go to their
    // results' first uses, fmha-defer-warpgroup-waits), so the second
    // slice's S and the first one's P V run during a softmax.
    Value query;
    if (!cfg.warpgroup)
      query = qTile ? qTile
                    : tiles.read(qBuf, c0, c0, /*transposed=*/sT, queryType);
    SmallVector<Value> scores;
    if (turns)
      turns->take(b, loc);
    for (int64_t i = 0; i < cfg.kvSlices; ++i) {
      Value row = constIndex(b, loc, i * sliceKv);
      if (cfg.warpgroup) {
        // The warpgroup's 64 query rows of Q times B = K^T: element (k = d,
        // n = kv) is K's (row + kv, d).
        scores.push_back(
            tiles.mmaWarpgroup({qBuf, c0, c0}, cfg.dqk,
                               {kBuf, row, c0, /*transposed=*/true},
                               tiles.zero(scoreType)));
        continue;
      }
      scores.push_back(
          sT ? tiles.mma(tiles.read(kBuf, row, c0, /*transposed=*/false,
                                    whole(sliceKv, cfg.dqk, TileRole::a, atom)),
                         query, tiles.zero(scoreType))
             : tiles.mma(query,
                         tiles.read(kBuf, row, c0, /*transposed=*/true,
                                    whole(cfg.dqk, sliceKv, TileRole::b, atom)),
                         tiles.zero(scoreType)));
    }
    // Deferred P V: O += P V of the previous block (O and P relative to its
    // maximum), while this block's softmax runs.
    Value previousSlot;
    if (previous)
      std::tie(o, previousSlot) =
          deferredPv(addIdx(b, loc, kb, -1), carried[3], o);
    // The other warpgroup's turn: its products run during this one's
    // softmax.
    if (turns)
      turns->pass(b, loc);
    Value pDeferred;
    for (int64_t i = 0; i < cfg.kvSlices; ++i) {
      Value s = scores[i];
      Value key0 = addIdx(b, loc, k0, i * sliceKv);
      if (scoreMod)
        s = modifyScores(tiles, *scoreMod, scale, s, q0, key0,
                         /*keysAlongRows=*/sT, batchIndexOf(ids), headQ,
                         captures, /*derivative=*/false)[0];
      if (bias)
        s = addBias(tiles, s, scoreMod ? 1.0f : scale,
                    args[kStats + numStats + numCaptures + sinks], batch, headQ,
                    q0, key0, /*keysAlongRows=*/sT, sizes);
      // Keys past Sk and pairs the band hides score -inf.
      s = maskScoreTile(
          b, loc, scoreMask, s, q0, key0, tid, sizes, maskAttr,
          /*keysAlongRows=*/sT,
          APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true));
      int64_t keyDim = sT ? 0 : 1;
      Value rowMax = fmha::TileReduceOp::create(
          b, loc, lineType, fmha::ReductionKind::max, s, keyDim);
      Value mNew = tiles.map(lineType, {m, rowMax}, [&](ValueRange x) -> Value {
        return arith::MaxNumFOp::create(
            b, loc, x[0], arith::MulFOp::create(b, loc, x[1], cLog2));
      });
      // A row that has seen no key yet keeps m = -inf; it subtracts 0 instead
      // so that its P and rescaling factor are 0, not NaN.
      Value mSub = tiles.map(lineType, mNew, [&](ValueRange x) -> Value {
        Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           x[0], negInf);
        return arith::SelectOp::create(b, loc, none, zeroF, x[0]);
      });
      Value alpha = tiles.map(lineType, {m, mSub}, [&](ValueRange x) -> Value {
        return math::Exp2Op::create(b, loc,
                                    arith::SubFOp::create(b, loc, x[0], x[1]));
      });
      Value p = tiles.map(scoreType, {s, mSub}, [&](ValueRange x) -> Value {
        Value scaled = arith::MulFOp::create(b, loc, x[0], cLog2);
        return math::Exp2Op::create(
            b, loc, arith::SubFOp::create(b, loc, scaled, x[1]));
      });
      // l' = l alpha + rowsum(P): with warpgroup products after P V is
      // issued, so that it runs while the product does.
      auto updateSum = [&] {
        Value rowSum = fmha::TileReduceOp::create(
            b, loc, lineType, fmha::ReductionKind::add, p, keyDim);
        return tiles.map(
            lineType, {l, alpha, rowSum}, [&](ValueRange x) -> Value {
              return arith::AddFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, x[0], x[1]), x[2]);
            });
      };
      Value lNew = cfg.warpgroup ? Value() : updateSum();
      // With deferred P V the keys' slot is read no more (the scores are
      // in), and the previous block's values once O has been rescaled
      // (which waits for their product).
      if (cfg.pvNextBlock)
        handover->release(b, loc, kKeys, slot);
      Value oScaled =
          tiles.map(outType, {o, alpha}, [&](ValueRange x) -> Value {
            return arith::MulFOp::create(b, loc, x[0], x[1]);
          });
      if (previous)
        handover->release(b, loc, kValues, previousSlot);
      // Dropout: O sums P Z / (1 - p); l, the statistics, the undropped P.
      Value pKept = p;
      if (dropoutStream) {
        Value factors = dropoutFactors(tiles, p, q0, key0, /*keysAlongRows=*/sT,
                                       *dropoutStream, dropoutP);
        pKept = tiles.map(scoreType, {p, factors}, [&](ValueRange x) -> Value {
          return arith::MulFOp::create(b, loc, x[0], x[1]);
        });
      }
      // O += P V with P as the A operand, or O^T += V^T P^T with P^T as B.
      Value pOperand = fmha::TileConvertOp::create(
          b, loc,
          sT ? oriented(sliceKv, TileRole::b, pvAtom)
             : oriented(sliceKv, TileRole::a, pvAtom),
          pKept);
      // The slice's rows of V.
      Value row = constIndex(b, loc, i * sliceKv);
      Value oNew;
      if (cfg.pvNextBlock) {
        // Issued with the next block's scores (or after the last block).
        pDeferred = pOperand;
        oNew = oScaled;
        lNew = updateSum();
      } else if (cfg.warpgroup) {
        // V [kv x Dv] is B as it lies.
        oNew = tiles.mmaWarpgroup(pOperand, {vBuf, row, c0}, oScaled);
        lNew = updateSum();
      } else {
        oNew =
            sT ? tiles.mma(
                     tiles.read(vBuf, cfg.valueRows ? row : c0,
                                cfg.valueRows ? c0 : row,
                                /*transposed=*/cfg.valueRows,
                                whole(cfg.dv, sliceKv, TileRole::a, pvAtom)),
                     pOperand, oScaled)
               : tiles.mma(
                     pOperand,
                     tiles.read(vBuf, row, c0, /*transposed=*/false,
                                whole(sliceKv, cfg.dv, TileRole::b, pvAtom)),
                     oScaled);
      }
      o = oNew;
      m = mNew;
      l = lNew;
    }
    if (cfg.pvNextBlock)
      return {o, m, l, pDeferred};
    // The slot's last reader (P V) has been waited for: hand it back.
    if (cfg.producerWarpgroup)
      handover->release(b, loc, kKeys, slot);
    return {o, m, l};
  };
  // The KV blocks [lo, hi), carrying `carriedIn`, their scores masked as
  // `scoreMask` says.
  auto emitKvLoop = [&](Value lo, Value hi, ValueRange carriedIn,
                        ScoreMask scoreMask) -> scf::ForOp {
    auto kvLoop = scf::ForOp::create(b, loc, lo, hi, c1, carriedIn);
    kvLoop->setAttr(fmha::kMfmaExpLoopAttrName, b.getUnitAttr());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kvLoop.getBody());
    scf::YieldOp::create(b, loc,
                         emitBlock(kvLoop.getInductionVar(),
                                   kvLoop.getRegionIterArgs(), scoreMask,
                                   /*previous=*/cfg.pvNextBlock));
    return kvLoop;
  };
  // With a producer warpgroup: it runs the copies' loop with few
  // registers, the others the rest of the kernel with the registers it
  // gave up.
  if (cfg.producerWarpgroup) {
    handover = SlotHandover::create(b, loc, kbBegin, tid, cfg.producerThreads(),
                                    cfg.threads(), handedTiles);
    Value isProducer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                              constIndex(b, loc, cfg.threads()));
    auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    std::optional<std::pair<int32_t, int32_t>> registers = registerSplit(cfg);
    if (registers)
      NVVM::SetMaxRegisterOp::create(b, loc, registers->first,
                                     NVVM::SetMaxRegisterAction::decrease);
    TileCopier producer{b, loc, addIdx(b, loc, tid, -cfg.threads()),
                        cfg.producerThreads(), /*alignedRows=*/true};
    auto copyLoop = scf::ForOp::create(b, loc, kbBegin, kbEnd, c1);
    b.setInsertionPoint(copyLoop.getBody()->getTerminator());
    Value kb = copyLoop.getInductionVar();
    Value k0 = arith::MulIOp::create(b, loc, kb, cBlockKv);
    Value slot = handover->waitEmpty(b, loc, kKeys, kb);
    producer.copyAsync(k, batch, k0, headKv, rowEnd, cfg.blockKv, wgBuffers[0],
                       slot);
    if (cfg.pvNextBlock) {
      handover->fill(b, loc, kKeys, slot);
      slot = handover->waitEmpty(b, loc, kValues, kb);
    }
    producer.copyAsync(v, batch, k0, headKv, rowEnd, cfg.blockKv, wgBuffers[1],
                       slot);
    handover->fill(b, loc, handedTiles - 1, slot);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    if (registers)
      NVVM::SetMaxRegisterOp::create(b, loc, registers->second,
                                     NVVM::SetMaxRegisterAction::increase);
    if (cfg.pingPong)
      turns = ProductTurns::create(b, loc, tid, cfg.lanes);
  }
  // With whole-block loops, the blocks whose keys every query of the block
  // sees run without the mask, in a loop of their own: no selects, no
  // branch per block. The cut ones (the band's edges, the block past Sk)
  // come after them and, for bands that hide keys far before the diagonal,
  // before them. The loops start at `begin` (past a block run on its own).
  auto emitKvLoops = [&](Value begin, ValueRange init) -> ValueRange {
    if (!cfg.wholeBlockLoops)
      return emitKvLoop(begin, kbEnd, init, ScoreMask::cutBlocks).getResults();
    auto [wholeBegin, wholeEnd] = mask.wholeKeyBlocks(
        b, loc, q0, addIdx(b, loc, qEnd, -1), cfg.blockKv, kbBegin, kbEnd);
    if (begin != kbBegin) {
      wholeBegin = arith::MaxUIOp::create(b, loc, wholeBegin, begin);
      wholeEnd = arith::MaxUIOp::create(b, loc, wholeEnd, begin);
    }
    ValueRange carried = init;
    if (mask.limitsBelowDiagonal())
      carried = emitKvLoop(begin, wholeBegin, carried, ScoreMask::every)
                    .getResults();
    carried = emitKvLoop(wholeBegin, wholeEnd, carried, ScoreMask::none)
                  .getResults();
    return emitKvLoop(wholeEnd, kbEnd, carried, ScoreMask::every).getResults();
  };
  Value o, m, l;
  if (cfg.pvNextBlock) {
    // Deferred P V: the first block on its own (no P V before it), then the
    // loops, then the last block's P V; nothing where no key is visible.
    Value anyBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           kbBegin, kbEnd);
    auto ifAny = scf::IfOp::create(b, loc, ValueRange(init).getTypes(),
                                   anyBlock, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifAny.elseBlock());
      scf::YieldOp::create(b, loc, init);
      b.setInsertionPointToStart(ifAny.thenBlock());
      SmallVector<Value> first =
          emitBlock(kbBegin, init, ScoreMask::every, /*previous=*/false);
      ValueRange last = emitKvLoops(addIdx(b, loc, kbBegin, 1), first);
      // The producer copies no block after the last: its values' slot
      // needs no release.
      Value oLast =
          deferredPv(addIdx(b, loc, kbEnd, -1), last[3], last[0]).first;
      scf::YieldOp::create(b, loc, ValueRange{oLast, last[1], last[2]});
    }
    o = ifAny.getResult(0);
    m = ifAny.getResult(1);
    l = ifAny.getResult(2);
  } else {
    ValueRange last = emitKvLoops(kbBegin, init);
    o = last[0];
    m = last[1];
    l = last[2];
  }

  // O / l; rows that saw no key (l = 0) get O = 0.
  Value invL = tiles.map(lineType, l, [&](ValueRange x) -> Value {
    Value none =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x[0], zeroF);
    Value inv = arith::DivFOp::create(b, loc, constF32(b, loc, 1.0f), x[0]);
    return arith::SelectOp::create(b, loc, none, zeroF, inv);
  });
  Value oFinal = tiles.map(outType, {o, invL}, [&](ValueRange x) -> Value {
    return arith::MulFOp::create(b, loc, x[0], x[1]);
  });
  auto store = fmha::TileStoreOp::create(b, loc, oFinal, out, batch, q0, headQ,
                                         c0, tid, sizes.seqQ);
  store.setTransposed(sT);
  // o rows are 16-byte aligned on GPUs (the runners' role checks).
  store.setAlignedRows(!target.host);
  auto storeLine = [&](Value line, Value dest) {
    fmha::TileStoreLinesOp::create(b, loc, line, dest, batch, headQ, q0, tid,
                                   sizes.seqQ);
  };
  if (encoding == fmha::StatsEncoding::log2_max_sum) {
    storeLine(m, stats[0]);
    storeLine(l, stats[1]);
    return;
  }
  // LSE = (m + log2 l) ln 2: -inf for a row that saw no key.
  Value lse = tiles.map(lineType, {m, l}, [&](ValueRange x) -> Value {
    Value log2Sum =
        arith::AddFOp::create(b, loc, x[0], math::Log2Op::create(b, loc, x[1]));
    return arith::MulFOp::create(b, loc, log2Sum,
                                 constF32(b, loc, 1.0f / kLog2e));
  });
  storeLine(lse, stats[0]);
}

} // namespace

LogicalResult
rocke::buildTiledFwdKernels(fmha::AttentionFwdOp op,
                            const AttentionKernelOptions &options) {
  Location loc = op.getLoc();
  KernelEmitter emitter(op, options.target);
  OpBuilder &cb = emitter.callSite();
  AttentionSizes sizes =
      AttentionSizes::get(cb, loc, op.getQuery(), op.getKey(), op.getValue());
  FwdConfig cfg;
  if (failed(makeFwdConfig(op, options, sizes, cfg)))
    return failure();

  KernelLaunch launch;
  launch.name = "fmha_fwd_tiled_main";
  launch.args = {{op.getQuery(), "q"},
                 {op.getKey(), "k"},
                 {op.getValue(), "v"},
                 {op.getOut(), "o"}};
  appendStatsArgs(launch.args, op.getStats());
  appendCaptureArgs(launch.args, op.getCaptures());
  if (op.getSinks())
    launch.args.push_back({op.getSinks(), "sinks"});
  if (op.getBias())
    launch.args.push_back({op.getBias(), "bias"});
  if (op.getDropoutSeedOffset())
    launch.args.push_back({op.getDropoutSeedOffset(), "dropout_seed_offset"});
  SmallVector<Value> qSizes = memrefSizes(cb, loc, op.getQuery());
  std::string blockQ = std::to_string(cfg.blockQ);
  if (VarlenBatch varlen = packedBatchOf(op, emitter)) {
    launch.grid = {
        constIndex(cb, loc, llvm::divideCeil(varlen.maxSeqlenQ, cfg.blockQ)),
        qSizes[1], varlen.numSequences(cb, loc)};
    launch.gridExpr = {"ceildiv(max_seqlen_q," + blockQ + ")", "Hq", "B"};
    launch.varlen = varlen;
    // Q, K, V, O: the sequence's tokens; the statistics its [Hq, S] columns.
    SequenceView queries, keys{/*keys=*/true};
    SequenceView columns{/*keys=*/false, /*tokenDim=*/1, /*batchDim=*/0};
    launch.sequenceViews = {queries, keys, keys, queries};
    launch.sequenceViews.append(op.getStats().size(), columns);
    launch.exitRows = cfg.blockQ;
  } else {
    launch.grid = {
        ceilDiv(cb, loc, sizes.seqQ, constIndex(cb, loc, cfg.blockQ)),
        qSizes[2], qSizes[0]};
    launch.gridExpr = {"ceildiv(Sq," + blockQ + ")", "Hq", "B"};
  }
  // A causal mask gives the last query block the most keys.
  bool heavyFirst = launchesHeavyFirst(
      op.getMaskAttr(), static_cast<bool>(launch.varlen), options);
  if (heavyFirst)
    orderHeavyFirst(cb, loc, launch);
  cfg.heavyFirst = heavyFirst;
  launch.blockSize = cfg.launchThreads();
  launch.workgroupBuffers = cfg.workgroupBuffers();
  launch.dynamicWorkgroupMemory = cfg.dynamicWorkgroupMemory;
  FwdKernel kernel{cfg,
                   options.target,
                   op.getScaleOrDefault(),
                   op.getMaskAttr(),
                   op.getStatsEncoding(),
                   op.getScoreMod().empty() ? nullptr : &op.getScoreMod(),
                   static_cast<unsigned>(op.getCaptures().size()),
                   static_cast<bool>(op.getSinks()),
                   static_cast<bool>(op.getBias()),
                   static_cast<bool>(op.getDropoutSeedOffset()),
                   fmha::dropoutProbability(op.getDropoutPAttr())};
  if (failed(
          emitter.emit(launch, [&](OpBuilder &b, Location l, ValueRange ids,
                                   Value tid, ValueRange args, ValueRange wg) {
            if (!heavyFirst)
              return kernel.build(b, l, ids, tid, args, wg);
            SmallVector<Value> querySizes =
                memrefSizes(b, l, args[FwdKernel::kQ]);
            Value blocks =
                ceilDiv(b, l, querySizes[1], constIndex(b, l, cfg.blockQ));
            SmallVector<Value, 3> decoded = heavyFirstIds(
                b, l, ids[0], {blocks, querySizes[2], querySizes[0]});
            // Rank 0 runs the last query block.
            decoded[0] = arith::SubIOp::create(
                b, l, addIdx(b, l, blocks, -1), decoded[0]);
            kernel.build(b, l, decoded, tid, args, wg);
          })))
    return failure();
  emitter.finish();
  return success();
}

LogicalResult
rocke::checkFwdTileOptions(Operation *anchor,
                           const AttentionKernelOptions &options) {
  if (failed(checkTileBounds(anchor, options, "fwd-")))
    return failure();
  // fwd-warpgroup-mma=on needs the chip's warpgroup products; the layout and
  // the inputs are the forward's to check.
  FailureOr<bool> warpgroup =
      warpgroupProducts(anchor, options, "fwd-warpgroup-mma", /*layout=*/true,
                        "", /*rowsInChunks=*/true, "");
  if (failed(warpgroup))
    return failure();
  // The atoms a forward of f16 (else bf16) inputs would take; their extents
  // are alike. Atoms no forward can use are the builders' to report, on an
  // op that uses them.
  FwdConfig cfg;
  MLIRContext *ctx = anchor->getContext();
  bool haveAtoms = false;
  {
    ScopedDiagnosticHandler dropAtomErrors(
        ctx, [](Diagnostic &) { return success(); });
    for (Type elt : {Type(Float16Type::get(ctx)), Type(BFloat16Type::get(ctx))})
      if (!haveAtoms)
        haveAtoms = succeeded(chooseFwdAtoms(anchor, options, elt, cfg));
  }
  if (!haveAtoms)
    return success();
  SmallVector<FwdTileChoice> choices =
      fwdTileChoices(options, *warpgroup, /*dv=*/0);
  int64_t slices = requestedSlices(options);
  for (const FwdTileChoice &c : choices)
    if (succeeded(checkDivisible(anchor, fwdTileNeeds(cfg, c, slices),
                                 fwdAtomContext(cfg), /*report=*/false)))
      return success();
  return checkDivisible(anchor, fwdTileNeeds(cfg, choices.front(), slices),
                        fwdAtomContext(cfg), /*report=*/true);
}
