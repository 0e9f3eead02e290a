//===- PhiloxTest.cpp - Philox4x32-10 of dropout against known answers ----===//
//
// Dropout's mask (issue 33) is Philox4x32-10's first output word. Both
// implementations are pinned to Random123's published known-answer vectors
// (kat_vectors, philox4x32 10): the float64 oracle's C++ one
// (test/lib/ReferenceAttention) on all four words, and the IR every
// lowering emits (dialect/Dropout.h) on the first, by folding it with
// constant inputs.
//
//===----------------------------------------------------------------------===//
#include "ReferenceAttention.h"
#include "dialect/Dropout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

using namespace mlir;

namespace {

struct KnownAnswer {
  std::array<uint32_t, 4> counter;
  std::array<uint32_t, 2> key;
  std::array<uint32_t, 4> out;
};

const KnownAnswer kPhilox4x32_10[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(PhiloxTest, ReferenceMatchesKnownAnswers) {
  for (const KnownAnswer &kat : kPhilox4x32_10)
    EXPECT_EQ(rocke::reference::philox4x32_10(kat.counter, kat.key), kat.out);
}

/// Folds the emitted first word of constant inputs to its value.
uint32_t foldEmittedWord0(const KnownAnswer &kat) {
  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToStart(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "word0", b.getFunctionType({}, {b.getI32Type()}));
  b.setInsertionPointToStart(func.addEntryBlock());
  auto word = [&](uint32_t x) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), int64_t(x));
  };
  Value c0 = word(kat.counter[0]), c1 = word(kat.counter[1]);
  Value c2 = word(kat.counter[2]), c3 = word(kat.counter[3]);
  Value k0 = word(kat.key[0]), k1 = word(kat.key[1]);
  Value x = rocke::fmha::emitPhilox4x32Word0(b, loc, {c0, c1, c2, c3},
                                             {k0, k1});
  auto ret = func::ReturnOp::create(b, loc, x);
  EXPECT_TRUE(succeeded(applyPatternsGreedily(func, RewritePatternSet(&ctx))));
  IntegerAttr folded;
  EXPECT_TRUE(matchPattern(ret.getOperand(0), m_Constant(&folded)))
      << "the emitted Philox did not fold to a constant";
  return folded ? uint32_t(folded.getValue().getZExtValue()) : 0;
}

TEST(PhiloxTest, EmittedIRMatchesKnownAnswers) {
  for (const KnownAnswer &kat : kPhilox4x32_10)
    EXPECT_EQ(foldEmittedWord0(kat), kat.out[0]);
}

TEST(PhiloxTest, ThresholdKeepsExactlyTheWordsAtOrAboveP) {
  for (float p : {0.0f, 0.1f, 0.5f, 0.9f, std::nextafter(1.0f, 0.0f)}) {
    uint32_t t = rocke::fmha::dropoutThreshold(p);
    // t * 2^-32 >= p > (t - 1) * 2^-32, exact in double.
    EXPECT_GE(std::ldexp(double(t), -32), double(p));
    if (t > 0)
      EXPECT_LT(std::ldexp(double(t - 1), -32), double(p));
  }
  EXPECT_EQ(rocke::fmha::dropoutThreshold(0.0f), 0u);
  EXPECT_EQ(rocke::fmha::dropoutThreshold(0.5f), 0x80000000u);
}

} // namespace
