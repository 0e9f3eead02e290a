//===- ReferenceAttentionTest.cpp - pins the float64 reference's semantics ===//
//
// rocke-run trusts test/lib/ReferenceAttention; these cases check it against
// values derived by hand from the op descriptions, not against any lowering.
//
//===----------------------------------------------------------------------===//
#include "ReferenceAttention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace rocke::reference;

namespace {
/// The visibility matrix as rows of '1' (visible) and '.' (masked).
std::string pattern(const Mask &m, int64_t sq, int64_t sk) {
  std::string s;
  for (int64_t q = 0; q < sq; ++q) {
    for (int64_t k = 0; k < sk; ++k)
      s += m.visible(q, k, sq, sk) ? '1' : '.';
    s += '\n';
  }
  return s;
}

Problem tiny(int64_t sq, int64_t sk, int64_t hq = 1, int64_t hkv = 1,
             int64_t d = 2) {
  Problem p;
  p.seqQ = sq;
  p.seqK = sk;
  p.headsQ = hq;
  p.headsKV = hkv;
  p.headDimQK = p.headDimV = d;
  p.scale = 0.5;
  return p;
}
} // namespace

TEST(ReferenceMask, KindsAndAlignments) {
  // Sq = 3, Sk = 5: the bottom-right diagonal is shifted by Sk - Sq = 2.
  Mask causal{MaskKind::Causal, false};
  EXPECT_EQ(pattern(causal, 3, 5), "1....\n11...\n111..\n");
  Mask causalBR{MaskKind::Causal, true};
  EXPECT_EQ(pattern(causalBR, 3, 5), "111..\n1111.\n11111\n");
  Mask window{MaskKind::SlidingWindow, false, 1, 2};
  EXPECT_EQ(pattern(window, 3, 5), "111..\n1111.\n.1111\n");
  // q + off - k < W bounds the past only: later keys stay visible.
  Mask oneSided{MaskKind::OneSidedWindow, true, 2};
  EXPECT_EQ(pattern(oneSided, 3, 5), ".1111\n..111\n...11\n");
  // Sq > Sk, bottom-right causal: the first Sq - Sk rows see no key.
  EXPECT_EQ(pattern(causalBR, 4, 2), "..\n..\n1.\n11\n");
  EXPECT_EQ(pattern(Mask{}, 2, 3), "111\n111\n");
}

TEST(ReferenceForward, SingleKeyCopiesValue) {
  Problem p = tiny(2, 1);
  std::vector<double> q = {1, 2, -1, 0.5}, k = {3, -1}, v = {7, -2};
  Forward f = forward(p, q, k, v);
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(f.out[p.o(0, i, 0, 0)], 7);
    EXPECT_DOUBLE_EQ(f.out[p.o(0, i, 0, 1)], -2);
    double s = 0.5 * (q[p.q(0, i, 0, 0)] * 3 - q[p.q(0, i, 0, 1)]);
    EXPECT_DOUBLE_EQ(f.lse[i], s);
    EXPECT_DOUBLE_EQ(f.max2[i], s / std::log(2.0));
    EXPECT_DOUBLE_EQ(f.sum2[i], 1.0);
  }
}

TEST(ReferenceForward, ZeroQueryAveragesVisibleValues) {
  // q = 0 gives equal scores: O is the mean of the visible values and
  // lse = log(#visible); causal rows see 1, 2, 3 keys.
  Problem p = tiny(3, 3);
  p.mask.kind = MaskKind::Causal;
  std::vector<double> q(6, 0.0), k = {1, 2, 3, 4, 5, 6}, v = {1, 0, 2, 0, 6, 3};
  Forward f = forward(p, q, k, v);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 0, 0, 0)], 1.0);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 1, 0, 0)], 1.5);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 2, 0, 0)], 3.0);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 2, 0, 1)], 1.0);
  EXPECT_NEAR(f.lse[2], std::log(3.0), 1e-15);
  EXPECT_NEAR(f.sum2[2], 3.0, 1e-15);
}

TEST(ReferenceForward, FullyMaskedRowIsEmpty) {
  Problem p = tiny(3, 1);
  p.mask = Mask{MaskKind::Causal, true};
  std::vector<double> q = {1, 1, 1, 1, 1, 1}, k = {1, 1}, v = {4, 4};
  Forward f = forward(p, q, k, v);
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_EQ(f.out[p.o(0, i, 0, 0)], 0.0);
    EXPECT_TRUE(std::isinf(f.lse[i]) && f.lse[i] < 0);
    EXPECT_TRUE(std::isinf(f.max2[i]) && f.max2[i] < 0);
    EXPECT_EQ(f.sum2[i], 0.0);
  }
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 2, 0, 0)], 4.0);
}

TEST(ReferenceForward, GroupedQueryHeadsShareKvHeads) {
  // Hq = 4, Hkv = 2: query heads 0, 1 read kv head 0; heads 2, 3 kv head 1.
  Problem p = tiny(1, 1, 4, 2, 2);
  std::vector<double> q(8, 1.0), k(4, 1.0), v = {1, 1, 9, 9};
  Forward f = forward(p, q, k, v);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 0, 1, 0)], 1.0);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 0, 2, 0)], 9.0);
  EXPECT_DOUBLE_EQ(f.out[p.o(0, 0, 3, 1)], 9.0);
}

TEST(ReferenceBackward, UniformAttention) {
  // With q = 0 every visible P_ij = 1/n_i; dV_j = sum_i P_ij dO_i, and
  // dQ / dK follow dS_ij = P_ij (dO_i . V_j - dO_i . O_i).
  Problem p = tiny(2, 2, 1, 1, 1);
  std::vector<double> q = {0, 0}, k = {1, -1}, v = {2, 4}, dout = {1, 3};
  Forward f = forward(p, q, k, v); // O = {3, 3}
  Gradients g = backward(p, q, k, v, f.out, dout);
  EXPECT_DOUBLE_EQ(g.dv[0], 0.5 * 1 + 0.5 * 3);
  EXPECT_DOUBLE_EQ(g.dv[1], 0.5 * 1 + 0.5 * 3);
  // Row i: dS_i0 = 0.5 * dO_i * (2 - 3), dS_i1 = 0.5 * dO_i * (4 - 3).
  // dQ_i = scale * (dS_i0 * 1 + dS_i1 * -1) = scale * -dO_i.
  EXPECT_DOUBLE_EQ(g.dq[0], 0.5 * -1.0);
  EXPECT_DOUBLE_EQ(g.dq[1], 0.5 * -3.0);
  // dK_j = scale * sum_i dS_ij q_i = 0 since q = 0.
  EXPECT_DOUBLE_EQ(g.dk[0], 0.0);
  EXPECT_DOUBLE_EQ(g.dk[1], 0.0);
}

TEST(ReferenceBackward, RowLossSumsOutputTimesGradient) {
  Problem p = tiny(2, 3, 2, 1, 2);
  p.mask.kind = MaskKind::Causal;
  std::vector<double> q = {0.1, -0.4, 0.3, 0.2, -0.5, 0.7, 0.6, -0.2};
  std::vector<double> k = {0.2, 0.9, -0.3, 0.4, 0.8, -0.6};
  std::vector<double> v = {1.0, -1.0, 0.5, 2.0, -0.7, 0.3};
  std::vector<double> dout = {0.3, -0.2, 1.1, 0.4, -0.9, 0.5, 0.2, 0.8};
  Forward f = forward(p, q, k, v);
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < 2; ++i) {
      double want = 0.0;
      for (int64_t d = 0; d < 2; ++d)
        want += f.out[p.o(0, i, h, d)] * dout[p.o(0, i, h, d)];
      EXPECT_NEAR(rowLoss(p, q, k, v, dout, 0, h, i), want, 1e-15);
    }
}
