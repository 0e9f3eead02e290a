//===- SplitWorkgroupTiles.cpp - workgroup tiles -> subgroup tiles --------===//
//
// The first half of the distribution stage: a workgroup tile (a !fmha.tile
// with `subgroups`) becomes the calling subgroup's block of it. The ops that
// address memory or positions move their coordinates to the block's origin,
// `((s / SR) % GM * rows / GM, (s / SC) % GN * cols / GN)` for subgroup
// `s = thread / lanes`; their thread operand becomes the lane's id
// (`thread % lanes`). Products, conversions, maps and reductions only change
// type, which the op verifiers make consistent (a product's A split like
// its rows, B like its columns; a reduction within subgroups). Values of
// every kind (loop-carried, branch results) take the block's type.
// fmha-distribute-tiles then gives each lane its fragments.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace rocke {
#define GEN_PASS_DEF_SPLITWORKGROUPTILES
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using namespace rocke;
using fmha::TileType;

namespace {

/// The calling thread's subgroup and lane, and where its blocks of
/// workgroup tiles start: computed once per thread value (and subgroup
/// width, and split), right where the thread's id is defined.
class SubgroupPlacement {
public:
  explicit SubgroupPlacement(MLIRContext *ctx) : b(ctx) {}

  /// (subgroup, lane) of `thread` in subgroups of `lanes`.
  std::pair<Value, Value> ids(Value thread, int64_t lanes) {
    auto [it, inserted] = idCache.try_emplace({thread, lanes});
    if (inserted) {
      Value cLanes = emit<arith::ConstantIndexOp>(thread, lanes);
      it->second = {emit<arith::DivUIOp>(thread, thread, cLanes),
                    emit<arith::RemUIOp>(thread, thread, cLanes)};
    }
    return it->second;
  }

  /// Where the calling subgroup's block of the workgroup tile `t` starts,
  /// (row, col); a null value where the split leaves that dimension whole.
  std::pair<Value, Value> origin(Value thread, fmha::TileType t) {
    Value subgroup = ids(thread, t.getMatrixAtom().lanes).first;
    fmha::TileType block = t.getSubgroupTile();
    auto along = [&](unsigned dim) -> Value {
      int64_t parts = t.getSplitParts(dim), stride = t.getSplitStride(dim);
      if (parts == 1)
        return Value();
      auto [it, inserted] = originCache.try_emplace(
          {subgroup, parts, stride, block.getShape()[dim]});
      if (inserted) {
        // ((subgroup / stride) % parts) * extent
        Value part = subgroup;
        if (stride != 1)
          part = emit<arith::DivUIOp>(
              thread, part, emit<arith::ConstantIndexOp>(thread, stride));
        part = emit<arith::RemUIOp>(
            thread, part, emit<arith::ConstantIndexOp>(thread, parts));
        it->second = emit<arith::MulIOp>(
            thread, part,
            emit<arith::ConstantIndexOp>(thread, block.getShape()[dim]));
      }
      return it->second;
    };
    return {along(0), along(1)};
  }

private:
  /// Creates an op after those already placed for `thread` (at first right
  /// after its definition), so the values dominate every use of the
  /// thread.
  template <typename OpT, typename... Args>
  Value emit(Value thread, Args &&...args) {
    auto [last, inserted] = lastPlaced.try_emplace(thread, nullptr);
    if (last->second)
      b.setInsertionPointAfter(last->second);
    else if (Operation *def = thread.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(thread).getOwner());
    auto op = OpT::create(b, thread.getLoc(), std::forward<Args>(args)...);
    last->second = op;
    return op;
  }

  OpBuilder b;
  DenseMap<Value, Operation *> lastPlaced;
  DenseMap<std::pair<Value, int64_t>, std::pair<Value, Value>> idCache;
  /// (subgroup, parts, stride, extent) -> the block's offset along one
  /// dimension.
  DenseMap<std::tuple<Value, int64_t, int64_t, int64_t>, Value> originCache;
};

/// Adds `offset` (null: none) to `operand` before its op.
void shift(OpBuilder &b, OpOperand &operand, Value offset) {
  if (!offset)
    return;
  b.setInsertionPoint(operand.getOwner());
  operand.set(b.createOrFold<arith::AddIOp>(operand.getOwner()->getLoc(),
                                            operand.get(), offset));
}

/// The addresses of one op on a workgroup tile `t` moved to the calling
/// subgroup's block: `row` / `col` take the block's origin (swapped with
/// `transposed`), `lane` the lane's id.
void splitAddressed(OpBuilder &b, SubgroupPlacement &place, TileType t,
                    OpOperand &lane, OpOperand *row, OpOperand *col,
                    bool transposed) {
  Value thread = lane.get();
  auto [r0, c0] = place.origin(thread, t);
  if (transposed)
    std::swap(r0, c0);
  if (row)
    shift(b, *row, r0);
  if (col)
    shift(b, *col, c0);
  lane.set(place.ids(thread, t.getMatrixAtom().lanes).second);
}

/// A warpgroup product on workgroup tiles: A from workgroup memory at the
/// warpgroup's 64 rows, B at the subgroup's columns of the acc split.
void splitWarpgroupMma(OpBuilder &b, SubgroupPlacement &place,
                       fmha::TileMmaWarpgroupOp op) {
  TileType acc = op.getAcc().getType();
  auto [r0, c0] = place.origin(op.getThread(), acc);
  if (op.getLhsBuffer() && r0) {
    // The verifier makes the row split consecutive subgroups of 16 rows:
    // the warpgroup's block starts at r0 rounded down to 64.
    b.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value c64 = arith::ConstantIndexOp::create(b, loc, 64);
    Value warpgroupRow = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, r0, c64), c64);
    shift(b,
          op.getLhsTransposed() ? op.getLhsColMutable()[0]
                                : op.getLhsRowMutable()[0],
          warpgroupRow);
  }
  shift(b, op.getTransposed() ? op.getRowMutable() : op.getColMutable(), c0);
  op.getThreadMutable().clear();
}

/// Moves the addresses of `op` to the calling subgroup's block, where it
/// works on workgroup tiles.
void splitOp(OpBuilder &b, SubgroupPlacement &place, Operation *op) {
  auto isWorkgroup = [](Value v) { return fmha::isWorkgroupTile(v.getType()); };
  auto tileOf = [](Value v) { return cast<TileType>(v.getType()); };
  TypeSwitch<Operation *>(op)
      // Tiles read at (row, col) and written at (row, col).
      .Case<fmha::TileReadOp, fmha::TileLoadOp>([&](auto read) {
        if (isWorkgroup(read))
          splitAddressed(b, place, read.getType(), read.getLaneMutable(),
                         &read.getRowMutable(), &read.getColMutable(),
                         read.getTransposed());
      })
      .Case<fmha::TileWriteOp, fmha::TileStoreOp>([&](auto write) {
        if (isWorkgroup(write.getValue()))
          splitAddressed(b, place, tileOf(write.getValue()),
                         write.getLaneMutable(), &write.getRowMutable(),
                         &write.getColMutable(), write.getTransposed());
      })
      .Case([&](fmha::TileAccumulateOp acc) {
        if (!isWorkgroup(acc.getValue()))
          return;
        MutableOperandRange indices = acc.getIndicesMutable();
        unsigned n = indices.size();
        splitAddressed(b, place, tileOf(acc.getValue()), acc.getLaneMutable(),
                       &indices[n - 3], &indices[n - 1], acc.getTransposed());
      })
      .Case([&](fmha::TileBroadcastOp bcast) {
        if (!isWorkgroup(bcast))
          return;
        // Values per row (dim 0) take the row origin, per column the
        // column's.
        bool perRow = bcast.getDim() == 0;
        splitAddressed(b, place, bcast.getType(), bcast.getLaneMutable(),
                       perRow ? &bcast.getBaseMutable() : nullptr,
                       perRow ? nullptr : &bcast.getBaseMutable(),
                       /*transposed=*/false);
      })
      .Case([&](fmha::TileMapOp map) {
        if (map.getLane() && isWorkgroup(map.getResults().front()))
          splitAddressed(b, place, tileOf(map.getResults().front()),
                         map.getLaneMutable()[0], &map.getRowMutable()[0],
                         &map.getColMutable()[0], /*transposed=*/false);
      })
      .Case([&](fmha::TileMaskOp mask) {
        if (isWorkgroup(mask))
          splitAddressed(b, place, mask.getType(), mask.getLaneMutable(),
                         &mask.getQueryMutable(), &mask.getKeyMutable(),
                         /*transposed=*/mask.getKeysAlongRows());
      })
      .Case([&](fmha::TileStoreScoresOp scores) {
        if (isWorkgroup(scores.getValue()))
          splitAddressed(b, place, tileOf(scores.getValue()),
                         scores.getLaneMutable(), &scores.getQueryMutable(),
                         &scores.getKeyMutable(),
                         /*transposed=*/scores.getKeysAlongRows());
      })
      .Case([&](fmha::TileStoreLinesOp lines) {
        if (!isWorkgroup(lines.getValue()))
          return;
        bool rows = tileOf(lines.getValue()).getRole() == fmha::TileRole::rows;
        splitAddressed(b, place, tileOf(lines.getValue()),
                       lines.getLaneMutable(),
                       rows ? &lines.getIndexMutable() : nullptr,
                       rows ? nullptr : &lines.getIndexMutable(),
                       /*transposed=*/false);
      })
      .Case([&](fmha::TileMmaWarpgroupOp mma) {
        if (isWorkgroup(mma.getAcc()))
          splitWarpgroupMma(b, place, mma);
      });
}

/// Gives every value of a workgroup tile type its subgroup block's type.
void retype(Value v) {
  if (fmha::isWorkgroupTile(v.getType()))
    v.setType(cast<TileType>(v.getType()).getSubgroupTile());
}

/// A function whose signature holds workgroup tiles, or a call passing
/// them: its callers' values and its own would disagree after the split.
LogicalResult checkSignatures(Operation *root) {
  WalkResult signatures = root->walk([](FunctionOpInterface fn) {
    if (llvm::none_of(fn.getArgumentTypes(), fmha::isWorkgroupTile) &&
        llvm::none_of(fn.getResultTypes(), fmha::isWorkgroupTile))
      return WalkResult::advance();
    fn.emitOpError("takes or returns a workgroup tile (split over "
                   "subgroups); fmha-split-workgroup-tiles splits the tiles "
                   "of a function's body, not its signature");
    return WalkResult::interrupt();
  });
  if (signatures.wasInterrupted())
    return failure();
  // A callee outside the pass's root (a function value, another module's
  // function) would keep the workgroup type.
  WalkResult calls = root->walk([](CallOpInterface call) {
    if (llvm::none_of(call->getOperandTypes(), fmha::isWorkgroupTile) &&
        llvm::none_of(call->getResultTypes(), fmha::isWorkgroupTile))
      return WalkResult::advance();
    call->emitOpError("passes or returns a workgroup tile (split over "
                      "subgroups): tiles may not cross function calls");
    return WalkResult::interrupt();
  });
  return failure(calls.wasInterrupted());
}

struct SplitWorkgroupTilesPass
    : rocke::impl::SplitWorkgroupTilesBase<SplitWorkgroupTilesPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(checkSignatures(root)))
      return signalPassFailure();
    OpBuilder b(&getContext());
    SubgroupPlacement place(&getContext());
    // Addresses first (they read the workgroup types), then the types.
    root->walk([&](Operation *op) { splitOp(b, place, op); });
    root->walk([](Operation *op) {
      for (Value r : op->getResults())
        retype(r);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            retype(arg);
    });
  }
};

} // namespace
