//===- DistributeTiles.cpp - subgroup tiles -> lane fragments -------------===//
//
// The distribution stage of the tiled lowering: every !fmha.tile value
// becomes its lane's fragments, one 1-D vector per atom (row-major), and the
// tile ops the per-lane code that reads, multiplies and converts them:
//  - fmha.tile_read: fragment reads from workgroup memory at the coordinates
//    lib/FragmentLayout gives each lane (vector loads along the buffer's
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
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"
#include "lib/Fragments.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Transforms/DialectConversion.h"

namespace rocke {
#define GEN_PASS_DEF_DISTRIBUTETILES
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using namespace rocke;
using fmha::TileRole;
using fmha::TileType;

namespace {

MatrixOperand operandOf(TileRole role) {
  switch (role) {
  case TileRole::a:
    return MatrixOperand::A;
  case TileRole::b:
    return MatrixOperand::B;
  case TileRole::c:
    return MatrixOperand::C;
  }
  llvm_unreachable("unknown tile role");
}

/// The one value a non-tile operand converts to.
Value single(ValueRange converted) { return converted.front(); }

struct DistributeZero : OpConversionPattern<fmha::TileZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileZeroOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileType t = op.getType();
    AccTile zeros = AccTile::zeros(rewriter, op.getLoc(), t.getMatrixAtom(),
                                   t.getRowAtoms(), t.getColAtoms());
    rewriter.replaceOpWithMultiple(op, {zeros.atoms});
    return success();
  }
};

/// The fragments of a tile_read, one atom at a time: (ai, aj) of the tile.
class TileReader {
public:
  TileReader(OpBuilder &b, Location loc, fmha::TileReadOp op, Value buffer,
             Value row, Value col, Value lane)
      : type(op.getType()), transposed(op.getTransposed()), buffer(buffer),
        row(row), col(col),
        reader(type.getMatrixAtom(), operandOf(type.getRole()),
               LaneCoords::get(b, loc, type.getMatrixAtom(),
                               operandOf(type.getRole()), lane),
               lane) {}

  Value read(OpBuilder &b, Location loc, int64_t ai, int64_t aj) const {
    int64_t rows = type.getAtomRows(), cols = type.getAtomCols();
    return reader.read(b, loc, buffer, transposed ? aj * cols : ai * rows,
                       transposed ? ai * rows : aj * cols, transposed, row,
                       col);
  }

private:
  TileType type;
  bool transposed;
  Value buffer, row, col;
  FragmentReader reader;
};

struct DistributeRead : OpConversionPattern<fmha::TileReadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileReadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileReader reader(rewriter, loc, op, single(adaptor.getBuffer()),
                      single(adaptor.getRow()), single(adaptor.getCol()),
                      single(adaptor.getLane()));
    SmallVector<Value> frags;
    for (int64_t ai = 0; ai < op.getType().getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < op.getType().getColAtoms(); ++aj)
        frags.push_back(reader.read(rewriter, loc, ai, aj));
    rewriter.replaceOpWithMultiple(op, {frags});
    return success();
  }
};

struct DistributeLoad : OpConversionPattern<fmha::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType t = op.getType();
    const MatrixAtom &atom = t.getMatrixAtom();
    MatrixOperand operand = operandOf(t.getRole());
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

struct DistributeMma : OpConversionPattern<fmha::TileMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(fmha::TileMmaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileType c = op.getType();
    int64_t kSteps = op.getLhs().getType().getColAtoms();
    AccTile acc =
        AccTile::fromValues(c.getRowAtoms(), c.getColAtoms(), adaptor.getAcc());
    // An operand read from workgroup memory is read again one k step at a
    // time, next to the atoms that use it, so a step's fragments are live
    // only during that step (the whole-tile read dies unused). Others are
    // in registers already.
    auto reread = [&](Value tile) -> std::optional<TileReader> {
      auto read = tile.getDefiningOp<fmha::TileReadOp>();
      if (!read)
        return std::nullopt;
      return TileReader(rewriter, loc, read,
                        rewriter.getRemappedValue(read.getBuffer()),
                        rewriter.getRemappedValue(read.getRow()),
                        rewriter.getRemappedValue(read.getCol()),
                        rewriter.getRemappedValue(read.getLane()));
    };
    std::optional<TileReader> lhsReader = reread(op.getLhs());
    std::optional<TileReader> rhsReader = reread(op.getRhs());
    ValueRange a = adaptor.getLhs(), b = adaptor.getRhs();
    contract(
        rewriter, loc, c.getMatrixAtom(), acc, kSteps,
        [&](int64_t mi, int64_t ki) {
          return lhsReader ? lhsReader->read(rewriter, loc, mi, ki)
                           : a[mi * kSteps + ki];
        },
        [&](int64_t ki, int64_t ni) {
          return rhsReader ? rhsReader->read(rewriter, loc, ki, ni)
                           : b[ki * acc.nAtoms + ni];
        });
    rewriter.replaceOpWithMultiple(op, {acc.atoms});
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
    // The verifier checked that the registers are there.
    SmallVector<RegisterSource> repack = *operandFromAccumulators(
        producer, to.getMatrixAtom(), operandOf(to.getRole()), transposed);
    ValueRange accs = adaptor.getSource();
    int64_t cRegs = producer.regs(MatrixOperand::C);
    SmallVector<Value> frags;
    for (int64_t ai = 0; ai < to.getRowAtoms(); ++ai)
      for (int64_t aj = 0; aj < to.getColAtoms(); ++aj) {
        // The fragment's origin in the source tile, in source atoms.
        int64_t row = ai * to.getAtomRows(), col = aj * to.getAtomCols();
        if (transposed)
          std::swap(row, col);
        int64_t atomRow0 = row / from.getAtomRows();
        int64_t atomCol0 = col / from.getAtomCols();
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

struct DistributeTilesPass
    : public rocke::impl::DistributeTilesBase<DistributeTilesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    rocke::populateDistributeTilesTypeConversion(converter);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    rocke::populateDistributeTilesPatterns(converter, patterns, target);
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
                                            ConversionTarget &target) {
  patterns.add<DistributeZero, DistributeRead, DistributeLoad, DistributeMma,
               DistributeConvert, DistributeUnpack, DistributePack>(
      converter, patterns.getContext());
  target.addIllegalOp<fmha::TileZeroOp, fmha::TileReadOp, fmha::TileLoadOp,
                      fmha::TileMmaOp, fmha::TileConvertOp, fmha::TileUnpackOp,
                      fmha::TilePackOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
}
