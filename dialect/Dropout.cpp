//===- Dropout.cpp - dropout on P: the Philox4x32-10 mask as IR ----------===//
#include "dialect/Dropout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cmath>

using namespace mlir;

namespace rocke::fmha {

namespace {
// Philox4x32's multipliers and Weyl key increments (Random123).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

Value i32Constant(OpBuilder &b, Location loc, uint32_t c) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                      static_cast<int64_t>(c));
}
} // namespace

Value emitPhilox4x32Word0(OpBuilder &b, Location loc,
                          std::array<Value, 4> counter,
                          std::array<Value, 2> key) {
  Value m0 = i32Constant(b, loc, kPhiloxM0);
  Value m1 = i32Constant(b, loc, kPhiloxM1);
  Value w0 = i32Constant(b, loc, kPhiloxW0);
  Value w1 = i32Constant(b, loc, kPhiloxW1);
  auto [c0, c1, c2, c3] = counter;
  auto [k0, k1] = key;
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      k0 = arith::AddIOp::create(b, loc, k0, w0);
      k1 = arith::AddIOp::create(b, loc, k1, w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c0);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c2);
    Value x0 = arith::XOrIOp::create(b, loc, p1.getHigh(), c1);
    Value x2 = arith::XOrIOp::create(b, loc, p0.getHigh(), c3);
    c0 = arith::XOrIOp::create(b, loc, x0, k0);
    c1 = p1.getLow();
    c2 = arith::XOrIOp::create(b, loc, x2, k1);
    c3 = p0.getLow();
  }
  return c0;
}

DropoutStream emitDropoutStream(OpBuilder &b, Location loc, Value seedOffset,
                                Value batch, Value head, int64_t heads) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value seed = memref::LoadOp::create(b, loc, seedOffset, zero);
  Value offset = memref::LoadOp::create(b, loc, seedOffset, one);
  Value headsIndex = arith::ConstantIndexOp::create(b, loc, heads);
  Value batchHeads = arith::MulIOp::create(b, loc, batch, headsIndex);
  Value stream = arith::AddIOp::create(b, loc, batchHeads, head);
  Value stream64 = arith::IndexCastUIOp::create(b, loc, i64, stream);
  Value n = arith::AddIOp::create(b, loc, offset, stream64);
  Value shift = arith::ConstantIntOp::create(b, loc, i64, 32);
  auto low = [&](Value x) -> Value {
    return arith::TruncIOp::create(b, loc, i32, x);
  };
  auto high = [&](Value x) -> Value {
    Value shifted = arith::ShRUIOp::create(b, loc, x, shift);
    return arith::TruncIOp::create(b, loc, i32, shifted);
  };
  DropoutStream s;
  s.key0 = low(seed);
  s.key1 = high(seed);
  s.n0 = low(n);
  s.n1 = high(n);
  return s;
}

Value emitDropoutKeep(OpBuilder &b, Location loc, const DropoutStream &stream,
                      Value query, Value key, uint32_t threshold) {
  Type i32 = b.getI32Type();
  Value q = arith::IndexCastUIOp::create(b, loc, i32, query);
  Value k = arith::IndexCastUIOp::create(b, loc, i32, key);
  Value x = emitPhilox4x32Word0(b, loc, {k, q, stream.n0, stream.n1},
                                {stream.key0, stream.key1});
  Value bound = i32Constant(b, loc, threshold);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x, bound);
}

float dropoutProbability(FloatAttr p) {
  return p ? p.getValueAsDouble() : 0.0f;
}

uint32_t dropoutThreshold(float p) {
  // p * 2^32 is exact in double; p < 1 keeps the ceiling below 2^32.
  return static_cast<uint32_t>(std::ceil(std::ldexp(double(p), 32)));
}

float dropoutScale(float p) { return float(1.0 / (1.0 - double(p))); }

} // namespace rocke::fmha
