//===- AttentionKernels.h - fmha ops -> kernels builders --------*- C++ -*-===//
//
// The builders of fmha-bwd-to-kernels (its two strategies, issue 4) and of
// fmha-fwd-to-kernels. Each emits, before `op`, the scratch buffers, kernels
// and launches that compute the op's results (lib/Kernels/KernelBuilder.h), and
// leaves `op` in place for the pass to erase. On failure it has emitted a
// diagnostic on `op`; what it already emitted is discarded with the failed
// pass.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_KERNELS_ATTENTIONKERNELS_H
#define ROCKE_LIB_KERNELS_ATTENTIONKERNELS_H

#include "lib/Target/ChipInfo.h"
#include "lib/Kernels/KernelBuilder.h"

#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace rocke {
namespace fmha {
class AttentionBwdOp;
class AttentionFwdOp;
} // namespace fmha

/// How the tiled strategy holds score tiles: S^T [kv x q] or S [q x kv]. Auto
/// takes the first whose accumulators feed the next product (S^T on mma.sync
/// and the host, S on MFMA); forcing one on the host runs the other targets'
/// schedule on the CPU.
enum class ScoreLayout { Auto, KvByQ, QByKv };

/// How the tiled strategy stages the operands of its products. Products
/// contracting over head dims read Q and dO along their rows; those
/// contracting over queries (dV, dK) and keys (dQ) read along the columns.
///   TransposingReads: one workgroup copy of Q, dO and K; column reads use
///     the atom's transposing load (ldmatrix.trans, or gfx950's
///     ds_read_b64_tr_b16 with ChipInfo::transposedLdsReads) or gather
///     elements.
///   TransposedCopies: Q and dO are staged as rows and transposed, and the
///     subgroup's K fragments (of S and of dQ) stay in registers, so every
///     workgroup-memory read runs along a row (atoms such as MFMA that read
///     operands along k only, and have the registers for it).
/// Auto: TransposedCopies for MFMA on chips without transposed LDS reads,
/// TransposingReads otherwise; forcing TransposedCopies on the host runs
/// the gfx90a / gfx942 schedule on the CPU.
enum class OperandStaging { Auto, TransposingReads, TransposedCopies };

/// How the tiled main kernel fetches the next query block's Q and dO rows
/// while it works on the current one.
///   Registers: global loads into registers before dQ, stored to workgroup
///     memory at the top of the next iteration.
///   AsyncCopies: 16-byte cp.async copies (nvgpu.device_async_copy) straight
///     into the other half of double-buffered Q / dO tiles, issued at the top
///     of the iteration and waited for at the top of the next (NVIDIA).
/// Auto: AsyncCopies with warpgroup products (WarpgroupMma) where the tiles
/// allow it, else Registers.
enum class QueryPipelining { Auto, Registers, AsyncCopies };

/// How the tiled kernels issue their products (warpgroup-mma for the
/// backward's, fwd-warpgroup-mma for the forward's S and O).
///   Off: every subgroup multiplies on its own (mma.sync, MFMA), reading its
///     B fragments from workgroup memory.
///   On: four subgroups issue them together as warpgroup products that read
///     B once from workgroup memory (wgmma, sm_90a); the operands read there
///     are staged as 8-row atoms (WarpgroupLayout).
/// Auto: On where the chip has warpgroup products and the tiles allow them.
enum class WarpgroupMma { Auto, Off, On };

/// How the workgroup buffers that warpgroup products read are laid out
/// (fmha::atomRowBytes; warpgroup-layout for the backward's,
/// fwd-warpgroup-layout for the forward's).
///   CoreMatrices: atoms of 8 rows of 16 bytes, no swizzle.
///   Swizzle128B: atoms of 8 rows of 128 bytes, their 16-byte chunks
///     swizzled by the row (the layout TMA copies write); head dims in whole
///     128-byte rows.
/// Auto: Swizzle128B where the head dims allow it, else CoreMatrices (on an
/// H100 the swizzled forward ran 1.39-1.58x the core matrices' speed, the
/// backward 1.10-1.22x: docs/BENCHMARKS.md run 38).
enum class WarpgroupLayout { Auto, CoreMatrices, Swizzle128B };

/// How the forward fetches the K and V blocks.
///   Synchronous: each block is copied into workgroup memory at the top of
///     its iteration, the subgroups waiting for it.
///   Registers: the next block's rows are loaded into registers while this
///     one computes (fmha-pipeline-tile-fetches) and stored to workgroup
///     memory at the top of the next iteration.
///   AsyncCopies: 16-byte cp.async copies (nvgpu.device_async_copy) of the
///     next block into the other half of double-buffered K / V tiles while
///     this one computes (NVIDIA; V as rows, the mma.sync schedule).
///   ProducerWarpgroup: one more warpgroup, the producer, copies each block
///     into a slot of those tiles by cp.async and signals it on an
///     mbarrier; the computing warpgroups wait for it there and hand the
///     slot back on another, so no workgroup barrier ties them together in
///     the loop, and take the producer's registers (setmaxnreg). The
///     forward with warpgroup products, sm_90a.
/// Auto: AsyncCopies where the chip and tiles allow it (ProducerWarpgroup
/// for two computing warpgroups at Dv <= 128 on 128-byte swizzled rows),
/// else Registers where the
/// chip has the registers for it (ChipInfo::kvFetchAhead), else
/// Synchronous.
enum class KvPipelining {
  Auto,
  Synchronous,
  Registers,
  AsyncCopies,
  ProducerWarpgroup,
};

/// How the forward's computing warpgroups share the matrix cores when a
/// producer warpgroup feeds them (KvPipelining::ProducerWarpgroup).
///   Independent: each runs its loop on its own.
///   PingPong: they take turns issuing their blocks' score products (named
///     barriers), so that one's softmax runs while the other's products do.
/// Auto: PingPong where the P V products are deferred (PvSchedule), else
/// Independent.
enum class WarpgroupSchedule { Auto, Independent, PingPong };

/// When the forward's warpgroups issue a KV block's O += P V product (with
/// a producer warpgroup, KvPipelining::ProducerWarpgroup).
///   SameBlock: in the block's own iteration, after its softmax.
///   NextBlock: right after the next block's score product, so that it runs
///     during that block's softmax (FlashAttention-3's intra-warpgroup
///     overlap; one score slice a block).
/// Auto: NextBlock with a producer warpgroup where fwd-kv-slices is left to
/// auto (whole blocks), else SameBlock.
enum class PvSchedule { Auto, SameBlock, NextBlock };

/// How the tiled kernels (backward and forward) apply the mask to the score
/// blocks of their loops.
///   WholeBlockLoops: the blocks the band or the sequence end cuts run in
///     loops of their own with fmha.tile_mask, the whole ones in one without.
///   PerBlockBranch: one loop; each subgroup branches on whether its block
///     is cut.
/// Auto: the chip's (ChipInfo::wholeBlockLoops; the host: WholeBlockLoops).
enum class MaskBlocks { Auto, WholeBlockLoops, PerBlockBranch };

/// How the tiled backward adds each query block's dQ into its f32
/// accumulator (dq-accumulation).
///   Atomics: every lane adds its registers (red.global.add, or one atomic
///     an element), right after dQ's product.
///   BulkReduce: the workgroup writes the block's dQ into workgroup memory,
///     and after the next block's first barrier the bulk-copy unit adds it
///     in one operation (fmha.bulk_add, cp.reduce.async.bulk) to the
///     head-major accumulator, off the threads' memory pipe; its reads are
///     waited for before the dS barrier. Warpgroup
///     products on chips with bulk reductions (ChipInfo::asyncBulkReduce),
///     not with deterministic=true (which stores partials instead).
///     The stage has one slot, or two (dq-stage-slots=2): then block i
///     writes slot i mod 2 and the reads of block i - 2's rows are waited
///     for instead, which had a block and a half to finish.
/// Auto: BulkReduce with one slot where it may be and the stage fits beside
/// the tiles (D = 64 and 128 on sm_90a); else Atomics.
enum class DqAccumulation { Auto, Atomics, BulkReduce };

/// Options of fmha-bwd-to-kernels shared by both strategies; the forward
/// reads the target, chip, atom, tile and warpgroup fields.
struct AttentionKernelOptions {
  KernelTarget target;
  /// The chip the kernels are for (atoms, workgroup memory, tile defaults);
  /// none: a generic target of `target.subgroupSize` lanes.
  std::optional<ChipInfo> chip;
  /// Matrix atom name of lib/Target/FragmentLayout ("auto": chosen by the strategy).
  std::string matrixAtom = "auto";
  /// Tile sizes and subgroups per workgroup (tiled strategy); 0 = chosen
  /// from the chip and head dims.
  int64_t blockQ = 0, blockKv = 0, numWarps = 0;
  /// The forward's score slices per KV block (fwd-kv-slices); 0 = auto.
  int64_t kvSlices = 0;
  ScoreLayout scoreLayout = ScoreLayout::Auto;
  OperandStaging operandStaging = OperandStaging::Auto;
  QueryPipelining queryPipelining = QueryPipelining::Auto;
  WarpgroupMma warpgroupMma = WarpgroupMma::Auto;
  WarpgroupLayout warpgroupLayout = WarpgroupLayout::Auto;
  KvPipelining kvPipelining = KvPipelining::Auto;
  WarpgroupSchedule warpgroupSchedule = WarpgroupSchedule::Auto;
  PvSchedule pvSchedule = PvSchedule::Auto;
  MaskBlocks maskBlocks = MaskBlocks::Auto;
  DqAccumulation dqAccumulation = DqAccumulation::Auto;
  /// Slots of BulkReduce's dQ stage: 1, or 2 (a double buffer, asked for
  /// with BulkReduce; not yet timed on a GPU, so never the default).
  int64_t dqStageSlots = 1;
};

/// One subgroup per (batch, query token, query head); lanes split the head
/// dims, dK/dV by f32 atomics (lib/Kernels/WarpBwdKernels.cpp).
mlir::LogicalResult buildWarpBwdKernels(fmha::AttentionBwdOp op,
                                        const AttentionKernelOptions &options);

/// FlashAttention-2 backward: preprocess, KV-block main kernel, dQ
/// postprocess (lib/Kernels/TiledBwdKernels.cpp).
mlir::LogicalResult buildTiledBwdKernels(fmha::AttentionBwdOp op,
                                         const AttentionKernelOptions &options);

/// FlashAttention-2 forward: one workgroup per (query block, query head,
/// batch), online softmax over the KV blocks the mask lets through
/// (lib/Kernels/TiledFwdKernels.cpp).
mlir::LogicalResult buildTiledFwdKernels(fmha::AttentionFwdOp op,
                                         const AttentionKernelOptions &options);

/// The forward's tile options (`options` as buildTiledFwdKernels takes
/// them) against what it accepts whatever the problem: their bounds, and
/// tiles that divide into the chip's atoms. A diagnostic on `anchor` when
/// they fail, so a module without a forward checks them too.
mlir::LogicalResult checkFwdTileOptions(mlir::Operation *anchor,
                                        const AttentionKernelOptions &options);

} // namespace rocke

#endif // ROCKE_LIB_KERNELS_ATTENTIONKERNELS_H
