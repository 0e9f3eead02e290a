//===- LowerTileCopies.cpp - cooperative tile copies -> per-thread code
//----===//
//
// The copy stage of the tiled lowering: the workgroup's copies of Q, K, V
// and dO rows into workgroup memory (fmha.tile_copy, tile_copy_async,
// tile_fetch / tile_place) become each thread's part of them. A tile is cut
// into chunks (one vector per row of a chunk, !fmha.fetched's `chunk`);
// chunk p goes to thread p % threads, so consecutive threads read
// consecutive columns of a row and global reads coalesce.
//  - tile_copy: a loop over the thread's chunks, each loaded and stored;
//  - tile_copy_async: one 16-byte nvgpu.device_async_copy per chunk, rows
//    past the end zero-filled, in one group;
//  - tile_fetch / tile_place: the loads and the stores apart, so a loop can
//    carry the next block's rows in registers (!fmha.fetched becomes the
//    thread's vectors, also in scf loops);
//  - a row of a record that may lie past the end (a 1 x N
//    vector.transfer_read whose row may be out of bounds: a query row's
//    statistics): a bounds check and one vector load.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"
#include "lib/Kernels/Fragments.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace rocke {
#define GEN_PASS_DEF_LOWERTILECOPIES
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using namespace rocke;
using fmha::FetchedType;

namespace {

/// How a copy cuts its [rows x cols] tile: chunks of chunkRows x chunkCols,
/// chunk p to thread p % threads, numbered along the rows or in core-matrix
/// order (!fmha.fetched).
struct Chunking {
  int64_t rows, cols, chunkRows, chunkCols, threads;
  Type elt;
  bool coreMatrixOrder;

  static Chunking of(FetchedType t) {
    return {t.getRows(),           t.getCols(),    t.getChunkRows(),
            t.getChunkCols(),      t.getThreads(), t.getElementType(),
            t.getCoreMatrixOrder()};
  }
  /// A whole copy (tile_copy, tile_copy_async): into core matrices in
  /// their order, else along the rows (into 128-byte swizzled rows too: 8
  /// work-items write a row's chunks to every bank once). Unlike a fetched
  /// tile's, its chunks need not split evenly over the threads.
  static Chunking forCopy(MemRefType source, int64_t rows, int64_t threads,
                          Value dst, Value dstT) {
    SmallVector<int64_t, 2> chunk =
        FetchedType::chunkForCopy(source, rows, threads, bool(dstT));
    return {rows,
            source.getDimSize(3),
            chunk[0],
            chunk[1],
            threads,
            source.getElementType(),
            dst && fmha::atomRowBytes(cast<MemRefType>(dst.getType())) == 16};
  }
  int64_t numChunks() const { return rows / chunkRows * (cols / chunkCols); }
  int64_t chunksPerRow() const { return cols / chunkCols; }
  VectorType vectorType() const { return VectorType::get({chunkCols}, elt); }
};

/// Is `memref` read through an AMD buffer descriptor, whose reads past its
/// size return zeros (a rows' view the forward bounds at the sequence's end:
/// TileCopier::rowsBuffer)?
bool readsZerosPastSize(Value memref) {
  auto space = dyn_cast_or_null<amdgpu::AddressSpaceAttr>(
      cast<MemRefType>(memref.getType()).getMemorySpace());
  return space && space.getValue() == amdgpu::AddressSpace::FatRawBuffer;
}

/// One thread's part of a cooperative copy of rows [row0, row0 + rows) of
/// head `head` of a [B, S, H, D] memref into the first D columns of a [rows
/// x (D + pad)] workgroup tile `dst` (after a slot index with `slot`), or
/// into a tile of atoms [rows/8][D/W][8][W], and / or its transpose
/// into the first `rows` columns of a [D x (rows + pad)] one `dstT`.
class ThreadCopy {
public:
  ThreadCopy(Value src, Value batch, Value head, Value seqLen, Chunking tile,
             Value tid, bool alignedRows, bool tailUnspecified)
      : src(src), batch(batch), head(head),
        seqLen(src && readsZerosPastSize(src) ? Value() : seqLen), tile(tile),
        tid(tid), alignedRows(alignedRows), zeroPastEnd(!tailUnspecified) {}

  /// Where the chunks go; `dst` may be slotted ([2 x ...]).
  void setDestinations(Value dstValue, Value dstTValue) {
    dst = dstValue;
    dstT = dstTValue;
  }

  /// Copies the tile now: the thread's chunks in a loop (threads past the
  /// last chunk copy nothing).
  void copy(OpBuilder &b, Location loc, Value row0) const {
    Value end = constIndex(b, loc, tile.numChunks());
    Value step = constIndex(b, loc, tile.threads);
    auto loop = scf::ForOp::create(b, loc, tid, end, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value chunk = loop.getInductionVar();
    SmallVector<Value> vals = loadChunk(b, loc, chunk, row0);
    storeChunk(b, loc, chunk, vals);
  }

  /// The thread's chunks, in registers.
  SmallVector<Value> load(OpBuilder &b, Location loc, Value row0) const {
    SmallVector<Value> vals;
    for (int64_t i = 0; i < chunksPerThread(); ++i)
      vals.append(loadChunk(b, loc, chunkOf(b, loc, i), row0));
    return vals;
  }

  /// Stores what load() read, the last-loaded chunk first: loads complete
  /// in order, so the first store's wait covers them all.
  void store(OpBuilder &b, Location loc, ValueRange vals) const {
    int64_t chunkRows = tile.chunkRows;
    for (int64_t i = chunksPerThread() - 1; i >= 0; --i)
      storeChunk(b, loc, chunkOf(b, loc, i),
                 vals.slice(i * chunkRows, chunkRows));
  }

  /// The thread's chunks as 16-byte nvgpu.device_async_copy ops into slot
  /// `slot` of `dst`; rows at or past `rowEnd` read nothing and are
  /// zero-filled. Returns their group.
  Value issueAsync(OpBuilder &b, Location loc, Value row0, Value rowEnd,
                   Value slot) const {
    int64_t width = tile.chunkCols;
    Value cWidth = constIndex(b, loc, width);
    Value none = constIndex(b, loc, 0);
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    SmallVector<Value> tokens;
    // Where the threads cover whole rows of chunks, a thread's i-th chunk
    // sits i * threads / chunksPerRow chunk rows below its first, in the
    // same columns: constant offsets from one position (the addresses then
    // fold into the copies' immediates instead of living in registers).
    int64_t perRow = tile.chunksPerRow();
    bool wholeRows = !tile.coreMatrixOrder && tile.threads % perRow == 0;
    std::optional<std::pair<Value, Value>> first;
    if (wholeRows)
      first = coords(b, loc, tid);
    for (int64_t i = 0; i < chunksPerThread(); ++i) {
      auto [r, c] =
          first ? std::pair{addIdx(b, loc, first->first,
                                   i * tile.threads / perRow * tile.chunkRows),
                            first->second}
                : coords(b, loc, chunkOf(b, loc, i));
      Value row = arith::AddIOp::create(b, loc, row0, r);
      Value valid = cmp(b, loc, arith::CmpIPredicate::ult, row, rowEnd);
      Value srcElements = arith::SelectOp::create(b, loc, valid, cWidth, none);
      SmallVector<Value> at{slot};
      at.append(dstIndices(b, loc, r, c));
      auto copy = nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, dst, at, src, ValueRange{batch, row, head, c},
          b.getIndexAttr(width), srcElements, b.getUnitAttr());
      tokens.push_back(copy.getAsyncToken());
    }
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens);
  }

private:
  int64_t chunksPerThread() const { return tile.numChunks() / tile.threads; }
  Value chunkOf(OpBuilder &b, Location loc, int64_t i) const {
    return addIdx(b, loc, tid, i * tile.threads);
  }
  bool atomDst() const {
    return dst && fmha::atomRowBytes(cast<MemRefType>(dst.getType()));
  }
  /// (first row, first column) of a chunk in the tile.
  std::pair<Value, Value> coords(OpBuilder &b, Location loc,
                                 Value chunk) const {
    Value perRow = constIndex(b, loc, tile.chunksPerRow());
    if (tile.coreMatrixOrder) {
      Value c8 = constIndex(b, loc, 8);
      Value inMatrix = arith::RemUIOp::create(b, loc, chunk, c8);
      Value matrix = arith::DivUIOp::create(b, loc, chunk, c8);
      Value matrixRow = arith::DivUIOp::create(b, loc, matrix, perRow);
      Value r = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, matrixRow, c8), inMatrix);
      Value matrixCol = arith::RemUIOp::create(b, loc, matrix, perRow);
      Value c = arith::MulIOp::create(b, loc, matrixCol, c8);
      return {r, c};
    }
    Value rowChunk = arith::DivUIOp::create(b, loc, chunk, perRow);
    Value r = arith::MulIOp::create(b, loc, rowChunk,
                                    constIndex(b, loc, tile.chunkRows));
    Value inRow = arith::RemUIOp::create(b, loc, chunk, perRow);
    Value c = arith::MulIOp::create(b, loc, inRow,
                                    constIndex(b, loc, tile.chunkCols));
    return {r, c};
  }
  /// Where element (r, c) of the tile is in `dst` (less a slot index).
  SmallVector<Value> dstIndices(OpBuilder &b, Location loc, Value r,
                                Value c) const {
    if (!atomDst())
      return {r, c};
    return atomIndices(b, loc, cast<MemRefType>(dst.getType()), r, c);
  }
  /// The chunk's rows, one vector each.
  SmallVector<Value> loadChunk(OpBuilder &b, Location loc, Value chunk,
                               Value row0) const {
    auto [r, c] = coords(b, loc, chunk);
    VectorType vecType = tile.vectorType();
    bool unitInner = hasUnitInnerStride(src);
    // GPU kernels ask for 16-byte aligned base pointers and outer strides
    // in multiples of 16 bytes (runners check), so a row's vector is
    // aligned to its size up to 16 bytes; the host promises nothing.
    llvm::MaybeAlign align;
    if (alignedRows && unitInner)
      align = llvm::Align(std::min<int64_t>(
          16, tile.chunkCols * tile.elt.getIntOrFloatBitWidth() / 8));
    SmallVector<Value> vals;
    for (int64_t i = 0; i < tile.chunkRows; ++i) {
      Value row = arith::AddIOp::create(b, loc, row0, addIdx(b, loc, r, i));
      vals.push_back(loadRowRun(b, loc, src, batch, row, head, c, vecType,
                                unitInner, align, seqLen, zeroPastEnd));
    }
    return vals;
  }
  void storeChunk(OpBuilder &b, Location loc, Value chunk,
                  ValueRange vals) const {
    auto [r, c] = coords(b, loc, chunk);
    // The last-loaded row first (see store()).
    for (int64_t i = int64_t(vals.size()) - 1; dst && i >= 0; --i)
      vector::StoreOp::create(b, loc, vals[i], dst,
                              dstIndices(b, loc, addIdx(b, loc, r, i), c));
    if (!dstT)
      return;
    // Column j of the square chunk is row c + j of the transpose.
    SmallVector<Value> rowVals(vals);
    for (int64_t j = 0; j < tile.chunkCols; ++j) {
      SmallVector<int64_t> picks;
      for (int64_t i = 0; i < tile.chunkRows; ++i)
        picks.push_back(i * tile.chunkCols + j);
      Value column = gatherElements(b, loc, rowVals, picks);
      vector::StoreOp::create(b, loc, column, dstT,
                              ValueRange{addIdx(b, loc, c, j), r});
    }
  }

  Value src, batch, head, seqLen;
  Chunking tile;
  Value tid;
  bool alignedRows, zeroPastEnd;
  Value dst, dstT;
};

struct LowerCopy : OpConversionPattern<fmha::TileCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Chunking tile = Chunking::forCopy(op.getSource().getType(), op.getRows(),
                                      op.getThreads(), op.getDest(),
                                      op.getDestTransposed());
    ThreadCopy copy(adaptor.getSource(), adaptor.getBatch(), adaptor.getHead(),
                    adaptor.getSeqLen(), tile, adaptor.getThread(),
                    op.getAlignedRows(), op.getTailUnspecified());
    copy.setDestinations(adaptor.getDest(), adaptor.getDestTransposed());
    copy.copy(rewriter, op.getLoc(), adaptor.getRow());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerCopyAsync : OpConversionPattern<fmha::TileCopyAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileCopyAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Chunking tile = Chunking::forCopy(op.getSource().getType(), op.getRows(),
                                      op.getThreads(), op.getDest(), Value());
    ThreadCopy copy(adaptor.getSource(), adaptor.getBatch(), adaptor.getHead(),
                    Value(), tile, adaptor.getThread(), /*alignedRows=*/true,
                    /*tailUnspecified=*/false);
    copy.setDestinations(adaptor.getDest(), Value());
    rewriter.replaceOp(op,
                       copy.issueAsync(rewriter, op.getLoc(), adaptor.getRow(),
                                       adaptor.getRowEnd(), adaptor.getSlot()));
    return success();
  }
};

struct LowerFetch : OpConversionPattern<fmha::TileFetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileFetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadCopy copy(adaptor.getSource(), adaptor.getBatch(), adaptor.getHead(),
                    adaptor.getSeqLen(), Chunking::of(op.getType()),
                    adaptor.getThread(), op.getAlignedRows(),
                    op.getTailUnspecified());
    rewriter.replaceOpWithMultiple(
        op, {copy.load(rewriter, op.getLoc(), adaptor.getRow())});
    return success();
  }
};

struct LowerPlace : OpConversionPattern<fmha::TilePlaceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TilePlaceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Only the destinations and the thread are asked of a store.
    ThreadCopy copy(Value(), Value(), Value(), Value(),
                    Chunking::of(op.getValue().getType()),
                    adaptor.getThread().front(), /*alignedRows=*/false,
                    /*tailUnspecified=*/false);
    auto single = [](ValueRange v) { return v.empty() ? Value() : v.front(); };
    copy.setDestinations(single(adaptor.getDest()),
                         single(adaptor.getDestTransposed()));
    copy.store(rewriter, op.getLoc(), adaptor.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A 1 x N vector.transfer_read of the last two dims of a memref, with no
/// mask, whose row may be out of bounds and whose N elements are not.
bool isPaddedRowRead(vector::TransferReadOp op) {
  auto source = dyn_cast<MemRefType>(op.getBase().getType());
  return source && op.getVectorType().getRank() == 2 &&
         op.getVectorType().getDimSize(0) == 1 && !op.getMask() &&
         op.getPermutationMap().isMinorIdentity() && !op.isDimInBounds(0) &&
         op.isDimInBounds(1);
}

/// A bounds check on the row and one vector load (else the padding).
struct LowerPaddedRowRead : OpConversionPattern<vector::TransferReadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(vector::TransferReadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isPaddedRowRead(op))
      return failure();
    Location loc = op.getLoc();
    VectorType type = op.getVectorType();
    int64_t rowDim = adaptor.getIndices().size() - 2;
    Value rows = memref::DimOp::create(rewriter, loc, adaptor.getBase(), rowDim);
    Value inBounds =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                              adaptor.getIndices()[rowDim], rows);
    auto rowType =
        VectorType::get({type.getDimSize(1)}, type.getElementType());
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{rowType}, inBounds,
                                  /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(rewriter, loc,
                         ValueRange{vector::LoadOp::create(
                             rewriter, loc, rowType, adaptor.getBase(),
                             adaptor.getIndices())});
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(rewriter, loc,
                         ValueRange{vector::BroadcastOp::create(
                             rewriter, loc, rowType, adaptor.getPadding())});
    // Built by insertion: LLVM lowers no n-D shape_cast or broadcast.
    rewriter.setInsertionPointAfter(ifOp);
    Value zeros = arith::ConstantOp::create(
        rewriter, loc, type, rewriter.getZeroAttr(type));
    rewriter.replaceOpWithNewOp<vector::InsertOp>(op, ifOp.getResult(0), zeros,
                                                  ArrayRef<int64_t>{0});
    return success();
  }
};

struct LowerTileCopiesPass
    : public rocke::impl::LowerTileCopiesBase<LowerTileCopiesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    rocke::populateLowerTileCopiesPatterns(converter, patterns, target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void rocke::populateLowerTileCopiesPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            ConversionTarget &target) {
  converter.addConversion([](Type t) { return t; });
  converter.addConversion(
      [](FetchedType t, SmallVectorImpl<Type> &vectors) -> LogicalResult {
        vectors.append(t.getVectorsPerThread(), t.getVectorType());
        return success();
      });
  patterns.add<LowerCopy, LowerCopyAsync, LowerFetch, LowerPlace,
               LowerPaddedRowRead>(converter, patterns.getContext());
  target.addIllegalOp<fmha::TileCopyOp, fmha::TileCopyAsyncOp,
                      fmha::TileFetchOp, fmha::TilePlaceOp>();
  target.addDynamicallyLegalOp<vector::TransferReadOp>(
      [&converter](vector::TransferReadOp op) {
        return converter.isLegal(op.getOperation()) && !isPaddedRowRead(op);
      });
  // Any other op that takes or makes a fetched tile cannot be lowered: a
  // "failed to legalize" diagnostic names it.
  target.markUnknownOpDynamicallyLegal(
      [&converter](Operation *op) { return converter.isLegal(op); });
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
}
