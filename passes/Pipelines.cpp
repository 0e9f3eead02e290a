//===- Pipelines.cpp - named rocke pipelines --------------------------------===//
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"

void rocke::registerPipelines() {}
