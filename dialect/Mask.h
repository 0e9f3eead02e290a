//===- Mask.h - mask semantics shared by every lowering -------------------===//
#ifndef ROCKE_DIALECT_MASK_H
#define ROCKE_DIALECT_MASK_H

#include <cstdint>

namespace rocke::fmha {

/// Largest window extent (`left`, `right`) the verifier accepts: 2^40 keys,
/// past any sequence a device can hold (a [B, S, H, D] tensor of 2^40 tokens
/// is >= 64 TiB), so a larger window means the same as this one. The bound
/// keeps the band arithmetic (q + off +- extent) far from int64 overflow,
/// which gave wrong masks for extents near INT64_MAX.
constexpr int64_t kMaxWindowExtent = int64_t(1) << 40;

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
