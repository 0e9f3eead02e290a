//===- ScoreMod.h - score_mod regions: checks, named ones, inlining -------===//
//
// The `score_mod` region of fmha.attention_fwd / attention_bwd (issue 33):
// a function s' = f(s, batch, head, query, key, captures...) of each scaled
// score s = scale * q.k, applied before the mask and the softmax. Its block
// arguments are (s: f32, batch, head, query, key: index, then one per
// captured operand); its body is a closed set of ops (ScoreMod.cpp,
// isScoreModOp) ending in `fmha.yield` of s'.
//
// Every lowering inlines the region per score element with
// ScoreModInliner, which also derives d(s')/d(s) (forward-mode, chain rule
// over the closed set) for the backward: dS with respect to s is
// P (dP - delta) * d(s')/d(s). The named modifiers (softcap, ALiBi) are
// regions built here, so nothing downstream knows them by name.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_DIALECT_SCOREMOD_H
#define ROCKE_DIALECT_SCOREMOD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Region.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <utility>

namespace rocke::fmha {

/// Block arguments of a score_mod region, in order; the captured operands
/// follow.
enum ScoreModArg : unsigned {
  kScoreArg,
  kBatchArg,
  kHeadArg,
  kQueryArg,
  kKeyArg,
  kNumScoreModPositionalArgs
};

/// Checks the non-empty score_mod `region` of `op`, whose captured operands
/// are `captures`: its block arguments, the closed op set (naming an op
/// outside it), loads only of captured operands at indices computed from
/// batch, head and constants, within the static extents where an index is
/// a constant, the head (`heads` query heads) or the batch (`batch`
/// sequences, or ShapedType::kDynamic), and the terminator.
mlir::LogicalResult verifyScoreMod(mlir::Operation *op, mlir::Region &region,
                                   mlir::ValueRange captures, int64_t heads,
                                   int64_t batch);

/// Whether two score_mod regions (empty: none) and their captured operands
/// are the same function.
bool sameScoreMod(mlir::Region &a, mlir::ValueRange capturesA, mlir::Region &b,
                  mlir::ValueRange capturesB);

/// Whether the region reads the query or key position (ALiBi) or only the
/// score, batch and head (softcap).
bool scoreModUsesPositions(mlir::Region &region);

/// Fills the empty `region` with the logit softcap s' = cap * tanh(s / cap).
void buildSoftcapScoreMod(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Region &region, float cap);
/// Fills the empty `region` with ALiBi s' = s - slopes[head] * |query - key|
/// (slopes: a memref of f32 per query head, the region's one capture).
void buildAlibiScoreMod(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Region &region, mlir::MemRefType slopes);

/// Inlines a verified score_mod region at one place of a lowering. The
/// constructor emits what depends on neither the score nor the positions
/// (constants, loads of captured operands) once; emit() the rest per
/// element. math.tanh / exp / log are emitted as exp2 / log2 arithmetic,
/// which every target lowers natively.
class ScoreModInliner {
public:
  /// At b's insertion point, with `batch` and `head` (index) and the
  /// lowering's values of the captured operands.
  ScoreModInliner(mlir::OpBuilder &b, mlir::Location loc, mlir::Region &region,
                  mlir::Value batch, mlir::Value head,
                  mlir::ValueRange captures);

  /// s' at (score, query, key), emitted at b's insertion point.
  mlir::Value emit(mlir::OpBuilder &b, mlir::Value score, mlir::Value query,
                   mlir::Value key);
  /// s' and d(s')/d(score).
  std::pair<mlir::Value, mlir::Value> emitWithDerivative(mlir::OpBuilder &b,
                                                         mlir::Value score,
                                                         mlir::Value query,
                                                         mlir::Value key);

private:
  /// Emits the element-dependent ops: s' and, `withDerivative`, d(s')/ds
  /// (else null).
  std::pair<mlir::Value, mlir::Value>
  emitVarying(mlir::OpBuilder &b, mlir::Value score, mlir::Value query,
              mlir::Value key, bool withDerivative);

  mlir::Region &region;
  mlir::Location loc;
  /// The block arguments batch, head and the captures, and the results of
  /// the ops emitted by the constructor.
  mlir::IRMapping invariant;
  /// Ops that depend on the score or a position.
  llvm::DenseSet<mlir::Operation *> varying;
};

} // namespace rocke::fmha

#endif // ROCKE_DIALECT_SCOREMOD_H
