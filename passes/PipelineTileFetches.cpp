//===- PipelineTileFetches.cpp - fetch a loop's tiles an iteration ahead --===//
//
// The pipelining stage of the tiled lowering. fmha-bwd-to-kernels writes the
// kernels' block loops one block per iteration: the main backward kernel's
// query-block loop fetches the block's Q and dO rows into registers
// (fmha.tile_fetch) and places them in workgroup memory (fmha.tile_place),
// or copies them asynchronously into a slot of a multi-buffered tile
// (fmha.tile_copy_async, waited for by nvgpu.device_async_wait), reads its
// rows' statistics, then runs the products; the forward's KV-block loop
// copies K and V the same way. This pass pipelines such a loop in two
// stages: iteration i issues the global reads of block i + 1 (stage 0) and
// carries them to iteration i + 1 (stage 1), which places or waits for them.
// The reads of the first block go before the loop.
//
// Stage 0 is every top-level op of the body that only reads memory outside
// the workgroup which the loop does not write, and every async copy into
// slot `iv rem N` of a tile that the loop touches through that slot only,
// with the pure ops computing their operands, all depending on nothing the
// loop carries. Where it goes: fetches and reads before the operand reads of
// the body's last product whose result reaches memory in the iteration,
// whose latency they hide behind (registers hold them until then); async copies
// right after the body's wait for this block's copies (a wait without a count
// waits for every group), into the next slot, which the previous iteration
// read: the barrier that orders those reads before the copy is
// fmha-place-workgroup-barriers'.
//
// The epilogue is not peeled and nothing is predicated: stage 0 may only
// hold ops that can run for an iteration past the end unguarded (pure ops,
// and reads that bound-check the indices the induction variable reaches: a
// fetch's rows, an async copy's rows, a vector.transfer_read's dims that are
// not in_bounds), so the last iteration reads a block it never uses. An
// async copy of it is waited for after the loop.
//
// Loops in sequence (the second starts where the first ends, as the whole
// and the cut blocks do) with the same stage 0 form one pipeline: the block
// the first loop's last iteration reads is the second's first block, so the
// second takes it from the first instead of reading it again.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"
#include "passes/WorkgroupAccess.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace rocke {
#define GEN_PASS_DEF_PIPELINETILEFETCHES
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using rocke::fmha::TileCopyAsyncOp;
using rocke::fmha::TileFetchOp;

namespace {

/// The memref `v` views (through casts and views).
Value baseMemref(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else
      break;
  }
  return v;
}

/// The memrefs `op` (with its regions) reads, when it reads at least one,
/// writes none and reads no workgroup memory; else nothing.
std::optional<SmallVector<Value>> globalReadsOnly(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return std::nullopt;
  SmallVector<Value> read;
  for (const MemoryEffects::EffectInstance &effect : *effects) {
    Value value = effect.getValue();
    if (!isa<MemoryEffects::Read>(effect.getEffect()) || !value ||
        rocke::isWorkgroupMemref(value.getType()))
      return std::nullopt;
    read.push_back(baseMemref(value));
  }
  if (read.empty())
    return std::nullopt;
  return read;
}

/// Does an op of `body` write one of `memrefs` (or memory it cannot name)?
/// A wait for async copies, or a bulk group's commit or wait, writes
/// nothing of its own: the copies' writes are theirs.
bool writesAny(Block *body, ArrayRef<Value> memrefs) {
  WalkResult result = body->walk([&](Operation *op) {
    if (rocke::isAsyncGroupOp(op))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                     isMemoryEffectFree(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || llvm::is_contained(memrefs, baseMemref(value)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// N when `slot` is `iv rem N` for a constant N >= 2: the slot of an
/// N-buffered tile that block `iv` lands in.
std::optional<int64_t> slotCount(Value slot, Value iv) {
  auto rem = rocke::matchConstantRemainder(slot);
  if (!rem || rem->first != iv || rem->second < 2)
    return std::nullopt;
  return rem->second;
}

/// Is `copy` an async copy that iteration i may issue for iteration i + 1?
/// It must copy into slot `iv rem N` of a tile with N slots, and every other
/// access of `loop` to that tile must go through the same slot (a view of
/// it, or a copy into it): then the next iteration's slot is never the one
/// this iteration reads, as long as the step is not a multiple of N.
bool isSlotCopy(TileCopyAsyncOp copy, scf::ForOp loop) {
  Value iv = loop.getInductionVar(), dest = copy.getDest(),
        slot = copy.getSlot();
  std::optional<int64_t> slots = slotCount(slot, iv);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!slots || !step || *step % *slots == 0 ||
      copy.getDest().getType().getDimSize(0) != *slots ||
      !loop.isDefinedOutsideOfLoop(dest))
    return false;
  // Through views of the slot only: a subview of one element of dim 0 at
  // `slot`, and views of that.
  auto throughSlot = [&](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (auto view = dyn_cast<memref::SubViewOp>(def);
          view && view.getSource() == dest)
        return view.getStaticSizes()[0] == 1 &&
               dyn_cast<Value>(view.getMixedOffsets()[0]) == slot;
      auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
      if (!viewLike)
        return false;
      v = viewLike.getViewSource();
    }
    return false;
  };
  rocke::WorkgroupAccess tile = rocke::workgroupAccessOf(dest, /*write=*/false);
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (isa<ViewLikeOpInterface>(op))
      return WalkResult::advance();
    if (auto other = dyn_cast<TileCopyAsyncOp>(op);
        other && other.getDest() == dest)
      return other.getSlot() == slot ? WalkResult::advance()
                                     : WalkResult::interrupt();
    for (Value operand : op->getOperands())
      if (rocke::isWorkgroupMemref(operand.getType()) &&
          rocke::workgroupAccessOf(operand, /*write=*/false).overlaps(tile) &&
          !throughSlot(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// The memrefs a stage-0 candidate reads: `op` only reads global memory
/// (see globalReadsOnly), or it is an async copy into a slot (isSlotCopy).
std::optional<SmallVector<Value>> stageReads(Operation *op, scf::ForOp loop) {
  if (auto copy = dyn_cast<TileCopyAsyncOp>(op)) {
    if (!isSlotCopy(copy, loop))
      return std::nullopt;
    return SmallVector<Value>{baseMemref(copy.getSource())};
  }
  return globalReadsOnly(op);
}

/// Does `v` depend on the induction variable `iv` within `body`?
bool dependsOn(Value v, Value iv, Block *body, DenseMap<Value, bool> &memo) {
  if (v == iv)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body)
    return false;
  auto [it, inserted] = memo.try_emplace(v, false);
  if (!inserted)
    return it->second;
  bool depends = llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOn(operand, iv, body, memo);
  });
  memo[v] = depends;
  return depends;
}

/// Is `memref` (a view of) a bounds-checked AMD buffer descriptor? A read
/// through one touches nothing past the descriptor's size, which the
/// kernels end at the sequence (TileCopier::rowsBuffer).
bool throughBoundedBuffer(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto cast = dyn_cast<amdgpu::FatRawBufferCastOp>(def))
      return cast.getBoundsCheck();
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    memref = view.getViewSource();
  }
  return false;
}

/// May `op` run for an induction variable past the loop's end, unguarded?
/// Pure ops may, and reads whose operands that follow the induction
/// variable are bounds-checked by the op itself: a fetch's or an async
/// copy's first row (rows at or past seq_len / row_end are never read; the
/// copy's slot is isSlotCopy's) and the indices of a transfer_read's vector
/// dims that are not in_bounds (their elements past the end read nothing);
/// or by the hardware: a vector.load through a bounded buffer descriptor.
bool needsNoGuard(Operation *op, scf::ForOp loop, DenseMap<Value, bool> &memo) {
  if (isMemoryEffectFree(op))
    return true;
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return throughBoundedBuffer(load.getBase());
  Value iv = loop.getInductionVar();
  Block *body = loop.getBody();
  auto follows = [&](Value v) { return dependsOn(v, iv, body, memo); };
  if (auto fetch = dyn_cast<TileFetchOp>(op))
    return !follows(fetch.getBatch()) && !follows(fetch.getHead()) &&
           !follows(fetch.getSeqLen()) && !follows(fetch.getThread());
  if (auto copy = dyn_cast<TileCopyAsyncOp>(op))
    return !follows(copy.getBatch()) && !follows(copy.getHead()) &&
           !follows(copy.getRowEnd()) && !follows(copy.getThread()) &&
           !follows(copy.getDest());
  auto read = dyn_cast<vector::TransferReadOp>(op);
  if (!read || read.getMask() || follows(read.getBase()) ||
      follows(read.getPadding()))
    return false;
  llvm::SmallBitVector guarded(read.getIndices().size());
  AffineMap map = read.getPermutationMap();
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(i)))
      guarded[dim.getPosition()] = !read.isDimInBounds(i);
  for (auto [i, index] : llvm::enumerate(read.getIndices()))
    if (!guarded[i] && follows(index))
      return false;
  return true;
}

/// The ops of `body` that `op`'s operands come from, transitively.
FailureOr<llvm::SetVector<Operation *>> bodySlice(Operation *op, Block *body) {
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *def) { return def->getBlock() == body; };
  llvm::SetVector<Operation *> slice;
  if (failed(getBackwardSlice(op, &slice, options)))
    return failure();
  return slice;
}

/// Is `op` a tile transfer that the body completes in the same iteration: a
/// fetch it places, or an async copy it waits for?
bool completedInBody(Operation *op) {
  if (!isa<TileFetchOp, TileCopyAsyncOp>(op))
    return false;
  return llvm::any_of(op->getUsers(), [&](Operation *user) {
    return isa<rocke::fmha::TilePlaceOp, nvgpu::DeviceAsyncWaitOp>(user) &&
           user->getBlock() == op->getBlock();
  });
}

/// The body's last wait for a group that `stage` copies.
Operation *lastCopyWait(Block *body, ArrayRef<Operation *> stage) {
  Operation *last = nullptr;
  for (auto wait : body->getOps<nvgpu::DeviceAsyncWaitOp>())
    if (Operation *def = wait.getAsyncDependencies().getDefiningOp();
        def && llvm::is_contained(stage, def))
      last = wait;
  return last;
}

/// The body's stage-0 ops, in body order; empty when the loop has no tile
/// transfer that stage 0 can take (completedInBody).
SmallVector<Operation *> issueStage(scf::ForOp loop) {
  Block *body = loop.getBody();
  if (llvm::none_of(body->without_terminator(),
                    [](Operation &op) { return completedInBody(&op); }))
    return {};
  auto usesCarried = [&](Operation *op) {
    WalkResult r = op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(v))
          if (arg.getOwner() == body && arg != loop.getInductionVar())
            return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return r.wasInterrupted();
  };
  llvm::SetVector<Operation *> stage;
  DenseMap<Value, bool> memo;
  for (Operation &op : body->without_terminator()) {
    std::optional<SmallVector<Value>> reads = stageReads(&op, loop);
    if (!reads || writesAny(body, *reads))
      continue;
    FailureOr<llvm::SetVector<Operation *>> slice = bodySlice(&op, body);
    if (failed(slice))
      continue;
    slice->insert(&op);
    if (llvm::all_of(*slice, [&](Operation *x) {
          return (isMemoryEffectFree(x) || x == &op || stage.contains(x)) &&
                 !usesCarried(x) && needsNoGuard(x, loop, memo);
        }))
      stage.insert(slice->begin(), slice->end());
  }
  if (llvm::none_of(stage, completedInBody))
    return {};
  SmallVector<Operation *> ordered;
  for (Operation &op : body->without_terminator())
    if (stage.contains(&op))
      ordered.push_back(&op);
  // The next block's copies go after this block's wait: without one in the
  // body, there is no place for them.
  if (llvm::any_of(ordered, llvm::IsaPred<TileCopyAsyncOp>) &&
      !lastCopyWait(body, ordered))
    return {};
  return ordered;
}

/// The results of stage 0 that the rest of the body uses, in stage order:
/// what an iteration carries to the next.
SmallVector<Value> stageResults(ArrayRef<Operation *> stage) {
  llvm::SmallPtrSet<Operation *, 16> inStage(stage.begin(), stage.end());
  SmallVector<Value> results;
  for (Operation *op : stage) {
    if (isMemoryEffectFree(op))
      continue;
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *user) {
            return !inStage.contains(
                op->getBlock()->findAncestorOpInBlock(*user));
          }))
        results.push_back(r);
  }
  return results;
}

/// Does `op` (with its regions) only write workgroup memory (or, on the
/// host, the function's allocations that stand for it)?
bool writesWorkgroupOnly(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  return effects && llvm::all_of(*effects, [](const auto &effect) {
           Value value = effect.getValue();
           return isa<MemoryEffects::Write>(effect.getEffect()) && value &&
                  (rocke::isWorkgroupMemref(value.getType()) ||
                   baseMemref(value).getDefiningOp<memref::AllocaOp>());
         });
}

/// The ops of `body` that place the block stage 0 read (its `results`) in
/// workgroup memory, in body order: the users of the results
/// (transitively), each pure or writing workgroup memory only, with the
/// pure ops of the body they need. Empty when they do not take every
/// result.
SmallVector<Operation *> placementOps(Block *body, ArrayRef<Operation *> stage,
                                      ArrayRef<Value> results) {
  llvm::SetVector<Operation *> placing;
  SmallVector<Value> worklist(results.begin(), results.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *op = body->findAncestorOpInBlock(*user);
      if (!op || llvm::is_contained(stage, op))
        continue;
      if (op->hasTrait<OpTrait::IsTerminator>() ||
          !(isMemoryEffectFree(op) || writesWorkgroupOnly(op)))
        return {};
      if (placing.insert(op))
        llvm::append_range(worklist, op->getResults());
    }
  }
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  options.omitUsesFromAbove = false;
  options.filter = [&](Operation *def) {
    return def->getBlock() == body && !llvm::is_contained(stage, def);
  };
  llvm::SetVector<Operation *> needed;
  for (Operation *op : placing)
    if (failed(getBackwardSlice(op, &needed, options)))
      return {};
  if (!llvm::all_of(needed, [&](Operation *op) {
        return placing.contains(op) || isMemoryEffectFree(op);
      }))
    return {};
  return llvm::filter_to_vector(
      llvm::make_pointer_range(body->without_terminator()),
      [&](Operation *op) {
        return placing.contains(op) || needed.contains(op);
      });
}

/// Does `product`'s result reach memory within its iteration (through a
/// store, a workgroup write or an accumulation), rather than only the
/// values the loop carries?
bool reachesMemory(Operation *product) {
  ForwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == product->getBlock();
  };
  llvm::SetVector<Operation *> users;
  getForwardSlice(product, &users, options);
  return llvm::any_of(users, [](Operation *op) {
    return !isMemoryEffectFree(op) && !op->hasTrait<OpTrait::IsTerminator>();
  });
}

/// Where stage 0 goes in the pipelined body: before the operand reads of
/// the last product whose result reaches memory in the iteration (the first
/// memory read among them that comes after the product before it; the
/// product itself when it reads nothing first). A product that only feeds a
/// carried accumulator (dK += dS^T Q issued after dQ, asynchronously, with
/// warpgroup products) holds nothing up in its iteration: the reads go
/// before the one the iteration waits for. In a body whose products all
/// only feed what the loop carries (the forward's S and O += P V), they go
/// before the first product's operand reads: the whole iteration hides
/// their latency. At the end of a body without products.
Operation *issuePoint(Block *body, ArrayRef<Operation *> stage) {
  SmallVector<Operation *> products;
  for (Operation &op : *body)
    if (isa<rocke::fmha::TileMmaOp, rocke::fmha::TileMmaWarpgroupOp>(op))
      products.push_back(&op);
  if (products.empty())
    return body->getTerminator();
  auto lastIt = llvm::find_if(llvm::reverse(products), reachesMemory);
  if (lastIt == products.rend())
    lastIt = std::prev(products.rend());
  Operation *last = *lastIt;
  auto prevIt = std::next(lastIt);
  Operation *prev = prevIt == products.rend() ? nullptr : *prevIt;
  FailureOr<llvm::SetVector<Operation *>> slice = bodySlice(last, body);
  Operation *point = last;
  if (failed(slice))
    return point;
  for (Operation *op : *slice)
    if (!llvm::is_contained(stage, op) && !isMemoryEffectFree(op) &&
        (!prev || prev->isBeforeInBlock(op)) && op->isBeforeInBlock(point))
      point = op;
  return point;
}

/// The async copies of `stage` with the stage's ops they use, in stage
/// order.
SmallVector<Operation *> copyStage(ArrayRef<Operation *> stage) {
  llvm::SetVector<Operation *> used;
  for (Operation *op : stage) {
    if (!isa<TileCopyAsyncOp>(op))
      continue;
    FailureOr<llvm::SetVector<Operation *>> slice =
        bodySlice(op, op->getBlock());
    if (succeeded(slice))
      used.insert(slice->begin(), slice->end());
    used.insert(op);
  }
  return llvm::filter_to_vector(
      stage, [&](Operation *op) { return used.contains(op); });
}

/// Are the stages of two loops the same ops on the same values, but for
/// their induction variables?
bool sameStage(ArrayRef<Operation *> a, Value ivA, ArrayRef<Operation *> b,
               Value ivB) {
  if (a.size() != b.size())
    return false;
  IRMapping mapping;
  mapping.map(ivA, ivB);
  for (auto [x, y] : llvm::zip(a, b))
    if (!OperationEquivalence::isEquivalentTo(
            x, y,
            [&](Value l, Value r) {
              return success(mapping.lookupOrDefault(l) == r);
            },
            [&](Value l, Value r) { mapping.map(l, r); },
            OperationEquivalence::IgnoreLocations))
      return false;
  return true;
}

/// A pipelined loop: its stage 0 in the new body, for the induction
/// variable `stageIv` (the next iteration's), and the results that carry the
/// block after its last one.
struct Pipelined {
  scf::ForOp loop;
  SmallVector<Operation *> stage;
  Value stageIv;
  ValueRange next;
};

/// Pipelines `loop` with stage 0 `stage`; its first block's reads are
/// `incoming` or, when null, issued before the loop, and with
/// `placeFirst` placed there too (placementOps).
Pipelined pipeline(RewriterBase &rewriter, scf::ForOp loop,
                   ArrayRef<Operation *> stage,
                   std::optional<ValueRange> incoming, bool placeFirst) {
  Block *body = loop.getBody();
  Value iv = loop.getInductionVar();
  SmallVector<Value> results = stageResults(stage);
  SmallVector<Value> init;
  if (incoming) {
    init.assign(incoming->begin(), incoming->end());
  } else {
    rewriter.setInsertionPoint(loop);
    IRMapping first;
    first.map(iv, loop.getLowerBound());
    for (Operation *op : stage)
      rewriter.clone(*op, first);
    if (placeFirst)
      for (Operation *op : placementOps(body, stage, results))
        rewriter.clone(*op, first);
    init = llvm::map_to_vector(results,
                               [&](Value r) { return first.lookup(r); });
  }
  // The next block's async copies right after this block's wait (no
  // earlier: the wait waits for every group), its other reads at the issue
  // point (no earlier than the copies, which may share their operands).
  SmallVector<Operation *> copies = copyStage(stage);
  SmallVector<Operation *> reads = llvm::filter_to_vector(
      stage, [&](Operation *op) { return !llvm::is_contained(copies, op); });
  Operation *readPoint = issuePoint(body, stage), *copyPoint = readPoint;
  if (!copies.empty()) {
    copyPoint = lastCopyWait(body, stage)->getNextNode();
    if (readPoint->isBeforeInBlock(copyPoint))
      readPoint = copyPoint;
  }
  rewriter.setInsertionPoint(copyPoint);
  Value nextIv = arith::AddIOp::create(rewriter, loop.getLoc(), iv,
                                       loop.getStep());
  // The mapping records each op's clone as well as its results.
  IRMapping mapping;
  mapping.map(iv, nextIv);
  for (Operation *op : copies)
    rewriter.clone(*op, mapping);
  rewriter.setInsertionPoint(readPoint);
  for (Operation *op : reads)
    rewriter.clone(*op, mapping);
  SmallVector<Operation *> nextStage = llvm::map_to_vector(
      stage, [&](Operation *op) { return mapping.lookup(op); });
  SmallVector<Value> next =
      llvm::map_to_vector(results, [&](Value r) { return mapping.lookup(r); });

  size_t carried = loop.getNumRegionIterArgs();
  auto newLoop = cast<scf::ForOp>(
      *loop.replaceWithAdditionalYields(
          rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
            return next;
          }));
  // This block's reads arrive through the loop; the ops that made them go.
  for (auto [r, arg] : llvm::zip(
           results, newLoop.getRegionIterArgs().drop_front(carried)))
    rewriter.replaceAllUsesWith(r, arg);
  for (Operation *op : llvm::reverse(stage))
    if (op->use_empty())
      rewriter.eraseOp(op);
  return {newLoop, nextStage, nextIv, newLoop.getResults().drop_front(carried)};
}

struct PipelineTileFetchesPass
    : rocke::impl::PipelineTileFetchesBase<PipelineTileFetchesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk<WalkOrder::PreOrder>(
        [&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    std::optional<Pipelined> previous;
    for (scf::ForOp loop : loops) {
      SmallVector<Operation *> stage = issueStage(loop);
      if (stage.empty())
        continue;
      std::optional<ValueRange> incoming;
      if (previous && continues(*previous, loop, stage))
        incoming = previous->next;
      else if (previous)
        endPipeline(rewriter, *previous);
      previous = pipeline(rewriter, loop, stage, incoming, placeFirst);
    }
    if (previous)
      endPipeline(rewriter, *previous);
  }

  /// After the last loop of a pipeline, waits for the copies of the block
  /// past its end (or, when it ran no iteration, of its first block): no
  /// copy may still write a tile when the code after the loop reuses it or
  /// the kernel ends. A wait without a count waits for every group.
  static void endPipeline(RewriterBase &rewriter, const Pipelined &last) {
    auto isGroup = [](Value v) {
      return isa<nvgpu::DeviceAsyncTokenType>(v.getType());
    };
    auto groups = llvm::filter_to_vector(last.next, isGroup);
    if (groups.empty())
      return;
    scf::ForOp loop = last.loop;
    rewriter.setInsertionPointAfter(loop);
    nvgpu::DeviceAsyncWaitOp::create(rewriter, loop.getLoc(), groups.back(),
                                     IntegerAttr());
  }

  /// Does `loop` start where `previous` ends, right after it, with the same
  /// stage 0 and nothing in between that touches memory?
  static bool continues(const Pipelined &previous, scf::ForOp loop,
                        ArrayRef<Operation *> stage) {
    scf::ForOp before = previous.loop;
    if (before->getBlock() != loop->getBlock() ||
        before.getUpperBound() != loop.getLowerBound() ||
        before.getStep() != loop.getStep())
      return false;
    for (Operation *op = before->getNextNode(); op != loop;
         op = op->getNextNode())
      if (!isMemoryEffectFree(op))
        return false;
    return sameStage(previous.stage, previous.stageIv, stage,
                     loop.getInductionVar());
  }
};

} // namespace
