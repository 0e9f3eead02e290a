//===- OptionChecks.h - checks of textual pass options ----------*- C++ -*-===//
//
// MLIR's pass option parser takes `{chip=gfx1100 chip=gfx942}` and keeps the
// last value without a word (llvm::cl options may occur any number of times,
// and PassOptions has no hook to refuse that). The project's passes and
// pipelines refuse an option given twice instead.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_PASSES_OPTIONCHECKS_H
#define ROCKE_PASSES_OPTIONCHECKS_H

#include "mlir/Pass/Pass.h"

namespace rocke {

/// Splits `key=value key2='v w' key3={...}` at top-level spaces (quotes and
/// brackets nest), the syntax MLIR's pass options take.
llvm::SmallVector<llvm::StringRef> splitOptions(llvm::StringRef text);

/// Fails through `emitError`, naming `name` (the pass or pipeline) and the
/// key, when `text` gives an option twice.
mlir::LogicalResult checkRepeatedOptions(
    llvm::StringRef name, llvm::StringRef text,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> emitError);

/// A pass (`PassBase`, its ODS base class) whose textual options may not
/// give an option twice.
template <typename PassBase> class RejectRepeatedOptions : public PassBase {
public:
  /// What the passes' `using Base::Base;` inherits.
  using Base = RejectRepeatedOptions;
  using PassBase::PassBase;

  mlir::LogicalResult
  initializeOptions(llvm::StringRef options,
                    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                        emitError) override {
    if (failed(checkRepeatedOptions(this->getArgument(), options, emitError)))
      return mlir::failure();
    return PassBase::initializeOptions(options, emitError);
  }
};

} // namespace rocke

#endif // ROCKE_PASSES_OPTIONCHECKS_H
