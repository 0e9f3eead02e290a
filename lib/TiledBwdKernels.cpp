//===- TiledBwdKernels.cpp - FlashAttention-2 backward on matrix atoms ----===//
//
// strategy=tiled of fmha-bwd-to-kernels. Kernels, in launch order:
//   1. zero-fill of the f32 dQ accumulator (or of the per-KV-block partials);
//   2. preprocess delta = rowsum(dO * O) (lib/KernelBuilder);
//   3. the main kernel, one workgroup per (KV block, kv head, batch): K of the
//      block sits in workgroup memory, each subgroup keeps the V fragments and
//      the dK / dV accumulators of its slice of KV rows in registers while it
//      loops over the group's query heads and the query blocks the mask lets
//      through. Per query block it recomputes S^T = K Q^T and P^T from the
//      saved statistics, dP^T = V dO^T, dS^T = P^T (dP^T - delta), and
//      accumulates dV += P^T dO, dK += dS^T Q, and dQ += dS K (atomics, or
//      per-KV-block partials when deterministic);
//   4. dQ conversion (or the fixed-order reduction of the partials).
// Every block contraction is a grid of fmha.mma atoms (lib/FragmentLayout):
// fragments are read from workgroup memory at the coordinates the atom's
// layout gives each lane, so one body serves MFMA, mma.sync and the host atom
// that runs the same algorithm on the CPU with one lane per workgroup.
//
//===----------------------------------------------------------------------===//
#include "lib/BwdKernels.h"

#include "dialect/FmhaDialect.h"
#include "lib/FragmentLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace rocke;

namespace {

/// Tile shape of one main-kernel workgroup.
struct TiledConfig {
  const MatrixAtom *atom = nullptr;
  int64_t blockQ = 0, blockKv = 0, numWarps = 0;
  int64_t lanes = 0;       ///< lanes of a subgroup (= the atom's lanes)
  int64_t kvRowsPerWarp = 0;
  int64_t dqk = 0, dv = 0, group = 0;
  Type elt;                ///< input element type (= fragment element type)

  int64_t threads() const { return numWarps * lanes; }
  /// Workgroup memory: K [blockKv x Dqk], Q [blockQ x Dqk], dO [blockQ x Dv],
  /// P^T / dS^T [blockKv x blockQ] in the input type; 3 f32 row vectors.
  int64_t workgroupBytes() const {
    int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
    return eltBytes * (blockKv * dqk + blockQ * dqk + blockQ * dv +
                       blockKv * blockQ) +
           4 * 3 * blockQ;
  }
};

/// Workgroup memory budget of a target: NVIDIA's static shared memory limit
/// (48 KiB) for 32-lane subgroups, the CDNA LDS (64 KiB) for 64-lane ones.
int64_t workgroupMemoryLimit(const KernelTarget &target) {
  if (target.host)
    return std::numeric_limits<int64_t>::max();
  return target.subgroupSize == 32 ? 48 * 1024 : 64 * 1024;
}

/// Picks the matrix atom: an explicit name (with or without the _f16/_bf16
/// suffix) or, for "auto", the target's default.
const MatrixAtom *selectAtom(const BwdKernelOptions &options, Type elt) {
  std::string suffix = elt.isBF16() ? "_bf16" : "_f16";
  std::string name = options.matrixAtom;
  if (name == "auto") {
    if (options.target.host)
      return lookupAtom("host_16x16x16");
    name = options.target.subgroupSize == 32 ? "mma_sync_m16n8k16"
                                             : "mfma_f32_16x16x16";
  }
  if (const MatrixAtom *atom = lookupAtom(name))
    return atom;
  return lookupAtom(name + suffix);
}

LogicalResult makeConfig(fmha::AttentionBwdOp op,
                         const BwdKernelOptions &options,
                         const AttentionSizes &sizes, TiledConfig &cfg) {
  const KernelTarget &target = options.target;
  cfg.elt = cast<MemRefType>(op.getQuery().getType()).getElementType();
  if (!target.host && cfg.elt.isF32())
    return op.emitOpError("strategy=tiled on a GPU needs f16 or bf16 inputs "
                          "(matrix cores); use strategy=warp for f32");
  cfg.atom = selectAtom(options, cfg.elt);
  if (!cfg.atom)
    return op.emitOpError("unknown matrix atom '")
           << options.matrixAtom << "' (see lib/FragmentLayout.cpp)";
  if (cfg.atom->isHost() != target.host)
    return op.emitOpError("matrix atom '")
           << cfg.atom->name << "' is for "
           << (cfg.atom->isHost() ? "the host" : "a GPU") << ", not target="
           << (target.host ? "host" : "gpu");
  if (!target.host && unsigned(cfg.atom->lanes) != target.subgroupSize)
    return op.emitOpError("matrix atom '")
           << cfg.atom->name << "' needs " << cfg.atom->lanes
           << "-lane subgroups, subgroup-size is " << target.subgroupSize;
  if (!cfg.atom->isHost() &&
      cfg.atom->name.ends_with("bf16") != cfg.elt.isBF16())
    return op.emitOpError("matrix atom '")
           << cfg.atom->name << "' does not take " << cfg.elt << " inputs";

  cfg.lanes = cfg.atom->lanes;
  // One lane per workgroup on the host: a single subgroup does all the work.
  cfg.numWarps = target.host ? 1 : options.numWarps;
  cfg.blockKv = options.blockKv;
  cfg.dqk = sizes.headDimQk;
  cfg.dv = sizes.headDimV;
  cfg.group = sizes.groupSize();
  if (cfg.numWarps <= 0 || options.blockKv <= 0 || options.blockQ < 0)
    return op.emitOpError("block sizes and num-warps must be positive");
  // Bounds first: the divisibility and tile-size products below overflowed
  // for huge values (a division by zero, a 2^58-element vector:
  // test/Fuzz/bwd-to-kernels-huge-options.mlir). The pass bounds num-warps by
  // the workgroup size; tiles of more than kMaxBlockRows rows exceed any
  // workgroup memory and make the host's loops take seconds to build.
  constexpr int64_t kMaxBlockRows = 1024;
  if (options.blockKv > kMaxBlockRows || options.blockQ > kMaxBlockRows)
    return op.emitOpError("block-q and block-kv must be at most ")
           << kMaxBlockRows << " rows";
  cfg.kvRowsPerWarp = cfg.blockKv / cfg.numWarps;

  const MatrixAtom &a = *cfg.atom;
  auto divides = [&](int64_t what, int64_t by, StringRef whatName,
                     StringRef byName) -> LogicalResult {
    if (what % by == 0)
      return success();
    return op.emitOpError("strategy=tiled with atom ")
           << a.name << ": " << whatName << " (" << what
           << ") must be a multiple of " << byName << " (" << by << ")";
  };
  if (failed(divides(cfg.blockKv, cfg.numWarps * a.m, "block-kv",
                     "num-warps * atom M")) ||
      failed(divides(cfg.dqk, a.k, "Dqk", "atom K")) ||
      failed(divides(cfg.dv, a.k, "Dv", "atom K")) ||
      failed(divides(cfg.dv, a.n, "Dv", "atom N")) ||
      failed(divides(cfg.dqk, cfg.numWarps * a.n, "Dqk",
                     "num-warps * atom N")) ||
      failed(divides(cfg.blockKv, a.k, "block-kv", "atom K")))
    return failure();

  // block-q = 0: the largest of 64, 32, 16 whose tiles fit workgroup memory.
  int64_t limit = workgroupMemoryLimit(target);
  SmallVector<int64_t> candidates;
  if (options.blockQ > 0)
    candidates.push_back(options.blockQ);
  else
    candidates = {64, 32, 16};
  for (int64_t bq : candidates) {
    cfg.blockQ = bq;
    if (bq % a.m == 0 && bq % a.n == 0 && bq % a.k == 0 &&
        cfg.workgroupBytes() <= limit)
      return success();
  }
  if (options.blockQ > 0 &&
      (failed(divides(cfg.blockQ, a.m, "block-q", "atom M")) ||
       failed(divides(cfg.blockQ, a.n, "block-q", "atom N")) ||
       failed(divides(cfg.blockQ, a.k, "block-q", "atom K"))))
    return failure();
  return op.emitOpError("strategy=tiled: the tiles need ")
         << cfg.workgroupBytes() << " bytes of workgroup memory, more than the "
         << limit << " the target has; lower block-q or block-kv";
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

Value addIdx(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (c == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, constIndex(b, loc, c));
}

/// The lane-dependent part of one operand's coordinates, computed once.
struct LaneCoords {
  Value row, col;

  static LaneCoords get(OpBuilder &b, Location loc, const MatrixAtom &atom,
                        MatrixOperand operand, Value lane) {
    LaneOffset lo = laneOffset(atom, operand);
    auto term = [&](LaneTerm t) -> Value {
      if (t.mul == 0 || t.mod == 1)
        return constIndex(b, loc, 0);
      Value v = lane;
      if (t.div != 1)
        v = arith::DivUIOp::create(b, loc, v, constIndex(b, loc, t.div));
      v = arith::RemUIOp::create(b, loc, v, constIndex(b, loc, t.mod));
      if (t.mul != 1)
        v = arith::MulIOp::create(b, loc, v, constIndex(b, loc, t.mul));
      return v;
    };
    return {term(lo.row), term(lo.col)};
  }
};

/// A rows x cols tile of accumulators: one C fragment per atom, row-major
/// over the atoms.
struct AccTile {
  int64_t mAtoms = 0, nAtoms = 0;
  SmallVector<Value> atoms;

  Value &at(int64_t mi, int64_t ni) { return atoms[mi * nAtoms + ni]; }
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

/// Reads operand fragments out of a row-major 2-D workgroup buffer. Element
/// (i, j) of the operand is buf[row0 + i][col0 + j], or buf[row0 + j][col0 +
/// i] when `transposed`. Registers that are contiguous in the buffer are read
/// with one vector.load.
class FragmentReader {
public:
  FragmentReader(const MatrixAtom &atom, MatrixOperand operand,
                 LaneCoords lane, Value laneId)
      : atom(atom), operand(operand), lane(lane), laneId(laneId) {}

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
        block = vector::TransposeOp::create(b, loc, block,
                                            ArrayRef<int64_t>{1, 0});
      return vector::ShapeCastOp::create(b, loc, type, block);
    }
    SmallVector<Value> elems;
    for (int64_t reg = 0; reg < regs;) {
      FragmentCoord at = regOffset(atom, operand, reg);
      int64_t br = transposed ? at.col : at.row;
      int64_t bc = transposed ? at.row : at.col;
      int64_t run = 1;
      while (reg + run < regs) {
        FragmentCoord next = regOffset(atom, operand, reg + run);
        int64_t nr = transposed ? next.col : next.row;
        int64_t nc = transposed ? next.row : next.col;
        if (nr != br || nc != bc + run)
          break;
        ++run;
      }
      SmallVector<Value> idx{addIdx(b, loc, r, br), addIdx(b, loc, c, bc)};
      if (run == regs)
        return vector::LoadOp::create(b, loc, type, buf, idx);
      Value part =
          vector::LoadOp::create(b, loc, VectorType::get({run}, elt), buf, idx);
      for (int64_t i = 0; i < run; ++i)
        elems.push_back(vector::ExtractOp::create(b, loc, part,
                                                  ArrayRef<int64_t>{i}));
      reg += run;
    }
    Value frag = vector::FromElementsOp::create(b, loc, type, elems);
    return frag;
  }

private:
  /// mma.sync operands whose registers run down the buffer's columns (B
  /// stored [k][n], A stored transposed [k][m]) would be gathered 16 bits at
  /// a time; ldmatrix.trans loads them whole: lane l gives the address of row
  /// l % 8 of 8x8 matrix l / 8, and the matrices are ordered as the
  /// fragment's register pairs (B: k 0-7, 8-15; A: (m, k) = (0, 0), (8, 0),
  /// (0, 8), (8, 8)). Null when the read does not have that shape.
  Value readWithLdmatrix(OpBuilder &b, Location loc, Value buf, int64_t row0,
                         int64_t col0, bool transposed, Value rowBase,
                         Value colBase) const {
    auto bufType = cast<MemRefType>(buf.getType());
    bool runsDownColumns = (operand == MatrixOperand::B && !transposed) ||
                           (operand == MatrixOperand::A && transposed);
    if (atom.family != MatrixAtom::Family::MmaSync || !runsDownColumns ||
        bufType.getElementTypeBitWidth() != 16 || atom.k != 16 ||
        atom.m != 16 || atom.n != 8)
      return Value();
    int64_t tiles = operand == MatrixOperand::B ? 2 : 4;
    Value matrix = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, laneId, constIndex(b, loc, 8)),
        constIndex(b, loc, tiles));
    Value rowInMatrix =
        arith::RemUIOp::create(b, loc, laneId, constIndex(b, loc, 8));
    // B: matrix i covers buffer rows (k) 8i..8i+7. A^T: matrix i covers
    // buffer rows (k) 8 * (i / 2) and columns (m) 8 * (i % 2).
    Value kBlock = operand == MatrixOperand::B
                       ? matrix
                       : arith::DivUIOp::create(b, loc, matrix,
                                                constIndex(b, loc, 2));
    Value r = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, kBlock, constIndex(b, loc, 8)),
        addIdx(b, loc, rowInMatrix, row0));
    Value c = constIndex(b, loc, col0);
    if (operand == MatrixOperand::A)
      c = arith::AddIOp::create(
          b, loc, c,
          arith::MulIOp::create(
              b, loc,
              arith::RemUIOp::create(b, loc, matrix, constIndex(b, loc, 2)),
              constIndex(b, loc, 8)));
    if (rowBase)
      r = arith::AddIOp::create(b, loc, r, rowBase);
    if (colBase)
      c = arith::AddIOp::create(b, loc, c, colBase);
    Type elt = bufType.getElementType();
    Value pairs = nvgpu::LdMatrixOp::create(
        b, loc, VectorType::get({tiles, 2}, elt), buf, ValueRange{r, c},
        b.getBoolAttr(true), b.getI32IntegerAttr(tiles));
    return vector::ShapeCastOp::create(
        b, loc, VectorType::get({atom.regs(operand)}, elt), pairs);
  }

  const MatrixAtom &atom;
  MatrixOperand operand;
  LaneCoords lane;
  Value laneId;
};

/// acc[mi][ni] += sum_ki A(mi, ki) * B(ki, ni) with one fmha.mma per atom.
void contract(OpBuilder &b, Location loc, const MatrixAtom &atom, AccTile &acc,
              int64_t kSteps, llvm::function_ref<Value(int64_t, int64_t)> a,
              llvm::function_ref<Value(int64_t, int64_t)> bFrag) {
  auto atomName = b.getStringAttr(atom.name);
  for (int64_t ki = 0; ki < kSteps; ++ki) {
    SmallVector<Value> as, bs;
    for (int64_t mi = 0; mi < acc.mAtoms; ++mi)
      as.push_back(a(mi, ki));
    for (int64_t ni = 0; ni < acc.nAtoms; ++ni)
      bs.push_back(bFrag(ki, ni));
    for (int64_t mi = 0; mi < acc.mAtoms; ++mi)
      for (int64_t ni = 0; ni < acc.nAtoms; ++ni)
        acc.at(mi, ni) = fmha::MmaOp::create(b, loc, acc.at(mi, ni).getType(),
                                             as[mi], bs[ni], acc.at(mi, ni),
                                             atomName);
  }
}

/// Visits every accumulator element of `tile` with a loop over the
/// registers of each atom: fn(atomIndex, reg, row, col, carried) gets the
/// element's register (index) and tile coordinates and may update `carried`,
/// one value per atom threaded through the loop (e.g. a fragment being
/// built). GPU targets collect the loops in `toUnroll` and unroll them once
/// the kernel is built, so register indices become constants; the host keeps
/// them rolled (a host atom holds hundreds of elements).
void forEachElement(
    OpBuilder &b, Location loc, const MatrixAtom &atom, const AccTile &tile,
    LaneCoords lane, SmallVectorImpl<scf::ForOp> *toUnroll,
    llvm::function_ref<void(int64_t, Value, Value, Value, SmallVector<Value> &)>
        fn,
    SmallVector<Value> *carried = nullptr) {
  int64_t regs = atom.regs(MatrixOperand::C);
  SmallVector<int64_t> rowTable, colTable;
  for (int64_t reg = 0; reg < regs; ++reg) {
    FragmentCoord at = regOffset(atom, MatrixOperand::C, reg);
    rowTable.push_back(at.row);
    colTable.push_back(at.col);
  }
  auto tableType = VectorType::get({regs}, b.getIndexType());
  Value rows = arith::ConstantOp::create(
      b, loc, tableType, DenseElementsAttr::get(tableType, ArrayRef(rowTable)));
  Value cols = arith::ConstantOp::create(
      b, loc, tableType, DenseElementsAttr::get(tableType, ArrayRef(colTable)));
  for (int64_t mi = 0; mi < tile.mAtoms; ++mi)
    for (int64_t ni = 0; ni < tile.nAtoms; ++ni) {
      int64_t a = mi * tile.nAtoms + ni;
      SmallVector<Value> init;
      if (carried)
        init.push_back((*carried)[a]);
      auto loop = scf::ForOp::create(b, loc, constIndex(b, loc, 0),
                                     constIndex(b, loc, regs),
                                     constIndex(b, loc, 1), init);
      {
        OpBuilder::InsertionGuard g(b);
        if (init.empty())
          b.setInsertionPoint(loop.getBody()->getTerminator());
        else
          b.setInsertionPointToStart(loop.getBody());
        Value reg = loop.getInductionVar();
        Value row = arith::AddIOp::create(
            b, loc, addIdx(b, loc, lane.row, mi * atom.m),
            vector::ExtractOp::create(b, loc, rows, ArrayRef<OpFoldResult>{reg}));
        Value col = arith::AddIOp::create(
            b, loc, addIdx(b, loc, lane.col, ni * atom.n),
            vector::ExtractOp::create(b, loc, cols, ArrayRef<OpFoldResult>{reg}));
        SmallVector<Value> state(loop.getRegionIterArgs());
        fn(a, reg, row, col, state);
        // Without iter_args the builder already added the terminator.
        if (!init.empty())
          scf::YieldOp::create(b, loc, state);
      }
      if (carried)
        (*carried)[a] = loop.getResult(0);
      if (toUnroll)
        toUnroll->push_back(loop);
    }
}

Value extractReg(OpBuilder &b, Location loc, Value frag, Value reg) {
  return vector::ExtractOp::create(b, loc, frag, ArrayRef<OpFoldResult>{reg});
}

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
          Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

/// Cooperative copy of rows [row0, row0 + rows) of head `head` of a [B, S,
/// H, D] memref into a [rows x D] workgroup buffer; rows at or past `seqLen`
/// are zero. Threads take consecutive vectors of one row, so global reads
/// coalesce.
void copyTile(OpBuilder &b, Location loc, Value src, Value batch, Value row0,
              Value head, Value seqLen, Value dst, Value tid, int64_t threads) {
  auto dstType = cast<MemRefType>(dst.getType());
  int64_t rows = dstType.getDimSize(0), cols = dstType.getDimSize(1);
  Type elt = dstType.getElementType();
  auto srcType = cast<MemRefType>(src.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  bool unitInner = succeeded(srcType.getStridesAndOffset(strides, offset)) &&
                   strides.back() == 1;
  int64_t width = 1;
  for (int64_t w : {8, 4, 2})
    if (unitInner && cols % w == 0) {
      width = w;
      break;
    }
  int64_t chunksPerRow = cols / width;
  auto vecType = VectorType::get({width}, elt);
  Value zeros = arith::ConstantOp::create(b, loc, vecType,
                                          b.getZeroAttr(vecType));
  auto loop = scf::ForOp::create(b, loc, tid,
                                 constIndex(b, loc, rows * chunksPerRow),
                                 constIndex(b, loc, threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value chunk = loop.getInductionVar();
  Value r = arith::DivUIOp::create(b, loc, chunk,
                                   constIndex(b, loc, chunksPerRow));
  Value c = arith::MulIOp::create(
      b, loc,
      arith::RemUIOp::create(b, loc, chunk, constIndex(b, loc, chunksPerRow)),
      constIndex(b, loc, width));
  Value row = arith::AddIOp::create(b, loc, row0, r);
  Value valid = cmp(b, loc, arith::CmpIPredicate::ult, row, seqLen);
  // Out-of-range rows read row 0 (always present) and are replaced by zeros.
  Value safeRow = arith::SelectOp::create(b, loc, valid, row,
                                          constIndex(b, loc, 0));
  SmallVector<Value> idx{batch, safeRow, head, c};
  Value v;
  if (unitInner) {
    v = vector::LoadOp::create(b, loc, vecType, src, idx);
  } else {
    Value s = memref::LoadOp::create(b, loc, src, idx);
    v = vector::BroadcastOp::create(b, loc, vecType, s);
  }
  v = arith::SelectOp::create(b, loc, valid, v, zeros);
  vector::StoreOp::create(b, loc, v, dst, ValueRange{r, c});
}

/// Workgroup-memory buffers of the main kernel, in KernelLaunch order.
enum WorkgroupBuffer { kKey, kQuery, kGradOut, kScores, kRowOffset, kRowInvSum,
                       kRowDelta };

struct MainKernel {
  fmha::AttentionBwdOp op;
  const TiledConfig &cfg;
  const KernelTarget &target;
  float scale;
  fmha::MaskBand band;
  bool deterministic;
  unsigned numStats;

  /// Kernel argument positions.
  enum Arg { kQ, kK, kV, kDO, kDelta, kDq, kDk, kDv, kStats };

  void build(OpBuilder &b, Location loc, ValueRange ids, Value tid,
             ValueRange args, ValueRange wg) const;
};

void MainKernel::build(OpBuilder &b, Location loc, ValueRange ids, Value tid,
                       ValueRange args, ValueRange wg) const {
  const MatrixAtom &atom = *cfg.atom;
  // Register loops a GPU unrolls once the body is complete.
  SmallVector<scf::ForOp> gpuLoops;
  SmallVectorImpl<scf::ForOp> *unrollList = target.host ? nullptr : &gpuLoops;
  Value q = args[kQ], k = args[kK], v = args[kV], dO = args[kDO];
  Value delta = args[kDelta], dqAcc = args[kDq], dk = args[kDk],
        dv = args[kDv];
  ValueRange stats = args.slice(kStats, numStats);
  AttentionSizes sizes = AttentionSizes::get(b, loc, q, k, v);
  Value kvBlock = ids[0], headKv = ids[1], batch = ids[2];

  Value cLanes = constIndex(b, loc, cfg.lanes);
  Value warp = arith::DivUIOp::create(b, loc, tid, cLanes);
  Value lane = arith::RemUIOp::create(b, loc, tid, cLanes);
  LaneCoords laneA = LaneCoords::get(b, loc, atom, MatrixOperand::A, lane);
  LaneCoords laneB = LaneCoords::get(b, loc, atom, MatrixOperand::B, lane);
  LaneCoords laneC = LaneCoords::get(b, loc, atom, MatrixOperand::C, lane);
  FragmentReader readA(atom, MatrixOperand::A, laneA, lane);
  FragmentReader readB(atom, MatrixOperand::B, laneB, lane);

  Value kv0 = arith::MulIOp::create(b, loc, kvBlock,
                                    constIndex(b, loc, cfg.blockKv));
  // First KV row of this subgroup's slice, relative to the block.
  Value warpRow = arith::MulIOp::create(b, loc, warp,
                                        constIndex(b, loc, cfg.kvRowsPerWarp));
  Value warpCol = arith::MulIOp::create(
      b, loc, warp, constIndex(b, loc, cfg.dqk / cfg.numWarps));

  copyTile(b, loc, k, batch, kv0, headKv, sizes.seqK, wg[kKey], tid,
           cfg.threads());

  // V fragments of the subgroup's rows: the A operand of dP^T = V dO^T,
  // loaded once from global memory (rows past Sk are zero).
  int64_t mAtoms = cfg.kvRowsPerWarp / atom.m;
  int64_t vSteps = cfg.dv / atom.k;
  SmallVector<Value> vFrags;
  {
    int64_t regs = atom.regs(MatrixOperand::A);
    auto type = VectorType::get({regs}, cfg.elt);
    Value zero = arith::ConstantOp::create(b, loc, cfg.elt,
                                           b.getZeroAttr(cfg.elt));
    Value rowBase = arith::AddIOp::create(b, loc, kv0, warpRow);
    for (int64_t mi = 0; mi < mAtoms; ++mi)
      for (int64_t ki = 0; ki < vSteps; ++ki) {
        if (atom.lanes == 1) {
          // The one lane reads the whole [m x k] block; rows past Sk are
          // out of bounds and read as zero.
          MLIRContext *ctx = b.getContext();
          AffineMap map = AffineMap::get(
              4, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(3, ctx)}, ctx);
          Value block = vector::TransferReadOp::create(
              b, loc, VectorType::get({atom.m, atom.k}, cfg.elt), v,
              ValueRange{batch, addIdx(b, loc, rowBase, mi * atom.m), headKv,
                         constIndex(b, loc, ki * atom.k)},
              std::optional<Value>(zero), map, ArrayRef<bool>{false, true});
          vFrags.push_back(vector::ShapeCastOp::create(b, loc, type, block));
          continue;
        }
        SmallVector<Value> elems;
        for (int64_t reg = 0; reg < regs; ++reg) {
          FragmentCoord at = regOffset(atom, MatrixOperand::A, reg);
          Value row = arith::AddIOp::create(
              b, loc, rowBase, addIdx(b, loc, laneA.row, mi * atom.m + at.row));
          Value col = addIdx(b, loc, laneA.col, ki * atom.k + at.col);
          Value valid = cmp(b, loc, arith::CmpIPredicate::ult, row, sizes.seqK);
          Value safeRow = arith::SelectOp::create(b, loc, valid, row,
                                                  constIndex(b, loc, 0));
          Value x = memref::LoadOp::create(
              b, loc, v, ValueRange{batch, safeRow, headKv, col});
          elems.push_back(arith::SelectOp::create(b, loc, valid, x, zero));
        }
        vFrags.push_back(vector::FromElementsOp::create(b, loc, type, elems));
      }
  }

  // Query blocks that see any key of this KV block (block skipping).
  MaskBuilder mask(b, loc, band, sizes.seqQ, sizes.seqK);
  Value kvEnd = arith::MinUIOp::create(
      b, loc, addIdx(b, loc, kv0, cfg.blockKv), sizes.seqK);
  auto [qLo, qHi] = mask.visibleQueries(b, loc, kv0, kvEnd);
  Value cBlockQ = constIndex(b, loc, cfg.blockQ);
  Value qbBegin = arith::DivUIOp::create(b, loc, qLo, cBlockQ);
  Value qbEnd = ceilDiv(b, loc, qHi, cBlockQ);

  int64_t dkAtomsN = cfg.dqk / atom.n, dvAtomsN = cfg.dv / atom.n;
  AccTile dK = AccTile::zeros(b, loc, atom, mAtoms, dkAtomsN);
  AccTile dV = AccTile::zeros(b, loc, atom, mAtoms, dvAtomsN);
  SmallVector<Value> init(dK.atoms);
  init.append(dV.atoms);

  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  float scaleLog2 = scale * kLog2e;
  Value cScaleLog2 = constF32(b, loc, scaleLog2);
  Value cScale = constF32(b, loc, scale);
  Value zeroF = constF32(b, loc, 0.0f);

  auto headLoop = scf::ForOp::create(b, loc, c0,
                                     constIndex(b, loc, cfg.group), c1, init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(headLoop.getBody());
    Value headQ = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, headKv, constIndex(b, loc, cfg.group)),
        headLoop.getInductionVar());
    auto qLoop = scf::ForOp::create(b, loc, qbBegin, qbEnd, c1,
                                    headLoop.getRegionIterArgs());
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(qLoop.getBody());
      ValueRange carried = qLoop.getRegionIterArgs();
      AccTile dKi = AccTile::fromValues(mAtoms, dkAtomsN,
                                        carried.take_front(dK.atoms.size()));
      AccTile dVi = AccTile::fromValues(mAtoms, dvAtomsN,
                                        carried.drop_front(dK.atoms.size()));
      Value q0 = arith::MulIOp::create(b, loc, qLoop.getInductionVar(),
                                       cBlockQ);

      // The previous iteration (or K's copy) is done with the buffers.
      workgroupBarrier(b, loc, target);
      copyTile(b, loc, q, batch, q0, headQ, sizes.seqQ, wg[kQuery], tid,
               cfg.threads());
      copyTile(b, loc, dO, batch, q0, headQ, sizes.seqQ, wg[kGradOut], tid,
               cfg.threads());
      {
        // Row statistics of the block; rows past Sq get P = 0.
        auto rows = scf::ForOp::create(b, loc, tid, cBlockQ,
                                       constIndex(b, loc, cfg.threads()));
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(rows.getBody());
        Value r = rows.getInductionVar();
        Value row = arith::AddIOp::create(b, loc, q0, r);
        Value valid = cmp(b, loc, arith::CmpIPredicate::ult, row, sizes.seqQ);
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getF32Type(),
                                                        b.getF32Type(),
                                                        b.getF32Type()},
                                      valid, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard g4(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          RowStats rs = RowStats::load(b, loc, stats, batch, headQ, row);
          Value d = memref::LoadOp::create(b, loc, delta,
                                           ValueRange{batch, headQ, row});
          scf::YieldOp::create(
              b, loc,
              ValueRange{rs.offset, rs.invSum ? rs.invSum : constF32(b, loc, 1),
                         d});
          b.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(
              b, loc,
              ValueRange{constF32(b, loc,
                                  std::numeric_limits<float>::infinity()),
                         constF32(b, loc, 0), constF32(b, loc, 0)});
        }
        memref::StoreOp::create(b, loc, ifOp.getResult(0), wg[kRowOffset], r);
        memref::StoreOp::create(b, loc, ifOp.getResult(1), wg[kRowInvSum], r);
        memref::StoreOp::create(b, loc, ifOp.getResult(2), wg[kRowDelta], r);
      }
      workgroupBarrier(b, loc, target);

      int64_t qAtomsN = cfg.blockQ / atom.n;
      // S^T = K Q^T: A = K rows of the subgroup, B[d][q] = Q[q][d].
      AccTile sT = AccTile::zeros(b, loc, atom, mAtoms, qAtomsN);
      contract(
          b, loc, atom, sT, cfg.dqk / atom.k,
          [&](int64_t mi, int64_t ki) {
            return readA.read(b, loc, wg[kKey], mi * atom.m,
                              ki * atom.k, false, warpRow);
          },
          [&](int64_t ki, int64_t ni) {
            return readB.read(b, loc, wg[kQuery], ni * atom.n, ki * atom.k,
                              true);
          });
      // dP^T = V dO^T.
      AccTile dpT = AccTile::zeros(b, loc, atom, mAtoms, qAtomsN);
      contract(
          b, loc, atom, dpT, vSteps,
          [&](int64_t mi, int64_t ki) { return vFrags[mi * vSteps + ki]; },
          [&](int64_t ki, int64_t ni) {
            return readB.read(b, loc, wg[kGradOut], ni * atom.n, ki * atom.k,
                              true);
          });

      // P^T and dS^T = P^T (dP^T - delta), element by element; each atom's
      // loop carries the P^T and dS^T fragments it fills in.
      size_t numAtoms = sT.atoms.size();
      Value pdsZero = vector::BroadcastOp::create(
          b, loc,
          VectorType::get({2, atom.regs(MatrixOperand::C)}, b.getF32Type()),
          zeroF);
      SmallVector<Value> pdsCarried(numAtoms, pdsZero);
      forEachElement(
          b, loc, atom, sT, laneC, unrollList,
          [&](int64_t a, Value reg, Value row, Value col,
              SmallVector<Value> &state) {
            Value kvIdx = arith::AddIOp::create(
                b, loc, kv0, arith::AddIOp::create(b, loc, warpRow, row));
            Value qIdx = arith::AddIOp::create(b, loc, q0, col);
            Value s = extractReg(b, loc, sT.atoms[a], reg);
            RowStats rs;
            rs.offset = memref::LoadOp::create(b, loc, wg[kRowOffset], col);
            if (numStats == 2)
              rs.invSum = memref::LoadOp::create(b, loc, wg[kRowInvSum], col);
            Value p = rs.probability(
                b, loc, arith::MulFOp::create(b, loc, s, cScaleLog2));
            Value visible = arith::AndIOp::create(
                b, loc, cmp(b, loc, arith::CmpIPredicate::ult, kvIdx,
                            sizes.seqK),
                mask.isVisible(b, loc, qIdx, kvIdx));
            p = arith::SelectOp::create(b, loc, visible, p, zeroF);
            Value dp = extractReg(b, loc, dpT.atoms[a], reg);
            Value d = memref::LoadOp::create(b, loc, wg[kRowDelta], col);
            Value ds = arith::MulFOp::create(
                b, loc, p, arith::SubFOp::create(b, loc, dp, d));
            // Row 0 of the carried [2 x regs] value is P^T, row 1 dS^T.
            Value c0i = constIndex(b, loc, 0), c1i = constIndex(b, loc, 1);
            state[0] = vector::InsertOp::create(
                b, loc, p, state[0], ArrayRef<OpFoldResult>{c0i, reg});
            state[0] = vector::InsertOp::create(
                b, loc, ds, state[0], ArrayRef<OpFoldResult>{c1i, reg});
          },
          &pdsCarried);
      AccTile pT = sT, dsT = sT;
      for (size_t a = 0; a < numAtoms; ++a) {
        pT.atoms[a] = vector::ExtractOp::create(b, loc, pdsCarried[a],
                                                ArrayRef<int64_t>{0});
        dsT.atoms[a] = vector::ExtractOp::create(b, loc, pdsCarried[a],
                                                 ArrayRef<int64_t>{1});
      }

      // Stages a C-layout tile of the subgroup's rows into the shared
      // [blockKv x blockQ] buffer, as the input type (the A operand type).
      auto stageScores = [&](const AccTile &tile) {
        forEachElement(
            b, loc, atom, tile, laneC, unrollList,
            [&](int64_t a, Value reg, Value row, Value col,
                SmallVector<Value> &) {
              Value x = extractReg(b, loc, tile.atoms[a], reg);
              storeF32(b, loc, x, wg[kScores],
                       ValueRange{arith::AddIOp::create(b, loc, warpRow, row),
                                  col});
            });
      };
      auto readScoresA = [&](int64_t mi, int64_t ki) {
        return readA.read(b, loc, wg[kScores], mi * atom.m, ki * atom.k, false,
                          warpRow);
      };
      int64_t qSteps = cfg.blockQ / atom.k;

      // acc += X dO-or-Q, with X (P^T or dS^T) staged as the A operand and
      // the [blockQ x D] tile `rhs` read as B[q][d].
      auto accumulateStaged = [&](const AccTile &x, AccTile &acc, Value rhs) {
        stageScores(x);
        workgroupBarrier(b, loc, target);
        contract(b, loc, atom, acc, qSteps, readScoresA,
                 [&](int64_t ki, int64_t ni) {
                   return readB.read(b, loc, rhs, ki * atom.k, ni * atom.n,
                                     false);
                 });
      };
      // dV += P^T dO; every subgroup is done with P^T before dS^T replaces
      // it; dK += dS^T Q (scaled once at the end).
      accumulateStaged(pT, dVi, wg[kGradOut]);
      workgroupBarrier(b, loc, target);
      accumulateStaged(dsT, dKi, wg[kQuery]);

      // dQ[q, cols of this subgroup] += scale * dS K over all KV rows of the
      // block: A[q][kv] = dS^T[kv][q], B[kv][d] = K[kv][d].
      int64_t colsPerWarp = cfg.dqk / cfg.numWarps;
      AccTile dQ = AccTile::zeros(b, loc, atom, cfg.blockQ / atom.m,
                                  colsPerWarp / atom.n);
      contract(
          b, loc, atom, dQ, cfg.blockKv / atom.k,
          [&](int64_t mi, int64_t ki) {
            return readA.read(b, loc, wg[kScores], ki * atom.k, mi * atom.m,
                              true);
          },
          [&](int64_t ki, int64_t ni) {
            return readB.read(b, loc, wg[kKey], ki * atom.k, ni * atom.n,
                              false, Value(), warpCol);
          });
      forEachElement(
          b, loc, atom, dQ, laneC, unrollList,
          [&](int64_t a, Value reg, Value row, Value col,
              SmallVector<Value> &) {
            Value qIdx = arith::AddIOp::create(b, loc, q0, row);
            Value d = arith::AddIOp::create(b, loc, warpCol, col);
            Value x = arith::MulFOp::create(
                b, loc, extractReg(b, loc, dQ.atoms[a], reg), cScale);
            Value valid = cmp(b, loc, arith::CmpIPredicate::ult, qIdx,
                              sizes.seqQ);
            auto ifOp = scf::IfOp::create(b, loc, valid);
            OpBuilder::InsertionGuard g5(b);
            b.setInsertionPointToStart(ifOp.thenBlock());
            if (deterministic)
              memref::StoreOp::create(
                  b, loc, x, dqAcc,
                  ValueRange{kvBlock, batch, qIdx, headQ, d});
            else
              atomicAddF32(b, loc, x, dqAcc,
                           ValueRange{batch, qIdx, headQ, d});
          });

      SmallVector<Value> yielded(dKi.atoms);
      yielded.append(dVi.atoms);
      scf::YieldOp::create(b, loc, yielded);
    }
    scf::YieldOp::create(b, loc, qLoop.getResults());
  }

  // dK = scale * dS^T Q and dV, written once: this workgroup owns the rows.
  ValueRange results = headLoop.getResults();
  AccTile dKf = AccTile::fromValues(mAtoms, dkAtomsN,
                                    results.take_front(dK.atoms.size()));
  AccTile dVf = AccTile::fromValues(mAtoms, dvAtomsN,
                                    results.drop_front(dK.atoms.size()));
  auto writeRows = [&](const AccTile &tile, Value grad, Value factor) {
    forEachElement(
        b, loc, atom, tile, laneC, unrollList,
        [&](int64_t a, Value reg, Value row, Value col, SmallVector<Value> &) {
          Value kvIdx = arith::AddIOp::create(
              b, loc, kv0, arith::AddIOp::create(b, loc, warpRow, row));
          Value x = extractReg(b, loc, tile.atoms[a], reg);
          if (factor)
            x = arith::MulFOp::create(b, loc, x, factor);
          Value valid = cmp(b, loc, arith::CmpIPredicate::ult, kvIdx,
                            sizes.seqK);
          auto ifOp = scf::IfOp::create(b, loc, valid);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          storeF32(b, loc, x, grad, ValueRange{batch, kvIdx, headKv, col});
        });
  };
  writeRows(dKf, dk, cScale);
  writeRows(dVf, dv, Value());
  for (scf::ForOp loop : gpuLoops)
    (void)loopUnrollFull(loop);
}

} // namespace

LogicalResult rocke::buildTiledBwdKernels(fmha::AttentionBwdOp op,
                                          const BwdKernelOptions &options) {
  Location loc = op.getLoc();
  KernelEmitter emitter(op, options.target);
  OpBuilder &cb = emitter.callSite();
  AttentionSizes sizes =
      AttentionSizes::get(cb, loc, op.getQuery(), op.getKey(), op.getValue());
  TiledConfig cfg;
  if (failed(makeConfig(op, options, sizes, cfg)))
    return failure();

  bool deterministic = op.getDeterministic();
  emitter.defineSymbol("BKV", cfg.blockKv); // dq_partial's shape uses it
  Value nKvBlocks = ceilDiv(cb, loc, sizes.seqK, constIndex(cb, loc, cfg.blockKv));
  std::string nKvBlocksExpr = "ceildiv(Sk," + std::to_string(cfg.blockKv) + ")";
  std::string dqkStr = std::to_string(cfg.dqk);

  // dQ accumulator: [B, Sq, Hq, Dqk] f32, or per KV block when deterministic.
  Value dqAcc;
  std::string dqRole, dqCount = "B*Sq*Hq*" + dqkStr;
  if (deterministic) {
    SmallVector<Value> qSizes = memrefSizes(cb, loc, op.getQuery());
    auto type = MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic,
                                 ShapedType::kDynamic, sizes.headsQ, cfg.dqk},
                                cb.getF32Type());
    dqAcc = emitter.allocScratch(type, {nKvBlocks, qSizes[0], qSizes[1]});
    dqRole = "dq_partial:f32:zero";
    dqCount = nKvBlocksExpr + "*" + dqCount;
  } else {
    dqAcc = emitter.allocScratchLike(op.getQuery(), cb.getF32Type());
    dqRole = "dq_accum:f32:zero";
  }
  if (failed(emitZeroFill(emitter, "fmha_bwd_zero_dq", dqAcc, dqRole,
                          dqCount)))
    return failure();

  auto deltaType = MemRefType::get(
      {ShapedType::kDynamic, sizes.headsQ, ShapedType::kDynamic},
      cb.getF32Type());
  SmallVector<Value> qSizes = memrefSizes(cb, loc, op.getQuery());
  Value delta = emitter.allocScratch(deltaType, {qSizes[0], qSizes[1]});
  if (failed(emitPreprocessDelta(emitter, op.getOut(), op.getGradOut(), delta,
                                 cfg.numWarps)))
    return failure();

  // Main kernel.
  KernelLaunch launch;
  launch.name = "fmha_bwd_tiled_main";
  launch.args = {{op.getQuery(), "q"},      {op.getKey(), "k"},
                 {op.getValue(), "v"},      {op.getGradOut(), "do"},
                 {delta, "delta:f32:none"}, {dqAcc, dqRole},
                 {op.getGradKey(), "dk"},   {op.getGradValue(), "dv"}};
  ValueRange stats = op.getStats();
  if (stats.size() == 1)
    launch.args.push_back({stats[0], "lse"});
  else
    launch.args.append({{stats[0], "m"}, {stats[1], "l"}});
  SmallVector<Value> kSizes = memrefSizes(cb, loc, op.getKey());
  launch.grid = {nKvBlocks, kSizes[2], kSizes[0]};
  launch.gridExpr = {nKvBlocksExpr, "Hkv", "B"};
  launch.blockSize = cfg.threads();
  auto wgType = [&](int64_t r, int64_t c, Type t) {
    return MemRefType::get({r, c}, t);
  };
  Type f32 = cb.getF32Type();
  launch.workgroupBuffers = {
      wgType(cfg.blockKv, cfg.dqk, cfg.elt), wgType(cfg.blockQ, cfg.dqk, cfg.elt),
      wgType(cfg.blockQ, cfg.dv, cfg.elt), wgType(cfg.blockKv, cfg.blockQ, cfg.elt),
      MemRefType::get({cfg.blockQ}, f32), MemRefType::get({cfg.blockQ}, f32),
      MemRefType::get({cfg.blockQ}, f32)};
  MainKernel kernel{op,
                    cfg,
                    options.target,
                    op.getScaleOrDefault(),
                    op.getMaskOrDefault().getBand(),
                    deterministic,
                    static_cast<unsigned>(stats.size())};
  if (failed(emitter.emit(launch, [&](OpBuilder &b, Location l, ValueRange ids,
                                      Value tid, ValueRange args,
                                      ValueRange wg) {
        kernel.build(b, l, ids, tid, args, wg);
      })))
    return failure();

  // dQ in the output type: a fixed-order sum of the partials, or a
  // conversion of the accumulator.
  if (deterministic) {
    KernelLaunch reduce;
    reduce.name = "fmha_bwd_reduce_dq";
    reduce.args = {{dqAcc, dqRole}, {op.getGradQuery(), "dq"}};
    int64_t perBlock = cfg.threads();
    SmallVector<Value> s = memrefSizes(cb, loc, op.getGradQuery());
    Value count = arith::MulIOp::create(
        cb, loc, arith::MulIOp::create(cb, loc, s[0], s[1]),
        constIndex(cb, loc, sizes.headsQ * cfg.dqk));
    reduce.grid = {ceilDiv(cb, loc, count, constIndex(cb, loc, perBlock)),
                   constIndex(cb, loc, 1), constIndex(cb, loc, 1)};
    reduce.gridExpr = {"ceildiv(B*Sq*Hq*" + dqkStr + "," +
                           std::to_string(perBlock) + ")",
                       "1", "1"};
    reduce.blockSize = options.target.host ? 1 : perBlock;
    int64_t headsQ = sizes.headsQ, dqk = cfg.dqk;
    if (failed(emitter.emit(reduce, [&](OpBuilder &b, Location l,
                                        ValueRange ids, Value tid,
                                        ValueRange args, ValueRange) {
          Value part = args[0], dq = args[1];
          SmallVector<Value> ps = memrefSizes(b, l, part);
          Value linear = arith::AddIOp::create(
              b, l,
              arith::MulIOp::create(b, l, ids[0],
                                    constIndex(b, l, reduce.blockSize)),
              tid);
          Value total = arith::MulIOp::create(
              b, l, arith::MulIOp::create(b, l, ps[1], ps[2]),
              constIndex(b, l, headsQ * dqk));
          auto ifOp = scf::IfOp::create(
              b, l, cmp(b, l, arith::CmpIPredicate::ult, linear, total));
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          SmallVector<Value> c = delinearize(
              b, l, linear,
              ValueRange{ps[1], ps[2], constIndex(b, l, headsQ),
                         constIndex(b, l, dqk)});
          auto sum = scf::ForOp::create(
              b, l, constIndex(b, l, 0), ps[0], constIndex(b, l, 1),
              ValueRange{constF32(b, l, 0.0f)});
          {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(sum.getBody());
            Value x = memref::LoadOp::create(
                b, l, part,
                ValueRange{sum.getInductionVar(), c[0], c[1], c[2], c[3]});
            scf::YieldOp::create(
                b, l,
                ValueRange{arith::AddFOp::create(
                    b, l, sum.getRegionIterArgs()[0], x)});
          }
          storeF32(b, l, sum.getResult(0), dq, c);
        })))
      return failure();
  } else if (failed(emitConvert(emitter, "fmha_bwd_convert_dq", dqAcc, dqRole,
                                op.getGradQuery(), "dq", dqCount))) {
    return failure();
  }
  emitter.finish();
  return success();
}
