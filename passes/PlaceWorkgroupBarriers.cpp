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
//    work-item, and of scf.while loops whose condition is, are walked until
//    the state entering an iteration is stable, so a write at the top of an
//    iteration is ordered against the reads of the previous one, then once
//    more placing the barriers that state needs; barriers may go inside
//    such bodies;
//  - values loaded from memory differ between work-items, unless the load
//    is marked rocke.workgroup_uniform (memory no work-item writes: a
//    packed batch's sequence offsets) and its indices are shared;
//  - an scf.if whose condition every work-item shares gets a barrier before
//    it for a hazard between an access before it and one inside, and
//    barriers inside its branches for hazards within them;
//  - an scf.if, scf.for or scf.while that a part of the workgroup only may
//    run (its condition or bounds depend on the work-item) gets no barrier
//    inside, where the other work-items would not reach it: its accesses
//    count as one access of the op, ordered by barriers before and after
//    it. A hazard between two accesses inside it (or two of its
//    iterations), which only a barrier inside would order, is an error;
//  - other ops with regions holding workgroup-memory accesses, and kernels
//    whose body is blocks joined by branches (cf), are errors: which
//    work-items run those accesses, and how often, is not known here.
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
// as well: which groups complete is not tracked. Copies and waits inside a
// divergent op are ordered like its other accesses, in flight from the op
// on; a read after a wait there, which a barrier after the wait would
// order, is an error.
//
// Bulk reductions (fmha.bulk_add) read their workgroup source through the
// async proxy at some point up to the issuing work-item's fmha.bulk_wait
// that covers their group: the read conflicts with earlier writes at the
// issue (a barrier, and the proxy fence, before it) and with later writes
// at the wait, which a barrier must follow, as no barrier alone ends such a
// read. Each read is tracked with the number of groups committed after its
// own (fmha.bulk_commit; the fewest any path took), so a wait for all but
// the newest N (`pending N`) completes those with N or more. A write of
// bytes a bulk reduction may still be reading is an error, unless both are
// in different slots of one ring (a double buffer whose slot indices differ
// by a constant: WorkgroupAccess's RingSlot), the slot indices compared
// within one iteration (an access leaving a loop's iteration forgets a slot
// index the loop defines). So is a kernel that ends with bulk reductions
// not waited for, whose reads would outlive the workgroup's memory.
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


template <typename T> bool sameSet(ArrayRef<T> a, ArrayRef<T> b) {
  return a.size() == b.size() &&
         llvm::all_of(a, [&](const T &x) { return llvm::is_contained(b, x); });
}

/// A committed bulk reduction's read and the groups committed after its
/// own.
struct BulkRead {
  Access access;
  int64_t newerGroups = 0;
  bool operator==(const BulkRead &o) const {
    return access == o.access && newerGroups == o.newerGroups;
  }
};

/// Counted up to here: waits take at most 63 pending groups.
constexpr int64_t kMaxNewerGroups = 64;

/// Adds `read`, or lowers the count of the same access already there.
void addBulkRead(SmallVectorImpl<BulkRead> &reads, const BulkRead &read) {
  for (BulkRead &r : reads)
    if (r.access == read.access) {
      r.newerGroups = std::min(r.newerGroups, read.newerGroups);
      return;
    }
  reads.push_back(read);
}

/// Accesses since the last barrier, asynchronous copies not yet waited for
/// (their destinations, as writes) and bulk reductions not yet waited for
/// (their sources, as reads): in the work-item's open group, or committed.
struct State {
  AccessSet pending, inFlight, bulkOpen;
  SmallVector<BulkRead> bulkCommitted;

  void merge(const State &other) {
    addAll(pending, other.pending);
    addAll(inFlight, other.inFlight);
    addAll(bulkOpen, other.bulkOpen);
    for (const BulkRead &read : other.bulkCommitted)
      addBulkRead(bulkCommitted, read);
  }
  bool operator==(const State &o) const {
    return sameSet<Access>(pending, o.pending) &&
           sameSet<Access>(inFlight, o.inFlight) &&
           sameSet<Access>(bulkOpen, o.bulkOpen) &&
           sameSet<BulkRead>(bulkCommitted, o.bulkCommitted);
  }
  /// Every bulk reduction's read not yet waited for.
  AccessSet bulkReads() const {
    AccessSet reads = bulkOpen;
    for (const BulkRead &read : bulkCommitted)
      addAll(reads, {read.access});
    return reads;
  }
  /// The accesses leave an iteration of `loop`: slot indices it defines
  /// name another slot in the next one.
  void forgetSlotsDefinedIn(Operation *loop) {
    auto forget = [&](Access &access) {
      if (access.slot &&
          loop->isAncestor(access.slot->index.getParentRegion()->getParentOp()))
        access.slot.reset();
    };
    for (AccessSet *set : {&pending, &inFlight, &bulkOpen}) {
      AccessSet forgotten;
      for (Access access : *set) {
        forget(access);
        addAll(forgotten, {access});
      }
      *set = std::move(forgotten);
    }
    SmallVector<BulkRead> committed;
    for (BulkRead read : bulkCommitted) {
      forget(read.access);
      addBulkRead(committed, read);
    }
    bulkCommitted = std::move(committed);
  }
};

/// The workgroup memory a bulk reduction reads.
AccessSet bulkSourceReads(rocke::fmha::BulkAddOp op) {
  Access read = rocke::workgroupAccessOf(op.getSource(), /*write=*/false);
  read.op = op;
  return {read};
}

class BarrierPlacer {
public:
  explicit BarrierPlacer(gpu::GPUFuncOp func) : func(func) {}

  LogicalResult run() {
    if (!func.getBody().hasOneBlock())
      return diagnoseUnstructured();
    func.walk([&](rocke::fmha::WarpgroupMmaOp mma) {
      for (Value buffer : mma.getBuffers())
        addAll(asyncProxyReads,
               {rocke::workgroupAccessOf(buffer, /*write=*/false)});
    });
    func.walk([&](rocke::fmha::BulkAddOp bulk) {
      addAll(asyncProxyReads, bulkSourceReads(bulk));
    });
    State state;
    walkBlock(func.getBody().front(), state);
    if (!reported)
      checkBulkReadsEnded(state);
    return failure(reported);
  }

private:
  /// A body of blocks joined by branches: the walk follows structured
  /// control flow only, so it is an error where there is anything to order.
  LogicalResult diagnoseUnstructured() {
    Operation *access = nestedWorkgroupAccess(func);
    if (!access)
      return success();
    Operation *branch = nullptr;
    func.walk([&](Operation *op) {
      if (!branch && op->getNumSuccessors() != 0)
        branch = op;
    });
    InFlightDiagnostic diag =
        (branch ? branch : func.getOperation())->emitError()
        << "fmha-place-workgroup-barriers needs structured control flow "
           "(scf) in a kernel that accesses workgroup memory; this kernel's "
           "body is blocks joined by branches";
    diag.attachNote(access->getLoc()) << "workgroup memory accessed here";
    return failure();
  }

  /// The first op nested in `op` (not `op` itself) that accesses workgroup
  /// memory or groups or waits for asynchronous work on it, or null.
  static Operation *nestedWorkgroupAccess(Operation *op) {
    Operation *found = nullptr;
    for (Region &region : op->getRegions()) {
      region.walk([&](Operation *nested) {
        if (!rocke::isAsyncGroupOp(nested) &&
            rocke::ownWorkgroupAccesses(nested).empty())
          return WalkResult::advance();
        found = nested;
        return WalkResult::interrupt();
      });
      if (found)
        break;
    }
    return found;
  }

  /// True when `v` may differ between the work-items of a workgroup.
  bool dependsOnWorkItem(Value v) {
    auto it = workItemDependent.find(v);
    if (it != workItemDependent.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (auto loop = dyn_cast<scf::WhileOp>(arg.getOwner()->getParentOp())) {
        classifyCarriedValues(loop);
        return workItemDependent.lookup(v);
      }
    workItemDependent[v] = true; // cycles (loop-carried values): dependent
    evaluating.push_back(v);
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
      bool uniformLoad = isa<memref::LoadOp>(def) &&
                         def->hasAttr(rocke::fmha::kWorkgroupUniformAttrName);
      if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp>(def) ||
          def->getNumRegions() != 0 ||
          (!isMemoryEffectFree(def) && !uniformLoad)) {
        // Work-item ids, values out of regions and loaded values.
        result = true;
      } else {
        result = llvm::any_of(def->getOperands(), [&](Value operand) {
          return dependsOnWorkItem(operand);
        });
      }
    }
    evaluating.pop_back();
    workItemDependent[v] = result;
    return result;
  }

  /// The values an scf.while carries into its regions are shared by the
  /// work-items where every value fed into them is (its operands,
  /// scf.yield's and scf.condition's): a greatest fixpoint, from all shared,
  /// making dependent each one fed a dependent value until none changes.
  /// Each guess is evaluated on a copy of the cache, since what it concludes
  /// rests on the guess, without the placeholders of the values being
  /// evaluated (the loop's condition, say).
  void classifyCarriedValues(scf::WhileOp loop) {
    SmallVector<std::pair<BlockArgument, SmallVector<Value, 2>>> carried;
    for (auto [arg, init, yielded] :
         llvm::zip_equal(loop.getBeforeArguments(), loop.getInits(),
                         loop.getYieldOp().getResults()))
      carried.push_back({arg, {init, yielded}});
    for (auto [arg, forwarded] : llvm::zip_equal(
             loop.getAfterArguments(), loop.getConditionOp().getArgs()))
      carried.push_back({arg, {forwarded}});
    SmallVector<bool> dependent(carried.size(), false);
    for (bool changed = true; changed;) {
      changed = false;
      llvm::DenseMap<Value, bool> cache = workItemDependent;
      for (Value placeholder : evaluating)
        workItemDependent.erase(placeholder);
      for (auto [value, isDependent] : llvm::zip_equal(carried, dependent))
        workItemDependent[value.first] = isDependent;
      for (auto [value, isDependent] : llvm::zip_equal(carried, dependent))
        if (!isDependent &&
            llvm::any_of(value.second,
                         [&](Value in) { return dependsOnWorkItem(in); }))
          isDependent = changed = true;
      workItemDependent = std::move(cache);
    }
    for (auto [value, isDependent] : llvm::zip_equal(carried, dependent))
      workItemDependent[value.first] = isDependent;
  }

  /// A loop every work-item of the workgroup runs with the same trip count.
  bool isUniformLoop(scf::ForOp loop) {
    return !dependsOnWorkItem(loop.getLowerBound()) &&
           !dependsOnWorkItem(loop.getUpperBound()) &&
           !dependsOnWorkItem(loop.getStep());
  }

  /// Every work-item of the workgroup runs the same regions of `op` (an
  /// scf.for, scf.if or scf.while) as often.
  bool isUniform(Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return isUniformLoop(loop);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return !dependsOnWorkItem(ifOp.getCondition());
    return !dependsOnWorkItem(
        cast<scf::WhileOp>(op).getConditionOp().getCondition());
  }

  /// True when `op` or an op nested in it accesses workgroup memory or
  /// groups or completes asynchronous work on it: a barrier cannot move
  /// above it.
  bool ordersBarrier(Operation *op) {
    if (isa<gpu::BarrierOp>(op) || !rocke::allWorkgroupAccesses(op).empty())
      return true;
    return op
        ->walk([](Operation *nested) {
          return rocke::isAsyncGroupOp(nested) ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// `op` writes bytes that a bulk reduction not yet waited for may read:
  /// no barrier can order that.
  void checkBulkReads(Operation *op, ArrayRef<Access> accesses,
                      const State &state) {
    if (!insert || bulkHazardReported)
      return;
    AccessSet reads = state.bulkReads();
    const Access *busy = llvm::find_if(reads, [&](const Access &r) {
      return llvm::any_of(accesses, [&](const Access &a) {
        return a.conflicts(r) && !a.inOtherSlot(r);
      });
    });
    if (busy == reads.end())
      return;
    InFlightDiagnostic diag =
        op->emitError()
        << "writes workgroup memory that an fmha.bulk_add may still be "
           "reading: an fmha.bulk_wait (then a barrier) must come first";
    if (busy->op)
      diag.attachNote(busy->op->getLoc()) << "the bulk reduction";
    reported = bulkHazardReported = true;
  }

  /// The kernel ends with bulk reductions that may still be reading its
  /// workgroup memory: never committed, or committed and not waited for.
  void checkBulkReadsEnded(const State &state) {
    auto report = [&](const Access &read, StringRef problem) {
      InFlightDiagnostic diag = func.emitError()
                                << "ends while an fmha.bulk_add may still be "
                                   "reading workgroup memory: "
                                << problem;
      if (read.op)
        diag.attachNote(read.op->getLoc()) << "the bulk reduction";
      reported = true;
    };
    if (!state.bulkOpen.empty())
      report(state.bulkOpen.front(),
             "its group is never committed (fmha.bulk_commit), so no "
             "fmha.bulk_wait covers it");
    else if (!state.bulkCommitted.empty())
      report(state.bulkCommitted.front().access,
             "an fmha.bulk_wait must cover its group before the end");
  }

  /// Clears `pending` with a barrier before `op` when `accesses` conflict;
  /// in divergent code, reports the conflict instead.
  void orderBefore(Operation *op, ArrayRef<Access> accesses,
                   AccessSet &pending) {
    const Access *conflict = llvm::find_if(pending, [&](const Access &p) {
      return llvm::any_of(accesses,
                          [&](const Access &a) { return a.conflicts(p); });
    });
    if (conflict == pending.end())
      return;
    if (divergentOp) {
      if (insert && !divergentHazardReported)
        reportDivergentHazard(op, *conflict);
      pending.clear();
      return;
    }
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

  /// `op` conflicts with `pending`, and only a barrier inside `divergentOp`
  /// would order them.
  void reportDivergentHazard(Operation *op, const Access &pending) {
    StringRef kind = pending.write ? "write" : "read";
    InFlightDiagnostic diag =
        op->emitError()
        << "needs a gpu.barrier after a conflicting workgroup-memory " << kind
        << ", but both are inside control flow that not every work-item "
           "takes, where a barrier would not be reached by the whole "
           "workgroup";
    if (pending.op)
      diag.attachNote(pending.op->getLoc()) << "the conflicting " << kind;
    diag.attachNote(divergentOp->getLoc())
        << "control flow depending on the work-item";
    reported = divergentHazardReported = true;
  }

  /// `op` holds workgroup-memory accesses (`access`) in regions the walk
  /// does not follow: which work-items run them, and how often, is unknown.
  void reportUnknownRegions(Operation *op, Operation *access) {
    InFlightDiagnostic diag =
        op->emitError()
        << "holds workgroup-memory accesses in regions that "
           "fmha-place-workgroup-barriers does not follow (it follows "
           "scf.for, scf.if and scf.while)";
    diag.attachNote(access->getLoc()) << "workgroup memory accessed here";
    reported = true;
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

  /// The reads of all but the newest `wait.getPending()` committed groups
  /// become pending reads, a barrier after the wait ordering them before
  /// later writes.
  static void completeBulkReads(rocke::fmha::BulkWaitOp wait, State &state) {
    SmallVector<BulkRead> stillReading;
    for (const BulkRead &read : state.bulkCommitted) {
      if (read.newerGroups >= wait.getPending())
        addAll(state.pending, {read.access});
      else
        stillReading.push_back(read);
    }
    state.bulkCommitted = std::move(stillReading);
  }

  /// The open group's reads are committed; the earlier groups age by one.
  static void commitBulkReads(State &state) {
    for (BulkRead &read : state.bulkCommitted)
      read.newerGroups = std::min(read.newerGroups + 1, kMaxNewerGroups);
    for (const Access &access : state.bulkOpen)
      addBulkRead(state.bulkCommitted, {access, 0});
    state.bulkOpen.clear();
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
        if (insert && !divergentOp && crossesProxy(state.pending) &&
            !isa_and_nonnull<NVVM::FenceProxyOp>(op.getPrevNode())) {
          OpBuilder b(&op);
          createProxyFence(b, op.getLoc());
        }
        state.pending.clear();
        continue;
      }
      if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op)) {
        if (divergentOp || isUniform(&op))
          walkStructured(&op, state);
        else
          walkDivergent(&op, state);
        continue;
      }
      if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
        completeCopies(wait, state);
        continue;
      }
      if (auto wait = dyn_cast<rocke::fmha::BulkWaitOp>(op)) {
        completeBulkReads(wait, state);
        continue;
      }
      if (isa<rocke::fmha::BulkCommitOp>(op)) {
        commitBulkReads(state);
        continue;
      }
      if (auto bulk = dyn_cast<rocke::fmha::BulkAddOp>(op)) {
        // A read at the issue against earlier writes; against later
        // writes at the wait.
        AccessSet src = bulkSourceReads(bulk);
        orderBefore(&op, src, state.pending);
        addAll(state.bulkOpen, src);
        continue;
      }
      if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
        // A write at the issue against earlier reads; against later reads
        // at the wait.
        AccessSet dst = rocke::ownWorkgroupAccesses(&op);
        checkBulkReads(&op, dst, state);
        orderBefore(&op, dst, state.pending);
        addAll(state.inFlight, dst);
        continue;
      }
      if (Operation *access = nestedWorkgroupAccess(&op)) {
        if (insert)
          reportUnknownRegions(&op, access);
        continue;
      }
      AccessSet accesses = rocke::ownWorkgroupAccesses(&op);
      if (accesses.empty())
        continue;
      checkBulkReads(&op, accesses, state);
      orderBefore(&op, accesses, state.pending);
      addAll(state.pending, accesses);
    }
  }

  void walkStructured(Operation *op, State &state) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      walkLoop(loop, state);
    else if (auto ifOp = dyn_cast<scf::IfOp>(op))
      walkIf(ifOp, state);
    else
      walkWhile(cast<scf::WhileOp>(op), state);
  }

  /// An op a part of the workgroup only may run: its accesses count as one
  /// access of the op, ordered before and after it. Its regions are walked
  /// as divergent code, reporting the hazards only a barrier inside would
  /// order. Copies and waits inside are ordered like its other accesses, in
  /// flight from the op on. A commit inside ages no group (the work-items
  /// that skip it do not count it); its bulk reductions stay open.
  void walkDivergent(Operation *op, State &state) {
    if (insert) {
      State inside;
      inside.inFlight = state.inFlight;
      inside.bulkOpen = state.bulkOpen;
      inside.bulkCommitted = state.bulkCommitted;
      divergentOp = op;
      divergentHazardReported = false;
      walkStructured(op, inside);
      divergentOp = nullptr;
    }
    AccessSet accesses = rocke::allWorkgroupAccesses(op);
    AccessSet copies, bulkReads;
    op->walk([&](Operation *nested) {
      if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(nested))
        completeCopies(wait, state);
      else if (auto bulkWait = dyn_cast<rocke::fmha::BulkWaitOp>(nested))
        completeBulkReads(bulkWait, state);
      else if (isa<nvgpu::DeviceAsyncCopyOp>(nested))
        addAll(copies, rocke::ownWorkgroupAccesses(nested));
      else if (auto bulk = dyn_cast<rocke::fmha::BulkAddOp>(nested))
        addAll(bulkReads, bulkSourceReads(bulk));
    });
    if (accesses.empty())
      return;
    orderBefore(op, accesses, state.pending);
    // The bulk reductions' reads stay in flight past the next barrier.
    for (const Access &access : accesses)
      if (!llvm::is_contained(bulkReads, access))
        addAll(state.pending, {access});
    addAll(state.inFlight, copies);
    addAll(state.bulkOpen, bulkReads);
  }

  /// A barrier before the scf.if for a hazard between an access before it
  /// and one inside (the work-items reach it before branching), then each
  /// branch from there; the if leaves what either branch leaves.
  void walkIf(scf::IfOp ifOp, State &state) {
    if (!divergentOp)
      orderBefore(ifOp, rocke::allWorkgroupAccesses(ifOp), state.pending);
    State elseState = state;
    walkBlock(*ifOp.thenBlock(), state);
    if (Block *elseBlock = ifOp.elseBlock())
      walkBlock(*elseBlock, elseState);
    state.merge(elseState);
  }

  /// The state entering an iteration of `body` (its blocks run in order)
  /// from `entry` on: walked without placing barriers until it no longer
  /// changes (a barrier placed for the first iteration's hazards would stay
  /// though a later one placed for the previous iteration's clears them
  /// too).
  State stableEntry(Operation *loop, ArrayRef<Block *> body, State entry) {
    bool placing = insert;
    insert = false;
    for (;;) {
      State iteration = entry;
      for (Block *block : body)
        walkBlock(*block, iteration);
      iteration.forgetSlotsDefinedIn(loop);
      State next = entry;
      next.merge(iteration);
      if (next == entry)
        break;
      entry = std::move(next);
    }
    insert = placing;
    return entry;
  }

  /// The body runs zero or more times: walked once placing barriers for
  /// its stable entry state; the loop leaves what entered it plus what an
  /// iteration leaves.
  void walkLoop(scf::ForOp loop, State &state) {
    State exit = stableEntry(loop, {loop.getBody()}, state);
    walkBlock(*loop.getBody(), exit);
    exit.forgetSlotsDefinedIn(loop);
    state.merge(exit);
  }

  /// The before region runs once more than the after region: the loop
  /// leaves what the before region leaves.
  void walkWhile(scf::WhileOp loop, State &state) {
    Block *before = loop.getBeforeBody(), *after = loop.getAfterBody();
    state = stableEntry(loop, {before, after}, state);
    walkBlock(*before, state);
    State iterationEnd = state;
    walkBlock(*after, iterationEnd);
    state.forgetSlotsDefinedIn(loop);
  }

  gpu::GPUFuncOp func;
  llvm::DenseMap<Value, bool> workItemDependent;
  /// The values dependsOnWorkItem is evaluating, innermost last.
  SmallVector<Value> evaluating;
  /// What fmha.warpgroup_mma reads (wgmma, through the async proxy).
  AccessSet asyncProxyReads;
  /// False while a loop's entry state is being found: nothing is placed or
  /// reported.
  bool insert = true;
  /// The outermost op a part of the workgroup only may run that the walk is
  /// in, or null: no barrier goes there, a hazard is reported.
  Operation *divergentOp = nullptr;
  /// A hazard in `divergentOp` was reported: the first only, those after it
  /// may follow from it.
  bool divergentHazardReported = false;
  /// A write of a bulk reduction's source before its wait was reported
  /// (the first only).
  bool bulkHazardReported = false;
  /// An error was reported.
  bool reported = false;
};

struct PlaceWorkgroupBarriersPass
    : public rocke::impl::PlaceWorkgroupBarriersBase<
          PlaceWorkgroupBarriersPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    if (!func.isKernel() || func.isExternal())
      return;
    if (failed(BarrierPlacer(func).run()))
      signalPassFailure();
  }
};

} // namespace
