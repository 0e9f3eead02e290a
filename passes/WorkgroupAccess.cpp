//===- WorkgroupAccess.cpp - which workgroup-memory bytes an op touches ---===//
#include "passes/WorkgroupAccess.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace rocke;

void rocke::addAll(WorkgroupAccesses &set,
                   ArrayRef<WorkgroupAccess> more) {
  for (const WorkgroupAccess &a : more)
    if (!llvm::is_contained(set, a))
      set.push_back(a);
}

bool rocke::isWorkgroupMemref(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Static byte size of a memref type, if it has one.
static std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

WorkgroupAccess rocke::workgroupAccessOf(Value memref, bool write) {
  std::optional<std::pair<int64_t, int64_t>> bytes;
  if (auto type = dyn_cast<MemRefType>(memref.getType()))
    if (std::optional<int64_t> size = staticBytes(type))
      bytes = std::make_pair(int64_t(0), *size);
  Value v = memref;
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      APInt shift;
      if (bytes && matchPattern(view.getByteShift(), m_ConstantInt(&shift)))
        bytes = std::make_pair(bytes->first + shift.getSExtValue(),
                               bytes->second + shift.getSExtValue());
      else
        bytes.reset();
      v = view.getSource();
      continue;
    }
    // A subview stays inside its source: the source's bytes (a slot of a
    // double buffer with a dynamic index is told apart from other views).
    if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
      bytes.reset();
      if (std::optional<int64_t> size = staticBytes(subview.getSourceType()))
        bytes = std::make_pair(int64_t(0), *size);
      v = subview.getSource();
      continue;
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    // Other views (subview, cast, ...) may move the window: the whole
    // allocation.
    if (!isa<memref::CastOp>(def))
      bytes.reset();
    v = viewLike.getViewSource();
  }
  return {v, bytes, write};
}

/// ownWorkgroupAccesses, before each names `op`.
static WorkgroupAccesses ownAccessesOf(Operation *op) {
  WorkgroupAccesses out;
  // The destination only: the source of a copy to workgroup memory is
  // global memory.
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    if (isWorkgroupMemref(copy.getDst().getType()))
      out.push_back(workgroupAccessOf(copy.getDst(), /*write=*/true));
    return out;
  }
  auto effectsOp = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effectsOp) {
    // Unknown semantics: reads and writes every workgroup memref operand.
    for (Value operand : op->getOperands())
      if (isWorkgroupMemref(operand.getType()))
        addAll(out, {workgroupAccessOf(operand, false), workgroupAccessOf(operand, true)});
    return out;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  effectsOp.getEffects(effects);
  for (const auto &effect : effects) {
    bool write = isa<MemoryEffects::Write>(effect.getEffect());
    if (!write && !isa<MemoryEffects::Read>(effect.getEffect()))
      continue;
    // An effect on no particular value (nvgpu.ldmatrix's read, say)
    // applies to the op's memref operands.
    SmallVector<Value> values;
    if (Value value = effect.getValue())
      values.push_back(value);
    else
      values.append(op->operand_begin(), op->operand_end());
    for (Value value : values)
      if (isWorkgroupMemref(value.getType()))
        addAll(out, {workgroupAccessOf(value, write)});
  }
  return out;
}

WorkgroupAccesses rocke::ownWorkgroupAccesses(Operation *op) {
  WorkgroupAccesses out = ownAccessesOf(op);
  for (WorkgroupAccess &access : out)
    access.op = op;
  return out;
}

WorkgroupAccesses rocke::allWorkgroupAccesses(Operation *op) {
  WorkgroupAccesses out;
  op->walk([&](Operation *nested) { addAll(out, ownWorkgroupAccesses(nested)); });
  return out;
}

