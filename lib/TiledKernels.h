//===- TiledKernels.h - pieces shared by the tiled builders -----*- C++ -*-===//
//
// What the tiled forward and backward builders (lib/TiledFwdKernels.cpp,
// lib/TiledBwdKernels.cpp) share: the matrix atom a target computes with, the
// workgroup memory it has, cooperative global -> workgroup-memory tile copies
// and a builder of fmha tile ops.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_TILEDKERNELS_H
#define ROCKE_LIB_TILEDKERNELS_H

#include "dialect/FmhaDialect.h"
#include "lib/AttentionKernels.h"
#include "lib/Fragments.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace rocke {

/// The atom called `name` (with or without the _f16/_bf16 suffix) for `elt`.
const MatrixAtom *lookupAtomFor(StringRef name, Type elt);

/// The atom of the score products: options.matrixAtom or, for "auto", the
/// chip's first atom (the host atom on the CPU; without a chip, the subgroup
/// width's default). Fails with a diagnostic on `op` when it is unknown or
/// does not fit the target or the element type.
FailureOr<const MatrixAtom *>
selectAtom(Operation *op, const AttentionKernelOptions &options, Type elt);

/// 32-bit registers per lane the tiles may keep live (liveRegisters), less
/// room for addresses and temporaries: NVIDIA's 255 per thread; on an AMD
/// chip 5/8 of its unified VGPR file (arch + accumulation registers, which
/// hold the MFMA accumulators) shared by the workgroup's waves on one SIMD
/// (the rest went to addresses, fragments in flight and temporaries at D =
/// 128..256 on gfx942/gfx950); else 7/8 of 256 arch VGPRs.
int64_t registerBudget(const AttentionKernelOptions &options, int64_t numWarps);

/// Workgroup memory a workgroup may use: the chip's; without a chip, 48 KiB
/// of static shared memory for 32-lane subgroups, 64 KiB of LDS for 64-lane.
int64_t workgroupMemoryLimit(const AttentionKernelOptions &options);

/// Cooperative copy of rows [row0, row0 + rows) of head `head` of a [B, S,
/// H, D] memref into the first D columns of a [rows x (D + pad)] workgroup
/// buffer `dst` (double-buffered: [2 x rows x (D + pad)]), or into a buffer
/// of core matrices [rows/8][D/8][8][8] (fmha.tile_mma_warpgroup's B; rows
/// of whole 16-byte chunks), and, when `dstT`
/// is given, its transpose into the first `rows` columns of a [D x (rows +
/// pad)] one (either may be null, not both); rows at or past `seqLen` are
/// zero.
/// Each thread takes a chunk of `chunkRows` rows x `width` columns at a
/// time (square chunks with a transpose, so each of its columns is one
/// store), consecutive threads the next chunk of the same rows, so global
/// reads coalesce. `alignedRows`: the kernel ABI guarantees 16-byte aligned
/// rows (GPU targets). The copy runs at once, or split into load() (global
/// -> registers) and store() (registers -> workgroup memory) so the loads of
/// the next tile overlap other work.
class TileCopy {
public:
  TileCopy(Value src, Value batch, Value head, Value seqLen, int64_t rows,
           Value dst, Value dstT, Value tid, int64_t threads, bool alignedRows)
      : src(src), batch(batch), head(head), seqLen(seqLen), dst(dst),
        dstT(dstT), tid(tid), threads(threads), alignedRows(alignedRows),
        rows(rows) {
    cols = cast<MemRefType>(src.getType()).getDimSize(3);
    unitInner = hasUnitInnerStride(src);
    // The widest vector that divides the row (and, for square chunks, the
    // rows); with a transpose the widest whose chunks split evenly over the
    // threads, so the copy can be split into load() and store().
    for (int64_t w : {8, 4, 2}) {
      if (!unitInner || cols % w != 0 || (dstT && rows % w != 0))
        continue;
      if (width == 1)
        width = w;
      if (!dstT || (rows / w) * (cols / w) % threads == 0) {
        width = w;
        break;
      }
    }
    chunkRows = dstT ? width : 1;
    coreMatrices = dst && cast<MemRefType>(dst.getType()).getRank() >= 4;
    assert((!coreMatrices || (width == 8 && !dstT && rows % 8 == 0)) &&
           "core matrices are copied in 16-byte rows");
  }

  /// Copies rows [row0, row0 + rows) now.
  void copy(OpBuilder &b, Location loc, Value row0) const {
    Value end = constIndex(b, loc, chunks());
    Value step = constIndex(b, loc, threads);
    auto loop = scf::ForOp::create(b, loc, tid, end, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value chunk = loop.getInductionVar();
    storeChunk(b, loc, chunk, loadChunk(b, loc, chunk, row0));
  }
  /// load() / store() need every thread to take the same number of chunks.
  bool canSplit() const { return chunks() % threads == 0; }
  /// How many values load() returns.
  int64_t loadedValues() const { return chunks() / threads * chunkRows; }
  /// This thread's chunks of rows [row0, row0 + rows), in registers.
  SmallVector<Value> load(OpBuilder &b, Location loc, Value row0) const {
    SmallVector<Value> vals;
    for (int64_t i = 0; i < chunks() / threads; ++i)
      vals.append(loadChunk(b, loc, chunkOf(b, loc, i), row0));
    return vals;
  }
  /// Issues this thread's chunks of rows [row0, row0 + rows) into slot
  /// `slot` of the double-buffered tile as 16-byte
  /// nvgpu.device_async_copy ops; rows at or past `rowEnd` read nothing and
  /// are zero-filled (srcElements = 0). Returns the tokens. The config asks
  /// for rows of whole 16-byte chunks, which are TileCopy's chunks then.
  SmallVector<Value> issueAsync(OpBuilder &b, Location loc, Value row0,
                                Value rowEnd, Value slot) const {
    Value cWidth = constIndex(b, loc, width);
    Value none = constIndex(b, loc, 0);
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    SmallVector<Value> tokens;
    for (int64_t i = 0; i < chunks() / threads; ++i) {
      auto [r, c] = coords(b, loc, chunkOf(b, loc, i));
      Value row = arith::AddIOp::create(b, loc, row0, r);
      Value valid = cmp(b, loc, arith::CmpIPredicate::ult, row, rowEnd);
      Value srcElements = arith::SelectOp::create(b, loc, valid, cWidth, none);
      SmallVector<Value> at{slot};
      at.append(dstIndices(b, loc, r, c));
      auto copy = nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, dst, at, src,
          ValueRange{batch, row, head, c}, b.getIndexAttr(width), srcElements,
          b.getUnitAttr());
      tokens.push_back(copy.getAsyncToken());
    }
    return tokens;
  }
  /// Writes what load() read into the workgroup buffers, the last-loaded
  /// value first: loads complete in order, so the first store's wait covers
  /// them all instead of one wait per load.
  void store(OpBuilder &b, Location loc, ValueRange vals) const {
    for (int64_t i = chunks() / threads - 1; i >= 0; --i)
      storeChunk(b, loc, chunkOf(b, loc, i),
                 vals.slice(i * chunkRows, chunkRows));
  }

private:
  int64_t chunksPerRow() const { return cols / width; }
  int64_t chunks() const { return rows / chunkRows * chunksPerRow(); }
  Value chunkOf(OpBuilder &b, Location loc, int64_t i) const {
    return addIdx(b, loc, tid, i * threads);
  }
  Type elt() const { return cast<MemRefType>(src.getType()).getElementType(); }
  /// (first row, first column) of a chunk in the tile. Into core matrices,
  /// consecutive chunks go down the 8 rows of one (128 consecutive bytes:
  /// the stores do not conflict), then along the rows.
  std::pair<Value, Value> coords(OpBuilder &b, Location loc,
                                 Value chunk) const {
    if (coreMatrices) {
      Value c8 = constIndex(b, loc, 8);
      Value inMatrix = arith::RemUIOp::create(b, loc, chunk, c8);
      Value matrix = arith::DivUIOp::create(b, loc, chunk, c8);
      Value perRow = constIndex(b, loc, chunksPerRow());
      Value r = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc,
                                arith::DivUIOp::create(b, loc, matrix, perRow),
                                c8),
          inMatrix);
      Value c = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, matrix, perRow), c8);
      return {r, c};
    }
    Value perRow = constIndex(b, loc, chunksPerRow());
    Value rowChunk = arith::DivUIOp::create(b, loc, chunk, perRow);
    Value r =
        arith::MulIOp::create(b, loc, rowChunk, constIndex(b, loc, chunkRows));
    Value inRow = arith::RemUIOp::create(b, loc, chunk, perRow);
    Value c = arith::MulIOp::create(b, loc, inRow, constIndex(b, loc, width));
    return {r, c};
  }
  /// Where element (r, c) of the tile is in `dst` (less a slot index).
  SmallVector<Value> dstIndices(OpBuilder &b, Location loc, Value r,
                                Value c) const {
    if (!coreMatrices)
      return {r, c};
    return coreMatrixIndices(b, loc, r, c);
  }
  /// The chunk's rows, one vector each.
  SmallVector<Value> loadChunk(OpBuilder &b, Location loc, Value chunk,
                               Value row0) const {
    auto [r, c] = coords(b, loc, chunk);
    auto vecType = VectorType::get({width}, elt());
    // GPU kernels ask for 16-byte aligned Q/K/V/dO base pointers and outer
    // strides in multiples of 16 bytes (runners check), so a row's vector is
    // aligned to its size up to 16 bytes; the host promises nothing.
    llvm::MaybeAlign align;
    if (alignedRows && unitInner)
      align = llvm::Align(
          std::min<int64_t>(16, width * elt().getIntOrFloatBitWidth() / 8));
    SmallVector<Value> vals;
    for (int64_t i = 0; i < chunkRows; ++i) {
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
    for (int64_t j = 0; j < width; ++j) {
      SmallVector<int64_t> picks;
      for (int64_t i = 0; i < chunkRows; ++i)
        picks.push_back(i * width + j);
      Value column = gatherElements(b, loc, rowVals, picks);
      vector::StoreOp::create(b, loc, column, dstT,
                              ValueRange{addIdx(b, loc, c, j), r});
    }
  }

public:
  /// Rows past seqLen read as zeros; when false they hold a copy of row 0
  /// (finite data the consumer ignores), which saves a select per load and
  /// lets the loads' waits fall where the values are stored.
  bool zeroPastEnd = true;

private:
  Value src, batch, head, seqLen, dst, dstT, tid;
  int64_t threads;
  bool alignedRows;
  int64_t rows, cols = 0, width = 1, chunkRows = 1;
  bool unitInner = false;
  /// `dst` is [rows/8][cols/8][8][8] core matrices (wgmma's B operand).
  bool coreMatrices = false;
};

/// A tile size that must be a multiple of an atom extent: `what` (named
/// `whatName`) of `by` (`byName`).
struct Divisibility {
  int64_t what, by;
  const char *whatName, *byName;
};

/// Whether every requirement holds; with `report`, a diagnostic on `op`
/// naming the first that does not ("<context>: ... must be a multiple of
/// ...").
LogicalResult checkDivisible(Operation *op, ArrayRef<Divisibility> needs,
                             StringRef context, bool report);

/// Slot `slot` of a double-buffered [2 x ...] workgroup tile, without the
/// slot dimension.
Value slotView(OpBuilder &b, Location loc, Value tile, Value slot);

/// Creates fmha tile ops of one kernel: tiles of `elt` operands and f32
/// accumulators, read by lane `lane`.
struct TileBuilder {
  OpBuilder &b;
  Location loc;
  Type elt;
  Value lane;

  /// A [rows x cols] tile of `atom` in `role` (f32 unless a or b).
  fmha::TileType type(int64_t rows, int64_t cols, fmha::TileRole role,
                      const MatrixAtom &atom) const;
  Value zero(fmha::TileType type) const;
  Value read(Value buffer, Value row, Value col, bool transposed,
             fmha::TileType type) const;
  Value mma(Value lhs, Value rhs, Value acc) const;
  /// An operand of a warpgroup product in a buffer of core matrices: [R x
  /// C] at (row, col), or its transpose.
  struct SharedOperand {
    Value buffer, row, col;
    bool transposed = false;
  };
  /// acc + lhs * B, issued by the warpgroup: B [K x N] in workgroup memory,
  /// A the subgroup's rows in registers, or the warpgroup's [64 x k] block
  /// in workgroup memory too.
  Value mmaWarpgroup(Value lhs, const SharedOperand &rhs, Value acc) const;
  Value mmaWarpgroup(const SharedOperand &lhs, int64_t k,
                     const SharedOperand &rhs, Value acc) const;
  /// An elementwise map of `inputs` into `resultType`: `fn` gets the body's
  /// f32 arguments and returns the element.
  Value map(fmha::TileType resultType, ValueRange inputs,
            function_ref<Value(ValueRange)> fn) const;
};

} // namespace rocke

#endif // ROCKE_LIB_TILEDKERNELS_H
