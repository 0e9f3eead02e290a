//===- KernelBuilderTest.cpp - mask band ranges of lib/Kernels/KernelBuilder ------===//
//
// MaskBuilder's key / query ranges drive the warp strategy's loops and the
// tiled strategy's block skipping and its split into masked and whole
// blocks. With constant sizes every helper folds to constants, so the
// ranges can be compared with brute force over MaskBand::isVisible for every
// band shape and small problem.
//
//===----------------------------------------------------------------------===//
#include "lib/Kernels/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using rocke::fmha::MaskBand;

namespace {

class MaskBuilderTest : public ::testing::Test {
protected:
  MaskBuilderTest() : builder(&ctx) {
    ctx.loadDialect<arith::ArithDialect>();
    module = ModuleOp::create(UnknownLoc::get(&ctx));
    builder.setInsertionPointToStart(module->getBody());
  }

  Value idx(int64_t v) { return rocke::constIndex(builder, loc(), v); }
  Location loc() { return UnknownLoc::get(&ctx); }
  int64_t fold(Value v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    EXPECT_TRUE(c.has_value()) << "helper did not fold to a constant";
    return c.value_or(-1);
  }

  MLIRContext ctx;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

/// Bands of every mask kind: none, causal, windows, one-sided, both corners.
std::vector<MaskBand> bands() {
  std::vector<MaskBand> out;
  for (bool br : {false, true})
    for (int64_t lower : {-1, 0, 2, 5})
      for (int64_t upper : {-1, 0, 1, 3})
        out.push_back({br, lower, upper});
  return out;
}

TEST_F(MaskBuilderTest, RangesAreTheHullOfVisiblePairs) {
  for (const MaskBand &band : bands())
    for (int64_t sq : {1, 5, 9})
      for (int64_t sk : {1, 4, 9}) {
        rocke::MaskBuilder mask(builder, loc(), band, idx(sq), idx(sk));
        for (int64_t lo = 0; lo < sq; ++lo)
          for (int64_t hi = lo + 1; hi <= sq; ++hi) {
            // Keys seen by any query of [lo, hi).
            int64_t first = sk, last = -1;
            for (int64_t q = lo; q < hi; ++q)
              for (int64_t k = 0; k < sk; ++k)
                if (band.isVisible(q, k, sq, sk)) {
                  first = std::min(first, k);
                  last = std::max(last, k);
                }
            auto [kLo, kHi] = mask.visibleKeys(builder, loc(), idx(lo), idx(hi));
            int64_t a = fold(kLo), b = fold(kHi);
            SCOPED_TRACE(testing::Message()
                         << "band br=" << band.bottomRight << " lower="
                         << band.lower << " upper=" << band.upper << " Sq=" << sq
                         << " Sk=" << sk << " queries [" << lo << "," << hi
                         << ")");
            if (last < 0) {
              EXPECT_EQ(a, b) << "no visible key, range must be empty";
            } else {
              EXPECT_EQ(a, first);
              EXPECT_EQ(b, last + 1);
            }
          }
        for (int64_t lo = 0; lo < sk; ++lo)
          for (int64_t hi = lo + 1; hi <= sk; ++hi) {
            int64_t first = sq, last = -1;
            for (int64_t k = lo; k < hi; ++k)
              for (int64_t q = 0; q < sq; ++q)
                if (band.isVisible(q, k, sq, sk)) {
                  first = std::min(first, q);
                  last = std::max(last, q);
                }
            auto [qLo, qHi] =
                mask.visibleQueries(builder, loc(), idx(lo), idx(hi));
            int64_t a = fold(qLo), b = fold(qHi);
            SCOPED_TRACE(testing::Message()
                         << "band br=" << band.bottomRight << " lower="
                         << band.lower << " upper=" << band.upper << " Sq=" << sq
                         << " Sk=" << sk << " keys [" << lo << "," << hi << ")");
            if (last < 0) {
              EXPECT_EQ(a, b) << "no query sees the keys, range must be empty";
            } else {
              EXPECT_EQ(a, first);
              EXPECT_EQ(b, last + 1);
            }
          }
      }
}

TEST_F(MaskBuilderTest, IsVisibleMatchesTheBand) {
  for (const MaskBand &band : bands())
    for (int64_t sq : {3, 7})
      for (int64_t sk : {2, 7}) {
        rocke::MaskBuilder mask(builder, loc(), band, idx(sq), idx(sk));
        for (int64_t q = 0; q < sq; ++q)
          for (int64_t k = 0; k < sk; ++k)
            EXPECT_EQ(fold(mask.isVisible(builder, loc(), idx(q), idx(k))) != 0,
                      band.isVisible(q, k, sq, sk))
                << "q=" << q << " k=" << k << " Sq=" << sq << " Sk=" << sk;
      }
}

/// [begin, end) must be exactly the blocks in [first, last) for which
/// `whole(b)` holds.
void expectExactly(int64_t begin, int64_t end, int64_t first, int64_t last,
                   llvm::function_ref<bool(int64_t)> whole) {
  EXPECT_LE(first, begin);
  EXPECT_LE(begin, end);
  EXPECT_LE(end, last);
  for (int64_t b = first; b < last; ++b)
    EXPECT_EQ(begin <= b && b < end, whole(b)) << "block " << b;
}

TEST_F(MaskBuilderTest, WholeBlocksAreExactlyTheUnmaskedOnes) {
  for (const MaskBand &band : bands())
    for (int64_t sq : {1, 5, 9, 13})
      for (int64_t sk : {1, 4, 9, 13})
        for (int64_t block : {1, 2, 4}) {
          rocke::MaskBuilder mask(builder, loc(), band, idx(sq), idx(sk));
          SCOPED_TRACE(testing::Message()
                       << "band br=" << band.bottomRight
                       << " lower=" << band.lower << " upper=" << band.upper
                       << " Sq=" << sq << " Sk=" << sk << " block " << block);
          int64_t qBlocks = llvm::divideCeil(sq, block);
          int64_t kBlocks = llvm::divideCeil(sk, block);
          // Query blocks against the keys [k0, k0 + block): rows past Sq
          // included, keys past Sk never whole.
          for (int64_t k0 = 0; k0 < sk; k0 += block)
            for (int64_t first = 0; first <= qBlocks; ++first)
              for (int64_t last = first; last <= qBlocks; ++last) {
                auto [begin, end] = mask.wholeQueryBlocks(
                    builder, loc(), idx(k0), idx(k0 + block - 1), block,
                    idx(first), idx(last));
                expectExactly(
                    fold(begin), fold(end), first, last, [&](int64_t b) {
                      if (k0 + block > sk)
                        return false;
                      for (int64_t q = b * block; q < (b + 1) * block; ++q)
                        for (int64_t k = k0; k < k0 + block; ++k)
                          if (!band.isVisible(q, k, sq, sk))
                            return false;
                      return true;
                    });
              }
          // Key blocks against the queries [q0, min(q0 + block, Sq)).
          for (int64_t q0 = 0; q0 < sq; q0 += block)
            for (int64_t first = 0; first <= kBlocks; ++first)
              for (int64_t last = first; last <= kBlocks; ++last) {
                int64_t qLast = std::min(q0 + block, sq) - 1;
                auto [begin, end] =
                    mask.wholeKeyBlocks(builder, loc(), idx(q0), idx(qLast),
                                        block, idx(first), idx(last));
                expectExactly(
                    fold(begin), fold(end), first, last, [&](int64_t b) {
                      if ((b + 1) * block > sk)
                        return false;
                      for (int64_t q = q0; q <= qLast; ++q)
                        for (int64_t k = b * block; k < (b + 1) * block; ++k)
                          if (!band.isVisible(q, k, sq, sk))
                            return false;
                      return true;
                    });
              }
        }
}

} // namespace
