//===- Fragments.h - per-lane fragments of matrix-atom tiles ----*- C++ -*-===//
//
// Code generation for tiles of matrix atoms (lib/Target/FragmentLayout) as each lane
// holds them: lane coordinates, reads of operand fragments from workgroup
// and global memory, accumulator tiles, atom contractions, and the register
// runs a fragment leaves memory in. The tiled backward builder and the tile
// distribution pass (fmha-distribute-tiles) share them.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_KERNELS_FRAGMENTS_H
#define ROCKE_LIB_KERNELS_FRAGMENTS_H

#include "lib/Target/FragmentLayout.h"
#include "lib/Kernels/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace rocke {

// The fragment code is MLIR builder code through and through.
using namespace mlir;

Value addIdx(OpBuilder &b, Location loc, Value x, int64_t c);

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x, Value y);

/// The lane-dependent part of one operand's coordinates, computed once.
struct LaneCoords {
  Value row, col;

  static LaneCoords get(OpBuilder &b, Location loc, const MatrixAtom &atom,
                        MatrixOperand operand, Value lane) {
    auto [row, col] = laneCoordinates(b, loc, atom, operand, lane);
    return {row, col};
  }
};

/// A rows x cols tile of accumulators: one C fragment per atom, row-major
/// over the atoms.
struct AccTile {
  int64_t mAtoms = 0, nAtoms = 0;
  SmallVector<Value> atoms;

  Value &at(int64_t mi, int64_t ni) { return atoms[mi * nAtoms + ni]; }
  Value at(int64_t mi, int64_t ni) const { return atoms[mi * nAtoms + ni]; }
  static AccTile zeros(OpBuilder &b, Location loc, const MatrixAtom &atom,
                       int64_t mAtoms, int64_t nAtoms) {
    auto type = VectorType::get({atom.regs(MatrixOperand::C)}, b.getF32Type());
    Value zero = arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0f)));
    return {mAtoms, nAtoms, SmallVector<Value>(mAtoms * nAtoms, zero)};
  }
  static AccTile fromValues(int64_t mAtoms, int64_t nAtoms, ValueRange vals) {
    return {mAtoms, nAtoms, SmallVector<Value>(vals)};
  }
};

/// Per-register constants of an atom's C layout: the row and column offsets
/// that laneOffset's lane part is added to.
struct AccLayout {
  SmallVector<int64_t> rows, cols;

  /// The registers' (row, col) offsets, or (col, row) when `transposed`.
  static AccLayout get(const MatrixAtom &atom, bool transposed = false) {
    AccLayout l;
    for (int reg = 0; reg < atom.regs(MatrixOperand::C); ++reg) {
      FragmentCoord at = regOffset(atom, MatrixOperand::C, reg);
      l.rows.push_back(transposed ? at.col : at.row);
      l.cols.push_back(transposed ? at.row : at.col);
    }
    return l;
  }
};

/// The f32 vector `v` in element type `elt` (truncf unless already f32).
Value truncVector(OpBuilder &b, Location loc, Value v, Type elt);

/// The values at `offsets` (static, one per result element) of `source`, a
/// list of equal-length 1-D vectors seen as one concatenated vector.
Value gatherElements(OpBuilder &b, Location loc, ArrayRef<Value> sources,
                     ArrayRef<int64_t> offsets);

/// `v` (a 1-D vector) widened to `width` elements by repeating its last one,
/// so parts of different lengths can go to gatherElements together.
Value widenTo(OpBuilder &b, Location loc, Value v, int64_t width);

/// buf[base + offsets[i]] of a 1-D buffer as one vector: contiguous runs of
/// the distinct offsets are read with one vector.load each.
Value gatherFromBuffer(OpBuilder &b, Location loc, Value buf, Value base,
                       ArrayRef<int64_t> offsets);

/// The registers from `reg` on of an `operand` fragment that sit next to
/// each other along a row-major buffer holding the operand (its transpose
/// when `transposed`): the buffer offset (row, col) of `reg` and how many
/// registers follow it along that row.
struct RegisterRun {
  int64_t row, col, length;
};

RegisterRun registerRun(const MatrixAtom &atom, MatrixOperand operand,
                        int64_t reg, bool transposed);

/// How a C fragment of `atom` (its transpose when `transposed`) leaves for a
/// row-major buffer in vector runs: `width` registers per run (dividing
/// every registerRun of the layout) and `alignment`, the largest power of
/// two (in elements) dividing each run's first column, for a fragment window
/// starting at a multiple of the atom's extent in a buffer whose rows are
/// multiples of it too.
struct AccRuns {
  int64_t width = 0, alignment = 0;

  static AccRuns get(const MatrixAtom &atom, bool transposed = false) {
    AccRuns runs;
    int64_t regs = atom.regs(MatrixOperand::C);
    for (int64_t reg = 0; reg < regs;) {
      RegisterRun run = registerRun(atom, MatrixOperand::C, reg, transposed);
      runs.width = std::gcd(runs.width, run.length);
      reg += run.length;
    }
    // Every lane's run starts: the lane part plus the registers' columns
    // (rows of the fragment when transposed).
    LaneOffset lane = laneOffset(atom, MatrixOperand::C);
    LaneTerm laneCol = transposed ? lane.row : lane.col;
    int64_t starts = std::gcd<int64_t>(transposed ? atom.m : atom.n,
                                       laneCol.mod == 1 ? 0 : laneCol.mul);
    for (int64_t reg = 0; reg < regs; reg += runs.width) {
      FragmentCoord at = regOffset(atom, MatrixOperand::C, reg);
      starts = std::gcd<int64_t>(starts, transposed ? at.row : at.col);
    }
    runs.alignment = starts & -starts;
    return runs;
  }
};

/// The operand coordinates whose address a lane gives when `operand`
/// fragments of `atom` are read from `buffer` (element (i, j) at buf[i][j],
/// or buf[j][i] when `transposed`) by transposing LDS reads
/// (transposedReadAddress, less the registers' part); std::nullopt unless
/// the fragment's k runs down the buffer's columns, its elements are 16-bit,
/// the buffer is workgroup memory and the layout fits the reads.
std::optional<LaneCoords> transposedReadLane(OpBuilder &b, Location loc,
                                             const MatrixAtom &atom,
                                             MatrixOperand operand,
                                             bool transposed, Value buffer,
                                             Value lane);

/// Reads operand fragments out of a row-major 2-D workgroup buffer. Element
/// (i, j) of the operand is buf[row0 + i][col0 + j], or buf[row0 + j][col0 +
/// i] when `transposed`. Registers that are contiguous in the buffer are read
/// with one vector.load; mma.sync fragments with one ldmatrix; with
/// `transposedLane` (transposedReadLane), four registers down the buffer's
/// columns with one amdgpu.transpose_load.
class FragmentReader {
public:
  FragmentReader(const MatrixAtom &atom, MatrixOperand operand, LaneCoords lane,
                 Value laneId,
                 std::optional<LaneCoords> transposedLane = std::nullopt)
      : atom(atom), operand(operand), lane(lane), laneId(laneId),
        transposedLane(transposedLane) {}

  /// rowBase / colBase (optional, index values) shift the buffer position.
  Value read(OpBuilder &b, Location loc, Value buf, int64_t row0, int64_t col0,
             bool transposed, Value rowBase = Value(),
             Value colBase = Value()) const {
    auto bufType = cast<MemRefType>(buf.getType());
    Type elt = bufType.getElementType();
    int64_t regs = atom.regs(operand);
    if (Value frag = readWithLdmatrix(b, loc, buf, row0, col0, transposed,
                                      rowBase, colBase))
      return frag;
    if (transposedLane)
      return readTransposing(b, loc, buf, row0, col0, transposed, rowBase,
                             colBase);
    // Buffer coordinates of the lane's register 0 part.
    Value laneRow = transposed ? lane.col : lane.row;
    Value laneCol = transposed ? lane.row : lane.col;
    Value r = addIdx(b, loc, laneRow, row0);
    if (rowBase)
      r = arith::AddIOp::create(b, loc, r, rowBase);
    Value c = addIdx(b, loc, laneCol, col0);
    if (colBase)
      c = arith::AddIOp::create(b, loc, c, colBase);

    auto type = VectorType::get({regs}, elt);
    // A one-lane atom holds the whole operand row-major: one 2-D read (of
    // the transpose when `transposed`).
    if (atom.lanes == 1) {
      int64_t rows = operand == MatrixOperand::B ? atom.k : atom.m;
      int64_t cols = operand == MatrixOperand::A ? atom.k : atom.n;
      Value block = vector::TransferReadOp::create(
          b, loc,
          VectorType::get(transposed ? ArrayRef<int64_t>{cols, rows}
                                     : ArrayRef<int64_t>{rows, cols},
                          elt),
          buf, ValueRange{r, c},
          std::optional<Value>(
              arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt))),
          ArrayRef<bool>{true, true});
      if (transposed)
        block =
            vector::TransposeOp::create(b, loc, block, ArrayRef<int64_t>{1, 0});
      return vector::ShapeCastOp::create(b, loc, type, block);
    }
    SmallVector<Value> elems;
    for (int64_t reg = 0; reg < regs;) {
      RegisterRun run = registerRun(atom, operand, reg, transposed);
      SmallVector<Value> idx{addIdx(b, loc, r, run.row),
                             addIdx(b, loc, c, run.col)};
      if (run.length == regs)
        return vector::LoadOp::create(b, loc, type, buf, idx);
      Value part = vector::LoadOp::create(
          b, loc, VectorType::get({run.length}, elt), buf, idx);
      for (int64_t i = 0; i < run.length; ++i)
        elems.push_back(
            vector::ExtractOp::create(b, loc, part, ArrayRef<int64_t>{i}));
      reg += run.length;
    }
    return vector::FromElementsOp::create(b, loc, type, elems);
  }

  /// Two B fragments side by side along n (the second at n + atom.n) with
  /// one ldmatrix.x4, for mma.sync m16n8k16 fragments of 16-bit elements;
  /// else the first as read() gives it and a null second.
  std::pair<Value, Value> readPairAlongN(OpBuilder &b, Location loc, Value buf,
                                         int64_t row0, int64_t col0,
                                         bool transposed, Value rowBase,
                                         Value colBase) const {
    if (operand == MatrixOperand::B && ldmatrixFits(buf)) {
      Value pair = readWithLdmatrix(b, loc, buf, row0, col0, transposed,
                                    rowBase, colBase, /*tiles=*/4);
      int64_t regs = atom.regs(operand);
      auto half = [&](int64_t first) -> Value {
        return vector::ExtractStridedSliceOp::create(
            b, loc, pair, ArrayRef<int64_t>{first}, ArrayRef<int64_t>{regs},
            ArrayRef<int64_t>{1});
      };
      return {half(0), half(regs)};
    }
    return {read(b, loc, buf, row0, col0, transposed, rowBase, colBase),
            Value()};
  }

private:
  bool ldmatrixFits(Value buf) const {
    auto bufType = cast<MemRefType>(buf.getType());
    return atom.family == MatrixAtom::Family::MmaSync &&
           bufType.getElementTypeBitWidth() == 16 && atom.k == 16 &&
           atom.m == 16 && atom.n == 8 && operand != MatrixOperand::C;
  }

  /// mma.sync m16n8k16 fragments of 16-bit elements come from ldmatrix: lane
  /// l gives the address of row l % 8 of 8x8 matrix l / 8, and the matrices
  /// are ordered as the fragment's register pairs (A: (m, k) = (0, 0), (8,
  /// 0), (0, 8), (8, 8); B: k 0-7, 8-15, and with `tiles` = 4 the next
  /// atom's along n). Fragments whose registers run along the buffer's rows
  /// (A stored [m][k], B stored [n][k]) load the matrices as they are; those
  /// running down its columns (A stored [k][m], B stored [k][n]) with .trans.
  /// Null when the read has another shape.
  Value readWithLdmatrix(OpBuilder &b, Location loc, Value buf, int64_t row0,
                         int64_t col0, bool transposed, Value rowBase,
                         Value colBase, int64_t bTiles = 2) const {
    auto bufType = cast<MemRefType>(buf.getType());
    if (!ldmatrixFits(buf))
      return Value();
    bool isA = operand == MatrixOperand::A;
    // .trans when the registers' k runs down the buffer's columns.
    bool trans = isA ? transposed : !transposed;
    int64_t tiles = isA ? 4 : bTiles;
    // Ops are created in statements: the IR must not depend on the order a
    // compiler evaluates arguments in.
    Value c8 = constIndex(b, loc, 8);
    Value octet = arith::DivUIOp::create(b, loc, laneId, c8);
    Value matrix =
        arith::RemUIOp::create(b, loc, octet, constIndex(b, loc, tiles));
    Value rowInMatrix =
        arith::RemUIOp::create(b, loc, laneId, constIndex(b, loc, 8));
    // Operand coordinates (i, j) of the matrix's first row: matrix t of A,
    // and of a pair of B atoms, is at (8 * (t % 2), 8 * (t / 2)); of one B
    // atom at k = 8 t.
    auto mul8 = [&](Value v) {
      return arith::MulIOp::create(b, loc, v, constIndex(b, loc, 8));
    };
    Value c2 = constIndex(b, loc, 2);
    bool grid = tiles == 4;
    Value i0 = grid ? mul8(arith::RemUIOp::create(b, loc, matrix, c2))
                    : mul8(matrix); // A: m; B: k
    Value j0 = grid ? mul8(arith::DivUIOp::create(b, loc, matrix, c2))
                    : constIndex(b, loc, 0); // A: k; B: n
    // The address row runs along the operand's non-k dimension when the
    // matrices load as they are (rows m of A, rows n of B), along k with
    // .trans.
    Value r, c;
    if (isA) {
      // Operand (i = m, j = k); buffer [m][k] or, transposed, [k][m].
      Value m = trans ? i0 : arith::AddIOp::create(b, loc, i0, rowInMatrix);
      Value k = trans ? arith::AddIOp::create(b, loc, j0, rowInMatrix) : j0;
      r = transposed ? k : m;
      c = transposed ? m : k;
    } else {
      // Operand (i = k, j = n); buffer [k][n] or, transposed, [n][k].
      Value k = trans ? arith::AddIOp::create(b, loc, i0, rowInMatrix) : i0;
      Value n = trans ? j0 : arith::AddIOp::create(b, loc, j0, rowInMatrix);
      r = transposed ? n : k;
      c = transposed ? k : n;
    }
    r = addIdx(b, loc, r, row0);
    c = addIdx(b, loc, c, col0);
    if (rowBase)
      r = arith::AddIOp::create(b, loc, r, rowBase);
    if (colBase)
      c = arith::AddIOp::create(b, loc, c, colBase);
    Type elt = bufType.getElementType();
    Value pairs = nvgpu::LdMatrixOp::create(
        b, loc, VectorType::get({tiles, 2}, elt), buf, ValueRange{r, c},
        b.getBoolAttr(trans), b.getI32IntegerAttr(tiles));
    return vector::ShapeCastOp::create(
        b, loc, VectorType::get({2 * tiles}, elt), pairs);
  }

  /// Four registers at a time, each lane at the address transposedLane
  /// names.
  Value readTransposing(OpBuilder &b, Location loc, Value buf, int64_t row0,
                        int64_t col0, bool transposed, Value rowBase,
                        Value colBase) const;

  const MatrixAtom &atom;
  MatrixOperand operand;
  LaneCoords lane;
  Value laneId;
  std::optional<LaneCoords> transposedLane;
};

/// Where a product's fragment reads go among its atoms.
struct AtomOrder {
  /// A (B) is read from workgroup memory in each k step: the step's atoms
  /// use its fragments last-read first. LDS reads complete in order, so the
  /// wait before the first atom (LLVM's SIInsertWaitcnts waits before each
  /// read's first use) covers all of the step's reads, not one wait per read.
  bool aLastReadFirst = false;
  bool bLastReadFirst = false;
  /// k steps whose fragments are all read before the first of their atoms,
  /// then `afterReads` (an explicit wait for them, which LLVM keeps and adds
  /// none after).
  int64_t readBatch = 1;
  llvm::function_ref<void()> afterReads = nullptr;
};

/// acc[mi][ni] += sum_ki A(mi, ki) * B(ki, ni) with one fmha.mma per atom.
/// Each k step reads its fragments in order of mi, then of ni, before its
/// atoms.
void contract(OpBuilder &b, Location loc, const MatrixAtom &atom, AccTile &acc,
              int64_t kSteps, llvm::function_ref<Value(int64_t, int64_t)> a,
              llvm::function_ref<Value(int64_t, int64_t)> bFrag,
              AtomOrder order);

/// Element (r, c) among the atoms of `atoms` (fmha::atomRowBytes; a slot
/// dimension first is left out): [r / 8, c / W, r % 8, c % W], the 16-byte
/// chunk of c % W swizzled by r % 8 in 128-byte rows.
SmallVector<Value> atomIndices(OpBuilder &b, Location loc, MemRefType atoms,
                               Value r, Value c);

/// Writes a C-layout tile holding X (rows x cols from the atom grid) into a
/// row-major 2-D buffer (or, for atoms of several lanes, a [R/8][C/W][8][W]
/// one of atoms, atomIndices; fmha.tile_write's verifier holds to that):
/// X[i][j] goes to buf[rowBase + i][colBase + j], or to
/// buf[rowBase + j][colBase + i] when `transposed`; converted to the buffer's
/// element type.
void storeAccTile(OpBuilder &b, Location loc, const MatrixAtom &atom,
                  const AccTile &tile, LaneCoords laneC, Value buf,
                  bool transposed, Value rowBase, Value colBase);

/// True when the innermost dimension of `memref` has unit stride, so a row's
/// consecutive elements can be read with one vector.load.
bool hasUnitInnerStride(Value memref);

/// `type` elements of row `row` of head `head` of the [B, S, H, D] memref
/// `src` from column `col`: one vector.load when the inner stride is 1
/// (`unitInner`, aligned to `align`), else one element broadcast (1-element
/// runs). With `seqLen`, a row at or past it reads row 0 (always present)
/// and, with `zeroPastEnd`, gives zeros.
Value loadRowRun(OpBuilder &b, Location loc, Value src, Value batch, Value row,
                 Value head, Value col, VectorType type, bool unitInner,
                 llvm::MaybeAlign align, Value seqLen = Value(),
                 bool zeroPastEnd = true);

/// Fragments of `operand` read once from global memory out of the [rows x
/// cols] block at (rowBase, colBase) of head `head` of the [B, S, H, D]
/// memref `src`. The block's rows run along the operand's k dimension
/// (`rowsAlongK`) or along its other one (A: m, B: n). Rows past `seqLen`
/// are zero. Returned as [row atoms][column atoms] of the block.
SmallVector<Value>
loadRowFragments(OpBuilder &b, Location loc, const MatrixAtom &atom,
                 MatrixOperand operand, LaneCoords lane, Value src, Value batch,
                 Value rowBase, Value colBase, Value head, Value seqLen,
                 int64_t rows, int64_t cols, bool rowsAlongK, Type elt);

/// Visits one accumulator fragment `frag` (registers of a C layout
/// `layout`, whose lane part puts register 0 at (row0, col0)) in runs of
/// `width` registers, each run consecutive along a row (`width` divides
/// every run of AccRuns): fn(row, col, run) with run[i] the element at (row,
/// col + i), each call under its own insertion point. Straight-line code
/// on GPUs (constant register indices); the host's atom holds hundreds of
/// elements and keeps a loop over the runs.
void forEachAccRun(
    OpBuilder &b, Location loc, const KernelTarget &target, Value frag,
    const AccLayout &layout, int64_t width, Value row0, Value col0,
    llvm::function_ref<void(Value row, Value col, ValueRange run)> fn);

/// forEachAccRun one element at a time: fn(row, col, value).
void forEachAccElement(
    OpBuilder &b, Location loc, const KernelTarget &target, Value frag,
    const AccLayout &layout, Value row0, Value col0,
    llvm::function_ref<void(Value row, Value col, Value x)> fn);

} // namespace rocke

#endif
