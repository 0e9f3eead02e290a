//===- Fragments.cpp - per-lane fragments of matrix-atom tiles ------------===//
#include "lib/Kernels/Fragments.h"

#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>
#include <numeric>

using namespace mlir;

namespace rocke {

Value addIdx(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (c == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, constIndex(b, loc, c));
}

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
          Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value truncVector(OpBuilder &b, Location loc, Value v, Type elt) {
  auto type = cast<VectorType>(v.getType());
  if (type.getElementType() == elt)
    return v;
  return arith::TruncFOp::create(b, loc, type.clone(elt), v);
}

Value gatherElements(OpBuilder &b, Location loc, ArrayRef<Value> sources,
                     ArrayRef<int64_t> offsets) {
  int64_t width = cast<VectorType>(sources[0].getType()).getNumElements();
  auto isIdentity = [&] {
    if (sources.size() != 1 || int64_t(offsets.size()) != width)
      return false;
    for (auto [i, o] : llvm::enumerate(offsets))
      if (int64_t(i) != o)
        return false;
    return true;
  };
  if (isIdentity())
    return sources[0];
  if (sources.size() <= 2)
    return vector::ShuffleOp::create(b, loc, sources[0], sources.back(),
                                     offsets);
  Type elt = cast<VectorType>(sources[0].getType()).getElementType();
  SmallVector<Value> elems;
  for (int64_t o : offsets)
    elems.push_back(vector::ExtractOp::create(b, loc, sources[o / width],
                                              ArrayRef<int64_t>{o % width}));
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({int64_t(offsets.size())}, elt), elems);
}

Value widenTo(OpBuilder &b, Location loc, Value v, int64_t width) {
  int64_t len = cast<VectorType>(v.getType()).getNumElements();
  if (len == width)
    return v;
  SmallVector<int64_t> picks;
  for (int64_t i = 0; i < width; ++i)
    picks.push_back(std::min(i, len - 1));
  return vector::ShuffleOp::create(b, loc, v, v, picks);
}

Value gatherFromBuffer(OpBuilder &b, Location loc, Value buf, Value base,
                       ArrayRef<int64_t> offsets) {
  std::map<int64_t, int64_t> position; // distinct offset -> element index
  for (int64_t o : offsets)
    position[o];
  SmallVector<Value> runs;
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  auto it = position.begin();
  int64_t width = 0;
  // One run per maximal stretch of consecutive offsets; all runs are padded
  // to the longest so gatherElements sees equal widths.
  SmallVector<std::pair<int64_t, int64_t>> stretches; // (first, length)
  while (it != position.end()) {
    int64_t first = it->first, len = 0;
    while (it != position.end() && it->first == first + len) {
      ++len;
      ++it;
    }
    stretches.push_back({first, len});
    width = std::max(width, len);
  }
  for (auto [first, len] : stretches) {
    Value v = vector::LoadOp::create(b, loc, VectorType::get({len}, elt), buf,
                                     ValueRange{addIdx(b, loc, base, first)});
    v = widenTo(b, loc, v, width);
    for (int64_t i = 0; i < len; ++i)
      position[first + i] = int64_t(runs.size()) * width + i;
    runs.push_back(v);
  }
  SmallVector<int64_t> picks;
  for (int64_t o : offsets)
    picks.push_back(position[o]);
  return gatherElements(b, loc, runs, picks);
}

RegisterRun registerRun(const MatrixAtom &atom, MatrixOperand operand,
                        int64_t reg, bool transposed) {
  auto inBuffer = [&](int64_t r) {
    FragmentCoord at = regOffset(atom, operand, r);
    return transposed ? FragmentCoord{at.col, at.row} : at;
  };
  FragmentCoord first = inBuffer(reg);
  int64_t length = 1;
  for (; reg + length < atom.regs(operand); ++length) {
    FragmentCoord next = inBuffer(reg + length);
    if (next.row != first.row || next.col != first.col + length)
      break;
  }
  return {first.row, first.col, length};
}

std::optional<LaneCoords> transposedReadLane(OpBuilder &b, Location loc,
                                             const MatrixAtom &atom,
                                             MatrixOperand operand,
                                             bool transposed, Value buffer,
                                             Value lane) {
  auto type = cast<MemRefType>(buffer.getType());
  bool kDownColumns = (operand == MatrixOperand::A) == transposed;
  if (!kDownColumns || type.getElementTypeBitWidth() != 16 ||
      !gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type) || !fitsTransposedReads(atom, operand))
    return std::nullopt;
  // The lane at 4 (lane % 4) of the lane's group of 16 holds the block's
  // first element along m (n); the lane reads row (lane % 16) / 4 of it.
  Value c4 = constIndex(b, loc, 4), c16 = constIndex(b, loc, 16);
  Value groupStart = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, lane, c16), c16);
  Value quad = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, c4), c4);
  Value addressLane = arith::AddIOp::create(b, loc, groupStart, quad);
  LaneCoords at = LaneCoords::get(b, loc, atom, operand, addressLane);
  Value blockRow = arith::DivUIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, c16), c4);
  if (operand == MatrixOperand::A)
    at.col = arith::AddIOp::create(b, loc, at.col, blockRow);
  else
    at.row = arith::AddIOp::create(b, loc, at.row, blockRow);
  return at;
}

Value FragmentReader::readTransposing(OpBuilder &b, Location loc, Value buf,
                                      int64_t row0, int64_t col0,
                                      bool transposed, Value rowBase,
                                      Value colBase) const {
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  auto quadType = VectorType::get({4}, elt);
  SmallVector<Value> quads;
  SmallVector<int64_t> picks;
  for (int64_t reg = 0; reg < atom.regs(operand); reg += 4) {
    FragmentCoord off = regOffset(atom, operand, reg);
    Value i = addIdx(b, loc, transposedLane->row, off.row);
    Value j = addIdx(b, loc, transposedLane->col, off.col);
    Value r = addIdx(b, loc, transposed ? j : i, row0);
    Value c = addIdx(b, loc, transposed ? i : j, col0);
    if (rowBase)
      r = arith::AddIOp::create(b, loc, r, rowBase);
    if (colBase)
      c = arith::AddIOp::create(b, loc, c, colBase);
    quads.push_back(amdgpu::TransposeLoadOp::create(b, loc, quadType, buf,
                                                    ValueRange{r, c}));
    for (int64_t e = 0; e < 4; ++e)
      picks.push_back(reg + e);
  }
  if (quads.size() == 1)
    return quads.front();
  return gatherElements(b, loc, quads, picks);
}

void contract(OpBuilder &b, Location loc, const MatrixAtom &atom, AccTile &acc,
              int64_t kSteps, llvm::function_ref<Value(int64_t, int64_t)> a,
              llvm::function_ref<Value(int64_t, int64_t)> bFrag,
              AtomOrder order) {
  auto atomName = b.getStringAttr(atom.name);
  for (int64_t k0 = 0; k0 < kSteps; k0 += order.readBatch) {
    int64_t k1 = std::min(kSteps, k0 + order.readBatch);
    // The batch's fragments, [ki - k0][mi] and [ki - k0][ni].
    SmallVector<SmallVector<Value>> as(k1 - k0), bs(k1 - k0);
    for (int64_t ki = k0; ki < k1; ++ki) {
      for (int64_t mi = 0; mi < acc.mAtoms; ++mi)
        as[ki - k0].push_back(a(mi, ki));
      for (int64_t ni = 0; ni < acc.nAtoms; ++ni)
        bs[ki - k0].push_back(bFrag(ki, ni));
    }
    if (order.afterReads)
      order.afterReads();
    for (int64_t ki = k0; ki < k1; ++ki)
      for (int64_t i = 0; i < acc.mAtoms; ++i)
        for (int64_t j = 0; j < acc.nAtoms; ++j) {
          int64_t mi = order.aLastReadFirst ? acc.mAtoms - 1 - i : i;
          int64_t ni = order.bLastReadFirst ? acc.nAtoms - 1 - j : j;
          acc.at(mi, ni) = fmha::MmaOp::create(
              b, loc, acc.at(mi, ni).getType(), as[ki - k0][mi],
              bs[ki - k0][ni], acc.at(mi, ni), atomName);
        }
  }
}

SmallVector<Value> atomIndices(OpBuilder &b, Location loc, MemRefType atoms,
                               Value r, Value c) {
  int64_t width = atoms.getDimSize(atoms.getRank() - 1);
  Value c8 = constIndex(b, loc, 8);
  Value cw = constIndex(b, loc, width);
  Value atomRow = arith::DivUIOp::create(b, loc, r, c8);
  Value atomCol = arith::DivUIOp::create(b, loc, c, cw);
  Value inRow = arith::RemUIOp::create(b, loc, r, c8);
  Value inCol = arith::RemUIOp::create(b, loc, c, cw);
  if (fmha::atomRowBytes(atoms) == 128) {
    Value chunkElems = constIndex(b, loc, 128 / atoms.getElementTypeBitWidth());
    Value chunk = arith::DivUIOp::create(b, loc, inCol, chunkElems);
    Value inChunk = arith::RemUIOp::create(b, loc, inCol, chunkElems);
    Value swizzled = arith::XOrIOp::create(b, loc, chunk, inRow);
    Value start = arith::MulIOp::create(b, loc, swizzled, chunkElems);
    inCol = arith::AddIOp::create(b, loc, start, inChunk);
  }
  return {atomRow, atomCol, inRow, inCol};
}

void storeAccTile(OpBuilder &b, Location loc, const MatrixAtom &atom,
                  const AccTile &tile, LaneCoords laneC, Value buf,
                  bool transposed, Value rowBase, Value colBase) {
  auto type = cast<MemRefType>(buf.getType());
  Type elt = type.getElementType();
  int64_t regs = atom.regs(MatrixOperand::C);
  // Into a buffer of atoms, a run at (rowOff, colOff) from the lane's first
  // element goes through a subview offset by the whole atoms of that offset
  // (a constant address offset), at the lane's indices of the rest: one
  // index tuple (swizzle xor) per remainder. Indices holding the whole
  // atoms let LLVM merge them into each store's xor, an address register
  // per store, all live across the loops the stores are invariant in
  // (spilled on sm_90a).
  Value laneRow, laneCol;
  int64_t width = 0;
  std::map<std::pair<int64_t, int64_t>, SmallVector<Value>> laneIndices;
  if (type.getRank() == 4) {
    laneRow = arith::AddIOp::create(b, loc, rowBase,
                                    transposed ? laneC.col : laneC.row);
    laneCol = arith::AddIOp::create(b, loc, colBase,
                                    transposed ? laneC.row : laneC.col);
    width = type.getDimSize(3);
  }
  auto storeToAtoms = [&](Value part, int64_t rowOff, int64_t colOff) {
    Value atoms = buf;
    if (rowOff >= 8 || colOff >= width) {
      SmallVector<int64_t> atomOffsets{rowOff / 8, colOff / width, 0, 0};
      SmallVector<OpFoldResult> offsets, sizes, unit(4, b.getIndexAttr(1));
      for (auto [dim, off] : llvm::enumerate(atomOffsets)) {
        offsets.push_back(b.getIndexAttr(off));
        sizes.push_back(b.getIndexAttr(type.getDimSize(dim) - off));
      }
      atoms = memref::SubViewOp::create(b, loc, buf, offsets, sizes, unit);
    }
    SmallVector<Value> &indices = laneIndices[{rowOff % 8, colOff % width}];
    if (indices.empty()) {
      Value r = addIdx(b, loc, laneRow, rowOff % 8);
      Value c = addIdx(b, loc, laneCol, colOff % width);
      indices = atomIndices(b, loc, type, r, c);
    }
    vector::StoreOp::create(b, loc, part, atoms, indices);
  };
  for (int64_t mi = 0; mi < tile.mAtoms; ++mi)
    for (int64_t ni = 0; ni < tile.nAtoms; ++ni) {
      Value frag = truncVector(b, loc, tile.at(mi, ni), elt);
      int64_t rowOff = transposed ? ni * atom.n : mi * atom.m;
      int64_t colOff = transposed ? mi * atom.m : ni * atom.n;
      Value r, c;
      if (!laneRow) {
        Value i0 = addIdx(b, loc, laneC.row, mi * atom.m);
        Value j0 = addIdx(b, loc, laneC.col, ni * atom.n);
        r = arith::AddIOp::create(b, loc, rowBase, transposed ? j0 : i0);
        c = arith::AddIOp::create(b, loc, colBase, transposed ? i0 : j0);
      }
      if (atom.lanes == 1) {
        Value block = vector::ShapeCastOp::create(
            b, loc, VectorType::get({atom.m, atom.n}, elt), frag);
        if (transposed)
          block = vector::TransposeOp::create(b, loc, block,
                                              ArrayRef<int64_t>{1, 0});
        vector::TransferWriteOp::create(b, loc, block, buf, ValueRange{r, c},
                                        ArrayRef<bool>{true, true});
        continue;
      }
      // Runs of registers that are consecutive along the buffer's row.
      for (int64_t reg = 0; reg < regs;) {
        RegisterRun run = registerRun(atom, MatrixOperand::C, reg, transposed);
        SmallVector<int64_t> picks;
        for (int64_t i = 0; i < run.length; ++i)
          picks.push_back(reg + i);
        Value part = run.length == regs
                         ? frag
                         : vector::ShuffleOp::create(b, loc, frag, frag, picks);
        reg += run.length;
        if (laneRow) {
          storeToAtoms(part, rowOff + run.row, colOff + run.col);
          continue;
        }
        vector::StoreOp::create(
            b, loc, part, buf,
            ValueRange{addIdx(b, loc, r, run.row), addIdx(b, loc, c, run.col)});
      }
    }
}

bool hasUnitInnerStride(Value memref) {
  return fmha::hasUnitInnerStride(cast<MemRefType>(memref.getType()));
}

Value loadRowRun(OpBuilder &b, Location loc, Value src, Value batch, Value row,
                 Value head, Value col, VectorType type, bool unitInner,
                 llvm::MaybeAlign align, Value seqLen, bool zeroPastEnd) {
  Value valid;
  if (seqLen) {
    valid = cmp(b, loc, arith::CmpIPredicate::ult, row, seqLen);
    row = arith::SelectOp::create(b, loc, valid, row, constIndex(b, loc, 0));
  }
  SmallVector<Value> idx{batch, row, head, col};
  Value v;
  if (unitInner) {
    v = vector::LoadOp::create(b, loc, type, src, idx, /*nontemporal=*/false,
                               align);
  } else {
    Value x = memref::LoadOp::create(b, loc, src, idx);
    v = vector::BroadcastOp::create(b, loc, type, x);
  }
  if (!seqLen || !zeroPastEnd)
    return v;
  Value zeros = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  return arith::SelectOp::create(b, loc, valid, v, zeros);
}

SmallVector<Value>
loadRowFragments(OpBuilder &b, Location loc, const MatrixAtom &atom,
                 MatrixOperand operand, LaneCoords lane, Value src, Value batch,
                 Value rowBase, Value colBase, Value head, Value seqLen,
                 int64_t rows, int64_t cols, bool rowsAlongK, Type elt) {
  bool isA = operand == MatrixOperand::A;
  // Operand coordinates (i, j): A (m, k), B (k, n). Block rows follow i
  // when they run along A's m or B's k.
  bool rowsAlongI = isA != rowsAlongK;
  int64_t iExtent = isA ? atom.m : atom.k, jExtent = isA ? atom.k : atom.n;
  int64_t rowExtent = rowsAlongI ? iExtent : jExtent;
  int64_t colExtent = rowsAlongI ? jExtent : iExtent;
  int64_t rowAtoms = rows / rowExtent, colAtoms = cols / colExtent;
  int64_t regs = atom.regs(operand);
  auto type = VectorType::get({regs}, elt);
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  SmallVector<Value> frags;
  if (atom.lanes == 1) {
    // The one lane reads each [rowExtent x colExtent] block; rows past S are
    // out of bounds and read as zero.
    MLIRContext *ctx = b.getContext();
    AffineMap map = AffineMap::get(
        4, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(3, ctx)}, ctx);
    for (int64_t ri = 0; ri < rowAtoms; ++ri)
      for (int64_t ci = 0; ci < colAtoms; ++ci) {
        Value row0 = addIdx(b, loc, rowBase, ri * rowExtent);
        Value col0 = addIdx(b, loc, colBase, ci * colExtent);
        Value block = vector::TransferReadOp::create(
            b, loc, VectorType::get({rowExtent, colExtent}, elt), src,
            ValueRange{batch, row0, head, col0}, std::optional<Value>(zero),
            map, ArrayRef<bool>{false, true});
        if (!rowsAlongI)
          block = vector::TransposeOp::create(b, loc, block,
                                              ArrayRef<int64_t>{1, 0});
        frags.push_back(vector::ShapeCastOp::create(b, loc, type, block));
      }
    return frags;
  }

  Value laneRow = rowsAlongI ? lane.row : lane.col;
  Value laneCol = rowsAlongI ? lane.col : lane.row;
  bool unitInner = hasUnitInnerStride(src);
  // The fragments of row atom `ri`; `masked`: rows past seqLen become zero.
  // Registers consecutive along a row of src are one vector load (with a
  // unit inner stride).
  auto rowAtom = [&](int64_t ri, bool masked) {
    SmallVector<Value> out;
    for (int64_t ci = 0; ci < colAtoms; ++ci) {
      Value row0 = addIdx(b, loc, rowBase, ri * rowExtent);
      Value col0 = addIdx(b, loc, colBase, ci * colExtent);
      SmallVector<Value> parts;
      int64_t width = 0;
      for (int64_t reg = 0; reg < regs;) {
        RegisterRun run =
            registerRun(atom, operand, reg, /*transposed=*/!rowsAlongI);
        if (!unitInner)
          run.length = 1;
        Value row = arith::AddIOp::create(b, loc, row0,
                                          addIdx(b, loc, laneRow, run.row));
        Value col = arith::AddIOp::create(b, loc, col0,
                                          addIdx(b, loc, laneCol, run.col));
        parts.push_back(loadRowRun(b, loc, src, batch, row, head, col,
                                   VectorType::get({run.length}, elt),
                                   unitInner, llvm::MaybeAlign(),
                                   masked ? seqLen : Value()));
        width = std::max(width, run.length);
        reg += run.length;
      }
      // gatherElements takes equal-width parts.
      SmallVector<int64_t> picks;
      for (auto [p, part] : llvm::enumerate(parts)) {
        int64_t len = cast<VectorType>(part.getType()).getNumElements();
        for (int64_t i = 0; i < len; ++i)
          picks.push_back(int64_t(p) * width + i);
        part = widenTo(b, loc, part, width);
      }
      out.push_back(gatherElements(b, loc, parts, picks));
    }
    return out;
  };
  // `count` fragments under a uniform branch on `inside`: `plain`'s loads
  // when true, else `masked`'s.
  auto branch = [&](Value inside, int64_t count,
                    function_ref<SmallVector<Value>()> plain,
                    function_ref<SmallVector<Value>()> masked) {
    auto ifOp = scf::IfOp::create(b, loc, SmallVector<Type>(count, type),
                                  inside, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, plain());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, masked());
    return SmallVector<Value>(ifOp.getResults());
  };
  auto within = [&](int64_t rowEnd) {
    Value end = addIdx(b, loc, rowBase, rowEnd);
    return cmp(b, loc, arith::CmpIPredicate::ule, end, seqLen);
  };
  // Only the last block of a sequence has rows past its end: the others
  // load without masks, and a partial block masks one row atom at a time
  // under its own branch, so few row masks are live at once.
  return branch(
      within(rows), rowAtoms * colAtoms,
      [&] {
        SmallVector<Value> all;
        for (int64_t ri = 0; ri < rowAtoms; ++ri)
          all.append(rowAtom(ri, /*masked=*/false));
        return all;
      },
      [&] {
        SmallVector<Value> all;
        for (int64_t ri = 0; ri < rowAtoms; ++ri)
          all.append(branch(
              within((ri + 1) * rowExtent), colAtoms,
              [&] { return rowAtom(ri, /*masked=*/false); },
              [&] { return rowAtom(ri, /*masked=*/true); }));
        return all;
      });
}

void forEachAccRun(
    OpBuilder &b, Location loc, const KernelTarget &target, Value frag,
    const AccLayout &layout, int64_t width, Value row0, Value col0,
    llvm::function_ref<void(Value row, Value col, ValueRange run)> fn) {
  int64_t runs = int64_t(layout.rows.size()) / width;
  SmallVector<int64_t> runRows, runCols;
  for (int64_t r = 0; r < runs; ++r) {
    runRows.push_back(layout.rows[r * width]);
    runCols.push_back(layout.cols[r * width]);
  }
  // Run `run` (an index value) whose first register is `firstReg`.
  auto visit = [&](Value row, Value col, Value firstReg) {
    SmallVector<Value> elements;
    for (int64_t i = 0; i < width; ++i) {
      Value reg = addIdx(b, loc, firstReg, i);
      elements.push_back(
          vector::ExtractOp::create(b, loc, frag, ArrayRef<OpFoldResult>{reg}));
    }
    fn(row, col, elements);
  };
  // GPUs: straight-line code with constant register indices (built
  // unrolled rather than unrolled afterwards, so dialect conversions can
  // call it).
  if (!target.host) {
    for (int64_t r = 0; r < runs; ++r) {
      OpBuilder::InsertionGuard g(b);
      visit(addIdx(b, loc, row0, runRows[r]), addIdx(b, loc, col0, runCols[r]),
            constIndex(b, loc, r * width));
    }
    return;
  }
  Value c0 = constIndex(b, loc, 0);
  Value cRuns = constIndex(b, loc, runs);
  Value c1 = constIndex(b, loc, 1);
  auto runLoop = scf::ForOp::create(b, loc, c0, cRuns, c1);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(runLoop.getBody()->getTerminator());
  Value run = runLoop.getInductionVar();
  auto at = [&](ArrayRef<int64_t> offsets) {
    auto type = VectorType::get({runs}, b.getIndexType());
    Value t = arith::ConstantOp::create(b, loc, type,
                                        DenseElementsAttr::get(type, offsets));
    return vector::ExtractOp::create(b, loc, t, ArrayRef<OpFoldResult>{run});
  };
  Value row = arith::AddIOp::create(b, loc, row0, at(runRows));
  Value col = arith::AddIOp::create(b, loc, col0, at(runCols));
  Value firstReg =
      width == 1
          ? run
          : arith::MulIOp::create(b, loc, run, constIndex(b, loc, width));
  visit(row, col, firstReg);
}

void forEachAccElement(
    OpBuilder &b, Location loc, const KernelTarget &target, Value frag,
    const AccLayout &layout, Value row0, Value col0,
    llvm::function_ref<void(Value row, Value col, Value x)> fn) {
  forEachAccRun(
      b, loc, target, frag, layout, /*width=*/1, row0, col0,
      [&](Value row, Value col, ValueRange run) { fn(row, col, run.front()); });
}

} // namespace rocke
