//===- FragmentLayoutTest.cpp - fragment layouts vs documented semantics -===//
#include "lib/Target/FragmentLayout.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace rocke;

namespace {

int rowsOf(const MatrixAtom &a, MatrixOperand op) {
  return op == MatrixOperand::B ? a.k : a.m;
}
int colsOf(const MatrixAtom &a, MatrixOperand op) {
  return op == MatrixOperand::A ? a.k : a.n;
}

// Each operand's (lane, reg) -> (row, col) map covers the matrix exactly once.
TEST(FragmentLayout, EveryOperandIsABijection) {
  for (const MatrixAtom &atom : knownAtoms())
    for (MatrixOperand op :
         {MatrixOperand::A, MatrixOperand::B, MatrixOperand::C}) {
      std::set<std::pair<int, int>> seen;
      for (int lane = 0; lane < atom.lanes; ++lane)
        for (int reg = 0; reg < atom.regs(op); ++reg) {
          FragmentCoord c = fragmentCoord(atom, op, lane, reg);
          ASSERT_GE(c.row, 0) << atom.name.str();
          ASSERT_LT(c.row, rowsOf(atom, op)) << atom.name.str();
          ASSERT_GE(c.col, 0) << atom.name.str();
          ASSERT_LT(c.col, colsOf(atom, op)) << atom.name.str();
          EXPECT_TRUE(seen.insert({c.row, c.col}).second)
              << atom.name.str() << " lane " << lane << " reg " << reg;
        }
      EXPECT_EQ(seen.size(), size_t(rowsOf(atom, op) * colsOf(atom, op)));
    }
}

// The additive split that code generators use reproduces the full map.
TEST(FragmentLayout, LaneAndRegisterPartsAddUp) {
  for (const MatrixAtom &atom : knownAtoms())
    for (MatrixOperand op :
         {MatrixOperand::A, MatrixOperand::B, MatrixOperand::C}) {
      LaneOffset lo = laneOffset(atom, op);
      for (int lane = 0; lane < atom.lanes; ++lane)
        for (int reg = 0; reg < atom.regs(op); ++reg) {
          FragmentCoord r = regOffset(atom, op, reg);
          FragmentCoord expect = fragmentCoord(atom, op, lane, reg);
          EXPECT_EQ(lo.row.eval(lane) + r.row, expect.row)
              << atom.name.str() << " lane " << lane << " reg " << reg;
          EXPECT_EQ(lo.col.eval(lane) + r.col, expect.col)
              << atom.name.str() << " lane " << lane << " reg " << reg;
        }
    }
}

// Spot values from the vendors' layout tables (AMD CDNA3 ISA "matrix
// instruction" layouts, PTX ISA "mma.m16n8k16" fragment figures).
TEST(FragmentLayout, DocumentedSpotValues) {
  const MatrixAtom *m32 = lookupAtom("mfma_f32_32x32x8_f16");
  ASSERT_NE(m32, nullptr);
  // Lane 33 holds A[1][4..7] and B[4..7][1]; its C reg 5 is D[13][1].
  EXPECT_EQ(fragmentCoord(*m32, MatrixOperand::A, 33, 2), (FragmentCoord{1, 6}));
  EXPECT_EQ(fragmentCoord(*m32, MatrixOperand::B, 33, 3), (FragmentCoord{7, 1}));
  EXPECT_EQ(fragmentCoord(*m32, MatrixOperand::C, 33, 5), (FragmentCoord{13, 1}));
  EXPECT_EQ(fragmentCoord(*m32, MatrixOperand::C, 0, 15), (FragmentCoord{27, 0}));

  const MatrixAtom *m16 = lookupAtom("mfma_f32_16x16x16_f16");
  ASSERT_NE(m16, nullptr);
  EXPECT_EQ(fragmentCoord(*m16, MatrixOperand::A, 63, 3), (FragmentCoord{15, 15}));
  EXPECT_EQ(fragmentCoord(*m16, MatrixOperand::C, 17, 2), (FragmentCoord{6, 1}));

  const MatrixAtom *m16k32 = lookupAtom("mfma_f32_16x16x32_bf16");
  ASSERT_NE(m16k32, nullptr);
  EXPECT_EQ(fragmentCoord(*m16k32, MatrixOperand::A, 20, 7), (FragmentCoord{4, 15}));

  const MatrixAtom *mma = lookupAtom("mma_sync_m16n8k16_f16");
  ASSERT_NE(mma, nullptr);
  // Thread 5: groupID 1, threadID_in_group 1.
  EXPECT_EQ(fragmentCoord(*mma, MatrixOperand::A, 5, 0), (FragmentCoord{1, 2}));
  EXPECT_EQ(fragmentCoord(*mma, MatrixOperand::A, 5, 3), (FragmentCoord{9, 3}));
  EXPECT_EQ(fragmentCoord(*mma, MatrixOperand::A, 5, 6), (FragmentCoord{9, 10}));
  EXPECT_EQ(fragmentCoord(*mma, MatrixOperand::B, 5, 2), (FragmentCoord{10, 1}));
  EXPECT_EQ(fragmentCoord(*mma, MatrixOperand::C, 5, 3), (FragmentCoord{9, 3}));
  EXPECT_EQ(lookupAtom("mfma_f64_4x4x4"), nullptr);
}

// A CPU model of the instruction as documented: lane l, step k multiplies its
// own A and B elements that share a k index and accumulates into D. Running it
// on fragments scattered by the maps must give the plain matrix product.
TEST(FragmentLayout, SimulatedInstructionComputesTheProduct) {
  for (const MatrixAtom &atom : knownAtoms()) {
    std::vector<double> a(atom.m * atom.k), b(atom.k * atom.n);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = double((i * 7) % 13) - 6;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = double((i * 5) % 11) - 5;

    // Scatter operands into per-lane registers.
    auto scatter = [&](MatrixOperand op, const std::vector<double> &mat) {
      std::vector<std::vector<double>> regs(atom.lanes);
      for (int lane = 0; lane < atom.lanes; ++lane)
        for (int r = 0; r < atom.regs(op); ++r) {
          FragmentCoord c = fragmentCoord(atom, op, lane, r);
          regs[lane].push_back(mat[c.row * colsOf(atom, op) + c.col]);
        }
      return regs;
    };
    auto aRegs = scatter(MatrixOperand::A, a);
    auto bRegs = scatter(MatrixOperand::B, b);

    // The instruction: each D element is sum over k of A(row, k) * B(k, col);
    // find each operand element through the owning lane's registers.
    std::vector<double> lookupA(atom.m * atom.k), lookupB(atom.k * atom.n);
    for (int lane = 0; lane < atom.lanes; ++lane) {
      for (int r = 0; r < atom.regs(MatrixOperand::A); ++r) {
        FragmentCoord c = fragmentCoord(atom, MatrixOperand::A, lane, r);
        lookupA[c.row * atom.k + c.col] = aRegs[lane][r];
      }
      for (int r = 0; r < atom.regs(MatrixOperand::B); ++r) {
        FragmentCoord c = fragmentCoord(atom, MatrixOperand::B, lane, r);
        lookupB[c.row * atom.n + c.col] = bRegs[lane][r];
      }
    }
    for (int lane = 0; lane < atom.lanes; ++lane)
      for (int r = 0; r < atom.regs(MatrixOperand::C); ++r) {
        FragmentCoord c = fragmentCoord(atom, MatrixOperand::C, lane, r);
        double d = 0, expect = 0;
        for (int kk = 0; kk < atom.k; ++kk) {
          d += lookupA[c.row * atom.k + kk] * lookupB[kk * atom.n + c.col];
          expect += a[c.row * atom.k + kk] * b[kk * atom.n + c.col];
        }
        EXPECT_EQ(d, expect) << atom.name.str();
      }
  }
}

// operandFromAccumulators, checked by enumeration: every lane's operand
// register must equal the element the named C register of that lane holds.
void expectRepackHolds(const MatrixAtom &producer, const MatrixAtom &consumer,
                       MatrixOperand operand, bool transposed,
                       llvm::ArrayRef<RegisterSource> sources) {
  ASSERT_EQ(int(sources.size()), consumer.regs(operand));
  for (int lane = 0; lane < consumer.lanes; ++lane)
    for (int reg = 0; reg < consumer.regs(operand); ++reg) {
      FragmentCoord at = fragmentCoord(consumer, operand, lane, reg);
      FragmentCoord x = transposed ? FragmentCoord{at.col, at.row} : at;
      const RegisterSource &s = sources[reg];
      FragmentCoord held = fragmentCoord(producer, MatrixOperand::C, lane, s.reg);
      EXPECT_EQ(s.atomRow * producer.m + held.row, x.row)
          << consumer.name.str() << " lane " << lane << " reg " << reg;
      EXPECT_EQ(s.atomCol * producer.n + held.col, x.col)
          << consumer.name.str() << " lane " << lane << " reg " << reg;
    }
}

TEST(FragmentLayout, MmaSyncAccumulatorsAreTheAOperand) {
  const MatrixAtom *mma = lookupAtom("mma_sync_m16n8k16_bf16");
  ASSERT_NE(mma, nullptr);
  auto a = operandFromAccumulators(*mma, *mma, MatrixOperand::A, false);
  ASSERT_TRUE(a.has_value());
  expectRepackHolds(*mma, *mma, MatrixOperand::A, false, *a);
  // Two m16n8 accumulators side by side, registers in order.
  EXPECT_EQ((*a)[0], (RegisterSource{0, 0, 0}));
  EXPECT_EQ((*a)[3], (RegisterSource{0, 0, 3}));
  EXPECT_EQ((*a)[4], (RegisterSource{0, 1, 0}));
  EXPECT_EQ((*a)[7], (RegisterSource{0, 1, 3}));
  // The transpose lives in other lanes.
  EXPECT_FALSE(
      operandFromAccumulators(*mma, *mma, MatrixOperand::A, true).has_value());
}

TEST(FragmentLayout, MfmaAccumulatorIsTheTransposedAOperand) {
  for (const char *name : {"mfma_f32_16x16x16_f16", "mfma_f32_16x16x16_bf16"}) {
    const MatrixAtom *mfma = lookupAtom(name);
    ASSERT_NE(mfma, nullptr);
    auto a = operandFromAccumulators(*mfma, *mfma, MatrixOperand::A, true);
    ASSERT_TRUE(a.has_value()) << name;
    expectRepackHolds(*mfma, *mfma, MatrixOperand::A, true, *a);
    for (int reg = 0; reg < 4; ++reg)
      EXPECT_EQ((*a)[reg], (RegisterSource{0, 0, reg}));
    // C(X) is also B(X), and never A(X).
    auto bOp = operandFromAccumulators(*mfma, *mfma, MatrixOperand::B, false);
    ASSERT_TRUE(bOp.has_value());
    expectRepackHolds(*mfma, *mfma, MatrixOperand::B, false, *bOp);
    EXPECT_FALSE(operandFromAccumulators(*mfma, *mfma, MatrixOperand::A, false)
                     .has_value());
  }
  // gfx950's 16x16x32: its A spans two accumulators' rows in other lanes, so
  // a 16x16x16 atom consumes the scores there.
  const MatrixAtom *wide = lookupAtom("mfma_f32_16x16x32_bf16");
  const MatrixAtom *square = lookupAtom("mfma_f32_16x16x16_bf16");
  ASSERT_NE(wide, nullptr);
  EXPECT_FALSE(operandFromAccumulators(*wide, *wide, MatrixOperand::A, true)
                   .has_value());
  auto mixed = operandFromAccumulators(*wide, *square, MatrixOperand::A, true);
  ASSERT_TRUE(mixed.has_value());
  expectRepackHolds(*wide, *square, MatrixOperand::A, true, *mixed);
}

TEST(FragmentLayout, HostAtomRepacksEitherWay) {
  const MatrixAtom *host = lookupAtom("host_16x16x16");
  ASSERT_NE(host, nullptr);
  for (bool transposed : {false, true}) {
    auto a = operandFromAccumulators(*host, *host, MatrixOperand::A, transposed);
    ASSERT_TRUE(a.has_value());
    expectRepackHolds(*host, *host, MatrixOperand::A, transposed, *a);
  }
}

TEST(FragmentLayout, RepackRejectsMismatchedAtoms) {
  const MatrixAtom *mma = lookupAtom("mma_sync_m16n8k16_f16");
  const MatrixAtom *mfma = lookupAtom("mfma_f32_16x16x16_f16");
  EXPECT_FALSE(operandFromAccumulators(*mma, *mfma, MatrixOperand::A, false)
                   .has_value());
  EXPECT_FALSE(operandFromAccumulators(*mma, *mma, MatrixOperand::C, false)
                   .has_value());
}

} // namespace
