//===- PassesToLower.cpp - which passes lower a leftover fmha op ----------===//
//
// The fmha kernel ops (tiles, copies, products, masks, atomics) are lowered
// by a chain of passes after fmha-bwd-to-kernels. A tool that meets one left
// over (rocke-run after --lowering, the finishes' fmha-record-kernel-abi)
// names the passes it still needs, in one wording.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"

using namespace mlir;
using namespace rocke::fmha;

llvm::StringRef rocke::passesToLower(Operation *op) {
  if (isa<TileCopyOp, TileCopyAsyncOp, TileFetchOp, TilePlaceOp>(op))
    return "fmha-lower-tile-copies,fmha-split-workgroup-tiles,"
           "fmha-distribute-tiles,fmha-lower-mma";
  if (isa<MmaOp>(op))
    return "fmha-lower-mma";
  if (isa<MaskFragmentOp>(op))
    return "fmha-lower-masks";
  if (isa<AtomicAddOp, BulkAddOp, BulkCommitOp, BulkWaitOp>(op))
    return "fmha-lower-atomic-add";
  if (isa<WarpgroupMmaOp, WarpgroupWaitOp>(op))
    return "fmha-lower-warpgroup-mma";
  // The tile ops and the fmha.yield of a tile_map body.
  return "fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma";
}
