//===- FmhaDialect.cpp - fmha dialect registration and attributes ---------===//
#include "dialect/FmhaDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace rocke::fmha;

#include "dialect/FmhaDialect.cpp.inc"
#include "dialect/FmhaEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/FmhaAttrs.cpp.inc"

void FmhaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/FmhaAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/FmhaOps.cpp.inc"
      >();
}

LogicalResult MaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               MaskKind kind, MaskAlignment alignment,
                               int64_t left, int64_t right) {
  if (left < -1 || right < -1)
    return emitError() << "window extents must be non-negative, got left = "
                       << left << ", right = " << right;
  if (left > kMaxWindowExtent || right > kMaxWindowExtent)
    return emitError() << "window extents must be at most " << kMaxWindowExtent
                       << " (2^40, longer than any sequence), got left = "
                       << left << ", right = " << right;
  switch (kind) {
  case MaskKind::none:
  case MaskKind::causal:
    if (left != -1 || right != -1)
      return emitError() << "mask kind '" << stringifyMaskKind(kind)
                         << "' takes no window extents";
    if (kind == MaskKind::none && alignment != MaskAlignment::top_left)
      return emitError() << "mask kind 'none' takes no alignment";
    return success();
  case MaskKind::sliding_window:
    if (left == -1 || right == -1)
      return emitError()
             << "sliding_window needs both 'left' and 'right' extents";
    return success();
  case MaskKind::one_sided_window:
    if (left < 1)
      return emitError() << "one_sided_window needs a window 'left' >= 1";
    if (right != -1)
      return emitError() << "one_sided_window takes no 'right' extent";
    return success();
  }
  return emitError() << "unknown mask kind";
}

MaskBand MaskAttr::getBand() const {
  MaskBand band;
  band.bottomRight = getAlignment() == MaskAlignment::bottom_right;
  switch (getKind()) {
  case MaskKind::none:
    break;
  case MaskKind::causal:
    band.upper = 0;
    break;
  case MaskKind::sliding_window:
    band.lower = getLeft();
    band.upper = getRight();
    break;
  case MaskKind::one_sided_window:
    // q + off - k < W  <=>  k - (q + off) >= -(W - 1).
    band.lower = getLeft() - 1;
    break;
  }
  return band;
}

bool rocke::fmha::isSupportedHeadDim(int64_t d) {
  return d == 32 || d == 64 || d == 96 || d == 128 || d == 192 || d == 256;
}
