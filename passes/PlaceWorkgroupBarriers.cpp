//===- PlaceWorkgroupBarriers.cpp - barriers from workgroup-memory hazards
//-===//
//
// Inserts gpu.barrier where one work-item's access to workgroup memory may
// conflict with another's since the last barrier: a read after a write
// (RAW) or a write after a read (WAR) of overlapping bytes. Writes are not
// ordered against writes: a kernel writes each element of a buffer once per
// phase (a tile is stored by many ops, one element by one work-item), and
// a later phase's writes are ordered by the reads in between. Kernel builders
// write their workgroup-memory traffic and leave the synchronisation to this
// pass, so a schedule change (a prefetch moved, a buffer added) cannot leave a
// race or a barrier too many.
//
// The walk is a forward dataflow over the kernel's structured control flow,
// with the accesses pending since the last barrier as state:
//  - an access that conflicts with a pending one gets a barrier before it,
//    as late as that (which is optimal for a straight line: each barrier
//    clears the most accesses), then hoisted above the ops between that do
//    not touch workgroup memory: the work-items reach it as early as
//    possible, and the independent work (global loads, arithmetic) runs
//    after it instead of delaying it (on the H200, placing the barrier
//    before the next query block's global loads instead of after them made
//    the D=128 backward 5 % faster);
//  - the bodies of scf.for loops whose bounds are the same for every
//    work-item are walked until the state entering an iteration is stable,
//    so a write at the top of an iteration is ordered against the reads of
//    the previous one, then once more placing the barriers that state
//    needs; barriers may go inside such bodies;
//  - every other op with regions (scf.if, loops with work-item dependent
//    bounds, ...) may be executed by a part of the workgroup only: its
//    accesses count as one access of the op, and a barrier goes before it,
//    never inside.
// Existing barriers are kept and clear the state. A barrier placed (or
// found) while writes to bytes the matrix cores read through the async proxy
// (fmha.warpgroup_mma: wgmma reads its B operand so) are pending is preceded
// by fence.proxy.async.shared::cta, which makes them visible to that proxy.
//
// Asynchronous copies (nvgpu.device_async_copy) write their destination at
// some point up to the nvgpu.device_async_wait that covers their group: the
// write conflicts with earlier reads at the issue (WAR) and with later reads
// at the wait (RAW). So the state also holds the copies in flight; a barrier
// does not clear them, a wait moves them to the pending accesses, and a
// barrier that a read needs after a wait goes after the wait. A wait for
// all but the newest N groups (numGroups = N > 0) leaves them all in flight
// as well: which groups complete is not tracked. Copies and waits inside an
// op with regions are ordered like its other accesses, in flight from the
// op on; a wait there does not order the reads after it in that region.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/WorkgroupAccess.h"

#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace rocke {
#define GEN_PASS_DEF_PLACEWORKGROUPBARRIERS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

using Access = rocke::WorkgroupAccess;
using AccessSet = rocke::WorkgroupAccesses;
using rocke::addAll;


bool sameSet(const AccessSet &a, const AccessSet &b) {
  return a.size() == b.size() &&
         llvm::all_of(a, [&](const Access &x) { return llvm::is_contained(b, x); });
}

/// Accesses since the last barrier, and asynchronous copies not yet waited
/// for (their destinations, as writes).
struct State {
  AccessSet pending, inFlight;

  void merge(const State &other) {
    addAll(pending, other.pending);
    addAll(inFlight, other.inFlight);
  }
  bool operator==(const State &o) const {
    return sameSet(pending, o.pending) && sameSet(inFlight, o.inFlight);
  }
};

class BarrierPlacer {
public:
  explicit BarrierPlacer(gpu::GPUFuncOp func) : func(func) {}

  void run() {
    func.walk([&](rocke::fmha::WarpgroupMmaOp mma) {
      for (Value buffer : mma.getBuffers())
        addAll(asyncProxyReads,
               {rocke::workgroupAccessOf(buffer, /*write=*/false)});
    });
    State state;
    walkBlock(func.getBody().front(), state);
  }

private:
  /// True when `v` may differ between the work-items of a workgroup.
  bool dependsOnWorkItem(Value v) {
    auto it = workItemDependent.find(v);
    if (it != workItemDependent.end())
      return it->second;
    workItemDependent[v] = true; // cycles (loop-carried values): dependent
    bool result = true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == func.getOperation()) {
        result = false; // kernel arguments
      } else if (auto loop = dyn_cast<scf::ForOp>(owner)) {
        result = arg != loop.getInductionVar() ||
                 dependsOnWorkItem(loop.getLowerBound()) ||
                 dependsOnWorkItem(loop.getStep());
      }
    } else {
      Operation *def = v.getDefiningOp();
      if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp>(def) ||
          def->getNumRegions() != 0 || !isMemoryEffectFree(def)) {
        // Work-item ids, values out of regions and loaded values.
        result = true;
      } else {
        result = llvm::any_of(def->getOperands(), [&](Value operand) {
          return dependsOnWorkItem(operand);
        });
      }
    }
    workItemDependent[v] = result;
    return result;
  }

  /// A loop every work-item of the workgroup runs with the same trip count.
  bool isUniformLoop(scf::ForOp loop) {
    return !dependsOnWorkItem(loop.getLowerBound()) &&
           !dependsOnWorkItem(loop.getUpperBound()) &&
           !dependsOnWorkItem(loop.getStep());
  }

  /// True when `op` or an op nested in it accesses workgroup memory or
  /// completes asynchronous copies: a barrier cannot move above it.
  bool ordersBarrier(Operation *op) {
    if (isa<gpu::BarrierOp>(op) || !rocke::allWorkgroupAccesses(op).empty())
      return true;
    return op
        ->walk([](nvgpu::DeviceAsyncWaitOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  }

  /// Clears `pending` with a barrier before `op` when `accesses` conflict.
  void orderBefore(Operation *op, ArrayRef<Access> accesses,
                   AccessSet &pending) {
    bool conflict = llvm::any_of(accesses, [&](const Access &a) {
      return llvm::any_of(pending,
                          [&](const Access &p) { return a.conflicts(p); });
    });
    if (!conflict)
      return;
    bool fence = crossesProxy(pending);
    pending.clear();
    if (!insert)
      return;
    // Right after the last op before `op` that touches workgroup memory (or
    // waits for copies into it), or at the top of the block.
    Operation *last = op->getPrevNode();
    while (last && !ordersBarrier(last))
      last = last->getPrevNode();
    OpBuilder b(op->getContext());
    if (last)
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointToStart(op->getBlock());
    if (fence)
      createProxyFence(b, op->getLoc());
    gpu::BarrierOp::create(b, op->getLoc());
  }

  /// Some pending access writes bytes the matrix cores read through the
  /// async proxy (fmha.warpgroup_mma).
  bool crossesProxy(ArrayRef<Access> pending) const {
    return llvm::any_of(pending, [&](const Access &p) {
      return llvm::any_of(asyncProxyReads,
                          [&](const Access &r) { return r.conflicts(p); });
    });
  }

  /// Ordinary writes become visible to the async proxy (wgmma's reads)
  /// through a proxy fence by the writers, before the barrier.
  static void createProxyFence(OpBuilder &b, Location loc) {
    NVVM::FenceProxyOp::create(
        b, loc,
        NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

  /// The copies in flight become pending writes; a wait for all groups
  /// leaves none in flight.
  static void completeCopies(nvgpu::DeviceAsyncWaitOp wait, State &state) {
    addAll(state.pending, state.inFlight);
    if (wait.getNumGroups().value_or(0) == 0)
      state.inFlight.clear();
  }

  void walkBlock(Block &block, State &state) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<gpu::BarrierOp>(op)) {
        if (insert && crossesProxy(state.pending) &&
            !isa_and_nonnull<NVVM::FenceProxyOp>(op.getPrevNode())) {
          OpBuilder b(&op);
          createProxyFence(b, op.getLoc());
        }
        state.pending.clear();
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op); loop && isUniformLoop(loop)) {
        walkLoop(loop, state);
        continue;
      }
      if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
        completeCopies(wait, state);
        continue;
      }
      if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
        // A write at the issue against earlier reads; against later reads
        // at the wait.
        AccessSet dst = rocke::ownWorkgroupAccesses(&op);
        orderBefore(&op, dst, state.pending);
        addAll(state.inFlight, dst);
        continue;
      }
      AccessSet accesses =
          op.getNumRegions() ? rocke::allWorkgroupAccesses(&op) : rocke::ownWorkgroupAccesses(&op);
      AccessSet copies;
      op.walk([&](Operation *nested) {
        if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(nested))
          completeCopies(wait, state);
        else if (isa<nvgpu::DeviceAsyncCopyOp>(nested))
          addAll(copies, rocke::ownWorkgroupAccesses(nested));
      });
      if (accesses.empty())
        continue;
      orderBefore(&op, accesses, state.pending);
      addAll(state.pending, accesses);
      addAll(state.inFlight, copies);
    }
  }

  /// The body runs zero or more times: walked without placing barriers
  /// until the state entering an iteration no longer changes, then once
  /// placing them for that state (a barrier placed for the first iteration's
  /// hazards would stay though a later one placed for the previous
  /// iteration's clears them too); the loop leaves what entered it plus what
  /// an iteration leaves.
  void walkLoop(scf::ForOp loop, State &state) {
    State entry = state;
    bool placing = insert;
    insert = false;
    for (;;) {
      State iteration = entry;
      walkBlock(*loop.getBody(), iteration);
      State next = entry;
      next.merge(iteration);
      if (next == entry)
        break;
      entry = std::move(next);
    }
    insert = placing;
    State exit = entry;
    walkBlock(*loop.getBody(), exit);
    state.merge(exit);
  }

  gpu::GPUFuncOp func;
  llvm::DenseMap<Value, bool> workItemDependent;
  /// What fmha.warpgroup_mma reads (wgmma, through the async proxy).
  AccessSet asyncProxyReads;
  /// False while a loop's entry state is being found.
  bool insert = true;
};

struct PlaceWorkgroupBarriersPass
    : public rocke::impl::PlaceWorkgroupBarriersBase<
          PlaceWorkgroupBarriersPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    if (!func.isKernel() || func.isExternal())
      return;
    BarrierPlacer(func).run();
  }
};

} // namespace
