//===- Passes.h - rocke-mlir passes and pipelines --------------------------===//
#ifndef ROCKE_PASSES_PASSES_H
#define ROCKE_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace rocke {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Registers the named pipelines (fmha-*-pipeline).
void registerPipelines();

} // namespace rocke

#endif
