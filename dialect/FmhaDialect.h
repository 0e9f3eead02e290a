//===- FmhaDialect.h - fmha dialect ---------------------------------------===//
#ifndef ROCKE_DIALECT_FMHADIALECT_H
#define ROCKE_DIALECT_FMHADIALECT_H

#include "dialect/Mask.h"
#include "lib/Target/FragmentLayout.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/FmhaDialect.h.inc"
#include "dialect/FmhaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/FmhaAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/FmhaTypes.h.inc"

namespace rocke::fmha {
/// Fails on an attribute `op` does not define, dialect-prefixed names (with
/// a '.') aside.
mlir::LogicalResult verifyKnownAttributes(mlir::Operation *op);

/// The ODS trait Fmha_KnownAttributesOnly.
template <typename ConcreteType>
class KnownAttributesOnly
    : public mlir::OpTrait::TraitBase<ConcreteType, KnownAttributesOnly> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyKnownAttributes(op);
  }
};
} // namespace rocke::fmha

#define GET_OP_CLASSES
#include "dialect/FmhaOps.h.inc"

namespace rocke::fmha {
/// Head dims the lowerings support (Dqk and Dv).
bool isSupportedHeadDim(int64_t d);
/// A memref whose innermost dimension has unit stride: a row's consecutive
/// elements are one vector.
bool hasUnitInnerStride(mlir::MemRefType type);
/// A !fmha.tile split over subgroups (the workgroup's tile).
bool isWorkgroupTile(mlir::Type type);
/// Workgroup buffers that warpgroup products read are grids of 8-row atoms,
/// [R/8][C/W][8][W] (a slot dimension may come first): dense core matrices
/// (rows of W elements = 16 bytes, no swizzle), or rows of 128 bytes whose
/// 16-byte chunks are permuted by the row, chunk j of row i stored at
/// j ^ (i % 8): the 128-byte swizzle that wgmma descriptors (and TMA copies)
/// share, whose writes of a row's chunks by 8 work-items hit every bank once.
/// The bytes of an atom's row (16 or 128) of such a buffer, else 0.
int64_t atomRowBytes(mlir::MemRefType type);
/// Discardable unit attribute of a memref.load in a kernel whose memory no
/// work-item writes while the kernel runs (a packed batch's sequence
/// offsets): work-items loading it at the same indices get the same value,
/// which fmha-place-workgroup-barriers takes as shared where the indices are.
inline constexpr llvm::StringLiteral kWorkgroupUniformAttrName =
    "rocke.workgroup_uniform";
/// Discardable unit attribute of an scf.for whose body interleaves matrix
/// products with exponentials (the forward's KV loop): a schedule hint that
/// fmha-rocdl-sched-hints turns into LLVM's MFMA / exp interleaving on AMD
/// chips. Other targets drop it.
inline constexpr llvm::StringLiteral kMfmaExpLoopAttrName =
    "rocke.mfma_exp_loop";
/// Discardable unit attribute of a gpu.func that keeps more registers live
/// than a lane's arch VGPRs (KernelLaunch::agprAccumulators):
/// fmha-rocdl-sched-hints lets LLVM put its MFMA accumulators in AGPRs and
/// schedule it for registers. Other targets drop it.
inline constexpr llvm::StringLiteral kAgprAccumulatorsAttrName =
    "rocke.agpr_accumulators";
} // namespace rocke::fmha

#endif
