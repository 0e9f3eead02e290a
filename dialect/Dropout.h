//===- Dropout.h - dropout on P: the Philox4x32-10 mask as IR ------------===//
//
// Dropout on the attention probabilities (issue 33): Z[b, h, q, k] keeps
// score (q, k) of batch b, query head h with probability 1 - p, from a
// counter-based generator, so the forward and the backward regenerate the
// same mask at any tiling on any target:
//
//   key     = (seed mod 2^32, seed >> 32)
//   n       = (offset + b * Hq + h) mod 2^64
//   counter = (k, q, n mod 2^32, n >> 32)
//   x       = Philox4x32-10(counter, key), first output word
//   Z       = x * 2^-32 >= p, i.e. x >= ceil(p * 2^32)
//
// {seed, offset} are an i64 [2] memref read by the kernels. Every lowering
// (fmha-lower-to-loops, the tiled kernels) emits the mask with these
// helpers; rocke-run's float64 reference has its own plain C++ Philox.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_DIALECT_DROPOUT_H
#define ROCKE_DIALECT_DROPOUT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <cstdint>

namespace rocke::fmha {

/// The first output word of Philox4x32-10 (Salmon et al., SC'11; Random123's
/// philox4x32_R(10, ...)) of a counter of four and a key of two i32 values:
/// ten rounds with `arith.mului_extended` for the 32 x 32 -> 64 products.
mlir::Value emitPhilox4x32Word0(mlir::OpBuilder &b, mlir::Location loc,
                                std::array<mlir::Value, 4> counter,
                                std::array<mlir::Value, 2> key);

/// The part of the generator's input fixed for one (batch, query head): the
/// key words and n's words, as i32 values.
struct DropoutStream {
  mlir::Value key0, key1, n0, n1;
};

/// Reads {seed, offset} from `seedOffset` (memref<2xi64>) and forms batch
/// `batch`'s query head `head`'s stream (both index); `heads` is Hq.
DropoutStream emitDropoutStream(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value seedOffset, mlir::Value batch,
                                mlir::Value head, int64_t heads);

/// i1: whether the stream keeps score (query, key) (index positions within
/// the sequence), for a drop probability whose threshold is `threshold`.
mlir::Value emitDropoutKeep(mlir::OpBuilder &b, mlir::Location loc,
                            const DropoutStream &stream, mlir::Value query,
                            mlir::Value key, uint32_t threshold);

/// The drop probability of an op's `dropout_p` (0 where it has none).
float dropoutProbability(mlir::FloatAttr p);

/// ceil(p * 2^32): the least first word x with x * 2^-32 >= p (p in [0, 1)).
uint32_t dropoutThreshold(float p);

/// 1 / (1 - p), rounded to f32: the kept probabilities' factor.
float dropoutScale(float p);

} // namespace rocke::fmha

#endif // ROCKE_DIALECT_DROPOUT_H
