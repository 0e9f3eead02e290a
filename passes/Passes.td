//===- Passes.td - rocke-mlir passes ---------------------------------------===//
#ifndef ROCKE_PASSES
#define ROCKE_PASSES

include "mlir/Pass/PassBase.td"

#endif // ROCKE_PASSES
