//===- DistributeTiles.cpp - subgroup tiles -> lane fragments -------------===//
//
// The distribution stage of the tiled lowering: every !fmha.tile value
// becomes its lane's fragments, one 1-D vector per atom (row-major), and the
// tile ops the per-lane code that reads, multiplies and converts them:
//  - fmha.tile_read: fragment reads from workgroup memory at the coordinates
//    lib/Target/FragmentLayout gives each lane (vector loads along the buffer's
//    rows, ldmatrix for mma.sync);
//  - fmha.tile_load: the same from the rows of a [B, S, H, D] memref, rows
//    past the sequence as zeros;
//  - fmha.tile_mma: one fmha.mma per atom of the product;
//  - fmha.tile_convert: the accumulator registers picked into operand
//    fragments (operandFromAccumulators), truncated to the operand type;
//  - fmha.tile_zero / tile_pack / tile_unpack: constants and the fragments
//    themselves.
// Loops that carry tiles carry their fragments (SCF structural type
// conversion).
//
//===----------------------------------------------------------------------===//
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"
#include "lib/Kernels/Fragments.h"
#include "lib/Kernels/KernelBuilder.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace rocke {
#define GEN_PASS_DEF_DISTRIBUTETILES
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using namespace rocke;
using fmha::TileType;

namespace {

/// The one value a non-tile operand converts to.
Value single(ValueRange converted) { return converted.front(); }

struct DistributeZero : OpConversionPattern<fmha::TileZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileZeroOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileType t = op.getType();
    VectorType type = t.getFragmentType();
    Value zero = arith::ConstantOp::create(rewriter, op.getLoc(), type,
                                           rewriter.getZeroAttr(type));
    rewriter.replaceOpWithMultiple(
        op, {SmallVector<Value>(t.getRowAtoms() * t.getColAtoms(), zero)});
    return success();
  }
};

/// The fragments of a tile_read, one atom at a time: (ai, aj) of the tile.
class TileReader {
public:
  TileReader(OpBuilder &b, Location loc, fmha::TileReadOp op, Value buffer,
             Value row, Value col, Value lane, bool transposedLdsReads)
      : type(op.getType()), transposed(op.getTransposed()), buffer(buffer),
        row(row), col(col),
        reader(type.getMatrixAtom(), type.getMatrixOperand(),
               LaneCoords::get(b, loc, type.getMatrixAtom(),
                               type.getMatrixOperand(), lane),
               lane,
               transposedLdsReads
                   ? transposedReadLane(b, loc, type.getMatrixAtom(),
                                        type.getMatrixOperand(), transposed,
                                        buffer, lane)
                   : std::nullopt) {}

  /// B fragments are read two at a time along n where one instruction
  /// reads both (ldmatrix.x4 on mma.sync), the second kept for the next
  /// call: products read each k step's atoms in order of n.
  Value read(OpBuilder &b, Location loc, int64_t ai, int64_t aj) {
    int64_t rows = type.getAtomRows(), cols = type.getAtomCols();
    int64_t r0 = transposed ? aj * cols : ai * rows;
    int64_t c0 = transposed ? ai * rows : aj * cols;
    if (pending && pendingAt == std::make_pair(ai, aj))
      return std::exchange(pending, Value());
    if (type.getMatrixOperand() != MatrixOperand::B || aj % 2 != 0 ||
        aj + 1 >= type.getColAtoms())
      return reader.read(b, loc, buffer, r0, c0, transposed, row, col);
    auto [first, second] = reader.readPairAlongN(b, loc, buffer, r0, c0,
                                                 transposed, row, col);
    pending = second;
    pendingAt = {ai, aj + 1};
    return first;
  }

private:
  TileType type;
  bool transposed;
  Value buffer, row, col;
  FragmentReader reader;
  Value pending;
  std::pair<int64_t, int64_t> pendingAt;
};

struct DistributeRead : OpConversionPattern<fmha::TileReadOp> {
  DistributeRead(const TypeConverter &converter, MLIRContext *ctx,
                 bool transposedLdsReads)
      : OpConversionPattern(converter, ctx),
        transposedLdsReads(transposedLdsReads) {}

  LogicalResult
  matchAndRewrite(fmha::TileReadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileReader reader(rewriter, loc, op, single(adaptor.getBuffer()),
                      single(adaptor.getRow()), single(adaptor.getCol()),
                      single(adaptor.getLane()), transposedLdsReads);
    SmallVector<Value> frags;
    for (int64_t ai = 0; ai < op.getType().getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < op.getType().getColAtoms(); ++aj)
        frags.push_back(reader.read(rewriter, loc, ai, aj));
    rewriter.replaceOpWithMultiple(op, {frags});
    return success();
  }

private:
  bool transposedLdsReads;
};

struct DistributeLoad : OpConversionPattern<fmha::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    MatrixOperand operand = t.getMatrixOperand();
    bool transposed = op.getTransposed();
    // The block of source rows: the tile, or its transpose.
    int64_t rows = t.getShape()[transposed ? 1 : 0];
    int64_t cols = t.getShape()[transposed ? 0 : 1];
    bool rowsAlongK = (operand == MatrixOperand::A) == transposed;
    Value lane = single(adaptor.getLane());
    SmallVector<Value> block = loadRowFragments(
        rewriter, loc, atom, operand,
        LaneCoords::get(rewriter, loc, atom, operand, lane),
        single(adaptor.getSource()), single(adaptor.getBatch()),
        single(adaptor.getRow()), single(adaptor.getCol()),
        single(adaptor.getHead()), single(adaptor.getSeqLen()), rows, cols,
        rowsAlongK, t.getElementType());
    // loadRowFragments orders the atoms along the block's rows.
    SmallVector<Value> frags;
    for (int64_t ai = 0; ai < t.getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < t.getColAtoms(); ++aj)
        frags.push_back(transposed ? block[aj * t.getRowAtoms() + ai]
                                   : block[ai * t.getColAtoms() + aj]);
    rewriter.replaceOpWithMultiple(op, {frags});
    return success();
  }
};

/// An operand read from workgroup memory is read again one k step at a
/// time, next to the atoms that use it, so a step's fragments are live only
/// during that step (the whole-tile read dies unused). Others are in
/// registers already (std::nullopt).
std::optional<TileReader> reread(ConversionPatternRewriter &rewriter,
                                 Location loc, Value tile,
                                 bool transposedLdsReads) {
  auto read = tile.getDefiningOp<fmha::TileReadOp>();
  if (!read)
    return std::nullopt;
  return TileReader(rewriter, loc, read,
                    rewriter.getRemappedValue(read.getBuffer()),
                    rewriter.getRemappedValue(read.getRow()),
                    rewriter.getRemappedValue(read.getCol()),
                    rewriter.getRemappedValue(read.getLane()),
                    transposedLdsReads);
}

bool isMfma(const MatrixAtom &atom) {
  return atom.family == MatrixAtom::Family::MfmaSquare ||
         atom.family == MatrixAtom::Family::MfmaWideK;
}

struct DistributeMma : OpConversionPattern<fmha::TileMmaOp> {
  DistributeMma(const TypeConverter &converter, MLIRContext *ctx,
                int64_t mfmaReadBatch, bool transposedLdsReads)
      : OpConversionPattern(converter, ctx), mfmaReadBatch(mfmaReadBatch),
        transposedLdsReads(transposedLdsReads) {}

  LogicalResult
  matchAndRewrite(fmha::TileMmaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType c = op.getType();
    int64_t kSteps = op.getLhs().getType().getColAtoms();
    AccTile acc =
        AccTile::fromValues(c.getRowAtoms(), c.getColAtoms(), adaptor.getAcc());
    std::optional<TileReader> lhsReader =
        reread(rewriter, loc, op.getLhs(), transposedLdsReads);
    std::optional<TileReader> rhsReader =
        reread(rewriter, loc, op.getRhs(), transposedLdsReads);
    ValueRange a = adaptor.getLhs(), b = adaptor.getRhs();
    AtomOrder order{/*aLastReadFirst=*/lhsReader.has_value(),
                    /*bLastReadFirst=*/rhsReader.has_value()};
    auto waitForReads = [&] {
      amdgpu::MemoryCounterWaitOp::create(
          rewriter, loc, /*load=*/nullptr, /*store=*/nullptr,
          /*ds=*/rewriter.getI32IntegerAttr(0), /*exp=*/nullptr,
          /*tensor=*/nullptr);
    };
    if (isMfma(c.getMatrixAtom()) && (lhsReader || rhsReader) &&
        mfmaReadBatch > 1) {
      order.readBatch = mfmaReadBatch;
      order.afterReads = waitForReads;
    }
    contract(
        rewriter, loc, c.getMatrixAtom(), acc, kSteps,
        [&](int64_t mi, int64_t ki) {
          return lhsReader ? lhsReader->read(rewriter, loc, mi, ki)
                           : a[mi * kSteps + ki];
        },
        [&](int64_t ki, int64_t ni) {
          return rhsReader ? rhsReader->read(rewriter, loc, ki, ni)
                           : b[ki * acc.nAtoms + ni];
        },
        order);
    rewriter.replaceOpWithMultiple(op, {acc.atoms});
    return success();
  }

private:
  int64_t mfmaReadBatch;
  bool transposedLdsReads;
};

/// The PTX wgmma matrix descriptor of an operand whose first element is
/// (r, c) of a [R/8][C/W][8][W] buffer of atoms (fmha::atomRowBytes): its
/// shared-memory address, the leading and stride byte offsets (in 16-byte
/// units) and the swizzle mode. K runs along the buffer's rows when
/// `kAlongRows` (the operand is MN-major), else along its columns.
///  - Core matrices: the leading offset steps between atoms along K, the
///    stride offset along M / N.
///  - 128-byte swizzled rows, K along the columns: the stride offset steps
///    between 8-row groups (M / N); a k step inside a row moves the start
///    address (the hardware swizzles the address it computes, so atoms must
///    start at 1024-byte boundaries); no leading offset.
///  - 128-byte swizzled rows, K along the rows: the leading offset steps
///    between atoms along M / N (the columns), the stride offset between
///    8-row groups along K; c is a whole row's first column.
Value atomDescriptor(OpBuilder &b, Location loc, Value buffer, Value r,
                     Value c, bool kAlongRows) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  (void)type.getStridesAndOffset(strides, staticOffset);
  int64_t eltBytes = type.getElementTypeBitWidth() / 8;
  int64_t rowStride = strides[0] * eltBytes, colStride = strides[1] * eltBytes;
  int64_t width = type.getDimSize(3);
  bool swizzled = fmha::atomRowBytes(type) == 128;
  int64_t leading, stride;
  if (!swizzled) {
    leading = kAlongRows ? rowStride : colStride;
    stride = kAlongRows ? colStride : rowStride;
  } else {
    leading = kAlongRows ? colStride : 16;
    stride = rowStride;
  }

  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, meta.getBaseBuffer());
  // One op per statement: the IR's order does not depend on the order in
  // which a compiler evaluates arguments.
  Value c8 = constIndex(b, loc, 8);
  Value cw = constIndex(b, loc, width);
  Value atomRow = arith::DivUIOp::create(b, loc, r, c8);
  Value rowStart =
      arith::MulIOp::create(b, loc, atomRow, constIndex(b, loc, strides[0]));
  Value atomCol = arith::DivUIOp::create(b, loc, c, cw);
  Value colStart =
      arith::MulIOp::create(b, loc, atomCol, constIndex(b, loc, strides[1]));
  Value inView = arith::AddIOp::create(b, loc, rowStart, colStart);
  if (swizzled) {
    // The k step's place in its (unswizzled) row.
    Value inRow = arith::RemUIOp::create(b, loc, c, cw);
    inView = arith::AddIOp::create(b, loc, inView, inRow);
  }
  Value elements = arith::AddIOp::create(b, loc, meta.getOffset(), inView);
  Value bytes =
      arith::MulIOp::create(b, loc, elements, constIndex(b, loc, eltBytes));
  Value addr = arith::AddIOp::create(b, loc, base, bytes);
  Type i64 = b.getI64Type();
  Value addr64 = arith::IndexCastUIOp::create(b, loc, i64, addr);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  // Bits 0-13: address >> 4 (18 bits of shared-memory address); 16-29: the
  // leading offset >> 4; 32-45: the stride offset >> 4; 62-63: the swizzle
  // (0 none, 1 128-byte).
  Value low = arith::AndIOp::create(b, loc, addr64, cst(0x3FFFF));
  Value start = arith::ShRUIOp::create(b, loc, low, cst(4));
  uint64_t fields = (uint64_t(leading >> 4) << 16) |
                    (uint64_t(stride >> 4) << 32) |
                    (uint64_t(swizzled ? 1 : 0) << 62);
  return arith::OrIOp::create(b, loc, start,
                              cst(static_cast<int64_t>(fields)));
}

struct DistributeMmaWarpgroup
    : OpConversionPattern<fmha::TileMmaWarpgroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileMmaWarpgroupOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType c = op.getType();
    // Per k step of 16: A's fragment (registers) or descriptor (workgroup
    // memory), and B's descriptor.
    SmallVector<Value> lhs, lhsDescriptors, descriptors;
    SmallVector<Value> buffers{single(adaptor.getBuffer())};
    Value row = single(adaptor.getRow()), col = single(adaptor.getCol());
    bool bKAlongRows = !op.getTransposed();
    bool aMnMajor = op.getLhsTransposed();
    int64_t kSteps;
    // Warpgroup products (sm_90a) read no transposed LDS fragments.
    std::optional<TileReader> lhsReader =
        op.getLhs() ? reread(rewriter, loc, op.getLhs(),
                             /*transposedLdsReads=*/false)
                    : std::nullopt;
    Value lhsBuffer, lhsRow, lhsCol;
    if (op.getLhs()) {
      kSteps = op.getLhs().getType().getColAtoms();
    } else {
      kSteps = *op.getK() / 16;
      lhsBuffer = single(adaptor.getLhsBuffer());
      lhsRow = single(adaptor.getLhsRow());
      lhsCol = single(adaptor.getLhsCol());
      buffers.push_back(lhsBuffer);
    }
    for (int64_t ki = 0; ki < kSteps; ++ki) {
      if (lhsBuffer) {
        // A[m][k]: k along the buffer's columns, or its rows (MN-major).
        Value k0 = addIdx(rewriter, loc, aMnMajor ? lhsRow : lhsCol, ki * 16);
        lhsDescriptors.push_back(atomDescriptor(
            rewriter, loc, lhsBuffer, aMnMajor ? k0 : lhsRow,
            aMnMajor ? lhsCol : k0, /*kAlongRows=*/aMnMajor));
      } else {
        lhs.push_back(lhsReader ? lhsReader->read(rewriter, loc, 0, ki)
                                : adaptor.getLhs()[ki]);
      }
      Value k0 = addIdx(rewriter, loc, bKAlongRows ? row : col, ki * 16);
      descriptors.push_back(atomDescriptor(
          rewriter, loc, buffers.front(), bKAlongRows ? k0 : row,
          bKAlongRows ? col : k0, bKAlongRows));
    }
    // The subgroup's accumulator fragments are one wgmma accumulator (a
    // zero constant for a fresh product, which the lowering starts with D =
    // A * B).
    ValueRange accAtoms = adaptor.getAcc();
    int64_t perAtom = c.getFragmentType().getNumElements();
    auto accType = VectorType::get({perAtom * int64_t(accAtoms.size())},
                                   rewriter.getF32Type());
    Value acc;
    if (llvm::all_of(accAtoms,
                     [](Value v) { return matchPattern(v, m_AnyZeroFloat()); }))
      acc = arith::ConstantOp::create(rewriter, loc, accType,
                                      rewriter.getZeroAttr(accType));
    else
      acc = gatherElements(
          rewriter, loc, SmallVector<Value>(accAtoms),
          llvm::to_vector(llvm::seq<int64_t>(0, accType.getNumElements())));
    auto issued = fmha::WarpgroupMmaOp::create(
        rewriter, loc, acc.getType(), acc, lhs, lhsDescriptors, descriptors,
        buffers, aMnMajor && lhsBuffer, bKAlongRows);
    Value d = fmha::WarpgroupWaitOp::create(rewriter, loc, acc.getType(),
                                            issued, buffers);
    SmallVector<Value> atoms;
    for (int64_t i = 0; i < int64_t(accAtoms.size()); ++i)
      atoms.push_back(vector::ExtractStridedSliceOp::create(
          rewriter, loc, d, ArrayRef<int64_t>{i * perAtom},
          ArrayRef<int64_t>{perAtom}, ArrayRef<int64_t>{1}));
    rewriter.replaceOpWithMultiple(op, {atoms});
    return success();
  }
};

struct DistributeConvert : OpConversionPattern<fmha::TileConvertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileConvertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType from = op.getSource().getType(), to = op.getType();
    const MatrixAtom &producer = from.getMatrixAtom();
    bool transposed = op.getTransposed();
    ValueRange accs = adaptor.getSource();
    int64_t cRegs = producer.regs(MatrixOperand::C);
    SmallVector<Value> frags;
    for (int64_t ai = 0; ai < to.getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < to.getColAtoms(); ++aj) {
        // The fragment's origin in the source tile: the source atom and the
        // position in it.
        int64_t row = ai * to.getAtomRows(), col = aj * to.getAtomCols();
        if (transposed)
          std::swap(row, col);
        int64_t atomRow0 = row / from.getAtomRows();
        int64_t atomCol0 = col / from.getAtomCols();
        // The verifier checked that the registers are there.
        SmallVector<RegisterSource> repack = *operandFromAccumulators(
            producer, to.getMatrixAtom(), to.getMatrixOperand(), transposed,
            {int(row % from.getAtomRows()), int(col % from.getAtomCols())});
        SmallVector<std::pair<int64_t, int64_t>> used;
        SmallVector<Value> sources;
        SmallVector<int64_t> picks;
        for (const RegisterSource &src : repack) {
          std::pair<int64_t, int64_t> at{atomRow0 + src.atomRow,
                                         atomCol0 + src.atomCol};
          auto *pos = llvm::find(used, at);
          if (pos == used.end()) {
            used.push_back(at);
            sources.push_back(truncVector(
                rewriter, loc, accs[at.first * from.getColAtoms() + at.second],
                to.getElementType()));
            pos = used.end() - 1;
          }
          picks.push_back((pos - used.begin()) * cRegs + src.reg);
        }
        frags.push_back(gatherElements(rewriter, loc, sources, picks));
      }
    rewriter.replaceOpWithMultiple(op, {frags});
    return success();
  }
};

struct DistributeUnpack : OpConversionPattern<fmha::TileUnpackOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileUnpackOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getTile());
    return success();
  }
};

struct DistributePack : OpConversionPattern<fmha::TilePackOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TilePackOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> frags;
    for (ValueRange v : adaptor.getFragments())
      frags.append(v.begin(), v.end());
    rewriter.replaceOpWithMultiple(op, {frags});
    return success();
  }
};

/// The lane's C-layout coordinates of a tile's atoms.
LaneCoords accumulatorLane(OpBuilder &b, Location loc, const MatrixAtom &atom,
                           Value lane) {
  return LaneCoords::get(b, loc, atom, MatrixOperand::C, lane);
}

KernelTarget targetOf(const MatrixAtom &atom) {
  return atom.isHost() ? KernelTarget::cpu() : KernelTarget::gpu(atom.lanes);
}

/// Visits the fragments `frags` of the C tile `t` in runs of `width`
/// registers consecutive along a buffer row (forEachAccRun): fn(r, c, run)
/// with (r, c) where the run lands in a buffer at (row, col) plus the lane's
/// and the atom's offsets, swapped when `transposed`.
void forEachTileRun(
    OpBuilder &b, Location loc, TileType t, LaneCoords lane, Value row,
    Value col, bool transposed, ValueRange frags, int64_t width,
    function_ref<void(Value r, Value c, ValueRange run)> fn) {
  const MatrixAtom &atom = t.getMatrixAtom();
  AccLayout layout = AccLayout::get(atom, transposed);
  for (int64_t ai = 0; ai < t.getRowAtoms(); ++ai)
    for (int64_t aj = 0; aj < t.getColAtoms(); ++aj) {
      Value tileRow = addIdx(b, loc, lane.row, ai * t.getAtomRows());
      Value tileCol = addIdx(b, loc, lane.col, aj * t.getAtomCols());
      Value row0 =
          arith::AddIOp::create(b, loc, row, transposed ? tileCol : tileRow);
      Value col0 =
          arith::AddIOp::create(b, loc, col, transposed ? tileRow : tileCol);
      forEachAccRun(b, loc, targetOf(atom), frags[ai * t.getColAtoms() + aj],
                    layout, width, row0, col0, fn);
    }
}

struct DistributeBroadcast : OpConversionPattern<fmha::TileBroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileBroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    LaneCoords lane =
        accumulatorLane(rewriter, loc, atom, single(adaptor.getLane()));
    bool alongCols = op.getDim() == 1;
    AccLayout layout = AccLayout::get(atom);
    ArrayRef<int64_t> offsets = alongCols ? layout.cols : layout.rows;
    Value laneBase =
        arith::AddIOp::create(rewriter, loc, single(adaptor.getBase()),
                              alongCols ? lane.col : lane.row);
    // One read per atom row (column), shared by the atoms along it; the
    // last first, where the first atoms' users wait for it: LDS reads
    // complete in order, so that one wait covers all of them.
    int64_t extent = alongCols ? t.getAtomCols() : t.getAtomRows();
    int64_t count = alongCols ? t.getColAtoms() : t.getRowAtoms();
    SmallVector<Value> values(count);
    for (int64_t x = count - 1; x >= 0; --x)
      values[x] = gatherFromBuffer(
          rewriter, loc, single(adaptor.getBuffer()),
          addIdx(rewriter, loc, laneBase, x * extent), offsets);
    SmallVector<Value> frags;
    for (int64_t ai = 0; ai < t.getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < t.getColAtoms(); ++aj)
        frags.push_back(values[alongCols ? aj : ai]);
    rewriter.replaceOpWithMultiple(op, {frags});
    return success();
  }
};

struct DistributeMap : OpConversionPattern<fmha::TileMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileMapOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto first = cast<TileType>(op.getResults().front().getType());
    int64_t atoms = first.getRowAtoms() * first.getColAtoms();
    int64_t regs = first.getFragmentType().getNumElements();
    // Input n's fragment of result atom (ai, aj): its own, or the
    // per-row (per-column) values of atom row ai (column aj) spread over
    // the C registers, each taking its row's (column's) value.
    DenseMap<std::pair<Value, int64_t>, Value> broadcasts;
    auto fragmentOf = [&](Value input, ValueRange frags, int64_t n) -> Value {
      auto type = cast<TileType>(input.getType());
      if (type.getRole() == first.getRole())
        return frags[n];
      bool rows = type.getRole() == fmha::TileRole::rows;
      int64_t line = rows ? n / first.getColAtoms() : n % first.getColAtoms();
      Value &spread = broadcasts[{input, line}];
      if (!spread) {
        SmallVector<int> slotOfReg;
        accumulatorLines(first.getMatrixAtom(), rows, &slotOfReg);
        spread = vector::ShuffleOp::create(
            rewriter, loc, frags[line], frags[line],
            SmallVector<int64_t>(slotOfReg.begin(), slotOfReg.end()));
      }
      return spread;
    };
    auto vectorOf = [&](Type scalar) {
      return VectorType::get({regs}, scalar);
    };
    Block &body = op.getBody().front();
    SmallVector<SmallVector<Value>> results(op.getNumResults());
    // Scalars from outside the body, splat once.
    DenseMap<Value, Value> splats;
    auto vectorized = [&](IRMapping &map, Value v) {
      if (Value mapped = map.lookupOrNull(v))
        return mapped;
      Value &splat = splats[v];
      if (!splat)
        splat = vector::BroadcastOp::create(rewriter, loc,
                                            vectorOf(v.getType()), v);
      return splat;
    };
    // With positions: each register's row and column index, the lane's
    // first element's plus the C layout's per-register offsets.
    std::optional<LaneCoords> lane;
    AccLayout layout;
    if (op.getLane()) {
      lane = accumulatorLane(rewriter, loc, first.getMatrixAtom(),
                             single(adaptor.getLane()));
      layout = AccLayout::get(first.getMatrixAtom());
    }
    // The positions of atom row (column) `a`, once per atom row (column).
    SmallVector<Value> rowPositions(first.getRowAtoms()),
        colPositions(first.getColAtoms());
    auto positions = [&](bool rows, int64_t a) -> Value {
      Value &at = rows ? rowPositions[a] : colPositions[a];
      if (at)
        return at;
      Value origin = single(rows ? adaptor.getRow() : adaptor.getCol());
      Value lanePart = rows ? lane->row : lane->col;
      int64_t atomPart = a * (rows ? first.getAtomRows() : first.getAtomCols());
      Value base = addIdx(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, origin, lanePart),
          atomPart);
      auto type = vectorOf(rewriter.getIndexType());
      Value offsets = arith::ConstantOp::create(
          rewriter, loc, type,
          DenseElementsAttr::get(type, ArrayRef<int64_t>(rows ? layout.rows
                                                              : layout.cols)));
      at = arith::AddIOp::create(
          rewriter, loc, vector::BroadcastOp::create(rewriter, loc, type, base),
          offsets);
      return at;
    };
    for (int64_t n = 0; n < atoms; ++n) {
      IRMapping map;
      for (auto [arg, input, frags] :
           llvm::zip(body.getArguments(), op.getInputs(), adaptor.getInputs()))
        map.map(arg, fragmentOf(input, frags, n));
      if (lane) {
        unsigned at = op.getInputs().size();
        map.map(body.getArgument(at),
                positions(/*rows=*/true, n / first.getColAtoms()));
        map.map(body.getArgument(at + 1),
                positions(/*rows=*/false, n % first.getColAtoms()));
      }
      for (Operation &inner : body.without_terminator()) {
        TypedAttr value;
        if (matchPattern(&inner, m_Constant(&value))) {
          auto type = vectorOf(value.getType());
          map.map(inner.getResult(0), arith::ConstantOp::create(
                                          rewriter, loc, type,
                                          DenseElementsAttr::get(type, value)));
          continue;
        }
        // A load at the elements' positions: one scalar load per register,
        // unrolled on a GPU, a loop over the host's (many) registers.
        if (auto load = dyn_cast<memref::LoadOp>(inner)) {
          auto elementAt = [&](OpFoldResult reg) -> Value {
            SmallVector<Value> at;
            for (Value index : load.getIndices()) {
              Value mapped = map.lookupOrNull(index);
              at.push_back(
                  mapped ? vector::ExtractOp::create(rewriter, loc, mapped, reg)
                         : index);
            }
            return memref::LoadOp::create(rewriter, loc, load.getMemRef(), at);
          };
          VectorType type = vectorOf(load.getType());
          Value loaded;
          if (first.getMatrixAtom().isHost()) {
            auto loop = scf::ForOp::create(
                rewriter, loc, constIndex(rewriter, loc, 0),
                constIndex(rewriter, loc, regs), constIndex(rewriter, loc, 1),
                ValueRange{arith::ConstantOp::create(
                    rewriter, loc, type, rewriter.getZeroAttr(type))});
            OpBuilder::InsertionGuard guard(rewriter);
            rewriter.setInsertionPointToStart(loop.getBody());
            Value reg = loop.getInductionVar();
            scf::YieldOp::create(
                rewriter, loc,
                ValueRange{vector::InsertOp::create(
                    rewriter, loc, elementAt(reg), loop.getRegionIterArgs()[0],
                    ArrayRef<OpFoldResult>{reg})});
            loaded = loop.getResult(0);
          } else {
            SmallVector<Value> elements;
            for (int64_t r = 0; r < regs; ++r)
              elements.push_back(elementAt(rewriter.getIndexAttr(r)));
            loaded =
                vector::FromElementsOp::create(rewriter, loc, type, elements);
          }
          map.map(load.getResult(), loaded);
          continue;
        }
        OperationState state(inner.getLoc(), inner.getName());
        for (Value operand : inner.getOperands())
          state.operands.push_back(vectorized(map, operand));
        for (Type t : inner.getResultTypes())
          state.types.push_back(vectorOf(t));
        state.attributes = inner.getAttrDictionary();
        Operation *op = rewriter.create(state);
        map.map(inner.getResults(), op->getResults());
      }
      for (auto [i, v] : llvm::enumerate(
               cast<fmha::YieldOp>(body.getTerminator()).getValues()))
        results[i].push_back(vectorized(map, v));
    }
    SmallVector<ValueRange> replacements(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, replacements);
    return success();
  }
};

struct DistributeMask : OpConversionPattern<fmha::TileMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileMaskOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getType();
    bool keysAlongRows = op.getKeysAlongRows();
    StringAttr atom = rewriter.getStringAttr(t.getAtom());
    ValueRange frags = adaptor.getValue();
    Value query0 = single(adaptor.getQuery()), key0 = single(adaptor.getKey());
    Value seqQ = single(adaptor.getSeqQ()), seqK = single(adaptor.getSeqK());
    // cut_only: one uniform branch keeps a tile the band and Sk leave whole.
    scf::IfOp ifCut;
    if (op.getCutOnly()) {
      fmha::MaskAttr maskAttr = op.getMaskAttr();
      MaskBuilder mask(rewriter, loc,
                       maskAttr ? maskAttr.getBand() : fmha::MaskBand(), seqQ,
                       seqK);
      int64_t queries = t.getShape()[keysAlongRows ? 1 : 0];
      int64_t keys = t.getShape()[keysAlongRows ? 0 : 1];
      // One op per statement: argument evaluation order is unspecified.
      Value queryLast = addIdx(rewriter, loc, query0, queries - 1);
      Value keyLast = addIdx(rewriter, loc, key0, keys - 1);
      Value whole =
          mask.isBlockVisible(rewriter, loc, query0, queryLast, key0, keyLast);
      ifCut = scf::IfOp::create(rewriter, loc, frags.getTypes(), whole,
                                /*withElseRegion=*/true);
      rewriter.setInsertionPointToStart(ifCut.thenBlock());
      scf::YieldOp::create(rewriter, loc, frags);
      rewriter.setInsertionPointToStart(ifCut.elseBlock());
    }
    SmallVector<Value> masked;
    for (int64_t ai = 0; ai < t.getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < t.getColAtoms(); ++aj) {
        int64_t rowOffset = ai * t.getAtomRows();
        int64_t colOffset = aj * t.getAtomCols();
        Value query = addIdx(rewriter, loc, query0,
                             keysAlongRows ? colOffset : rowOffset);
        Value key =
            addIdx(rewriter, loc, key0, keysAlongRows ? rowOffset : colOffset);
        masked.push_back(fmha::MaskFragmentOp::create(
            rewriter, loc, t.getFragmentType(),
            frags[ai * t.getColAtoms() + aj], query, key,
            single(adaptor.getLane()), seqQ, seqK, atom, op.getMaskAttr(),
            op.getKeysAlongRowsAttr(), op.getFillAttr()));
      }
    if (ifCut) {
      scf::YieldOp::create(rewriter, loc, masked);
      masked.assign(ifCut.getResults().begin(), ifCut.getResults().end());
    }
    rewriter.replaceOpWithMultiple(op, {masked});
    return success();
  }
};

struct DistributeWrite : OpConversionPattern<fmha::TileWriteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileWriteOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getValue().getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    AccTile tile = AccTile::fromValues(t.getRowAtoms(), t.getColAtoms(),
                                       adaptor.getValue());
    storeAccTile(
        rewriter, loc, atom, tile,
        accumulatorLane(rewriter, loc, atom, single(adaptor.getLane())),
        single(adaptor.getBuffer()), op.getTransposed(),
        single(adaptor.getRow()), single(adaptor.getCol()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct DistributeAccumulate : OpConversionPattern<fmha::TileAccumulateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileAccumulateOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getValue().getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    bool transposed = op.getTransposed();
    LaneCoords lane =
        accumulatorLane(rewriter, loc, atom, single(adaptor.getLane()));
    SmallVector<Value> indices;
    for (ValueRange index : adaptor.getIndices())
      indices.push_back(single(index));
    Value row = indices[indices.size() - 3], head = indices[indices.size() - 2],
          col = indices.back();
    // Runs of registers consecutive along the buffer's rows.
    AccRuns runs = AccRuns::get(atom, transposed);
    // Atom origins are multiples of the atom's extent, and every allocator
    // aligns the buffer to 16 bytes at least (malloc; cudaMalloc and
    // hipMalloc to 256).
    IntegerAttr alignment =
        rewriter.getI64IntegerAttr(std::min<int64_t>(16, runs.alignment * 4));
    auto emitRun = [&](Value r, Value c, ValueRange elements) {
      auto type = VectorType::get({int64_t(elements.size())},
                                  rewriter.getF32Type());
      Value run = vector::FromElementsOp::create(rewriter, loc, type, elements);
      SmallVector<Value> at(indices);
      at[at.size() - 3] = r;
      at[at.size() - 2] = head;
      at.back() = c;
      if (op.getKind() == fmha::AccumulateKind::store)
        vector::StoreOp::create(rewriter, loc, run, single(adaptor.getDest()),
                                at, /*nontemporal=*/false, alignment);
      else
        fmha::AtomicAddOp::create(rewriter, loc, run, single(adaptor.getDest()),
                                  at, alignment);
    };
    if (!op.getPairedColumns()) {
      forEachTileRun(rewriter, loc, t, lane, row, col, transposed,
                     adaptor.getValue(), runs.width, emitRun);
      rewriter.eraseOp(op);
      return success();
    }
    // Paired columns: run i of atom (ai, 2g) and run i of atom (ai, 2g + 1)
    // leave as one run of twice the width at the first one's paired column
    // (the verifier checked the atom and the even atom count).
    alignment = rewriter.getI64IntegerAttr(
        std::min<int64_t>(16, 2 * runs.alignment * 4));
    AccLayout layout = AccLayout::get(atom);
    ValueRange frags = adaptor.getValue();
    for (int64_t ai = 0; ai < t.getRowAtoms(); ++ai) {
      Value r0 = arith::AddIOp::create(
          rewriter, loc, row,
          addIdx(rewriter, loc, lane.row, ai * t.getAtomRows()));
      for (int64_t aj = 0; aj < t.getColAtoms(); aj += 2) {
        SmallVector<std::pair<Value, Value>> starts;
        SmallVector<SmallVector<Value>> pairs;
        for (int64_t half = 0; half < 2; ++half) {
          Value c0 = arith::AddIOp::create(
              rewriter, loc, col,
              addIdx(rewriter, loc, lane.col, (aj + half) * t.getAtomCols()));
          int64_t i = 0;
          forEachAccRun(rewriter, loc, targetOf(atom),
                        frags[ai * t.getColAtoms() + aj + half], layout,
                        runs.width, r0, c0,
                        [&](Value r, Value c, ValueRange elements) {
                          if (half == 0) {
                            starts.push_back({r, c});
                            pairs.emplace_back(elements);
                          } else {
                            pairs[i++].append(elements.begin(), elements.end());
                          }
                        });
        }
        for (auto [start, elements] : llvm::zip(starts, pairs))
          emitRun(start.first, pairedColumn(rewriter, loc, start.second),
                  elements);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct DistributeStore : OpConversionPattern<fmha::TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getValue().getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    bool transposed = op.getTransposed();
    LaneCoords lane =
        accumulatorLane(rewriter, loc, atom, single(adaptor.getLane()));
    Value dest = single(adaptor.getDest()), batch = single(adaptor.getBatch()),
          head = single(adaptor.getHead()),
          seqLen = single(adaptor.getSeqLen());
    // Registers consecutive along the destination's rows leave as one
    // vector store when its rows are contiguous.
    AccRuns runs = hasUnitInnerStride(dest) ? AccRuns::get(atom, transposed)
                                            : AccRuns{1, 1};
    auto destType = cast<MemRefType>(dest.getType());
    // With aligned rows a run starts at its first element's alignment in
    // the atom (the vector lowering assumes one element's otherwise, which
    // splits a run of two bf16 into two 2-byte stores).
    IntegerAttr alignment;
    if (op.getAlignedRows())
      alignment = rewriter.getI64IntegerAttr(std::min<int64_t>(
          16, runs.alignment * destType.getElementTypeBitWidth() / 8));
    forEachTileRun(
        rewriter, loc, t, lane, single(adaptor.getRow()),
        single(adaptor.getCol()), transposed, adaptor.getValue(), runs.width,
        [&](Value row, Value col, ValueRange run) {
          auto ifOp = scf::IfOp::create(
              rewriter, loc,
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                    row, seqLen));
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(ifOp.thenBlock());
          SmallVector<Value> at{batch, row, head, col};
          if (run.size() == 1) {
            storeF32(rewriter, loc, run.front(), dest, at);
            return;
          }
          Value values = vector::FromElementsOp::create(
              rewriter, loc,
              VectorType::get({int64_t(run.size())}, rewriter.getF32Type()),
              run);
          vector::StoreOp::create(
              rewriter, loc,
              truncVector(rewriter, loc, values, destType.getElementType()),
              dest, at, /*nontemporal=*/false, alignment);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct DistributeStoreScores : OpConversionPattern<fmha::TileStoreScoresOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileStoreScoresOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getValue().getType();
    LaneCoords lane = accumulatorLane(rewriter, loc, t.getMatrixAtom(),
                                      single(adaptor.getLane()));
    Value dest = single(adaptor.getDest()), batch = single(adaptor.getBatch()),
          head = single(adaptor.getHead()), seqQ = single(adaptor.getSeqQ()),
          seqK = single(adaptor.getSeqK());
    // One register at a time, at (query, key): the destination's rows are
    // queries, so a tile with keys along its rows lands transposed.
    forEachTileRun(
        rewriter, loc, t, lane, single(adaptor.getQuery()),
        single(adaptor.getKey()), op.getKeysAlongRows(), adaptor.getValue(),
        /*width=*/1, [&](Value query, Value key, ValueRange run) {
          auto below = [&](Value x, Value end) {
            return arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ult, x, end);
          };
          // One op per statement: argument lists build in another order
          // with g++.
          Value queryIn = below(query, seqQ);
          Value keyIn = below(key, seqK);
          auto ifOp = scf::IfOp::create(
              rewriter, loc,
              arith::AndIOp::create(rewriter, loc, queryIn, keyIn));
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(ifOp.thenBlock());
          SmallVector<Value> at{batch, head, query, key};
          if (op.getKind() == fmha::AccumulateKind::store) {
            memref::StoreOp::create(rewriter, loc, run.front(), dest, at);
            return;
          }
          Value element = vector::FromElementsOp::create(
              rewriter, loc, VectorType::get({1}, rewriter.getF32Type()), run);
          fmha::AtomicAddOp::create(rewriter, loc, element, dest, at,
                                    IntegerAttr());
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The combining op of a reduction kind, on scalars or vectors.
Value combine(OpBuilder &b, Location loc, fmha::ReductionKind kind, Value x,
              Value y) {
  if (kind == fmha::ReductionKind::max)
    return arith::MaxNumFOp::create(b, loc, x, y);
  return arith::AddFOp::create(b, loc, x, y);
}

struct DistributeReduce : OpConversionPattern<fmha::TileReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getValue().getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    bool alongRows = op.getDim() == 1;
    fmha::ReductionKind kind = op.getKind();
    SmallVector<int> slotOfReg;
    SmallVector<int> lines = accumulatorLines(atom, alongRows, &slotOfReg);
    // The lanes a line is spread over: those differing in the other
    // coordinate's lane term.
    LaneOffset laneTerms = laneOffset(atom, MatrixOperand::C);
    LaneTerm across = alongRows ? laneTerms.col : laneTerms.row;
    bool crossLane = atom.lanes > 1 && across.mod > 1 && across.mul != 0;
    auto vectorKind = kind == fmha::ReductionKind::max
                          ? vector::CombiningKind::MAXNUMF
                          : vector::CombiningKind::ADD;
    auto laneKind = kind == fmha::ReductionKind::max
                        ? gpu::AllReduceOperation::MAXNUMF
                        : gpu::AllReduceOperation::ADD;
    ValueRange frags = adaptor.getValue();
    int64_t lineAtoms = alongRows ? t.getRowAtoms() : t.getColAtoms();
    int64_t atomsAlong = alongRows ? t.getColAtoms() : t.getRowAtoms();
    SmallVector<Value> results;
    for (int64_t line = 0; line < lineAtoms; ++line) {
      // Elementwise over the atoms along the line first, then each
      // line's registers of the combined fragment.
      Value combined;
      for (int64_t x = 0; x < atomsAlong; ++x) {
        Value frag = frags[alongRows ? line * t.getColAtoms() + x
                                     : x * t.getColAtoms() + line];
        combined =
            combined ? combine(rewriter, loc, kind, combined, frag) : frag;
      }
      SmallVector<Value> values;
      for (int64_t slot = 0; slot < int64_t(lines.size()); ++slot) {
        SmallVector<int64_t> regs;
        for (auto [reg, s] : llvm::enumerate(slotOfReg))
          if (s == slot)
            regs.push_back(reg);
        Value picked =
            vector::ShuffleOp::create(rewriter, loc, combined, combined, regs);
        Value value =
            vector::ReductionOp::create(rewriter, loc, vectorKind, picked);
        if (crossLane)
          value = gpu::SubgroupReduceOp::create(rewriter, loc, value, laneKind,
                                                /*uniform=*/true, across.mod,
                                                across.div);
        values.push_back(value);
      }
      results.push_back(vector::FromElementsOp::create(
          rewriter, loc, op.getType().getFragmentType(), values));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct DistributeStoreLines : OpConversionPattern<fmha::TileStoreLinesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileStoreLinesOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getValue().getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    bool rows = t.getRole() == fmha::TileRole::rows;
    SmallVector<int> lines = accumulatorLines(atom, rows);
    LaneCoords lane =
        accumulatorLane(rewriter, loc, atom, single(adaptor.getLane()));
    // One writer per value: the lanes at the first column (row) of the C
    // layout hold every row (column) between them.
    Value writer = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, rows ? lane.col : lane.row,
        constIndex(rewriter, loc, 0));
    Value first = arith::AddIOp::create(
        rewriter, loc, single(adaptor.getIndex()), rows ? lane.row : lane.col);
    int64_t extent = rows ? t.getAtomRows() : t.getAtomCols();
    ValueRange frags = adaptor.getValue();
    for (auto [n, frag] : llvm::enumerate(frags))
      for (auto [slot, offset] : llvm::enumerate(lines)) {
        Value index = addIdx(rewriter, loc, first, n * extent + offset);
        Value inSequence =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                  index, single(adaptor.getSeqLen()));
        auto ifOp = scf::IfOp::create(
            rewriter, loc,
            arith::AndIOp::create(rewriter, loc, writer, inSequence));
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        Value value = vector::ExtractOp::create(
            rewriter, loc, frag, ArrayRef<int64_t>{int64_t(slot)});
        memref::StoreOp::create(rewriter, loc, value, single(adaptor.getDest()),
                                ValueRange{single(adaptor.getBatch()),
                                           single(adaptor.getHead()), index});
      }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A tile becomes several fragment values. Structured control flow (scf)
/// carries them, but a function's signature, a call or an unstructured
/// branch cannot change types with it: say so, not "failed to legalize".
LogicalResult checkTilesStayInScf(Operation *root) {
  auto isTile = [](Type t) { return isa<fmha::TileType>(t); };
  WalkResult crossing = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    StringRef what;
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      if (!fn.isExternal() && (llvm::any_of(fn.getArgumentTypes(), isTile) ||
                               llvm::any_of(fn.getResultTypes(), isTile)))
        what = "takes or returns a tile";
    } else if (isa<CallOpInterface>(op)) {
      if (llvm::any_of(op->getOperandTypes(), isTile) ||
          llvm::any_of(op->getResultTypes(), isTile))
        what = "passes or returns a tile";
    } else if (isa<BranchOpInterface>(op) &&
               llvm::any_of(op->getOperandTypes(), isTile)) {
      what = "passes a tile to another block";
    }
    if (what.empty())
      return WalkResult::advance();
    op->emitOpError(what) << ": tiles may not cross function calls or "
                             "unstructured branches (keep them within one "
                             "function, in scf control flow)";
    return WalkResult::interrupt();
  });
  return failure(crossing.wasInterrupted());
}

struct DistributeTilesPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::DistributeTilesBase<DistributeTilesPass>> {
  using Base::Base;
  void runOnOperation() override {
    if (mfmaReadBatch < 1) {
      emitError(getOperation()->getLoc(),
                "fmha-distribute-tiles: mfma-read-batch must be at least 1, "
                "got ")
          << mfmaReadBatch.getValue();
      return signalPassFailure();
    }
    // A workgroup's tiles are split over its subgroups first.
    WalkResult unsplit = getOperation()->walk([](Operation *op) {
      if (llvm::none_of(op->getResultTypes(), fmha::isWorkgroupTile) &&
          llvm::none_of(op->getOperandTypes(), fmha::isWorkgroupTile))
        return WalkResult::advance();
      op->emitOpError("works on a workgroup's tiles (split over subgroups): "
                      "run fmha-split-workgroup-tiles before "
                      "fmha-distribute-tiles");
      return WalkResult::interrupt();
    });
    if (unsplit.wasInterrupted() || failed(checkTilesStayInScf(getOperation())))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    rocke::populateDistributeTilesTypeConversion(converter);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    rocke::populateDistributeTilesPatterns(converter, patterns, target,
                                           mfmaReadBatch, transposedLdsReads);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // The whole-tile reads that products read again step by step.
    getOperation()->walk<WalkOrder::PostOrder, ReverseIterator>(
        [](Operation *op) {
          if (isOpTriviallyDead(op))
            op->erase();
        });
  }
};

} // namespace

void rocke::populateDistributeTilesTypeConversion(TypeConverter &converter) {
  converter.addConversion([](Type t) { return t; });
  converter.addConversion(
      [](TileType t, SmallVectorImpl<Type> &fragments) -> LogicalResult {
        fragments.append(t.getRowAtoms() * t.getColAtoms(),
                         t.getFragmentType());
        return success();
      });
}

void rocke::populateDistributeTilesPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            ConversionTarget &target,
                                            int64_t mfmaReadBatch,
                                            bool transposedLdsReads) {
  patterns.add<DistributeMma>(converter, patterns.getContext(), mfmaReadBatch,
                              transposedLdsReads);
  patterns.add<DistributeRead>(converter, patterns.getContext(),
                               transposedLdsReads);
  patterns.add<DistributeZero, DistributeLoad,
               DistributeMmaWarpgroup,
               DistributeConvert, DistributeUnpack, DistributePack,
               DistributeBroadcast, DistributeMap, DistributeMask,
               DistributeWrite, DistributeAccumulate, DistributeStore,
               DistributeStoreScores, DistributeReduce, DistributeStoreLines>(
      converter, patterns.getContext());
  target.addIllegalOp<fmha::TileZeroOp, fmha::TileReadOp, fmha::TileLoadOp,
                      fmha::TileMmaOp, fmha::TileMmaWarpgroupOp,
                      fmha::TileConvertOp, fmha::TileUnpackOp,
                      fmha::TilePackOp, fmha::TileBroadcastOp, fmha::TileMapOp,
                      fmha::TileMaskOp, fmha::TileWriteOp,
                      fmha::TileAccumulateOp, fmha::TileStoreOp,
                      fmha::TileStoreScoresOp, fmha::TileReduceOp,
                      fmha::TileStoreLinesOp>();
  // Any other op that takes or makes a tile (a function returning one, say)
  // cannot be distributed: a "failed to legalize" diagnostic names it.
  target.markUnknownOpDynamicallyLegal(
      [&converter](Operation *op) { return converter.isLegal(op); });
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
}
