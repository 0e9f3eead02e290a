//===- FragmentsTest.cpp - register runs and accumulator layouts ----------===//
//
// The index maps fmha-distribute-tiles writes dQ and dS with: runs of
// registers that are consecutive in a row-major buffer holding a C
// fragment (or its transpose), and the per-register offsets of the C
// layout. Checked against lib/Target/FragmentLayout's lane-by-lane coordinates.
//
//===----------------------------------------------------------------------===//
#include "lib/Kernels/Fragments.h"

#include <gtest/gtest.h>

using namespace rocke;

namespace {

const MatrixAtom &atom(llvm::StringRef name) {
  const MatrixAtom *a = lookupAtom(name);
  EXPECT_NE(a, nullptr) << name.str();
  return *a;
}

// Every run starts where registerRun says and covers `length` registers
// that sit next to each other along a buffer row, for every lane.
TEST(Fragments, RegisterRunsAreContiguousInTheBuffer) {
  for (const MatrixAtom &a : knownAtoms())
    for (bool transposed : {false, true}) {
      int regs = a.regs(MatrixOperand::C);
      for (int reg = 0; reg < regs;) {
        RegisterRun run = registerRun(a, MatrixOperand::C, reg, transposed);
        ASSERT_GE(run.length, 1);
        for (int lane = 0; lane < a.lanes; ++lane) {
          FragmentCoord first = fragmentCoord(a, MatrixOperand::C, lane, reg);
          for (int i = 0; i < run.length; ++i) {
            FragmentCoord at =
                fragmentCoord(a, MatrixOperand::C, lane, reg + i);
            int row = transposed ? at.col : at.row;
            int col = transposed ? at.row : at.col;
            EXPECT_EQ(row, transposed ? first.col : first.row)
                << a.name.str() << " reg " << reg + i;
            EXPECT_EQ(col, (transposed ? first.row : first.col) + i)
                << a.name.str() << " reg " << reg + i;
          }
        }
        reg += run.length;
      }
    }
}

// MFMA keeps 4 rows of one column per lane: runs of 4 along the rows of the
// transpose (dQ^T leaves as 4 consecutive dQ columns, 16-byte aligned), 1
// along its own rows; mma.sync keeps column pairs: runs of 2, 8-byte
// aligned.
TEST(Fragments, AccumulatorRunsPerAtomFamily) {
  AccRuns mfma = AccRuns::get(atom("mfma_f32_16x16x16_bf16"));
  AccRuns mfmaT = AccRuns::get(atom("mfma_f32_16x16x16_bf16"), true);
  EXPECT_EQ(mfma.width, 1);
  EXPECT_EQ(mfmaT.width, 4);
  EXPECT_EQ(mfmaT.alignment, 4);
  AccRuns mma = AccRuns::get(atom("mma_sync_m16n8k16_f16"));
  AccRuns mmaT = AccRuns::get(atom("mma_sync_m16n8k16_f16"), true);
  EXPECT_EQ(mma.width, 2);
  EXPECT_EQ(mma.alignment, 2);
  EXPECT_EQ(mmaT.width, 1);
}

// AccLayout's offsets plus the lane part are fragmentCoord, transposed on
// request.
TEST(Fragments, AccumulatorLayoutIsTheRegisterPart) {
  for (const MatrixAtom &a : knownAtoms())
    for (bool transposed : {false, true}) {
      AccLayout layout = AccLayout::get(a, transposed);
      LaneOffset lane = laneOffset(a, MatrixOperand::C);
      for (int l = 0; l < a.lanes; ++l)
        for (int reg = 0; reg < a.regs(MatrixOperand::C); ++reg) {
          FragmentCoord at = fragmentCoord(a, MatrixOperand::C, l, reg);
          int row = layout.rows[reg] +
                    (transposed ? lane.col.eval(l) : lane.row.eval(l));
          int col = layout.cols[reg] +
                    (transposed ? lane.row.eval(l) : lane.col.eval(l));
          EXPECT_EQ(row, transposed ? at.col : at.row) << a.name.str();
          EXPECT_EQ(col, transposed ? at.row : at.col) << a.name.str();
        }
    }
}

} // namespace
