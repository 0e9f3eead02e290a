//===- WorkgroupAccess.cpp - which workgroup-memory bytes an op touches ---===//
#include "passes/WorkgroupAccess.h"

#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// `value` as x + c with a constant c (through arith.addi / subi of
/// constants).
static std::pair<Value, int64_t> splitConstantOffset(Value value) {
  int64_t offset = 0;
  for (;;) {
    Operation *def = value.getDefiningOp();
    APInt constant;
    if (auto add = dyn_cast_or_null<arith::AddIOp>(def)) {
      if (matchPattern(add.getRhs(), m_ConstantInt(&constant))) {
        offset += constant.getSExtValue();
        value = add.getLhs();
        continue;
      }
      if (matchPattern(add.getLhs(), m_ConstantInt(&constant))) {
        offset += constant.getSExtValue();
        value = add.getRhs();
        continue;
      }
    }
    if (auto sub = dyn_cast_or_null<arith::SubIOp>(def))
      if (matchPattern(sub.getRhs(), m_ConstantInt(&constant))) {
        offset -= constant.getSExtValue();
        value = sub.getLhs();
        continue;
      }
    return {value, offset};
  }
}

std::optional<std::pair<Value, uint64_t>>
rocke::matchConstantRemainder(Value value) {
  auto rem = value.getDefiningOp<arith::RemUIOp>();
  APInt divisor;
  if (!rem || !matchPattern(rem.getRhs(), m_ConstantInt(&divisor)))
    return std::nullopt;
  return std::make_pair(rem.getLhs(), divisor.getZExtValue());
}

bool RingSlot::differsFrom(const RingSlot &other) const {
  // A power of two, so that index arithmetic wrapping modulo 2^64 keeps
  // the remainders.
  if (count != other.count || count < 2 || !llvm::isPowerOf2_64(count))
    return false;
  // index = (x + a) mod count, as arith.remui.
  auto split = [&](Value slotIndex) -> std::optional<std::pair<Value, int64_t>> {
    auto rem = matchConstantRemainder(slotIndex);
    if (!rem || rem->second != static_cast<uint64_t>(count))
      return std::nullopt;
    return splitConstantOffset(rem->first);
  };
  auto a = split(index), b = split(other.index);
  if (!a || !b || a->first != b->first)
    return false;
  // The remainders differ exactly when a - b is not a multiple of count.
  return (a->second - b->second) % count != 0;
}

/// The ring slot a subview of one leading element at a dynamic index, all
/// else whole, views.
static std::optional<RingSlot> ringSlotOf(memref::SubViewOp subview) {
  MemRefType source = subview.getSourceType();
  if (source.getRank() < 1 || ShapedType::isDynamic(source.getDimSize(0)))
    return std::nullopt;
  ArrayRef<int64_t> offsets = subview.getStaticOffsets(),
                    sizes = subview.getStaticSizes();
  if (!ShapedType::isDynamic(offsets[0]) || sizes[0] != 1)
    return std::nullopt;
  for (int64_t dim = 1; dim < source.getRank(); ++dim)
    if (offsets[dim] != 0 || sizes[dim] != source.getDimSize(dim))
      return std::nullopt;
  return RingSlot{subview.getOffsets().front(), source.getDimSize(0)};
}

WorkgroupAccess rocke::workgroupAccessOf(Value memref, bool write) {
  std::optional<std::pair<int64_t, int64_t>> bytes;
  std::optional<RingSlot> slot;
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
      if (!slot)
        slot = ringSlotOf(subview);
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
  return {v, bytes, write, slot};
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

bool rocke::isAsyncGroupOp(Operation *op) {
  return isa<nvgpu::DeviceAsyncWaitOp, fmha::BulkCommitOp, fmha::BulkWaitOp>(
      op);
}

WorkgroupAccesses rocke::allWorkgroupAccesses(Operation *op) {
  WorkgroupAccesses out;
  op->walk([&](Operation *nested) { addAll(out, ownWorkgroupAccesses(nested)); });
  return out;
}

