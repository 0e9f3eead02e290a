//===- KernelBuilder.h - shared helpers for attention kernels ---*- C++ -*-===//
//
// Building blocks shared by the fmha.attention_bwd -> kernels strategies
// (issue 4): kernel emission for a GPU (gpu.module / gpu.func /
// gpu.launch_func) or for the CPU (a private func.func looping over the grid),
// scratch buffers, problem sizes, element access, mask bands, softmax
// statistics, cross-lane reductions and the small kernels both strategies run
// (zero-fill, f32 -> gradient conversion, the FA2 preprocess D = rowsum(dO*O)).
//
// Conventions
// - Everything is index-typed (64-bit on every target we lower to);
//   checkIndexRange rejects static shapes a 32-bit-index target cannot
//   address.
// - A kernel body is written once for both targets. On the host it runs with
//   one lane per workgroup (threadId = 0, blockSize = 1, subgroupSize = 1),
//   so a body must derive its lane count from KernelTarget, not assume 64.
// - Inside a GPU kernel the memref arguments are cast to
//   #gpu.address_space<global> (the host passes plain memrefs), so loads and
//   atomics become global_* (AMD) / ld.global, red.global (NVIDIA).
// - Each kernel carries `rocke.launch` = {order, grid, block, args}: launch
//   order within its fmha op, grid as three expressions over the problem
//   sizes B, Sq, Sk, Hq, Hkv, Dqk, Dv (+ - * and ceildiv(a,b)), block as three
//   i64, and one role string per argument. Roles: "q" "k" "v" "o" "do" "lse"
//   "m" "l" "dq" "dk" "dv" for the op's operands, "capture<i>" for its
//   score_mod's captured operand i, "sinks" "dsinks" "bias" "dbias" for
//   its attention sinks, additive bias and their gradients (dbias is
//   zero-filled by fmha_bwd_zero_dbias where the kernels add to it);
//   scratch buffers are
//   "<name>:<elt>:<init>" where <name> says the logical shape ("dq_accum",
//   "dk_accum", "dv_accum" have the shape of dq/dk/dv, contiguous; "delta"
//   is [B, Hq, Sq]), <elt> the element type, <init> "zero" when a kernel of
//   the same op zero-fills it before use or "none" when fully written. A
//   fourth field "[d0,d1,...]" gives a shape of its own, in the grid's
//   expressions plus the launch's `symbols` ({name = i64}): the tiled dQ
//   accumulator [B,ceildiv(Sq,BQ)*BQ,Hq,Dqk] (with bulk reductions
//   head-major with padded rows, [B,Hq,ceildiv(Sq,BQ)*BQ,Dqk+8]) and partials
//   [ceildiv(Sk,BKV),B,ceildiv(Sq,BQ)*BQ,Hq,Dqk] have their rows padded to
//   whole query blocks, and the tiled row record [B,Hq,Sq,2] holds each
//   query row's (normalizer, delta). `ops` (set by fmha-bwd-to-kernels) lists
//   the fmha ops (module walk order) that launch the kernel.
// - Packed (varlen) batches: B is the number of sequences (cu_seqlens' length
//   - 1) and Sq / Sk the token counts T_q / T_k; the launch's symbols
//   `max_seqlen_q` / `max_seqlen_k` (the op's maxima) size the grids, and
//   the kernels that read per-sequence data also take the offsets, roles
//   "cu_seqlens_q" and "cu_seqlens_k", after their other arguments. Their
//   scratch follows the packed layout: row record [Hq,Sq,2], dQ
//   accumulator [Sq+B*BQ,Hq,Dqk] or [Hq,Sq+B*BQ,Dqk+8] (sequence b's rows
//   from cu_seqlens_q[b] + b*BQ, padded to whole query blocks), partials
//   [ceildiv(max_seqlen_k,BKV),Sq+B*BQ,Hq,Dqk].
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_KERNELS_KERNELBUILDER_H
#define ROCKE_LIB_KERNELS_KERNELBUILDER_H

#include "dialect/Mask.h"
#include "lib/Target/ChipInfo.h"
#include "lib/Target/FragmentLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <functional>
#include <optional>
#include <string>

namespace rocke {

/// Where the kernels run.
struct KernelTarget {
  /// CPU execution: kernels become host loops, one lane per workgroup.
  bool host = false;
  /// Lanes of a subgroup (64 AMD wave64, 32 NVIDIA; 1 on the host).
  unsigned subgroupSize = 64;
  /// Width of the target's index type (the offsets checkIndexRange allows).
  unsigned indexBitwidth = 64;
  /// The chip's workgroup and grid limits (GPU).
  LaunchLimits launch;

  static KernelTarget gpu(unsigned subgroupSize) {
    return {false, subgroupSize, 64, {}};
  }
  static KernelTarget cpu() { return {true, 1, 64, {}}; }
};

//===----------------------------------------------------------------------===//
// Small arithmetic helpers (index type)
//===----------------------------------------------------------------------===//

/// `arith.constant v : index`.
mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// `arith.constant v : f32`.
mlir::Value constF32(mlir::OpBuilder &b, mlir::Location loc, float v);
/// ceil(a / b) for non-negative index values.
mlir::Value ceilDiv(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                    mlir::Value c);
/// The sizes of a memref as index values (constants where static).
llvm::SmallVector<mlir::Value> memrefSizes(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value memref);
/// Row-major (last fastest) coordinates of `linear` within `sizes`.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           mlir::ValueRange sizes);

//===----------------------------------------------------------------------===//
// Problem sizes and element access
//===----------------------------------------------------------------------===//

/// Sizes of an attention problem, read from the rank-4 [B, S, H, D] memrefs
/// q, k, v (the op's operands at the call site, or a kernel's arguments), or
/// the rank-3 [T, H, D] ones of a packed batch (no batch; Sq, Sk the token
/// counts).
struct AttentionSizes {
  mlir::Value batch, seqQ, seqK; ///< index (constants where static)
  int64_t headsQ = 0, headsKv = 0, headDimQk = 0, headDimV = 0;

  /// Query heads per kv head (GQA); query head h reads kv head h / group.
  int64_t groupSize() const { return headsQ / headsKv; }
  static AttentionSizes get(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value q, mlir::Value k, mlir::Value v);
};

/// Loads memref[idx] and extends it to f32 (f16/bf16 -> extf; f32 as is).
mlir::Value loadF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value memref,
                    mlir::ValueRange idx);
/// Truncates the f32 `value` to the memref's element type and stores it.
void storeF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
              mlir::Value memref, mlir::ValueRange idx);

/// Fails (diagnostic on `op`) when a static memref operand of `op` has an
/// element offset past the target's signed index range (2^31 - 1 for 32-bit
/// indexing). Dynamic shapes are the caller's responsibility at run time.
mlir::LogicalResult checkIndexRange(mlir::Operation *op,
                                    const KernelTarget &target);

//===----------------------------------------------------------------------===//
// Cross-lane operations
//===----------------------------------------------------------------------===//

/// Sum (or max) of `value` over the lanes of a subgroup (`clusterSize` lanes
/// when non-zero), as gpu.subgroup_reduce; the value itself when the target
/// has one lane. fmha-lower-subgroup-reduce turns it into xor shuffles.
mlir::Value subgroupReduce(mlir::OpBuilder &b, mlir::Location loc,
                           const KernelTarget &target, mlir::Value value,
                           mlir::gpu::AllReduceOperation kind,
                           unsigned clusterSize = 0);

//===----------------------------------------------------------------------===//
// Masks (the band of dialect/Mask.h)
//===----------------------------------------------------------------------===//

/// Runtime form of a MaskBand for one problem: key k is visible from query q
/// iff -lower <= k - (q + off) <= upper, off = 0 or Sk - Sq (bottom_right).
/// (row, column) of the first element lane `lane` holds of `operand` of
/// `atom` (FragmentLayout's laneOffset), as index values; register r adds
/// regOffset(atom, operand, r).
std::pair<mlir::Value, mlir::Value>
laneCoordinates(mlir::OpBuilder &b, mlir::Location loc, const MatrixAtom &atom,
                MatrixOperand operand, mlir::Value lane);

class MaskBuilder {
public:
  MaskBuilder(mlir::OpBuilder &b, mlir::Location loc, fmha::MaskBand band,
              mlir::Value seqQ, mlir::Value seqK);

  bool isNone() const { return band.isNone(); }
  /// i1: is key `k` visible from query `q` (constant true without a mask);
  /// q and k may be index vectors, giving a vector of i1.
  mlir::Value isVisible(mlir::OpBuilder &b, mlir::Location loc, mlir::Value q,
                        mlir::Value k) const;
  /// i1 vector: is the pair whose key - query is `keyMinusQuery + deltas[i]`
  /// (an index, and one constant per element) inside the band? A tile whose
  /// indices share a lane-dependent base tests each element with one
  /// comparison against a constant.
  mlir::Value isVisibleAt(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value keyMinusQuery,
                          llvm::ArrayRef<int64_t> deltas) const;
  /// i1: every pair of queries [qFirst, qLast] x keys [kFirst, kLast] is
  /// visible and kLast < Sk, so the block needs no element mask. The band is
  /// convex: its extreme pairs are the corners (qLast, kFirst) and (qFirst,
  /// kLast).
  mlir::Value isBlockVisible(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value qFirst, mlir::Value qLast,
                             mlir::Value kFirst, mlir::Value kLast) const;
  /// Query blocks [begin, end) within [qbBegin, qbEnd] (blocks of `blockQ`
  /// queries) whose every query, those past Sq included, sees every key of
  /// [kFirst, kLast] with kLast < Sk: their scores need no mask. The band is
  /// convex, so these blocks are consecutive; begin = end when there are
  /// none.
  std::pair<mlir::Value, mlir::Value>
  wholeQueryBlocks(mlir::OpBuilder &b, mlir::Location loc, mlir::Value kFirst,
                   mlir::Value kLast, int64_t blockQ, mlir::Value qbBegin,
                   mlir::Value qbEnd) const;
  /// Key blocks [begin, end) within [kbBegin, kbEnd] (blocks of `blockKv`
  /// keys) whose every key is below Sk and seen by every query of [qFirst,
  /// qLast]: their scores need no mask; begin = end when there are none.
  std::pair<mlir::Value, mlir::Value>
  wholeKeyBlocks(mlir::OpBuilder &b, mlir::Location loc, mlir::Value qFirst,
                 mlir::Value qLast, int64_t blockKv, mlir::Value kbBegin,
                 mlir::Value kbEnd) const;
  /// Does the band hide pairs below the diagonal (keys more than `lower`
  /// before a query's diagonal)? Then the blocks of keys before, or of
  /// queries after, the whole ones may be cut too.
  bool limitsBelowDiagonal() const { return band.lower >= 0; }
  /// Keys [kLo, kHi) that any query of [qLo, qHi) sees, clamped to [0, Sk);
  /// kHi >= kLo always (an empty range means the queries see nothing). For a
  /// single query (qHi = qLo + 1) the range is exact: no element mask needed.
  std::pair<mlir::Value, mlir::Value>
  visibleKeys(mlir::OpBuilder &b, mlir::Location loc, mlir::Value qLo,
              mlir::Value qHi) const;
  /// Queries [qLo, qHi) that see any key of [kLo, kHi), clamped to [0, Sq).
  std::pair<mlir::Value, mlir::Value>
  visibleQueries(mlir::OpBuilder &b, mlir::Location loc, mlir::Value kLo,
                 mlir::Value kHi) const;

private:
  fmha::MaskBand band;
  mlir::Value seqQ, seqK, offset; ///< index; offset = 0 or Sk - Sq
};

//===----------------------------------------------------------------------===//
// Softmax statistics
//===----------------------------------------------------------------------===//

/// Per-row statistics in the log2 domain: P = exp2(s * scale * log2e -
/// offset) * invSum. lse: offset = lse * log2e, invSum null (no multiply);
/// log2_max_sum: offset = M, invSum = 1 / L. Fully masked rows (lse = -inf,
/// or M = -inf / L = 0) get offset = +inf and invSum = 0 so P = 0, never NaN.
struct RowStats {
  mlir::Value offset;
  mlir::Value invSum;

  /// Reads row (batch, head, query) of `stats` (1 memref for lse, M and L for
  /// log2_max_sum; both [B, Hq, Sq] f32).
  static RowStats load(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::ValueRange stats, mlir::Value batch,
                       mlir::Value head, mlir::Value query);
  /// P from the log2-domain score `sLog2` = s * scale * log2e.
  mlir::Value probability(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value sLog2) const;
  /// The one value c with P = exp2(sLog2 - c): offset - log2(invSum), +inf
  /// for a fully masked row.
  mlir::Value normalizer(mlir::OpBuilder &b, mlir::Location loc) const;
};

/// log2(e), the factor from natural-log to log2-domain scores.
constexpr float kLog2e = 1.44269504088896340736f;

//===----------------------------------------------------------------------===//
// Kernel emission
//===----------------------------------------------------------------------===//

/// One argument of a kernel: the memref the host passes and its role string.
struct KernelArg {
  mlir::Value value;
  std::string role;
};

/// A packed (varlen) batch's offsets (call-site values) and maxima.
struct VarlenBatch {
  mlir::Value cuSeqlensQ, cuSeqlensK;
  int64_t maxSeqlenQ = 0, maxSeqlenK = 0;

  explicit operator bool() const { return static_cast<bool>(cuSeqlensQ); }
  /// B, the number of sequences, at the call site.
  mlir::Value numSequences(mlir::OpBuilder &b, mlir::Location loc) const;
};

/// How a kernel of a packed batch sees one of its arguments: the calling
/// workgroup's sequence (grid z) of it, with a unit batch dim, so a body
/// written for [B, S, ...] memrefs runs on it with batch 0.
struct SequenceView {
  /// Whose offsets and length: the queries' or the keys'.
  bool keys = false;
  /// The packed token dim of the argument, and where the view's unit batch
  /// dim goes: [T, H, D] -> [1, S, H, D] is (0, 0), [Hq, T] -> [1, Hq, S]
  /// is (1, 0), [P, T, H, D] -> [P, 1, S, H, D] is (1, 1).
  unsigned tokenDim = 0, batchDim = 0;
  /// With padding p > 0 sequence b's tokens start at cu[b] + b * p and its
  /// length is rounded up to a multiple of p (scratch padded per sequence).
  int64_t padding = 0;
};

/// What a kernel launches with. `grid` are index values at the call site;
/// `gridExpr` the same sizes as expressions for the runner (see above).
struct KernelLaunch {
  std::string name;
  llvm::SmallVector<KernelArg> args;
  std::array<mlir::Value, 3> grid;
  std::array<std::string, 3> gridExpr;
  /// Lanes per workgroup (x); must be 1 on the host.
  int64_t blockSize = 1;
  /// Workgroup-memory buffers (static shapes, no memory space: the emitter
  /// puts them in #gpu.address_space<workgroup> on a GPU, alloca on the host).
  llvm::SmallVector<mlir::MemRefType> workgroupBuffers;
  /// GPU: carve the buffers out of dynamic workgroup memory
  /// (gpu.dynamic_shared_memory), launched with their total size, which
  /// `rocke.launch` records as `dynamic_shared_bytes`: NVIDIA kernels need it
  /// past 48 KiB (the runner opts in with that size).
  bool dynamicWorkgroupMemory = false;
  /// Values of the symbols beyond the problem sizes that this launch's grid
  /// and scratch-shape expressions use (e.g. BKV, the tiled strategy's KV
  /// block), recorded as `rocke.launch.symbols` so the JSON is self-contained.
  llvm::SmallVector<std::pair<std::string, int64_t>> symbols;
  /// A kernel over a packed batch's sequences (grid z = sequence): it also
  /// takes the offsets, and its body gets `sequenceViews[i]` of argument i
  /// where set (the rest as they are) and batch id 0. Workgroups whose x id
  /// times `exitRows` is at or past their sequence's length (of the keys
  /// with `exitOnKeys`) do nothing (0: every workgroup runs the body).
  VarlenBatch varlen;
  llvm::SmallVector<std::optional<SequenceView>> sequenceViews;
  int64_t exitRows = 0;
  bool exitOnKeys = false;
  /// The GPU kernel gets fmha::kAgprAccumulatorsAttrName
  /// (ChipInfo::agprBackward).
  bool agprAccumulators = false;
};

/// (y, z) pairs (kv heads, batch) whose workgroups a heaviest-first launch
/// runs together: four pairs' Q, dO and dQ accumulator rows stay within the
/// L2 (S = 8192, D = 128: 32 MiB of an H100's 50), near the natural order's
/// two to four concurrent pairs.
constexpr int64_t kHeavyFirstPairs = 4;

/// Launches `launch` heaviest workgroup first, for a kernel whose work per
/// workgroup is monotone along grid x (a causal mask's KV blocks in the
/// backward, falling; its query blocks in the forward, rising): one
/// dimension of X * Y * Z workgroups, which the kernel decodes with
/// heavyFirstIds. The decoded ids are values the kernel keeps, where the
/// hardware's ids could be read again (the D = 128 causal forward's
/// producer warpgroup needs 56 registers with them, 40 without). In the
/// natural order (x fastest) the last workgroups to start can be one pair's
/// heaviest: a list-scheduling model of the causal backward at S = 4096 on
/// 132 SMs ends 6.8 % after a balanced finish, 0.2 % in this order.
void orderHeavyFirst(mlir::OpBuilder &b, mlir::Location loc,
                     KernelLaunch &launch);

/// The (x, y, z) workgroup of a heaviest-first launch's workgroup
/// `linear` (see orderHeavyFirst), for a grid of `grid` (X, Y, Z, as the
/// kernel computes them): groups of kHeavyFirstPairs (y, z) pairs one after
/// another; within a group, for each x from 0 (the heaviest) on, every pair
/// of the group.
llvm::SmallVector<mlir::Value, 3>
heavyFirstIds(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
              std::array<mlir::Value, 3> grid);

/// The softmax statistics as kernel arguments: "lse", or "m" and "l"
/// (log2_max_sum), in the op's order.
void appendStatsArgs(llvm::SmallVectorImpl<KernelArg> &args,
                     mlir::ValueRange stats);
/// A score_mod's captured operands as kernel arguments: "capture0",
/// "capture1", ... in the op's order.
void appendCaptureArgs(llvm::SmallVectorImpl<KernelArg> &args,
                       mlir::ValueRange captures);

/// Alignment of workgroup buffers of 128-byte swizzled atoms, whose swizzle
/// the hardware takes from address bits 7-9.
constexpr int64_t kSwizzledBufferAlignment = 1024;

/// Bytes of `buffers` laid out one after another at 16-byte boundaries (the
/// dynamic workgroup memory a kernel launches with).
int64_t workgroupBufferBytes(llvm::ArrayRef<mlir::MemRefType> buffers);

/// Builds a kernel body at the builder's insertion point. blockIds are the
/// x, y, z workgroup ids (index); a packed batch's kernel, whose arguments
/// are the sequence's views, gets z = 0 and the sequence as a fourth.
/// args are the kernel's memref arguments in KernelLaunch order (global
/// address space on a GPU).
/// The batch index as the fmha op sees it (a score_mod's batch argument):
/// blockIds' z, or a packed batch's sequence.
inline mlir::Value batchIndexOf(mlir::ValueRange blockIds) {
  return blockIds.size() > 3 ? blockIds[3] : blockIds[2];
}

using KernelBodyFn = llvm::function_ref<void(
    mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange blockIds,
    mlir::Value threadId, mlir::ValueRange args,
    mlir::ValueRange workgroupBuffers)>;

/// Emits the kernels replacing one fmha op, in launch order, before the op.
/// GPU: kernels go into `gpu.module @fmha_kernels` (created once; the module
/// becomes a gpu.container_module) as `gpu.func ... kernel` with
/// known_block_size (and known_grid_size when the grid is static), launched
/// by gpu.launch_func. Host: each kernel is a private func.func whose scf.for
/// nest over the grid runs the body with threadId = 0, called in place.
/// Kernel names are made unique within their symbol table.
class KernelEmitter {
public:
  KernelEmitter(mlir::Operation *fmhaOp, KernelTarget target);

  const KernelTarget &getTarget() const { return target; }
  /// Emits `launch` with `body`; fails (diagnostic on the fmha op) on a
  /// malformed launch or, on a GPU, a workgroup or static grid past the
  /// target's launch limits (x < 2^31, y and z < 65536 workgroups).
  mlir::LogicalResult emit(const KernelLaunch &launch, KernelBodyFn body);

  /// Allocates a scratch buffer at the call site (gpu.alloc on a GPU,
  /// memref.alloc on the host) of identity layout; `dynamicSizes` one per
  /// dynamic dim. It is released after the op's last kernel by finish().
  /// Fails (diagnostic on the fmha op) when its size is known here and its
  /// element offsets pass the target's index range, as checkIndexRange does
  /// for operands (a buffer padded to whole blocks, or one per KV block, can
  /// pass it where no operand does).
  mlir::FailureOr<mlir::Value> allocScratch(mlir::MemRefType type,
                                            mlir::ValueRange dynamicSizes);
  /// A scratch buffer with the shape of `like` and element type `elt`.
  mlir::FailureOr<mlir::Value> allocScratchLike(mlir::Value like,
                                                mlir::Type elt);
  /// Frees the scratch buffers after the last launch.
  void finish();

  /// Builder positioned before the fmha op (for call-site values).
  mlir::OpBuilder &callSite() { return builder; }
  /// Defines `name` = `value` in the symbols of every launch of this op
  /// (scratch shapes of lib/Kernels/KernelBuilder.h's roles may use it).
  void defineSymbol(llvm::StringRef name, int64_t value) {
    symbols.emplace_back(name.str(), value);
  }

private:
  mlir::Operation *fmhaOp;
  KernelTarget target;
  mlir::OpBuilder builder;
  int64_t order = 0;
  llvm::SmallVector<mlir::Value> scratch;
  llvm::SmallVector<std::pair<std::string, int64_t>> symbols;
};

/// The packed batch of attention op `op` (none for a dense one), its maxima
/// defined as the launch symbols max_seqlen_q / max_seqlen_k.
template <typename AttentionOp>
VarlenBatch packedBatchOf(AttentionOp op, KernelEmitter &emitter) {
  if (!op.isVarlen())
    return {};
  VarlenBatch varlen{op.getCuSeqlensQ(), op.getCuSeqlensK(),
                     op.getMaxSeqlenQOrDefault(), op.getMaxSeqlenKOrDefault()};
  emitter.defineSymbol("max_seqlen_q", varlen.maxSeqlenQ);
  emitter.defineSymbol("max_seqlen_k", varlen.maxSeqlenK);
  return varlen;
}

//===----------------------------------------------------------------------===//
// Shared small kernels (both strategies)
//===----------------------------------------------------------------------===//

/// Zero-fills `buffer` (any rank, float elements, unit-stride rows) with one
/// lane per element, or per four f32 where `alignedRows` (scratch buffers:
/// their rows start on 16-byte boundaries). `role` is the buffer's role
/// string, `countExpr` its element count as a runner expression (e.g.
/// "B*Sq*Hq*Dqk").
mlir::LogicalResult emitZeroFill(KernelEmitter &emitter, llvm::StringRef name,
                                 mlir::Value buffer, llvm::StringRef role,
                                 llvm::StringRef countExpr, bool alignedRows);

/// Where column `col` of a buffer written by fmha.tile_accumulate with
/// paired_columns lies: 16 * (col / 16) + 4 * (col % 8 / 2) + 2 * (col % 16
/// / 8) + col % 2.
mlir::Value pairedColumn(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value col);

/// Where a [B, S, H, D] f32 accumulator's elements lie in its buffer:
/// row-major as indexed, or head-major with padded rows, [B, H, S,
/// D + padding], where one head's consecutive rows are one run (a
/// workgroup stage's tile of rows, padding included, added by one bulk
/// reduction).
struct AccumLayout {
  bool headMajor = false;
  int64_t padding = 0;
};

/// `accum`'s [B, S, H, D] elements as `layout` places them: the buffer
/// itself, or a strided view of the head-major one without its padding.
mlir::Value accumRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value accum,
                      const AccumLayout &layout);

/// grad = factor * accum converted to grad's element type (truncf), element
/// by element. accum has grad's logical shape, or one leading dimension more:
/// partials (e.g. one per KV block), summed in the order of that index, the
/// same on every run (deterministic). With `varlen`, grad is a packed batch's
/// [T_q, H, D] and `accumView` how a sequence's part of accum is seen (one
/// workgroup row per sequence, the body on [1, S, H, D] views).
/// `accumLayout`: how accum lies in its buffer (accumRows).
/// `pairedColumns`: accum's columns are paired (pairedColumn).
mlir::LogicalResult emitConvert(KernelEmitter &emitter, llvm::StringRef name,
                                mlir::Value accum, llvm::StringRef accumRole,
                                mlir::Value grad, llvm::StringRef gradRole,
                                llvm::StringRef countExpr, float factor = 1.0f,
                                const VarlenBatch &varlen = {},
                                SequenceView accumView = {},
                                AccumLayout accumLayout = {},
                                bool pairedColumns = false);

/// A [B, S, H, D] f32 buffer whose rows a row kernel also zero-fills (the
/// preprocess: the dQ accumulator, one launch fewer): its role, in a packed
/// batch how a sequence sees it, and its layout.
struct ZeroFilledRows {
  mlir::Value buffer;
  std::string role;
  SequenceView view;
  AccumLayout layout;
};

/// FA2 preprocess: delta[b, h, q] = sum_d dO[b, q, h, d] * O[b, q, h, d] into
/// `rowOutput`, the f32 [B, Hq, Sq] buffer of deltas (role "delta:f32:none").
/// Each row takes a cluster of a subgroup's lanes (16-byte runs of it each),
/// `subgroupsPerWorkgroup` subgroups a workgroup (one row on the host); the
/// lanes meet in a clustered subgroup reduction. With the softmax `stats`,
/// `rowOutput` is the [B, Hq, Sq, 2] row record instead (role
/// "row_stats:f32:none:[B,Hq,Sq,2]"): each row's RowStats::normalizer, then
/// its delta, so a kernel reads a row's statistics with one load.
/// With `varlen`, the packed batch's [T_q, Hq, Dv] O / dO, [Hq, T_q] stats
/// and [Hq, T_q, 2] row record (role "row_stats:f32:none:[Hq,Sq,2]"), one
/// grid z per sequence. With `zeroRows`, the same lanes zero-fill row (b, q,
/// h) of that buffer for every q < Sq.
mlir::LogicalResult
emitBwdPreprocess(KernelEmitter &emitter, mlir::Value out, mlir::Value gradOut,
                  mlir::Value rowOutput, int64_t subgroupsPerWorkgroup,
                  mlir::ValueRange stats = {}, const VarlenBatch &varlen = {},
                  const ZeroFilledRows &zeroRows = {});

/// The gradient of attention sinks, dSink[h] = -sum over the rows of head h
/// of exp2(sink[h] log2 e - c) * delta, from the row record of
/// emitBwdPreprocess (c its normalizer, [B, Hq, Sq, 2] or, packed, [Hq,
/// T_q, 2]): one subgroup per head whose lanes stride over the rows and
/// meet in a subgroup reduction, so the sum is in a fixed order
/// (deterministic, no atomics, no zero-fill).
mlir::LogicalResult emitSinkGradient(KernelEmitter &emitter,
                                     mlir::Value rowRecord, mlir::Value sinks,
                                     mlir::Value gradSinks, bool varlen);

} // namespace rocke

#endif // ROCKE_LIB_KERNELS_KERNELBUILDER_H
