//===- LowerAtomicAdd.cpp - fmha.atomic_add -> native atomics ------------===//
//
// fmha.atomic_add adds a run of consecutive elements. From sm_90 on, PTX has
// vector reductions (red.global.add.v2/.v4.f32, PTX ISA 8.1) that add two or
// four aligned f32 in one instruction. LLVM 22's NVPTX backend expands an
// atomicrmw fadd <2 x float> into a 64-bit cmpswap loop instead, so they are
// emitted as inline PTX. Everywhere else each element becomes one
// memref.atomic_rmw addf, which every target already lowers (AMD's widest
// f32 atomic is the scalar global_atomic_add_f32, see lib/Target/ChipInfo.h).
// fmha.bulk_add, the bulk-copy unit's reduction (sm_90), has no LLVM
// intrinsic either: inline PTX too.
//
//===----------------------------------------------------------------------===//
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"
#include "lib/Target/ChipInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

namespace rocke {
#define GEN_PASS_DEF_LOWERATOMICADD
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
/// LLVM address space of PTX's .global state space.
constexpr unsigned kPtxGlobalAddressSpace = 1;

/// Element offset of memref[indices] from the memref's aligned pointer:
/// offset + sum(index * stride), static parts as constants. The memref has
/// rank >= 1 (the vector path adds several elements along its last dim).
Value linearIndex(PatternRewriter &rewriter, Location loc,
                  TypedValue<MemRefType> memref, ValueRange indices) {
  auto [strides, offset] = memref.getType().getStridesAndOffset();
  memref::ExtractStridedMetadataOp metadata;
  auto metadataOf = [&]() {
    if (!metadata)
      metadata =
          memref::ExtractStridedMetadataOp::create(rewriter, loc, memref);
    return metadata;
  };
  Value linear;
  auto add = [&](Value term) {
    linear = linear ? arith::AddIOp::create(rewriter, loc, linear, term) : term;
  };
  if (ShapedType::isDynamic(offset))
    add(metadataOf().getOffset());
  else if (offset != 0)
    add(arith::ConstantIndexOp::create(rewriter, loc, offset));
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value term = index;
    if (ShapedType::isDynamic(strides[dim])) {
      term = arith::MulIOp::create(rewriter, loc, index,
                                   metadataOf().getStrides()[dim]);
    } else if (strides[dim] != 1) {
      Value stride =
          arith::ConstantIndexOp::create(rewriter, loc, strides[dim]);
      term = arith::MulIOp::create(rewriter, loc, index, stride);
    }
    add(term);
  }
  return linear;
}

/// LLVM pointer to memref[indices] of a global-memory memref.
Value globalElementPointer(PatternRewriter &rewriter, Location loc,
                           TypedValue<MemRefType> memref, ValueRange indices) {
  Type i64 = rewriter.getI64Type();
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, memref);
  Value address = arith::IndexCastOp::create(rewriter, loc, i64, aligned);
  auto pointerType =
      LLVM::LLVMPointerType::get(rewriter.getContext(), kPtxGlobalAddressSpace);
  Value base = LLVM::IntToPtrOp::create(rewriter, loc, pointerType, address);
  Value linear = linearIndex(rewriter, loc, memref, indices);
  Value offset = arith::IndexCastOp::create(rewriter, loc, i64, linear);
  return LLVM::GEPOp::create(
      rewriter, loc, pointerType, memref.getType().getElementType(), base,
      ValueRange{offset}, LLVM::GEPNoWrapFlags::inbounds);
}

/// Whether `memref` lives in global memory (the kernels' arguments).
bool isGlobal(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Global;
}

struct LowerAtomicAdd : OpRewritePattern<rocke::fmha::AtomicAddOp> {
  LowerAtomicAdd(MLIRContext *ctx, unsigned ptxRedWidth)
      : OpRewritePattern(ctx), ptxRedWidth(ptxRedWidth) {}

  LogicalResult matchAndRewrite(rocke::fmha::AtomicAddOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TypedValue<VectorType> value = op.getValue();
    int64_t width = value.getType().getNumElements();
    int64_t chunk = redChunk(op);
    Value address; // memref[indices] in the global space, built once
    for (int64_t first = 0; first < width;) {
      SmallVector<Value> elements;
      int64_t n = first + chunk <= width ? chunk : 1;
      for (int64_t i = first; i < first + n; ++i)
        elements.push_back(vector::ExtractOp::create(rewriter, loc, value,
                                                     ArrayRef<int64_t>{i}));
      if (n == 1) {
        SmallVector<Value> indices(op.getIndices());
        if (first > 0) {
          Value step = arith::ConstantIndexOp::create(rewriter, loc, first);
          indices.back() =
              arith::AddIOp::create(rewriter, loc, indices.back(), step);
        }
        memref::AtomicRMWOp::create(rewriter, loc, arith::AtomicRMWKind::addf,
                                    elements.front(), op.getMemref(), indices);
      } else {
        if (!address)
          address = globalElementPointer(rewriter, loc, op.getMemref(),
                                         op.getIndices());
        emitRed(rewriter, loc, address, first, elements);
      }
      first += n;
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Elements one PTX vector reduction adds: the widest power of two up to
  /// ptxRedWidth that the alignment allows, for f32 in global memory
  /// (#gpu.address_space<global>); 1 when there is none.
  int64_t redChunk(rocke::fmha::AtomicAddOp op) const {
    MemRefType type = op.getMemref().getType();
    if (ptxRedWidth < 2 || !type.getElementType().isF32() || !isGlobal(type))
      return 1;
    constexpr int64_t f32Bytes = 4;
    int64_t aligned = op.getAlignment().value_or(f32Bytes) / f32Bytes;
    int64_t limit = std::min<int64_t>(
        {ptxRedWidth, aligned, op.getValue().getType().getNumElements()});
    return llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(limit, 1)));
  }

  /// red.global.add.vN.f32 of `elements` at address[first]: relaxed at gpu
  /// scope, PTX's defaults (the sums are read only by later kernels).
  static void emitRed(PatternRewriter &rewriter, Location loc, Value address,
                      int64_t first, ArrayRef<Value> elements) {
    Value at = address;
    if (first > 0)
      at = LLVM::GEPOp::create(
          rewriter, loc, address.getType(), rewriter.getF32Type(), address,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(first)},
          LLVM::GEPNoWrapFlags::inbounds);
    std::string registers, constraints = "l";
    for (size_t i = 0; i < elements.size(); ++i) {
      registers += (i ? ", $" : "$") + std::to_string(i + 1);
      constraints += ",f";
    }
    std::string asmString = "red.global.add.v" +
                            std::to_string(elements.size()) + ".f32 [$0], {" +
                            registers + "};";
    SmallVector<Value> operands{at};
    operands.append(elements.begin(), elements.end());
    LLVM::InlineAsmOp::create(rewriter, loc, TypeRange{}, operands, asmString,
                              constraints, /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              /*asm_dialect=*/LLVM::AsmDialectAttr(),
                              /*operand_attrs=*/ArrayAttr());
  }

  unsigned ptxRedWidth;
};

/// Address of workgroup memref[indices] in PTX's .shared::cta window (32
/// bits, as a shared-memory operand register takes it).
Value sharedElementAddress(PatternRewriter &rewriter, Location loc,
                           TypedValue<MemRefType> memref, ValueRange indices) {
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, memref);
  Value linear = linearIndex(rewriter, loc, memref, indices);
  int64_t bytes = memref.getType().getElementTypeBitWidth() / 8;
  Value offset = arith::MulIOp::create(
      rewriter, loc, linear, arith::ConstantIndexOp::create(rewriter, loc, bytes));
  Value address = arith::AddIOp::create(rewriter, loc, base, offset);
  return arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                    address);
}

/// One bulk reduction, into the work-item's open bulk async-group.
struct LowerBulkAdd : OpRewritePattern<rocke::fmha::BulkAddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(rocke::fmha::BulkAddOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dest = globalElementPointer(rewriter, loc, op.getDest(),
                                      op.getDestIndices());
    Value source = sharedElementAddress(rewriter, loc, op.getSource(),
                                        op.getSourceIndices());
    Value bytes = arith::ConstantIntOp::create(rewriter, loc,
                                               rewriter.getI32Type(),
                                               op.getCount() * 4);
    LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{}, ValueRange{dest, source, bytes},
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], "
        "[$1], $2;",
        "l,r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerBulkCommit : OpRewritePattern<rocke::fmha::BulkCommitOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(rocke::fmha::BulkCommitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op);
    return success();
  }
};

struct LowerBulkWait : OpRewritePattern<rocke::fmha::BulkWaitOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(rocke::fmha::BulkWaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, static_cast<int32_t>(op.getPending()),
        /*read=*/rewriter.getUnitAttr());
    return success();
  }
};

struct LowerAtomicAddPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::LowerAtomicAddBase<LowerAtomicAddPass>> {
  using Base::Base;
  void runOnOperation() override {
    unsigned ptxRedWidth = 1;
    bool bulkReduce = false;
    if (!chip.empty()) {
      std::optional<rocke::ChipInfo> info = rocke::lookupChip(chip);
      if (!info) {
        emitError(getOperation()->getLoc())
            << "fmha-lower-atomic-add: unknown chip '" << chip << "'";
        return signalPassFailure();
      }
      if (info->isNvidia())
        ptxRedWidth = info->atomicAddF32Width;
      bulkReduce = info->asyncBulkReduce;
    }
    if (!bulkReduce) {
      WalkResult bulk = getOperation()->walk([&](Operation *op) {
        if (!isa<rocke::fmha::BulkAddOp, rocke::fmha::BulkCommitOp,
                 rocke::fmha::BulkWaitOp>(op))
          return WalkResult::advance();
        op->emitError() << "fmha-lower-atomic-add: chip '"
                        << (chip.empty() ? "(host)" : chip.getValue())
                        << "' has no bulk reductions (sm_90 and newer do)";
        return WalkResult::interrupt();
      });
      if (bulk.wasInterrupted())
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    rocke::populateLowerAtomicAddPatterns(patterns, ptxRedWidth);
    if (bulkReduce)
      rocke::populateLowerBulkAddPatterns(patterns);
    // One walk, no folding: the rest of the IR stays as it is.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void rocke::populateLowerAtomicAddPatterns(RewritePatternSet &patterns,
                                           unsigned ptxRedWidth) {
  patterns.add<LowerAtomicAdd>(patterns.getContext(), ptxRedWidth);
}

void rocke::populateLowerBulkAddPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBulkAdd, LowerBulkCommit, LowerBulkWait>(
      patterns.getContext());
}
