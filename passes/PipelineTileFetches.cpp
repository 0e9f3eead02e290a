//===- PipelineTileFetches.cpp - fetch a loop's tiles an iteration ahead --===//
//
// The pipelining stage of the tiled lowering. fmha-bwd-to-kernels writes the
// main kernel's query-block loops one block per iteration: the block's Q and
// dO rows fetched into registers (fmha.tile_fetch) and placed in workgroup
// memory (fmha.tile_place), its rows' statistics read, then the products.
// This pass pipelines such a loop in two stages: iteration i issues the
// global reads of block i + 1 (stage 0) before the operand reads of its last
// product, whose latency they hide behind, and carries them to iteration
// i + 1, which places them (stage 1). The reads of the first block go before
// the loop.
//
// Stage 0 is every top-level op of the body that only reads memory outside
// the workgroup which the loop does not write, with the pure ops computing
// its operands, all depending on nothing the loop carries. The epilogue is
// not peeled and nothing is predicated: stage 0 may only hold ops that can
// run for an iteration past the end unguarded (pure ops, and reads that
// bound-check the indices the induction variable reaches: a fetch's rows, a
// vector.transfer_read's dims that are not in_bounds), so the last
// iteration reads a block it never uses.
//
// Loops in sequence (the second starts where the first ends, as the whole
// and the cut query blocks do) with the same stage 0 form one pipeline: the
// block the first loop's last iteration reads is the second's first block,
// so the second takes it from the first instead of reading it again.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"
#include "passes/WorkgroupAccess.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace rocke {
#define GEN_PASS_DEF_PIPELINETILEFETCHES
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
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
bool writesAny(Block *body, ArrayRef<Value> memrefs) {
  WalkResult result = body->walk([&](Operation *op) {
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

/// May `op` run for an induction variable past the loop's end, unguarded?
/// Pure ops may, and reads whose operands that follow the induction
/// variable are bounds-checked by the op itself: a fetch's first row (rows
/// at or past seq_len are never read) and the indices of a transfer_read's
/// vector dims that are not in_bounds (their elements past the end read
/// nothing).
bool needsNoGuard(Operation *op, scf::ForOp loop, DenseMap<Value, bool> &memo) {
  if (isMemoryEffectFree(op))
    return true;
  Value iv = loop.getInductionVar();
  Block *body = loop.getBody();
  auto follows = [&](Value v) { return dependsOn(v, iv, body, memo); };
  if (auto fetch = dyn_cast<TileFetchOp>(op))
    return !follows(fetch.getBatch()) && !follows(fetch.getHead()) &&
           !follows(fetch.getSeqLen()) && !follows(fetch.getThread());
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

/// The body's stage-0 ops, in body order; empty when the loop has no fetch
/// whose tile it places in the same iteration.
SmallVector<Operation *> issueStage(scf::ForOp loop) {
  Block *body = loop.getBody();
  bool placesFetch =
      llvm::any_of(body->getOps<TileFetchOp>(), [&](TileFetchOp fetch) {
        return llvm::any_of(fetch->getUsers(), [&](Operation *user) {
          return isa<rocke::fmha::TilePlaceOp>(user) &&
                 user->getBlock() == body;
        });
      });
  if (!placesFetch)
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
    std::optional<SmallVector<Value>> reads = globalReadsOnly(&op);
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
  if (!llvm::any_of(stage, [](Operation *op) { return isa<TileFetchOp>(op); }))
    return {};
  SmallVector<Operation *> ordered;
  for (Operation &op : body->without_terminator())
    if (stage.contains(&op))
      ordered.push_back(&op);
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

/// Where stage 0 goes in the pipelined body: before the first memory read
/// among the operands of the body's last product that comes after the
/// product before it (the product itself when it reads nothing first), or
/// at the end of a body without products.
Operation *issuePoint(Block *body, ArrayRef<Operation *> stage) {
  SmallVector<Operation *> products;
  for (Operation &op : *body)
    if (isa<rocke::fmha::TileMmaOp, rocke::fmha::TileMmaWarpgroupOp>(op))
      products.push_back(&op);
  if (products.empty())
    return body->getTerminator();
  Operation *last = products.back();
  Operation *prev =
      products.size() > 1 ? products[products.size() - 2] : nullptr;
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

/// Clones `stage` at the builder's insertion point with `iv` for the loop's
/// induction variable `loopIv`; returns the clones of `results` (and of the
/// ops in `clones`).
SmallVector<Value> cloneStage(OpBuilder &b, ArrayRef<Operation *> stage,
                              Value loopIv, Value iv, ArrayRef<Value> results,
                              SmallVectorImpl<Operation *> *clones = nullptr) {
  IRMapping mapping;
  mapping.map(loopIv, iv);
  for (Operation *op : stage) {
    Operation *copy = b.clone(*op, mapping);
    if (clones)
      clones->push_back(copy);
  }
  return llvm::map_to_vector(results,
                             [&](Value r) { return mapping.lookup(r); });
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
/// `incoming` or, when null, issued before the loop.
Pipelined pipeline(RewriterBase &rewriter, scf::ForOp loop,
                   ArrayRef<Operation *> stage,
                   std::optional<ValueRange> incoming) {
  Block *body = loop.getBody();
  Value iv = loop.getInductionVar();
  SmallVector<Value> results = stageResults(stage);
  SmallVector<Value> init;
  if (incoming) {
    init.assign(incoming->begin(), incoming->end());
  } else {
    rewriter.setInsertionPoint(loop);
    init = cloneStage(rewriter, stage, iv, loop.getLowerBound(), results);
  }
  // The next block's reads, at the issue point.
  rewriter.setInsertionPoint(issuePoint(body, stage));
  Value nextIv = arith::AddIOp::create(rewriter, loop.getLoc(), iv,
                                       loop.getStep());
  SmallVector<Operation *> nextStage;
  SmallVector<Value> next =
      cloneStage(rewriter, stage, iv, nextIv, results, &nextStage);

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
      previous = pipeline(rewriter, loop, stage, incoming);
    }
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
