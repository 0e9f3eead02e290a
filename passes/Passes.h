//===- Passes.h - rocke-mlir passes and pipelines --------------------------===//
#ifndef ROCKE_PASSES_PASSES_H
#define ROCKE_PASSES_PASSES_H

#include "lib/Kernels/AttentionKernels.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace rocke {

/// fmha-bwd-to-kernels strategies (lib/Kernels/AttentionKernels.h).
enum class BwdStrategy { Tiled, Warp };
/// Where fmha-bwd-to-kernels puts the kernels.
enum class KernelPlacement { Gpu, Host };

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Adds LLVM function attribute `name`=`value` to the passthrough list of
/// `fn` (gpu.func -> llvm.func keeps it) unless it is there.
void addPassthroughAttr(mlir::Operation *fn, llvm::StringRef name,
                        llvm::StringRef value);

/// math.exp2 f32 -> rocdl.exp2 and arcp/afn `1.0 / x` f32 -> rocdl.rcp.
void populateExp2ToRocdlPatterns(mlir::RewritePatternSet &patterns);

/// arith.truncf f32 -> bf16 -> integer round-to-nearest-even (chips without a
/// bf16 conversion instruction).
void populateRocdlTruncBf16Patterns(mlir::RewritePatternSet &patterns);

/// fmha.attention_fwd / attention_bwd -> scalar scf/arith/math/memref loops
/// (the CPU oracle, fmha-lower-to-loops).
void populateLowerToLoopsPatterns(mlir::RewritePatternSet &patterns);

/// fmha.atomic_add -> inline PTX red.global.add.vN.f32 for f32 runs of up to
/// `ptxRedWidth` aligned elements (N = 2, 4; sm_90), memref.atomic_rmw addf
/// for every other element; ptxRedWidth = 1: scalar atomics only
/// (fmha-lower-atomic-add).
void populateLowerAtomicAddPatterns(mlir::RewritePatternSet &patterns,
                                    unsigned ptxRedWidth);

/// fmha.bulk_add -> inline PTX cp.reduce.async.bulk .add.f32 and a commit;
/// fmha.bulk_wait -> nvvm.cp.async.bulk.wait_group 0 {read} (sm_90;
/// fmha-lower-atomic-add).
void populateLowerBulkAddPatterns(mlir::RewritePatternSet &patterns);

/// fmha.mask_fragment -> index comparisons against constants and a select
/// (fmha-lower-masks).
void populateLowerMasksPatterns(mlir::RewritePatternSet &patterns);

/// fmha-lower-tile-copies: the workgroup's tile copies (fmha.tile_copy,
/// tile_copy_async, tile_fetch / tile_place) become each thread's loads and
/// stores; !fmha.fetched values (also carried by scf loops) its vectors.
/// Adds the type conversions to `converter`; `target` learns which ops are
/// left to convert.
void populateLowerTileCopiesPatterns(mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     mlir::ConversionTarget &target);

/// fmha-distribute-tiles: !fmha.tile values become their lanes' fragments
/// (one vector per atom), and the tile ops the code on those fragments. The
/// patterns convert tile-typed scf loops too; `target` learns which ops are
/// left to convert. MFMA products read `mfmaReadBatch` k steps' fragments
/// from workgroup memory, then wait for them once (1: no explicit wait).
/// With `transposedLdsReads` (gfx950), fragments whose k runs down a
/// workgroup buffer's columns are read with ds_read_b64_tr_b16.
void populateDistributeTilesTypeConversion(mlir::TypeConverter &converter);
void populateDistributeTilesPatterns(mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     mlir::ConversionTarget &target,
                                     int64_t mfmaReadBatch,
                                     bool transposedLdsReads);

/// fmha.warpgroup_mma -> wgmma fence, inline PTX wgmma.mma_async per k step,
/// commit and wait (sm_90a).
void populateLowerWarpgroupMmaPatterns(mlir::RewritePatternSet &patterns);

/// fmha.mma -> amdgpu.mfma / nvgpu.mma.sync / host atom calls by atom family
/// (host atoms add functions and stack buffers: apply on a module).
void populateLowerMmaPatterns(mlir::RewritePatternSet &patterns);

/// math.exp2 f32 -> llvm.nvvm.ex2.approx.f32 (fmha-exp2-to-nvvm).
void populateExp2ToNvvmPatterns(mlir::RewritePatternSet &patterns);

/// bf16 nvgpu.mma.sync -> nvvm.mma.sync (fmha-nvgpu-mma-bf16-to-nvvm).
void populateNvgpuMmaBf16Patterns(mlir::RewritePatternSet &patterns);

/// Discardable gpu.func attribute with a kernel's launch facts (a dictionary:
/// order, grid, block, args, lds_bytes, ...), set by the kernel generators.
inline constexpr llvm::StringLiteral kLaunchAttrName = "rocke.launch";
/// Module attribute fmha-record-kernel-abi writes and fmha-dump-binary reads.
inline constexpr llvm::StringLiteral kKernelsAttrName = "rocke.kernels";

/// The passes, as a pass pipeline in order, that lower `op` (an fmha op
/// other than the attention ops) and what it becomes: a tile copy needs
/// "fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,
/// fmha-lower-mma", an fmha.mma "fmha-lower-mma", an fmha.mask_fragment
/// "fmha-lower-masks". For diagnostics about an op a pipeline left.
llvm::StringRef passesToLower(mlir::Operation *op);

/// Registers the named pipelines (fmha-*-pipeline).
void registerPipelines();

} // namespace rocke

#endif
