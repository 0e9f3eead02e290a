//===- DeferWarpgroupWaits.cpp - wait for warpgroup products where used ---===//
//
// fmha-distribute-tiles waits for each warpgroup product right after issuing
// it. This pass moves each fmha.warpgroup_wait down its block to the first op
// that uses the product's result (or writes workgroup memory the product
// reads, or arrives on an mbarrier, which hands what it read to other
// work-items, or ends the block), so the products run while the subgroup does
// other work: the score products while the other is issued, dV and dK
// while dS goes to workgroup memory and dQ is computed. The wait then lets
// the products issued after its own keep running (`pending`).
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"
#include "passes/WorkgroupAccess.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace rocke {
#define GEN_PASS_DEF_DEFERWARPGROUPWAITS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using rocke::fmha::WarpgroupMmaOp;
using rocke::fmha::WarpgroupWaitOp;

namespace {

/// The most groups wgmma.wait_group leaves in flight (its operand is 0..7).
constexpr uint64_t kMaxPending = 7;

/// The first op after `op` in its block that uses one of its results
/// (directly or in a nested region), or else the block's terminator.
Operation *firstUser(Operation *op) {
  Block *block = op->getBlock();
  for (Operation &next :
       llvm::make_range(std::next(op->getIterator()), block->end()))
    if (next.hasTrait<OpTrait::IsTerminator>() ||
        llvm::any_of(op->getUsers(), [&](Operation *user) {
          return block->findAncestorOpInBlock(*user) == &next;
        }))
      return &next;
  return nullptr;
}

void defer(WarpgroupWaitOp wait) {
  Block *block = wait->getBlock();
  // The ops that take the result apart (fragment slices) go down to their
  // own first users first, so they do not hold the wait up.
  for (Operation *user : llvm::make_early_inc_range(wait->getUsers()))
    if (user->getBlock() == block &&
        isa<vector::ExtractStridedSliceOp, vector::ExtractOp>(user))
      if (Operation *at = firstUser(user))
        user->moveBefore(at);
  rocke::WorkgroupAccesses reads;
  for (Value buffer : wait.getBuffers())
    reads.push_back(rocke::workgroupAccessOf(buffer, /*write=*/false));
  auto usesResult = [&](Operation &op) {
    return llvm::any_of(wait->getUsers(), [&](Operation *user) {
      return block->findAncestorOpInBlock(*user) == &op;
    });
  };
  auto overwritesOperand = [&](Operation &op) {
    return llvm::any_of(
        rocke::allWorkgroupAccesses(&op), [&](const rocke::WorkgroupAccess &a) {
          return llvm::any_of(reads, [&](const rocke::WorkgroupAccess &r) {
            return a.conflicts(r);
          });
        });
  };
  // An mbarrier arrival tells other work-items that this one is done
  // reading (a slot handed back to its producer).
  auto releasesReads = [](Operation &op) {
    return isa<nvgpu::MBarrierArriveOp>(op);
  };
  Operation *stop = nullptr;
  for (Operation &op : llvm::make_range(std::next(wait->getIterator()),
                                        block->end()))
    if (usesResult(op) || overwritesOperand(op) || releasesReads(op) ||
        op.hasTrait<OpTrait::IsTerminator>()) {
      stop = &op;
      break;
    }
  if (stop)
    wait->moveBefore(stop);
  else
    wait->moveBefore(block, block->end());
  // The products issued after the waited one in its block are certainly
  // issued: waiting until at most that many are pending completes it
  // (groups complete in order).
  uint64_t pending = 0;
  auto issue = wait.getValue().getDefiningOp<WarpgroupMmaOp>();
  if (issue && issue->getBlock() == block)
    for (Operation *op = issue->getNextNode(); op != wait.getOperation();
         op = op->getNextNode())
      pending += isa<WarpgroupMmaOp>(op);
  wait.setPending(std::min(pending, kMaxPending));
}

/// After a wait at most its `pending` groups are in flight, plus those issued
/// since: a later wait that allows more waits for nothing. Lowering such a
/// wait's count to that bound keeps the counts of a block from rising,
/// which ptxas needs to keep the products asynchronous (else it serialises
/// them all, C7514).
void clampPending(Block &block) {
  std::optional<uint64_t> inFlight;
  for (Operation &op : block) {
    if (isa<WarpgroupMmaOp>(op) && inFlight)
      ++*inFlight;
    auto wait = dyn_cast<WarpgroupWaitOp>(op);
    if (!wait)
      continue;
    if (inFlight && wait.getPending() > *inFlight)
      wait.setPending(*inFlight);
    inFlight = wait.getPending();
  }
}

struct DeferWarpgroupWaitsPass
    : rocke::impl::DeferWarpgroupWaitsBase<DeferWarpgroupWaitsPass> {
  void runOnOperation() override {
    SmallVector<WarpgroupWaitOp> waits;
    getOperation()->walk([&](WarpgroupWaitOp wait) { waits.push_back(wait); });
    for (WarpgroupWaitOp wait : waits)
      defer(wait);
    llvm::SmallPtrSet<Block *, 4> blocks;
    for (WarpgroupWaitOp wait : waits)
      if (blocks.insert(wait->getBlock()).second)
        clampPending(*wait->getBlock());
  }
};

} // namespace
