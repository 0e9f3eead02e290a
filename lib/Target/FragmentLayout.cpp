//===- FragmentLayout.cpp - matrix-core fragment layouts ---------------------===//
#include "lib/Target/FragmentLayout.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace rocke;

namespace {
constexpr MatrixAtom kAtoms[] = {
    // CDNA2/3: v_mfma_f32_16x16x16f16 / _bf16_1k, 4 elements of A and B per lane.
    {"mfma_f32_16x16x16_f16", 16, 16, 16, 64, MatrixAtom::Family::MfmaSquare},
    {"mfma_f32_16x16x16_bf16", 16, 16, 16, 64, MatrixAtom::Family::MfmaSquare},
    // v_mfma_f32_32x32x8f16 / _bf16_1k, 4 elements of A and B, 16 of C.
    {"mfma_f32_32x32x8_f16", 32, 32, 8, 64, MatrixAtom::Family::MfmaSquare},
    {"mfma_f32_32x32x8_bf16", 32, 32, 8, 64, MatrixAtom::Family::MfmaSquare},
    // gfx950: v_mfma_f32_16x16x32_f16 / _bf16, 8 elements of A and B per lane.
    {"mfma_f32_16x16x32_f16", 16, 16, 32, 64, MatrixAtom::Family::MfmaWideK},
    {"mfma_f32_16x16x32_bf16", 16, 16, 32, 64, MatrixAtom::Family::MfmaWideK},
    // gfx950: v_mfma_f32_32x32x16_f16 / _bf16, 8 elements of A and B, 16 of C.
    {"mfma_f32_32x32x16_f16", 32, 32, 16, 64, MatrixAtom::Family::MfmaWideK},
    {"mfma_f32_32x32x16_bf16", 32, 32, 16, 64, MatrixAtom::Family::MfmaWideK},
    // The same two instructions with k in runs of 4 in the C layout's row
    // order (kRun): the operand a product takes from the previous one's
    // accumulators.
    {"mfma_f32_16x16x32_kw4_f16", 16, 16, 32, 64, MatrixAtom::Family::MfmaWideK,
     4},
    {"mfma_f32_16x16x32_kw4_bf16", 16, 16, 32, 64,
     MatrixAtom::Family::MfmaWideK, 4},
    {"mfma_f32_32x32x16_kw4_f16", 32, 32, 16, 64, MatrixAtom::Family::MfmaWideK,
     4},
    {"mfma_f32_32x32x16_kw4_bf16", 32, 32, 16, 64,
     MatrixAtom::Family::MfmaWideK, 4},
    // PTX mma.sync.aligned.m16n8k16 (f16/bf16 -> f32), one warp of 32.
    {"mma_sync_m16n8k16_f16", 16, 8, 16, 32, MatrixAtom::Family::MmaSync},
    {"mma_sync_m16n8k16_bf16", 16, 8, 16, 32, MatrixAtom::Family::MmaSync},
    // CPU execution of the same tiled kernels (lowered to vector.contract).
    {"host_16x16x16", 16, 16, 16, 1, MatrixAtom::Family::Host},
    {"host_8x8x8", 8, 8, 8, 1, MatrixAtom::Family::Host},
};
} // namespace

int MatrixAtom::regs(MatrixOperand operand) const {
  switch (operand) {
  case MatrixOperand::A:
    return m * k / lanes;
  case MatrixOperand::B:
    return k * n / lanes;
  case MatrixOperand::C:
    return m * n / lanes;
  }
  return 0;
}

FragmentCoord rocke::fragmentCoord(const MatrixAtom &atom,
                                   MatrixOperand operand, int lane, int reg) {
  switch (atom.family) {
  case MatrixAtom::Family::MfmaSquare:
  case MatrixAtom::Family::MfmaWideK: {
    // The lanes form (64 / m) groups of m (resp. n) lanes; group g holds the
    // k-slice [g * kPerLane, (g + 1) * kPerLane) of A and B, or with kRun its
    // runs of kRun, the groups' runs interleaved.
    int groups = atom.lanes / atom.m;
    int run = atom.kRun ? atom.kRun : atom.k / groups;
    int inGroup = lane % atom.m, group = lane / atom.m;
    int k = (reg / run) * run * groups + group * run + reg % run;
    if (operand == MatrixOperand::A)
      return {inGroup, k};
    if (operand == MatrixOperand::B)
      return {k, inGroup};
    // C/D: blocks of 4 rows; block b of lane group g starts at row
    // 4 * g + 4 * groups * b.
    return {(reg / 4) * 4 * groups + 4 * group + reg % 4, inGroup};
  }
  case MatrixAtom::Family::MmaSync: {
    int groupId = lane / 4, inQuad = lane % 4;
    if (operand == MatrixOperand::A)
      return {groupId + 8 * ((reg / 2) % 2), 2 * inQuad + reg % 2 + 8 * (reg / 4)};
    if (operand == MatrixOperand::B)
      return {2 * inQuad + reg % 2 + 8 * (reg / 2), groupId};
    return {groupId + 8 * (reg / 2), 2 * inQuad + reg % 2};
  }
  case MatrixAtom::Family::Host: {
    int cols = operand == MatrixOperand::A ? atom.k : atom.n;
    return {reg / cols, reg % cols};
  }
  }
  return {-1, -1};
}

LaneOffset rocke::laneOffset(const MatrixAtom &atom, MatrixOperand operand) {
  constexpr LaneTerm zero{1, 1, 0};
  switch (atom.family) {
  case MatrixAtom::Family::MfmaSquare:
  case MatrixAtom::Family::MfmaWideK: {
    int groups = atom.lanes / atom.m;
    int run = atom.kRun ? atom.kRun : atom.k / groups;
    LaneTerm inGroup{1, atom.m, 1};
    if (operand == MatrixOperand::A)
      return {inGroup, {atom.m, groups, run}};
    if (operand == MatrixOperand::B)
      return {{atom.m, groups, run}, inGroup};
    return {{atom.m, groups, 4}, inGroup};
  }
  case MatrixAtom::Family::MmaSync: {
    LaneTerm groupId{4, 8, 1}, twiceInQuad{1, 4, 2};
    if (operand == MatrixOperand::B)
      return {twiceInQuad, groupId};
    return {groupId, twiceInQuad};
  }
  case MatrixAtom::Family::Host:
    return {zero, zero};
  }
  return {zero, zero};
}

FragmentCoord rocke::regOffset(const MatrixAtom &atom, MatrixOperand operand,
                               int reg) {
  // Lane 0 contributes nothing in every layout, so its coordinates are the
  // register part alone.
  return fragmentCoord(atom, operand, /*lane=*/0, reg);
}

std::optional<llvm::SmallVector<RegisterSource>>
rocke::operandFromAccumulators(const MatrixAtom &producer,
                               const MatrixAtom &consumer,
                               MatrixOperand operand, bool transposed,
                               FragmentCoord origin) {
  if (operand == MatrixOperand::C || producer.lanes != consumer.lanes)
    return std::nullopt;
  llvm::SmallVector<RegisterSource> sources;
  for (int reg = 0; reg < consumer.regs(operand); ++reg) {
    std::optional<RegisterSource> found;
    for (int lane = 0; lane < consumer.lanes; ++lane) {
      FragmentCoord at = fragmentCoord(consumer, operand, lane, reg);
      // X is the operand's transpose when `transposed`.
      FragmentCoord x = transposed ? FragmentCoord{at.col, at.row} : at;
      x = {x.row + origin.row, x.col + origin.col};
      int atomRow = x.row / producer.m, atomCol = x.col / producer.n;
      FragmentCoord inAtom{x.row % producer.m, x.col % producer.n};
      // The register of this lane's C fragment that holds `inAtom`, if any.
      std::optional<int> cReg;
      for (int r = 0; r < producer.regs(MatrixOperand::C) && !cReg; ++r)
        if (fragmentCoord(producer, MatrixOperand::C, lane, r) == inAtom)
          cReg = r;
      if (!cReg)
        return std::nullopt;
      // Register indices are compile-time: every lane must use the same one.
      RegisterSource source{atomRow, atomCol, *cReg};
      if (found && !(*found == source))
        return std::nullopt;
      found = source;
    }
    sources.push_back(*found);
  }
  return sources;
}

FragmentCoord rocke::transposedReadAddress(const MatrixAtom &atom,
                                           MatrixOperand operand, int lane,
                                           int reg) {
  int groupStart = lane / 16 * 16, inGroup = lane % 16;
  FragmentCoord at =
      fragmentCoord(atom, operand, groupStart + 4 * (inGroup % 4), reg);
  if (operand == MatrixOperand::A)
    return {at.row, at.col + inGroup / 4};
  return {at.row + inGroup / 4, at.col};
}

bool rocke::fitsTransposedReads(const MatrixAtom &atom,
                                MatrixOperand operand) {
  if (operand == MatrixOperand::C || atom.lanes != 64 ||
      atom.regs(operand) % 4 != 0)
    return false;
  bool isA = operand == MatrixOperand::A;
  for (int reg = 0; reg < atom.regs(operand); reg += 4)
    for (int lane = 0; lane < atom.lanes; ++lane)
      for (int row = 0; row < 4; ++row) {
        // Element `row` of the lane's read is column lane % 16 of the
        // block, in the row the lane at 4 row + (lane % 16) / 4 of its
        // group gave the address of.
        int inGroup = lane % 16;
        FragmentCoord addr = transposedReadAddress(
            atom, operand, lane / 16 * 16 + 4 * row + inGroup / 4, reg);
        FragmentCoord got = isA ? FragmentCoord{addr.row + inGroup % 4,
                                                addr.col}
                                : FragmentCoord{addr.row,
                                                addr.col + inGroup % 4};
        if (!(got == fragmentCoord(atom, operand, lane, reg + row)))
          return false;
      }
  return true;
}

llvm::SmallVector<FragmentCoord>
rocke::accumulatorOrigins(const MatrixAtom &producer,
                          const MatrixAtom &consumer, MatrixOperand operand,
                          bool transposed) {
  // The fragment's extents in X.
  int rows = operand == MatrixOperand::A ? consumer.m : consumer.k;
  int cols = operand == MatrixOperand::A ? consumer.k : consumer.n;
  int xRows = transposed ? cols : rows, xCols = transposed ? rows : cols;
  llvm::SmallVector<FragmentCoord> origins;
  auto along = [](int extent, int atom) {
    llvm::SmallVector<int> at;
    if (extent % atom == 0)
      at.push_back(0);
    else if (atom % extent == 0)
      for (int x = 0; x < atom; x += extent)
        at.push_back(x);
    return at;
  };
  for (int r : along(xRows, producer.m))
    for (int c : along(xCols, producer.n))
      origins.push_back({r, c});
  return origins;
}

bool rocke::operandTileFromAccumulators(const MatrixAtom &producer,
                                        const MatrixAtom &consumer,
                                        MatrixOperand operand,
                                        bool transposed) {
  llvm::SmallVector<FragmentCoord> origins =
      accumulatorOrigins(producer, consumer, operand, transposed);
  return !origins.empty() && llvm::all_of(origins, [&](FragmentCoord o) {
    return operandFromAccumulators(producer, consumer, operand, transposed, o)
        .has_value();
  });
}

llvm::ArrayRef<MatrixAtom> rocke::knownAtoms() { return kAtoms; }

const MatrixAtom *rocke::lookupAtom(llvm::StringRef name) {
  for (const MatrixAtom &atom : kAtoms)
    if (atom.name == name)
      return &atom;
  return nullptr;
}

llvm::SmallVector<int>
rocke::accumulatorLines(const MatrixAtom &atom, bool alongRows,
                        llvm::SmallVectorImpl<int> *slotOfReg) {
  llvm::SmallVector<int> lines;
  int regs = atom.regs(MatrixOperand::C);
  for (int reg = 0; reg < regs; ++reg) {
    FragmentCoord at = regOffset(atom, MatrixOperand::C, reg);
    lines.push_back(alongRows ? at.row : at.col);
  }
  llvm::sort(lines);
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  if (slotOfReg)
    for (int reg = 0; reg < regs; ++reg) {
      FragmentCoord at = regOffset(atom, MatrixOperand::C, reg);
      slotOfReg->push_back(llvm::find(lines, alongRows ? at.row : at.col) -
                           lines.begin());
    }
  return lines;
}

bool rocke::sameAccumulatorLayout(const MatrixAtom &a, const MatrixAtom &b) {
  int regs = a.regs(MatrixOperand::C);
  if (a.m != b.m || a.n != b.n || a.lanes != b.lanes ||
      regs != b.regs(MatrixOperand::C))
    return false;
  for (int lane = 0; lane < a.lanes; ++lane)
    for (int reg = 0; reg < regs; ++reg)
      if (!(fragmentCoord(a, MatrixOperand::C, lane, reg) ==
            fragmentCoord(b, MatrixOperand::C, lane, reg)))
        return false;
  return true;
}
