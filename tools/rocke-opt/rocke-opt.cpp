//===- rocke-opt.cpp - the rocke-mlir driver --------------------------------===//
//
// mlir-opt with the fmha dialect, this project's passes and its pipelines.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  rocke::registerRockePasses();
  rocke::registerPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<rocke::fmha::FmhaDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "rocke-mlir optimizer driver\n", registry));
}
