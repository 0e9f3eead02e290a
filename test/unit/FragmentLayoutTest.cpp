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

  // gfx950 (CDNA4 ISA): lane 33 of 32x32x16 holds A[1][8..15] and
  // B[8..15][1]; C as 32x32x8.
  const MatrixAtom *m32k16 = lookupAtom("mfma_f32_32x32x16_bf16");
  ASSERT_NE(m32k16, nullptr);
  EXPECT_EQ(fragmentCoord(*m32k16, MatrixOperand::A, 33, 2), (FragmentCoord{1, 10}));
  EXPECT_EQ(fragmentCoord(*m32k16, MatrixOperand::B, 40, 7), (FragmentCoord{15, 8}));
  EXPECT_EQ(fragmentCoord(*m32k16, MatrixOperand::C, 33, 5), (FragmentCoord{13, 1}));
  // Its kw4 form: lane 33 holds k 4-7 and 12-15, as its C registers hold
  // rows 4-7 and 12-15 of the first 16.
  const MatrixAtom *kw4 = lookupAtom("mfma_f32_32x32x16_kw4_bf16");
  ASSERT_NE(kw4, nullptr);
  EXPECT_EQ(fragmentCoord(*kw4, MatrixOperand::A, 33, 2), (FragmentCoord{1, 6}));
  EXPECT_EQ(fragmentCoord(*kw4, MatrixOperand::B, 33, 5), (FragmentCoord{13, 1}));
  const MatrixAtom *kw4x16 = lookupAtom("mfma_f32_16x16x32_kw4_f16");
  ASSERT_NE(kw4x16, nullptr);
  EXPECT_EQ(fragmentCoord(*kw4x16, MatrixOperand::B, 20, 6), (FragmentCoord{22, 4}));

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
                       llvm::ArrayRef<RegisterSource> sources,
                       FragmentCoord origin = {0, 0}) {
  ASSERT_EQ(int(sources.size()), consumer.regs(operand));
  for (int lane = 0; lane < consumer.lanes; ++lane)
    for (int reg = 0; reg < consumer.regs(operand); ++reg) {
      FragmentCoord at = fragmentCoord(consumer, operand, lane, reg);
      FragmentCoord x = transposed ? FragmentCoord{at.col, at.row} : at;
      x = {x.row + origin.row, x.col + origin.col};
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

/// The instruction's own atom of a kRun atom (its k order as the hardware
/// documents it).
const MatrixAtom &hardwareAtom(const MatrixAtom &atom) {
  for (const MatrixAtom &a : knownAtoms())
    if (a.family == atom.family && a.kRun == 0 && a.m == atom.m &&
        a.n == atom.n && a.k == atom.k &&
        a.name.ends_with("bf16") == atom.name.ends_with("bf16"))
      return a;
  ADD_FAILURE() << "no instruction atom for " << atom.name.str();
  return atom;
}

// A kRun atom's registers, handed to the instruction, which places them by
// its own k order: the product is the same, since both operands share the
// order.
TEST(FragmentLayout, KRunAtomsComputeTheProductOnTheInstruction) {
  int checked = 0;
  for (const MatrixAtom &atom : knownAtoms()) {
    if (atom.kRun == 0)
      continue;
    const MatrixAtom &hw = hardwareAtom(atom);
    std::vector<double> a(atom.m * atom.k), b(atom.k * atom.n);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = double((i * 7) % 13) - 6;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = double((i * 5) % 11) - 5;
    // The instruction's view: register r of lane l is its (m, k) / (k, n).
    std::vector<double> hwA(atom.m * atom.k), hwB(atom.k * atom.n);
    for (int lane = 0; lane < atom.lanes; ++lane)
      for (int r = 0; r < atom.regs(MatrixOperand::A); ++r) {
        FragmentCoord ours = fragmentCoord(atom, MatrixOperand::A, lane, r);
        FragmentCoord its = fragmentCoord(hw, MatrixOperand::A, lane, r);
        hwA[its.row * atom.k + its.col] = a[ours.row * atom.k + ours.col];
        ours = fragmentCoord(atom, MatrixOperand::B, lane, r);
        its = fragmentCoord(hw, MatrixOperand::B, lane, r);
        hwB[its.row * atom.n + its.col] = b[ours.row * atom.n + ours.col];
      }
    for (int i = 0; i < atom.m; ++i)
      for (int j = 0; j < atom.n; ++j) {
        double d = 0, expect = 0;
        for (int kk = 0; kk < atom.k; ++kk) {
          d += hwA[i * atom.k + kk] * hwB[kk * atom.n + j];
          expect += a[i * atom.k + kk] * b[kk * atom.n + j];
        }
        EXPECT_EQ(d, expect) << atom.name.str();
      }
    // Its accumulators are those of the instruction, and one C atom
    // stacked on the next along k is a B fragment register for register.
    EXPECT_TRUE(sameAccumulatorLayout(atom, hw)) << atom.name.str();
    for (const MatrixAtom *producer : {&atom, &hw}) {
      EXPECT_TRUE(operandTileFromAccumulators(*producer, atom, MatrixOperand::B,
                                              false))
          << atom.name.str();
      auto repack =
          operandFromAccumulators(*producer, atom, MatrixOperand::B, false);
      ASSERT_TRUE(repack.has_value()) << atom.name.str();
      expectRepackHolds(*producer, atom, MatrixOperand::B, false, *repack);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  // The instruction's own order spans other lanes' accumulator rows.
  for (const char *name : {"mfma_f32_32x32x16_bf16", "mfma_f32_16x16x32_bf16"}) {
    const MatrixAtom *wide = lookupAtom(name);
    EXPECT_FALSE(
        operandTileFromAccumulators(*wide, *wide, MatrixOperand::B, false))
        << name;
  }
}

// A 32x32 accumulator holds two 16-deep B fragments of the kw4 atom, at rows
// 0 and 16 of the atom; 16x16 accumulators stack two to one 16x16x32 B.
TEST(FragmentLayout, AccumulatorOriginsOfSmallerFragments) {
  const MatrixAtom &big = *lookupAtom("mfma_f32_32x32x16_bf16");
  const MatrixAtom &bigKw4 = *lookupAtom("mfma_f32_32x32x16_kw4_bf16");
  const MatrixAtom &small = *lookupAtom("mfma_f32_16x16x16_bf16");
  const MatrixAtom &smallKw4 = *lookupAtom("mfma_f32_16x16x32_kw4_bf16");
  EXPECT_EQ(accumulatorOrigins(big, bigKw4, MatrixOperand::B, false),
            (llvm::SmallVector<FragmentCoord>{{0, 0}, {16, 0}}));
  EXPECT_EQ(accumulatorOrigins(small, smallKw4, MatrixOperand::B, false),
            (llvm::SmallVector<FragmentCoord>{{0, 0}}));
  // 32 keys by 16 queries of a 32x32 accumulator: columns 0 and 16.
  EXPECT_EQ(accumulatorOrigins(big, smallKw4, MatrixOperand::B, false),
            (llvm::SmallVector<FragmentCoord>{{0, 0}, {0, 16}}));
  auto second = operandFromAccumulators(big, bigKw4, MatrixOperand::B, false,
                                        {16, 0});
  ASSERT_TRUE(second.has_value());
  for (int reg = 0; reg < 8; ++reg)
    EXPECT_EQ((*second)[reg], (RegisterSource{0, 0, 8 + reg}));
  // 16x16 and 32x32 layouts do not nest.
  EXPECT_FALSE(operandTileFromAccumulators(big, smallKw4, MatrixOperand::B,
                                           false));
  // 32x32x8: each 8-deep A fragment of the transpose sits in 4 of a 32x32
  // accumulator's registers, at rows 0, 8, 16 and 24.
  const MatrixAtom &m32k8 = *lookupAtom("mfma_f32_32x32x8_bf16");
  llvm::SmallVector<FragmentCoord> origins =
      accumulatorOrigins(m32k8, m32k8, MatrixOperand::A, true);
  ASSERT_EQ(origins.size(), 4u);
  for (FragmentCoord origin : origins) {
    auto repack = operandFromAccumulators(m32k8, m32k8, MatrixOperand::A, true,
                                          origin);
    ASSERT_TRUE(repack.has_value()) << origin.row;
    expectRepackHolds(m32k8, m32k8, MatrixOperand::A, true, *repack, origin);
  }
}

// A CPU model of ds_read_b64_tr_b16 on a row-major LDS buffer holding the
// operand's transpose (k along the rows, a padded pitch): each lane gives
// the address transposedReadAddress names; lane j of each 16-lane group
// gets element j % 4 of the 8 bytes at the address of lane 4 e + j / 4 of
// its group as its element e. The lanes' reads are the fragments.
TEST(FragmentLayout, TransposedReadsGiveTheFragments) {
  const int pitch = 72;
  for (const char *name :
       {"mfma_f32_16x16x16_bf16", "mfma_f32_32x32x8_f16",
        "mfma_f32_16x16x32_bf16", "mfma_f32_32x32x16_f16",
        "mfma_f32_16x16x32_kw4_bf16", "mfma_f32_32x32x16_kw4_bf16"})
    for (MatrixOperand op : {MatrixOperand::A, MatrixOperand::B}) {
      const MatrixAtom *atom = lookupAtom(name);
      ASSERT_NE(atom, nullptr) << name;
      ASSERT_TRUE(fitsTransposedReads(*atom, op)) << name;
      bool isA = op == MatrixOperand::A;
      // The buffer: element (k, x) at k * pitch + x, holding its own flat
      // index (x: m of A, n of B).
      auto flat = [&](FragmentCoord c) {
        return isA ? c.col * pitch + c.row : c.row * pitch + c.col;
      };
      for (int reg = 0; reg < atom->regs(op); reg += 4)
        for (int lane = 0; lane < 64; ++lane)
          for (int e = 0; e < 4; ++e) {
            int from = lane / 16 * 16 + 4 * e + lane % 16 / 4;
            int got =
                flat(transposedReadAddress(*atom, op, from, reg)) + lane % 4;
            EXPECT_EQ(got, flat(fragmentCoord(*atom, op, lane, reg + e)))
                << name << " lane " << lane << " reg " << reg + e;
          }
    }
  // Other lane counts have no such read.
  EXPECT_FALSE(fitsTransposedReads(*lookupAtom("mma_sync_m16n8k16_bf16"),
                                   MatrixOperand::A));
  EXPECT_FALSE(
      fitsTransposedReads(*lookupAtom("host_16x16x16"), MatrixOperand::B));
}

// The gfx950 backward's operands that run down their copy's columns, on the
// CPU: B = dO / Q [q x d] of dV += P^T dO and dK += dS^T Q (k = q, read
// from the block's rows), A = K^T [d x kv] of dQ^T = K^T dS^T (k = kv, read
// from K's rows), over whole tiles in padded row buffers. Each transposed
// read's address is formed as fmha-distribute-tiles forms it (the lane part
// at the lane that names the read's row, that row, the registers' part, the
// atom's origin in the tile), and the CPU model of ds_read_b64_tr_b16 (see
// TransposedReadsGiveTheFragments) hands every lane the element its
// fragment reads one at a time.
TEST(FragmentLayout, BackwardColumnOperandsByTransposedReads) {
  struct Case {
    MatrixOperand op;
    int rows, cols; // the operand tile: B [q x d], A [d x kv]
  };
  for (const char *name :
       {"mfma_f32_16x16x16_bf16", "mfma_f32_16x16x16_f16",
        "mfma_f32_16x16x32_bf16", "mfma_f32_16x16x32_f16"})
    for (int d : {64, 128})
      for (Case c : {Case{MatrixOperand::B, 64, d},
                     Case{MatrixOperand::A, d, 128}}) {
        const MatrixAtom &atom = *lookupAtom(name);
        ASSERT_TRUE(fitsTransposedReads(atom, c.op)) << name;
        bool isA = c.op == MatrixOperand::A;
        // B is read from the [q][d] rows as they stand, A = K^T from the
        // [kv][d] rows (the read's `transposed`); rows padded by 8 elements.
        bool transposed = isA;
        int pitch = d + 8;
        auto flat = [&](int i, int j) {
          return transposed ? j * pitch + i : i * pitch + j;
        };
        int atomRows = isA ? atom.m : atom.k, atomCols = isA ? atom.k : atom.n;
        LaneOffset lanePart = laneOffset(atom, c.op);
        for (int ai = 0; ai < c.rows / atomRows; ++ai)
          for (int aj = 0; aj < c.cols / atomCols; ++aj)
            for (int reg = 0; reg < atom.regs(c.op); reg += 4) {
              FragmentCoord regPart = regOffset(atom, c.op, reg);
              // The buffer element (flat) whose address `lane` gives.
              auto address = [&](int lane) {
                int named = lane / 16 * 16 + 4 * (lane % 4);
                int row = lanePart.row.eval(named) + regPart.row;
                int col = lanePart.col.eval(named) + regPart.col;
                (isA ? col : row) += lane % 16 / 4;
                return flat(ai * atomRows + row, aj * atomCols + col);
              };
              for (int lane = 0; lane < 64; ++lane)
                for (int e = 0; e < 4; ++e) {
                  int from = lane / 16 * 16 + 4 * e + lane % 16 / 4;
                  FragmentCoord at = fragmentCoord(atom, c.op, lane, reg + e);
                  EXPECT_EQ(address(from) + lane % 4,
                            flat(ai * atomRows + at.row,
                                 aj * atomCols + at.col))
                      << name << " D=" << d << (isA ? " A" : " B") << " atom ("
                      << ai << ", " << aj << ") lane " << lane << " reg "
                      << reg + e;
                }
            }
      }
}

// The gfx950 forward's O^T += V^T P^T, one wave, on the CPU: P^T straight
// from the score accumulators of S^T as the kw4 B operand (a 32x32 atom's
// registers 0-7 in the first k step, 8-15 in the second), V^T read with
// transposed reads out of V's rows, the instruction run in its own k order.
// It gives V^T P^T.
TEST(FragmentLayout, ForwardOutputFromScoreRegistersAndTransposedReads) {
  for (auto [scoreName, pvName] :
       {std::pair{"mfma_f32_16x16x32_bf16", "mfma_f32_16x16x32_kw4_bf16"},
        std::pair{"mfma_f32_32x32x16_bf16", "mfma_f32_32x32x16_kw4_bf16"}}) {
    const MatrixAtom &score = *lookupAtom(scoreName), &pv = *lookupAtom(pvName);
    const MatrixAtom &hw = hardwareAtom(pv);
    ASSERT_TRUE(operandTileFromAccumulators(score, pv, MatrixOperand::B, false))
        << pvName;
    // P^T [kv x q]: 32 key rows (one or two score atoms) by pv.n queries;
    // V [kv x d] rows with a padded pitch.
    const int kv = 32, q = pv.n, d = pv.m, pitch = d + 8;
    std::vector<double> pT(kv * q), vRows(kv * pitch);
    for (int i = 0; i < kv * q; ++i)
      pT[i] = double((i * 5) % 11) - 5;
    for (int i = 0; i < kv * pitch; ++i)
      vRows[i] = double((i * 7) % 13) - 6;
    // Each lane's score registers: the C fragments of the atoms down kv.
    int cRegs = score.regs(MatrixOperand::C);
    std::vector<std::vector<double>> acc(64);
    for (int lane = 0; lane < 64; ++lane)
      for (int atomRow = 0; atomRow < kv / score.m; ++atomRow)
        for (int r = 0; r < cRegs; ++r) {
          FragmentCoord c = fragmentCoord(score, MatrixOperand::C, lane, r);
          acc[lane].push_back(pT[(atomRow * score.m + c.row) * q + c.col]);
        }
    std::vector<double> out(d * q, 0.0);
    for (int k0 = 0; k0 < kv; k0 += pv.k) {
      FragmentCoord origin{k0 % score.m, 0};
      auto repack =
          operandFromAccumulators(score, pv, MatrixOperand::B, false, origin);
      ASSERT_TRUE(repack.has_value()) << pvName;
      expectRepackHolds(score, pv, MatrixOperand::B, false, *repack, origin);
      // The instruction's operands for this k step, by its own k order.
      std::vector<double> hwA(d * pv.k), hwB(pv.k * q);
      for (int lane = 0; lane < 64; ++lane)
        for (int r = 0; r < pv.regs(MatrixOperand::B); ++r) {
          const RegisterSource &s = (*repack)[r];
          int atomRow = k0 / score.m + s.atomRow;
          FragmentCoord its = fragmentCoord(hw, MatrixOperand::B, lane, r);
          hwB[its.row * q + its.col] = acc[lane][atomRow * cRegs + s.reg];
        }
      for (int lane = 0; lane < 64; ++lane)
        for (int r = 0; r < pv.regs(MatrixOperand::A); ++r) {
          // Element r % 4 of the read of registers r - r % 4.
          int from = lane / 16 * 16 + 4 * (r % 4) + lane % 16 / 4;
          FragmentCoord addr =
              transposedReadAddress(pv, MatrixOperand::A, from, r - r % 4);
          // A = V^T: (m = d, k = kv) at V[k0 + kv][d].
          double x = vRows[(k0 + addr.col) * pitch + addr.row + lane % 4];
          FragmentCoord its = fragmentCoord(hw, MatrixOperand::A, lane, r);
          hwA[its.row * pv.k + its.col] = x;
        }
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < q; ++j)
          for (int kk = 0; kk < pv.k; ++kk)
            out[i * q + j] += hwA[i * pv.k + kk] * hwB[kk * q + j];
    }
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < q; ++j) {
        double expect = 0;
        for (int kk = 0; kk < kv; ++kk)
          expect += vRows[kk * pitch + i] * pT[kk * q + j];
        EXPECT_EQ(out[i * q + j], expect)
            << pvName << " O^T[" << i << "][" << j << "]";
      }
  }
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
