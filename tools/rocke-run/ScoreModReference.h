//===- ScoreModReference.h - score_mod regions in float64 dual numbers ----===//
//
// The oracle's side of a score_mod (issue 33): the region interpreted op by
// op in double precision on dual numbers (value, d/ds), so the reference
// gets s' and ds'/ds at every (query, key) pair without the compiler's
// inlining or its derivative (dialect/ScoreMod.h's ScoreModInliner).
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_TOOLS_ROCKE_RUN_SCOREMODREFERENCE_H
#define ROCKE_TOOLS_ROCKE_RUN_SCOREMODREFERENCE_H

#include "ReferenceAttention.h"

#include "mlir/IR/Region.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <vector>

namespace rocke {

class ScoreModReference {
public:
  /// A copy of the verified score_mod `region` (it outlives the lowering
  /// that erases the op); `captures[i]` is captured operand i's row-major
  /// contents, `shapes[i]` its shape.
  ScoreModReference(mlir::Region &region,
                    std::vector<std::vector<double>> captures,
                    std::vector<llvm::SmallVector<int64_t>> shapes);

  /// s' and ds'/ds at the scaled score `s` of query `i`, key `j`.
  reference::ModifiedScore operator()(double s, int64_t b, int64_t h, int64_t i,
                                      int64_t j) const;

private:
  std::shared_ptr<mlir::Region> region;
  std::vector<std::vector<double>> captures;
  std::vector<llvm::SmallVector<int64_t>> shapes;
};

} // namespace rocke

#endif // ROCKE_TOOLS_ROCKE_RUN_SCOREMODREFERENCE_H
