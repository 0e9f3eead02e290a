//===- InterleaveMatrixOps.cpp - vector work into runs of MFMAs ------------===//
//
// An MFMA keeps the matrix core busy for several cycles, during which the
// SIMD can issue independent vector instructions. LLVM's AMDGPU scheduler
// keeps the order it is given: a product's MFMAs in one run, the elementwise
// work that follows it (the backward's P = exp2(...) and its bf16 packing
// after dP's MFMAs, dS after dV's) in another, during which no MFMA issues.
// This pass moves that work into the run: after each of the run's last
// MFMAs, `vector-ops-per-matrix-op` of the ops that follow the run (up to the
// next MFMA) whose operands are defined by then: side-effect-free ops, and
// reads that no write lies in the way of and that are not the next product's
// operands (those would stay live across the run).
//
//===----------------------------------------------------------------------===//
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"

namespace rocke {
#define GEN_PASS_DEF_INTERLEAVEMATRIXOPS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

/// Matrix ops closer than this (in ops) belong to one run.
constexpr int64_t kRunGap = 8;

bool isMatrixOp(Operation *op) { return isa<amdgpu::MFMAOp>(op); }

/// No regions, no writes: the op reads memory or touches none.
bool onlyReads(Operation *op) {
  if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>())
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Read>();
}

/// `op`'s results feed a matrix op, directly or through one op.
bool feedsMatrixOp(Operation *op) {
  for (Operation *user : op->getUsers()) {
    if (isMatrixOp(user))
      return true;
    if (llvm::any_of(user->getUsers(), isMatrixOp))
      return true;
  }
  return false;
}

/// Work worth moving: not a matrix op, not a constant (free), and no write.
bool isMovable(Operation *op) {
  if (isMatrixOp(op) || op->hasTrait<OpTrait::ConstantLike>() ||
      !onlyReads(op))
    return false;
  return isMemoryEffectFree(op) || !feedsMatrixOp(op);
}

/// `op` may move to just after `point`: its operands are defined above that
/// (or outside the block) and, if it reads memory, nothing in between writes.
bool canMoveAfter(Operation *op, Operation *point) {
  bool operandsReady = llvm::all_of(op->getOperands(), [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || def->getBlock() != point->getBlock() || def == point ||
           def->isBeforeInBlock(point);
  });
  if (!operandsReady || isMemoryEffectFree(op))
    return operandsReady;
  for (Operation *it = point->getNextNode(); it != op; it = it->getNextNode())
    if (!onlyReads(it))
      return false;
  return true;
}

/// Moves the movable ops of `window` (the ops after `run` up to the next
/// matrix op, in block order) into the run, `perMatrixOp` after each of its
/// last matrix ops but the very last: no earlier than needed, they lengthen
/// no more live ranges than needed.
void interleaveRun(ArrayRef<Operation *> run, ArrayRef<Operation *> window,
                   int64_t perMatrixOp) {
  int64_t movable = llvm::count_if(window, isMovable);
  if (movable == 0 || run.size() < 2)
    return;
  int64_t slots = (movable + perMatrixOp - 1) / perMatrixOp;
  int64_t first =
      std::max<int64_t>(0, static_cast<int64_t>(run.size()) - 1 - slots);
  llvm::DenseSet<Operation *> moved;
  for (Operation *matrixOp : run.slice(first, run.size() - 1 - first)) {
    Operation *after = matrixOp;
    int64_t placed = 0;
    for (Operation *op : window) {
      if (placed == perMatrixOp)
        break;
      if (moved.contains(op) || !isMovable(op) || !canMoveAfter(op, after))
        continue;
      op->moveAfter(after);
      after = op;
      moved.insert(op);
      ++placed;
    }
  }
}

void interleaveBlock(Block &block, int64_t perMatrixOp) {
  SmallVector<Operation *> run;
  // Moves the work after `run` (up to the next matrix op) into it; returns
  // that next matrix op's position.
  auto flush = [&]() {
    SmallVector<Operation *> window;
    auto next = std::next(run.back()->getIterator());
    for (; next != block.end() && !isMatrixOp(&*next); ++next)
      window.push_back(&*next);
    interleaveRun(run, window, perMatrixOp);
    run.clear();
    return next;
  };
  int64_t sinceLast = 0;
  for (auto it = block.begin(); it != block.end();) {
    Operation *op = &*it++;
    if (isMatrixOp(op)) {
      run.push_back(op);
      sinceLast = 0;
      continue;
    }
    if (run.empty() || ++sinceLast <= kRunGap)
      continue;
    it = flush();
    sinceLast = 0;
  }
  if (!run.empty())
    flush();
}

struct InterleaveMatrixOpsPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::InterleaveMatrixOpsBase<InterleaveMatrixOpsPass>> {
  using Base::Base;
  void runOnOperation() override {
    if (vectorOpsPerMatrixOp < 1) {
      emitError(getOperation()->getLoc(),
                "fmha-interleave-matrix-ops: vector-ops-per-matrix-op must be "
                "at least 1, got ")
          << vectorOpsPerMatrixOp.getValue();
      return signalPassFailure();
    }
    getOperation()->walk(
        [&](Block *block) { interleaveBlock(*block, vectorOpsPerMatrixOp); });
  }
};

} // namespace
