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

/// Bytes [begin, end) of a workgroup allocation (`root`); an unknown range
/// covers the whole allocation.
struct WorkgroupAccess {
  mlir::Value root;
  std::optional<std::pair<int64_t, int64_t>> bytes;
  bool write = false;
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
  bool operator==(const WorkgroupAccess &o) const {
    return root == o.root && bytes == o.bytes && write == o.write;
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
WorkgroupAccess workgroupAccessOf(mlir::Value memref, bool write);

/// The workgroup-memory accesses of `op` alone (not of its regions): from
/// its memory effects; an op without them reads and writes its workgroup
/// memref operands; an async copy writes its destination. Each names `op`.
WorkgroupAccesses ownWorkgroupAccesses(mlir::Operation *op);

/// Every workgroup-memory access of `op` and the ops nested in it.
WorkgroupAccesses allWorkgroupAccesses(mlir::Operation *op);

} // namespace rocke

#endif // ROCKE_PASSES_WORKGROUPACCESS_H
