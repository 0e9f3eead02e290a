//===- WorkgroupAccess.h - which workgroup-memory bytes an op touches -----===//
//
// The workgroup-memory accesses of an op as (allocation, byte range, read or
// write), seen through views: fmha-place-workgroup-barriers orders the
// conflicting ones, fmha-defer-warpgroup-waits keeps a wait before writes to
// what a warpgroup product reads.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_PASSES_WORKGROUPACCESS_H
#define ROCKE_PASSES_WORKGROUPACCESS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace rocke {

/// One slot of a ring of equal buffers (a double buffer): the views that
/// a builder indexes by `index` modulo `count` along the ring's leading
/// dimension.
struct RingSlot {
  mlir::Value index;
  int64_t count = 0;
  bool operator==(const RingSlot &o) const {
    return index == o.index && count == o.count;
  }
  /// The two indices name different slots wherever both are evaluated
  /// with the same values, i.e. within one iteration of every loop that
  /// defines them: (x + a) mod n and (x + b) mod n with a != b modulo n.
  bool differsFrom(const RingSlot &other) const;
};

/// Bytes [begin, end) of a workgroup allocation (`root`); an unknown range
/// covers the whole allocation.
struct WorkgroupAccess {
  mlir::Value root;
  std::optional<std::pair<int64_t, int64_t>> bytes;
  bool write = false;
  /// The ring slot within `bytes` the access stays in, where it goes
  /// through one. Barrier placement ignores it (it compares accesses of
  /// different iterations); fmha-place-workgroup-barriers' check of writes
  /// against bulk reductions in flight uses it.
  std::optional<RingSlot> slot;
  /// The op that makes the access (for diagnostics; not part of identity).
  mlir::Operation *op = nullptr;

  bool overlaps(const WorkgroupAccess &other) const {
    if (root != other.root)
      return false;
    if (!bytes || !other.bytes)
      return true;
    return bytes->first < other.bytes->second &&
           other.bytes->first < bytes->second;
  }
  /// A read and a write of overlapping bytes. Two writes are not ordered:
  /// kernels write a buffer's elements once per phase, each element by one
  /// work-item, and order the next phase's writes after the reads between.
  bool conflicts(const WorkgroupAccess &other) const {
    return write != other.write && overlaps(other);
  }
  /// Overlapping bytes in different slots of one ring (see RingSlot's
  /// differsFrom: both accesses of the same iteration).
  bool inOtherSlot(const WorkgroupAccess &other) const {
    return slot && other.slot && bytes == other.bytes &&
           slot->differsFrom(*other.slot);
  }
  bool operator==(const WorkgroupAccess &o) const {
    return root == o.root && bytes == o.bytes && write == o.write &&
           slot == o.slot;
  }
};

using WorkgroupAccesses = llvm::SmallVector<WorkgroupAccess>;

/// Adds the accesses of `more` not in `set` yet.
void addAll(WorkgroupAccesses &set, llvm::ArrayRef<WorkgroupAccess> more);

/// A memref in the GPU workgroup address space.
bool isWorkgroupMemref(mlir::Type type);

/// The allocation and byte range `memref` (a workgroup memref) views:
/// through view-like ops; memref.view of a constant byte shift keeps its
/// range, so the views of one dynamic shared memory block that a builder
/// carves at different offsets are told apart, and so do subviews of them.
/// A subview of one element of the leading dimension at a dynamic index
/// (rocke::slotView) is that index's ring slot.
WorkgroupAccess workgroupAccessOf(mlir::Value memref, bool write);

/// The workgroup-memory accesses of `op` alone (not of its regions): from
/// its memory effects; an op without them reads and writes its workgroup
/// memref operands; an async copy writes its destination. Each names `op`.
WorkgroupAccesses ownWorkgroupAccesses(mlir::Operation *op);

/// `value` as `x rem N` (arith.remui) with a constant N: (x, N).
std::optional<std::pair<mlir::Value, uint64_t>>
matchConstantRemainder(mlir::Value value);

/// An op that completes or groups asynchronous work on workgroup memory
/// without accessing it itself: a wait for async copies, a bulk commit or
/// a bulk wait. Such ops keep their place relative to barriers and copies.
bool isAsyncGroupOp(mlir::Operation *op);

/// Every workgroup-memory access of `op` and the ops nested in it.
WorkgroupAccesses allWorkgroupAccesses(mlir::Operation *op);

} // namespace rocke

#endif // ROCKE_PASSES_WORKGROUPACCESS_H
