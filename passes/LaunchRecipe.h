//===- LaunchRecipe.h - checks of a kernel's rocke.launch facts -*- C++ -*-===//
//
// A kernel's `rocke.launch` dictionary (lib/Kernels/KernelBuilder.h's
// conventions) is the recipe runners launch it by: fmha-record-kernel-abi
// copies it into the module and fmha-dump-binary into the JSON sidecar. Both
// check it first, so a malformed recipe (a hand-written one, say) is a
// diagnostic instead of a launch that fails or reads out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_PASSES_LAUNCHRECIPE_H
#define ROCKE_PASSES_LAUNCHRECIPE_H

#include "lib/Target/ChipInfo.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <optional>

namespace rocke {

/// An integer attribute's value when it fits in int64_t (unsigned types
/// read as unsigned).
std::optional<int64_t> int64Value(mlir::IntegerAttr attr);

/// `launch` with its fields checked and `grid_limit` (the most workgroups
/// per grid dimension, which runners check the grid they evaluate against)
/// set to `limits`' unless it gives a tighter one; or failure with a
/// diagnostic from `emitError` naming kernel `kernel` and the field.
/// Checked: `order` and `ops` non-negative integers, `grid` three
/// expressions over the problem sizes (B, Sq, Sk, Hq, Hkv, Dqk, Dv) and the
/// launch's `symbols` (integers) with integers, + - * ( ) and ceildiv(a,b),
/// `block` three positive integers within `limits.maxWorkgroupSize`, `args`
/// one string per kernel argument (`numArgs`), `dynamic_shared_bytes` and
/// `lds_bytes` non-negative integers, `grid_limit` three positive integers
/// within `limits`. Other keys pass unchanged.
mlir::FailureOr<mlir::DictionaryAttr>
checkLaunchRecipe(mlir::DictionaryAttr launch, llvm::StringRef kernel,
                  const LaunchLimits &limits, std::optional<size_t> numArgs,
                  llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace rocke

#endif // ROCKE_PASSES_LAUNCHRECIPE_H
