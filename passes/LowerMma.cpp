//===- LowerMma.cpp - fmha.mma -> amdgpu.mfma / nvgpu.mma.sync / contract ===//
//
// The tiled lowering emits one fmha.mma per matrix atom on flattened per-lane
// fragments. The atom's family picks the instruction: CDNA MFMA, NVIDIA
// mma.sync (whose operands are vectors of 32-bit register pairs), or, for CPU
// execution, a vector.contract on the whole atom held by one "lane".
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "lib/Target/FragmentLayout.h"
#include "passes/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <memory>
#include <tuple>

namespace rocke {
#define GEN_PASS_DEF_LOWERMMA
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using rocke::MatrixAtom;

namespace {

Value reshape(PatternRewriter &rewriter, Location loc, Value v,
              ArrayRef<int64_t> shape) {
  auto type = VectorType::get(shape,
                              cast<VectorType>(v.getType()).getElementType());
  return vector::ShapeCastOp::create(rewriter, loc, type, v);
}

Value lowerMfma(PatternRewriter &rewriter, Location loc, const MatrixAtom &atom,
                rocke::fmha::MmaOp op) {
  return amdgpu::MFMAOp::create(rewriter, loc, op.getAcc().getType(), atom.m,
                                atom.n, atom.k, /*blocks=*/1, op.getLhs(),
                                op.getRhs(), op.getAcc());
}

/// mma.sync operands are vectors of 32-bit registers: A [4 x 2], B [2 x 2],
/// C [2 x 2] for m16n8k16; the flattened fragment order already matches.
Value lowerMmaSync(PatternRewriter &rewriter, Location loc,
                   const MatrixAtom &atom, rocke::fmha::MmaOp op) {
  auto pairs = [](Value v) {
    return cast<VectorType>(v.getType()).getNumElements() / 2;
  };
  Value a = reshape(rewriter, loc, op.getLhs(), {pairs(op.getLhs()), 2});
  Value b = reshape(rewriter, loc, op.getRhs(), {pairs(op.getRhs()), 2});
  Value c = reshape(rewriter, loc, op.getAcc(), {pairs(op.getAcc()), 2});
  Value d = nvgpu::MmaSyncOp::create(rewriter, loc, a, b, c,
                                     ArrayRef<int64_t>{atom.m, atom.n, atom.k});
  return reshape(rewriter, loc, d,
                 {cast<VectorType>(op.getAcc().getType()).getNumElements()});
}

/// c[i*n + j] += a[i*k + kk] * b[kk*n + j] over the row-major staged
/// operands of one host atom, as an scf loop nest at the builder's point.
void buildHostAtomLoops(OpBuilder &builder, Location loc,
                        const MatrixAtom &atom, Value a, Value b, Value c) {
  auto cst = [](OpBuilder &bld, Location l, int64_t x) -> Value {
    return arith::ConstantIndexOp::create(bld, l, x);
  };
  auto asF32 = [&](OpBuilder &bld, Value x) -> Value {
    if (x.getType().isF32())
      return x;
    return arith::ExtFOp::create(bld, loc, bld.getF32Type(), x);
  };
  // row * stride + col, the row-major position in a staged operand.
  auto linear = [&](OpBuilder &bld, Location l, Value row, int64_t stride,
                    Value col) -> Value {
    Value rowStart = arith::MulIOp::create(bld, l, row, cst(bld, l, stride));
    return arith::AddIOp::create(bld, l, rowStart, col);
  };
  Value c0 = cst(builder, loc, 0);
  Value c1 = cst(builder, loc, 1);
  Value m = cst(builder, loc, atom.m);
  Value n = cst(builder, loc, atom.n);
  Value k = cst(builder, loc, atom.k);
  scf::ForOp::create(
      builder, loc, c0, m, c1, ValueRange{},
      [&](OpBuilder &bi, Location l, Value i, ValueRange) {
        scf::ForOp::create(
            bi, l, c0, n, c1, ValueRange{},
            [&](OpBuilder &bj, Location l2, Value j, ValueRange) {
              Value ci = linear(bj, l2, i, atom.n, j);
              Value init = memref::LoadOp::create(bj, l2, c, ci);
              auto sum = scf::ForOp::create(
                  bj, l2, c0, k, c1, ValueRange{init},
                  [&](OpBuilder &bk, Location l3, Value kk, ValueRange acc) {
                    Value aIdx = linear(bk, l3, i, atom.k, kk);
                    Value x = asF32(bk, memref::LoadOp::create(bk, l3, a, aIdx));
                    Value bIdx = linear(bk, l3, kk, atom.n, j);
                    Value y = asF32(bk, memref::LoadOp::create(bk, l3, b, bIdx));
                    Value r = math::FmaOp::create(bk, l3, x, y, acc[0]);
                    scf::YieldOp::create(bk, l3, r);
                  });
              memref::StoreOp::create(bj, l2, sum.getResult(0), c, ci);
              scf::YieldOp::create(bj, l2);
            });
        scf::YieldOp::create(bi, l);
      });
}

/// What the host atoms of one pass run share. fmha.mma sits inside the
/// kernels' loops: a memref.alloca there grew the stack every iteration
/// (rocke-run overflowed its 8 MiB stack on moderate shapes), and hundreds
/// of inlined loop nests took seconds to JIT. So the operands are staged in
/// stack buffers allocated once at the function's entry (host atoms run one
/// after another, so all atoms of a function share them), and each atom
/// shape is one private function the atoms call.
class HostAtoms {
public:
  /// The staging buffer for operand `slot` (0 lhs, 1 rhs, 2 acc) of type
  /// `type` in the function around `user`. (Not the nearest automatic
  /// allocation scope: scf.for is one, and its allocas reach LLVM as
  /// per-iteration stack growth.)
  Value stagingBuffer(RewriterBase &rewriter, Operation *user, unsigned slot,
                      VectorType type) {
    auto fn = user->getParentOfType<FunctionOpInterface>();
    Value &buf = buffers[{fn, slot, type}];
    if (!buf) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&fn.getFunctionBody().front());
      buf = memref::AllocaOp::create(rewriter, fn.getLoc(), memrefOf(type));
    }
    return buf;
  }

  /// `func.func private @fmha_host_mma_<atom>_<elt>(a, b, c)` running the
  /// atom on staged operands, created once per symbol table.
  func::FuncOp atomFunction(RewriterBase &rewriter, rocke::fmha::MmaOp op,
                            const MatrixAtom &atom) {
    Operation *tableOp = SymbolTable::getNearestSymbolTable(op);
    auto lhsType = cast<VectorType>(op.getLhs().getType());
    auto accType = cast<VectorType>(op.getAcc().getType());
    func::FuncOp &fn = functions[{tableOp, lhsType, accType}];
    if (fn)
      return fn;
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "fmha_host_mma_" << atom.name << "_" << lhsType.getElementType()
       << "_" << accType.getElementType();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    SmallVector<Type> argTypes = {memrefOf(lhsType),
                                  memrefOf(cast<VectorType>(
                                      op.getRhs().getType())),
                                  memrefOf(accType)};
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(&tableOp->getRegion(0).front());
    fn = func::FuncOp::create(rewriter, loc, name,
                              FunctionType::get(ctx, argTypes, {}));
    fn.setPrivate();
    SymbolTable(tableOp).insert(fn);
    Block *entry = fn.addEntryBlock();
    rewriter.setInsertionPointToStart(entry);
    buildHostAtomLoops(rewriter, loc, atom, entry->getArgument(0),
                       entry->getArgument(1), entry->getArgument(2));
    func::ReturnOp::create(rewriter, loc);
    return fn;
  }

private:
  static MemRefType memrefOf(VectorType type) {
    return MemRefType::get(type.getShape(), type.getElementType());
  }

  DenseMap<std::tuple<Operation *, unsigned, Type>, Value> buffers;
  DenseMap<std::tuple<Operation *, Type, Type>, func::FuncOp> functions;
};

/// Host atoms hold the whole row-major operand in one lane: staged into
/// stack buffers, run by the atom's function (a small loop nest: compact to
/// compile, where an unrolled vector.contract of a 16x16x16 atom is
/// thousands of LLVM instructions), the accumulator read back.
Value lowerHost(RewriterBase &rewriter, Location loc, const MatrixAtom &atom,
                rocke::fmha::MmaOp op, HostAtoms &hostAtoms) {
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value, 3> operands = {op.getLhs(), op.getRhs(), op.getAcc()};
  SmallVector<Value, 3> staged;
  for (auto [slot, v] : llvm::enumerate(operands)) {
    Value buf = hostAtoms.stagingBuffer(rewriter, op, slot,
                                        cast<VectorType>(v.getType()));
    vector::StoreOp::create(rewriter, loc, v, buf, ValueRange{c0});
    staged.push_back(buf);
  }
  func::FuncOp fn = hostAtoms.atomFunction(rewriter, op, atom);
  func::CallOp::create(rewriter, loc, fn, staged);
  return vector::LoadOp::create(rewriter, loc,
                                cast<VectorType>(op.getAcc().getType()),
                                staged[2], ValueRange{c0});
}

struct LowerMmaPattern : OpRewritePattern<rocke::fmha::MmaOp> {
  LowerMmaPattern(MLIRContext *ctx, std::shared_ptr<HostAtoms> hostAtoms)
      : OpRewritePattern(ctx), hostAtoms(std::move(hostAtoms)) {}
  LogicalResult matchAndRewrite(rocke::fmha::MmaOp op,
                                PatternRewriter &rewriter) const override {
    const MatrixAtom *atom = rocke::lookupAtom(op.getAtom());
    if (!atom)
      return rewriter.notifyMatchFailure(op, "unknown atom");
    Location loc = op.getLoc();
    Value result;
    switch (atom->family) {
    case MatrixAtom::Family::MfmaSquare:
    case MatrixAtom::Family::MfmaWideK:
      result = lowerMfma(rewriter, loc, *atom, op);
      break;
    case MatrixAtom::Family::MmaSync:
      result = lowerMmaSync(rewriter, loc, *atom, op);
      break;
    case MatrixAtom::Family::Host:
      if (!op->getParentOfType<FunctionOpInterface>())
        return rewriter.notifyMatchFailure(op, "host atom outside a function");
      result = lowerHost(rewriter, loc, *atom, op, *hostAtoms);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  std::shared_ptr<HostAtoms> hostAtoms;
};

struct LowerMmaPass : rocke::impl::LowerMmaBase<LowerMmaPass> {
  void runOnOperation() override {
    // Tiles are distributed into the fmha.mma atoms this pass lowers, and
    // tile copies into per-thread code.
    WalkResult tiles = getOperation()->walk([](Operation *op) {
      if (isa<rocke::fmha::TileCopyOp, rocke::fmha::TileCopyAsyncOp,
              rocke::fmha::TileFetchOp, rocke::fmha::TilePlaceOp>(op)) {
        op->emitOpError("is a workgroup tile copy: run "
                        "fmha-lower-tile-copies before fmha-lower-mma");
        return WalkResult::interrupt();
      }
      if (!llvm::any_of(op->getResultTypes(),
                        llvm::IsaPred<rocke::fmha::TileType>))
        return WalkResult::advance();
      op->emitOpError("produces a subgroup tile: run fmha-distribute-tiles "
                      "before fmha-lower-mma");
      return WalkResult::interrupt();
    });
    if (tiles.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    rocke::populateLowerMmaPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Anything left had an atom the verifier would have rejected, or a host
    // atom outside any function (nowhere to stage its operands).
    WalkResult leftover = getOperation()->walk([](rocke::fmha::MmaOp op) {
      op.emitOpError("could not be lowered");
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void rocke::populateLowerMmaPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMmaPattern>(patterns.getContext(),
                                std::make_shared<HostAtoms>());
}
