//===- Mask.h - mask semantics shared by every lowering -------------------===//
#ifndef ROCKE_DIALECT_MASK_H
#define ROCKE_DIALECT_MASK_H

#include <cstdint>

namespace rocke::fmha {

/// Every mask kind is a band around a diagonal: key k is visible from query q
/// iff -lower <= k - (q + diagonalOffset) <= upper, where diagonalOffset is 0
/// (top-left) or Sk - Sq (bottom-right) and a negative bound means unbounded.
struct MaskBand {
  bool bottomRight = false;
  int64_t lower = -1;
  int64_t upper = -1;

  bool isNone() const { return lower < 0 && upper < 0; }
  int64_t diagonalOffset(int64_t sq, int64_t sk) const {
    return bottomRight ? sk - sq : 0;
  }
  bool isVisible(int64_t q, int64_t k, int64_t sq, int64_t sk) const {
    int64_t rel = k - (q + diagonalOffset(sq, sk));
    return (lower < 0 || rel >= -lower) && (upper < 0 || rel <= upper);
  }
};

} // namespace rocke::fmha

#endif
