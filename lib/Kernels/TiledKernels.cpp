//===- TiledKernels.cpp - pieces shared by the tiled builders -------------===//
#include "lib/Kernels/TiledKernels.h"

#include "dialect/ScoreMod.h"
#include "lib/Target/ChipInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace rocke;

const MatrixAtom *rocke::lookupAtomFor(StringRef name, Type elt) {
  if (const MatrixAtom *atom = lookupAtom(name))
    return atom;
  return lookupAtom((name + (elt.isBF16() ? "_bf16" : "_f16")).str());
}

FailureOr<const MatrixAtom *>
rocke::selectAtom(Operation *op, const AttentionKernelOptions &options,
                  Type elt) {
  const KernelTarget &target = options.target;
  StringRef name = options.matrixAtom;
  if (name == "auto") {
    if (target.host)
      name = "host_16x16x16";
    else if (options.chip)
      name = options.chip->matrixAtoms.front();
    else
      name =
          target.subgroupSize == 32 ? "mma_sync_m16n8k16" : "mfma_f32_16x16x16";
  }
  const MatrixAtom *atom = lookupAtomFor(name, elt);
  if (!atom)
    return op->emitOpError("unknown matrix atom '")
           << options.matrixAtom << "' (see lib/Target/FragmentLayout.cpp)";
  if (atom->isHost() != target.host)
    return op->emitOpError("matrix atom '")
           << atom->name << "' is for "
           << (atom->isHost() ? "the host" : "a GPU")
           << ", not target=" << (target.host ? "host" : "gpu");
  if (!target.host && unsigned(atom->lanes) != target.subgroupSize)
    return op->emitOpError("matrix atom '")
           << atom->name << "' needs " << atom->lanes
           << "-lane subgroups, subgroup-size is " << target.subgroupSize;
  if (!atom->isHost() && atom->name.ends_with("bf16") != elt.isBF16())
    return op->emitOpError("matrix atom '")
           << atom->name << "' does not take " << elt << " inputs";
  return atom;
}

bool rocke::useWholeBlockLoops(const AttentionKernelOptions &options) {
  if (options.maskBlocks != MaskBlocks::Auto)
    return options.maskBlocks == MaskBlocks::WholeBlockLoops;
  return !options.chip || options.chip->wholeBlockLoops;
}

Value rocke::maskScoreTile(OpBuilder &b, Location loc, ScoreMask scoreMask,
                           Value scores, Value query, Value key, Value lane,
                           const AttentionSizes &sizes, fmha::MaskAttr maskAttr,
                           bool keysAlongRows, const APFloat &fill) {
  if (scoreMask == ScoreMask::none)
    return scores;
  return fmha::TileMaskOp::create(
      b, loc, scores.getType(), scores, query, key, lane, sizes.seqQ,
      sizes.seqK, maskAttr, keysAlongRows,
      /*cut_only=*/scoreMask == ScoreMask::cutBlocks, fill);
}

/// Elements of `elt` in one row of an 8-row atom of `layout`: 128 bytes
/// swizzled, 16 bytes a core matrix.
int64_t rocke::atomRowElements(WarpgroupLayout layout, Type elt) {
  int64_t rowBytes = layout == WarpgroupLayout::Swizzle128B ? 128 : 16;
  return rowBytes * 8 / elt.getIntOrFloatBitWidth();
}

MemRefType rocke::operandTileType(Type elt, int64_t rows, int64_t cols,
                                  int64_t pad,
                                  std::optional<WarpgroupLayout> atoms,
                                  bool doubleBuffered) {
  SmallVector<int64_t> shape{rows, cols + pad};
  if (atoms) {
    int64_t width = atomRowElements(*atoms, elt);
    shape = {rows / 8, cols / width, 8, width};
  }
  if (doubleBuffered)
    shape.insert(shape.begin(), 2);
  return MemRefType::get(shape, elt);
}

FailureOr<bool>
rocke::warpgroupProducts(Operation *op, const AttentionKernelOptions &options,
                         StringRef option, bool layout, StringRef layoutNeeds,
                         bool rowsInChunks, StringRef rowsNeeds) {
  bool chip = options.chip && options.chip->warpgroupMma;
  if (options.warpgroupMma == WarpgroupMma::On &&
      (!chip || !layout || !rowsInChunks)) {
    InFlightDiagnostic diag = op->emitOpError(option) << "=on needs ";
    if (!chip)
      diag << "a chip with warpgroup products (sm_90a), got "
           << (options.chip ? options.chip->name : StringRef("none"));
    else if (!layout)
      diag << layoutNeeds;
    else
      diag << rowsNeeds
           << " rows of consecutive elements and head dims in whole 16-byte "
              "chunks";
    return failure();
  }
  return options.warpgroupMma != WarpgroupMma::Off && chip && layout &&
         rowsInChunks;
}

FailureOr<WarpgroupLayout>
rocke::resolveWarpgroupLayout(Operation *op,
                              const AttentionKernelOptions &options,
                              StringRef option, bool warpgroup, Type elt,
                              ArrayRef<int64_t> dims) {
  WarpgroupLayout asked = options.warpgroupLayout;
  if (!warpgroup && asked != WarpgroupLayout::Auto)
    return op->emitOpError(option)
           << " lays out the operands of warpgroup products, which this "
              "kernel does not use";
  int64_t rowElems = atomRowElements(WarpgroupLayout::Swizzle128B, elt);
  bool wholeRows =
      llvm::all_of(dims, [&](int64_t d) { return d % rowElems == 0; });
  if (asked == WarpgroupLayout::Swizzle128B && !wholeRows) {
    InFlightDiagnostic diag = op->emitOpError(option)
                              << "=swizzle-128b needs head dims in whole "
                                 "128-byte rows (multiples of "
                              << rowElems << " elements), got";
    for (int64_t d : dims)
      diag << " " << d;
    return diag;
  }
  if (asked == WarpgroupLayout::Auto)
    return wholeRows ? WarpgroupLayout::Swizzle128B
                     : WarpgroupLayout::CoreMatrices;
  return asked;
}

int64_t rocke::workgroupMemoryLimit(const AttentionKernelOptions &options) {
  if (options.target.host)
    return std::numeric_limits<int64_t>::max();
  if (options.chip)
    return options.chip->workgroupMemoryBytes;
  return options.target.subgroupSize == 32 ? kNvidiaStaticSharedBytes
                                           : 64 * 1024;
}

int64_t rocke::registerBudget(const AttentionKernelOptions &options,
                              int64_t numWarps) {
  if (options.target.subgroupSize == 32)
    return 232;
  if (options.chip && options.chip->isAmd())
    return registerLimit(options, numWarps) * 5 / 8;
  return 224;
}

int64_t rocke::registerLimit(const AttentionKernelOptions &options,
                             int64_t numWarps) {
  if (options.target.subgroupSize == 32)
    return std::min(kNvidiaMaxRegistersPerThread,
                    kNvidiaRegistersPerBlock / (numWarps * 32));
  // CDNA's file without a chip: 512 VGPRs per lane of each of 4 SIMDs.
  int64_t simds = options.chip ? options.chip->simdsPerCU : 4;
  int64_t file = options.chip ? options.chip->vgprsPerSimd : 512;
  return file / llvm::divideCeil(numWarps, simds);
}

bool rocke::launchesHeavyFirst(fmha::MaskAttr mask, bool packed,
                               const AttentionKernelOptions &options) {
  return !packed && mask && mask.getKind() == fmha::MaskKind::causal &&
         (options.target.host || (options.chip && options.chip->isNvidia()));
}

std::string rocke::tileOptionsText(StringRef prefix, int64_t blockQ,
                                   int64_t blockKv, int64_t numWarps) {
  return (prefix + "block-q=" + Twine(blockQ) + " " + prefix + "block-kv=" +
          Twine(blockKv) + " " + prefix + "num-warps=" + Twine(numWarps))
      .str();
}

LogicalResult rocke::checkRegisterEstimate(
    Operation *op, const AttentionKernelOptions &options, int64_t numWarps,
    int64_t liveRegisters, StringRef tiles, bool explicitTiles) {
  if (options.target.host)
    return success();
  int64_t limit = registerLimit(options, numWarps);
  if (liveRegisters * 100 > kRegisterOvercommitPercent * limit)
    return op->emitOpError()
           << tiles << ": the tiles keep an estimated " << liveRegisters
           << " registers per lane live, more than "
           << kRegisterOvercommitPercent << " % of the " << limit
           << " a lane of this workgroup holds; use smaller tiles or more "
              "subgroups";
  int64_t budget = registerBudget(options, numWarps);
  if (explicitTiles && liveRegisters > budget)
    op->emitWarning() << tiles << ": the tiles keep an estimated "
                      << liveRegisters
                      << " registers per lane live, past the budget of "
                      << budget << " (of " << limit << "): expect spills";
  return success();
}

LogicalResult rocke::checkDivisible(Operation *op, ArrayRef<Divisibility> needs,
                                    StringRef context, bool report) {
  for (const Divisibility &n : needs)
    if (n.what % n.by != 0) {
      if (report)
        op->emitOpError(context)
            << ": " << n.whatName << " (" << n.what
            << ") must be a multiple of " << n.byName << " (" << n.by << ")";
      return failure();
    }
  return success();
}

LogicalResult rocke::checkTileBounds(Operation *op,
                                     const AttentionKernelOptions &options,
                                     StringRef prefix) {
  constexpr int64_t kMaxBlockRows = 1024, kMaxHostTileElements = 8192;
  if (options.blockKv > kMaxBlockRows || options.blockQ > kMaxBlockRows)
    return op->emitOpError()
           << prefix << "block-q and " << prefix << "block-kv must be at most "
           << kMaxBlockRows << " rows";
  if (options.kvSlices > kMaxBlockRows)
    return op->emitOpError() << "fwd-kv-slices must be at most "
                             << kMaxBlockRows << ", got " << options.kvSlices;
  int64_t pairs = options.blockQ * options.blockKv;
  if (options.target.host && pairs > kMaxHostTileElements)
    return op->emitOpError()
           << "target=host: " << prefix << "block-q * " << prefix
           << "block-kv (" << pairs << ") must be at most "
           << kMaxHostTileElements
           << ": the CPU oracle unrolls each tile's products, and larger "
              "tiles take minutes to compile";
  return success();
}

Value rocke::slotView(OpBuilder &b, Location loc, Value tile, Value slot) {
  auto type = cast<MemRefType>(tile.getType());
  ArrayRef<int64_t> shape = type.getShape().drop_front();
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  auto viewType = MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                             ArrayRef<int64_t>(strides).drop_front()),
      type.getMemorySpace());
  SmallVector<OpFoldResult> offsets{slot}, sizes{b.getIndexAttr(1)},
      unit(type.getRank(), b.getIndexAttr(1));
  for (int64_t extent : shape) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(extent));
  }
  return memref::SubViewOp::create(b, loc, viewType, tile, offsets, sizes,
                                   unit);
}

namespace {
/// The suspend-time hint of the mbarrier waits (ns): long enough that a
/// waiting work-item sleeps until the phase completes rather than polling
/// (the wait retries until it does either way).
constexpr int64_t kMbarrierSuspendNs = 10'000'000;
/// A tile's barriers in the handover's group: full 0 and 1, empty 0 and 1.
constexpr int64_t kFull = 0, kEmpty = 2, kBarriersPerTile = 4;

/// The barrier of `kind` (kFull or kEmpty) of `slot` of tile `tile`.
Value barrierIndex(OpBuilder &b, Location loc, int64_t kind, int64_t tile,
                   Value slot) {
  return addIdx(b, loc, slot, tile * kBarriersPerTile + kind);
}
} // namespace

SlotHandover SlotHandover::create(OpBuilder &b, Location loc, Value first,
                                  Value tid, int64_t producers,
                                  int64_t consumers, int64_t numTiles) {
  MLIRContext *ctx = b.getContext();
  auto type = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
      /*num_barriers=*/kBarriersPerTile * numTiles);
  Value barriers = nvgpu::MBarrierCreateOp::create(b, loc, type);
  Value initializer = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, tid, constIndex(b, loc, 0));
  for (int64_t tile = 0; tile < numTiles; ++tile)
    for (int64_t slot : {0, 1}) {
      Value slotIndex = constIndex(b, loc, slot);
      nvgpu::MBarrierInitOp::create(
          b, loc, barriers, constIndex(b, loc, producers),
          barrierIndex(b, loc, kFull, tile, slotIndex), initializer);
      nvgpu::MBarrierInitOp::create(
          b, loc, barriers, constIndex(b, loc, consumers),
          barrierIndex(b, loc, kEmpty, tile, slotIndex), initializer);
    }
  gpu::BarrierOp::create(b, loc);
  return {barriers, first};
}

Value SlotHandover::wait(OpBuilder &b, Location loc, int64_t kind,
                         int64_t tile, Value block, bool previous) const {
  Value c2 = constIndex(b, loc, 2);
  Value sinceFirst = arith::SubIOp::create(b, loc, block, first);
  Value slot = arith::RemUIOp::create(b, loc, sinceFirst, c2);
  Value use = arith::DivUIOp::create(b, loc, sinceFirst, c2);
  // Phase n has parity n mod 2; a barrier in its first phase counts the one
  // before (parity 1) as complete.
  Value parity = arith::CmpIOp::create(
      b, loc, previous ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ne,
      arith::RemUIOp::create(b, loc, use, c2), constIndex(b, loc, 0));
  nvgpu::MBarrierTryWaitParityOp::create(
      b, loc, barriers, parity, constIndex(b, loc, kMbarrierSuspendNs),
      barrierIndex(b, loc, kind, tile, slot));
  return slot;
}

/// Orders the executing work-item's view of workgroup memory (the copies
/// it has seen land) before its matrix cores' reads, which go through the
/// async proxy.
static void fenceAsyncProxy(OpBuilder &b, Location loc) {
  MLIRContext *ctx = b.getContext();
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

Value SlotHandover::waitFull(OpBuilder &b, Location loc, int64_t tile,
                             Value block) const {
  Value slot = wait(b, loc, kFull, tile, block, /*previous=*/false);
  fenceAsyncProxy(b, loc);
  return slot;
}

Value SlotHandover::waitEmpty(OpBuilder &b, Location loc, int64_t tile,
                              Value block) const {
  return wait(b, loc, kEmpty, tile, block, /*previous=*/true);
}

void SlotHandover::fill(OpBuilder &b, Location loc, int64_t tile,
                        Value slot) const {
  Value address = nvgpu::MBarrierGetOp::create(
      b, loc, b.getI32Type(), barriers,
      barrierIndex(b, loc, kFull, tile, slot));
  Value barrier = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      address);
  NVVM::CpAsyncMBarrierArriveOp::create(b, loc, barrier, /*noinc=*/true);
}

void SlotHandover::release(OpBuilder &b, Location loc, int64_t tile,
                           Value slot) const {
  nvgpu::MBarrierArriveOp::create(b, loc, barriers,
                                  barrierIndex(b, loc, kEmpty, tile, slot));
}

fmha::TileType TileBuilder::type(int64_t rows, int64_t cols,
                                 fmha::TileRole role,
                                 const MatrixAtom &atom) const {
  bool operand = role == fmha::TileRole::a || role == fmha::TileRole::b;
  return fmha::TileType::get(b.getContext(), {rows, cols},
                             operand ? elt : b.getF32Type(), role, atom.name);
}

Value TileBuilder::zero(fmha::TileType type) const {
  return fmha::TileZeroOp::create(b, loc, type);
}

Value TileBuilder::read(Value buffer, Value row, Value col, bool transposed,
                        fmha::TileType type) const {
  auto op = fmha::TileReadOp::create(b, loc, type, buffer, row, col, lane);
  op.setTransposed(transposed);
  return op;
}

Value TileBuilder::mma(Value lhs, Value rhs, Value acc) const {
  return fmha::TileMmaOp::create(b, loc, acc.getType(), lhs, rhs, acc);
}

Value TileBuilder::mmaWarpgroup(Value lhs, const SharedOperand &rhs,
                                Value acc) const {
  return fmha::TileMmaWarpgroupOp::create(
      b, loc, acc.getType(), lhs, Value(), Value(), Value(), rhs.buffer,
      rhs.row, rhs.col, acc, threadOfWorkgroupTile(acc), rhs.transposed,
      /*lhs_transposed=*/false, IntegerAttr());
}

Value TileBuilder::mmaWarpgroup(const SharedOperand &lhs, int64_t k,
                                const SharedOperand &rhs, Value acc) const {
  return fmha::TileMmaWarpgroupOp::create(
      b, loc, acc.getType(), Value(), lhs.buffer, lhs.row, lhs.col, rhs.buffer,
      rhs.row, rhs.col, acc, threadOfWorkgroupTile(acc), rhs.transposed,
      lhs.transposed, b.getI64IntegerAttr(k));
}

Value TileBuilder::threadOfWorkgroupTile(Value tile) const {
  return cast<fmha::TileType>(tile.getType()).isWorkgroupTile() ? lane
                                                                : Value();
}

Value TileBuilder::map(fmha::TileType resultType, ValueRange inputs,
                       function_ref<Value(ValueRange)> fn) const {
  auto map = fmha::TileMapOp::create(b, loc, TypeRange{resultType}, inputs,
                                     /*row=*/Value(), /*col=*/Value(),
                                     /*lane=*/Value());
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> elts(inputs.size(), b.getF32Type());
  Block *body = b.createBlock(&map.getBody(), {}, elts,
                              SmallVector<Location>(inputs.size(), loc));
  fmha::YieldOp::create(b, loc, fn(body->getArguments()));
  return map.getResult(0);
}

void TileCopier::copy(Value src, Value batch, Value row, Value head,
                      Value seqLen, int64_t rows, Value dst, Value dstT,
                      bool tailUnspecified) const {
  auto op = fmha::TileCopyOp::create(b, loc, src, batch, row, head, seqLen, tid,
                                     dst, dstT, rows, threads);
  op.setAlignedRows(alignedRows);
  op.setTailUnspecified(tailUnspecified);
}

Value TileCopier::copyAsync(Value src, Value batch, Value row, Value head,
                            Value rowEnd, int64_t rows, Value dst,
                            Value slot) const {
  return fmha::TileCopyAsyncOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), src, batch, row,
      head, rowEnd, tid, dst, slot, rows, threads);
}

std::pair<Value, Value>
TileCopier::copyBlockPairAsync(Value block, std::array<Value, 2> src,
                               std::array<Value, 2> dst, Value batch, Value row,
                               Value head, Value rowEnd, int64_t rows) const {
  Value slot = arith::RemUIOp::create(b, loc, block, constIndex(b, loc, 2));
  copyAsync(src[0], batch, row, head, rowEnd, rows, dst[0], slot);
  Value last = copyAsync(src[1], batch, row, head, rowEnd, rows, dst[1], slot);
  nvgpu::DeviceAsyncWaitOp::create(b, loc, last, IntegerAttr());
  return {slotView(b, loc, dst[0], slot), slotView(b, loc, dst[1], slot)};
}

fmha::FetchedType TileCopier::fetchedType(Value src, int64_t rows, Value dst,
                                          Value dstT) const {
  bool coreMatrices =
      dst && fmha::atomRowBytes(cast<MemRefType>(dst.getType())) == 16;
  return fmha::FetchedType::getForCopy(cast<MemRefType>(src.getType()), rows,
                                       threads, /*transposing=*/bool(dstT),
                                       coreMatrices);
}

Value TileCopier::fetch(fmha::FetchedType type, Value src, Value batch,
                        Value row, Value head, Value seqLen,
                        bool tailUnspecified) const {
  auto op = fmha::TileFetchOp::create(b, loc, type, src, batch, row, head,
                                      seqLen, tid);
  op.setAlignedRows(alignedRows);
  op.setTailUnspecified(tailUnspecified);
  return op;
}

void TileCopier::place(Value fetched, Value dst, Value dstT) const {
  fmha::TilePlaceOp::create(b, loc, fetched, tid, dst, dstT);
}

SmallVector<Value, 2> rocke::modifyScores(const TileBuilder &tiles,
                                          Region &region, float scale,
                                          Value scores, Value query, Value key,
                                          bool keysAlongRows, Value batch,
                                          Value head, ValueRange captures,
                                          bool derivative) {
  OpBuilder &b = tiles.b;
  Location loc = tiles.loc;
  fmha::ScoreModInliner inliner(b, loc, region, batch, head, captures);
  bool positions = fmha::scoreModUsesPositions(region);
  // The body first: a slope that folds to 1 (ALiBi) is no result.
  Region body;
  {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Type> args{b.getF32Type()};
    if (positions)
      args.append(2, b.getIndexType());
    Block *block = b.createBlock(&body, {}, args,
                                 SmallVector<Location>(args.size(), loc));
    Value scaled = arith::MulFOp::create(b, loc, block->getArgument(0),
                                         constF32(b, loc, scale));
    Value q, k;
    if (positions) {
      q = block->getArgument(keysAlongRows ? 2 : 1);
      k = block->getArgument(keysAlongRows ? 1 : 2);
    }
    SmallVector<Value, 2> yielded;
    if (derivative) {
      auto [modified, slope] = inliner.emitWithDerivative(b, scaled, q, k);
      yielded.push_back(modified);
      if (!matchPattern(slope, m_OneFloat()))
        yielded.push_back(slope);
    } else {
      yielded.push_back(inliner.emit(b, scaled, q, k));
    }
    fmha::YieldOp::create(b, loc, yielded);
  }
  SmallVector<Type, 2> types(body.front().getTerminator()->getNumOperands(),
                             scores.getType());
  Value row = keysAlongRows ? key : query, col = keysAlongRows ? query : key;
  auto map = positions ? fmha::TileMapOp::create(b, loc, types, scores, row,
                                                 col, tiles.lane)
                       : fmha::TileMapOp::create(b, loc, types, scores,
                                                 Value(), Value(), Value());
  map.getBody().takeBody(body);
  // Constants the derivative folded away (its seed, a unit slope).
  SmallVector<Operation *> ops = llvm::map_to_vector(
      map.getBody().front().without_terminator(),
      [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  return SmallVector<Value, 2>(map.getResults());
}

/// One tile_map over `tile` whose body sees each element with its query and
/// key positions (the keys along the tile's rows with `keysAlongRows`) and
/// yields `body(element, query, key)`, built at the body's insertion point.
static Value
mapWithPositions(const TileBuilder &tiles, Value tile, Value query, Value key,
                 bool keysAlongRows,
                 llvm::function_ref<Value(Value, Value, Value)> body) {
  OpBuilder &b = tiles.b;
  Location loc = tiles.loc;
  Value row = keysAlongRows ? key : query, col = keysAlongRows ? query : key;
  auto map = fmha::TileMapOp::create(b, loc, TypeRange{tile.getType()}, tile,
                                     row, col, tiles.lane);
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> args{b.getF32Type(), b.getIndexType(), b.getIndexType()};
  Block *block = b.createBlock(&map.getBody(), {}, args,
                               SmallVector<Location>(args.size(), loc));
  Value element = body(block->getArgument(0),
                       block->getArgument(keysAlongRows ? 2 : 1),
                       block->getArgument(keysAlongRows ? 1 : 2));
  fmha::YieldOp::create(b, loc, element);
  return map.getResult(0);
}

Value rocke::dropoutFactors(const TileBuilder &tiles, Value like, Value query,
                            Value key, bool keysAlongRows,
                            const fmha::DropoutStream &stream, float dropoutP) {
  OpBuilder &b = tiles.b;
  Location loc = tiles.loc;
  return mapWithPositions(
      tiles, like, query, key, keysAlongRows, [&](Value, Value q, Value k) {
        Value keep = fmha::emitDropoutKeep(b, loc, stream, q, k,
                                           fmha::dropoutThreshold(dropoutP));
        return arith::SelectOp::create(
            b, loc, keep, constF32(b, loc, fmha::dropoutScale(dropoutP)),
            constF32(b, loc, 0.0f));
      });
}

bool TileCopier::fitsRowsBuffer(Value src, int64_t rows) {
  auto type = cast<MemRefType>(src.getType());
  // [B, S, H, D] only: a packed batch's [T, H, D] rows keep their bound
  // checks (the descriptor would end at the block, not the sequence).
  if (type.getRank() != 4)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides[3] != 1 ||
      ShapedType::isDynamic(strides[1]) ||
      ShapedType::isDynamic(type.getDimSize(3)) ||
      strides[1] < type.getDimSize(3))
    return false;
  int64_t eltBytes = type.getElementTypeBitWidth() / 8;
  return rows * strides[1] * eltBytes < (int64_t(1) << 31);
}

Value TileCopier::rowsBuffer(Value src, Value batch, Value row, Value head,
                             Value seqLen, int64_t rows) const {
  return rowsBuffer(src, {batch, row, head, b.getIndexAttr(0)}, /*rowDim=*/1,
                    seqLen, rows);
}

Value TileCopier::rowsBuffer(Value src, ArrayRef<OpFoldResult> offsets,
                             unsigned rowDim, Value seqLen,
                             int64_t rows) const {
  auto type = cast<MemRefType>(src.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  int64_t last = type.getRank() - 1;
  SmallVector<OpFoldResult> sizes(type.getRank(), b.getIndexAttr(1));
  sizes[rowDim] = b.getIndexAttr(rows);
  sizes[last] = b.getIndexAttr(type.getDimSize(last));
  SmallVector<OpFoldResult> unit(type.getRank(), b.getIndexAttr(1));
  Value view = memref::SubViewOp::create(b, loc, src, offsets, sizes, unit);
  Value row = cast<Value>(offsets[rowDim]);
  return boundedBuffer(view, row, seqLen, rows,
                       strides[rowDim] * (type.getElementTypeBitWidth() / 8));
}

Value TileCopier::boundedBuffer(Value view, Value row, Value seqLen,
                                int64_t rows, int64_t rowBytes) const {
  Value validBytes;
  if (seqLen) {
    // The rows before seqLen: min(seqLen - row, rows), none past the end.
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         row, seqLen);
    Value left = arith::SubIOp::create(b, loc, seqLen, row);
    Value none = constIndex(b, loc, 0);
    Value before = arith::SelectOp::create(b, loc, inside, left, none);
    Value valid =
        arith::MinUIOp::create(b, loc, before, constIndex(b, loc, rows));
    Value bytes =
        arith::MulIOp::create(b, loc, valid, constIndex(b, loc, rowBytes));
    validBytes = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), bytes);
  } else {
    validBytes = arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                              rows * rowBytes);
  }
  return amdgpu::FatRawBufferCastOp::create(
      b, loc, view, validBytes, /*cacheSwizzleStride=*/Value(),
      /*boundsCheck=*/true, /*resetOffset=*/true);
}

std::pair<Value, Value> rocke::biasBatchHead(OpBuilder &b, Location loc,
                                             Value bias, Value batch,
                                             Value head) {
  auto type = cast<MemRefType>(bias.getType());
  Value c0 = constIndex(b, loc, 0);
  return {type.getDimSize(0) == 1 ? c0 : batch,
          type.getDimSize(1) == 1 ? c0 : head};
}

Value rocke::addBias(const TileBuilder &tiles, Value scores, float factor,
                     Value bias, Value batch, Value head, Value query,
                     Value key, bool keysAlongRows,
                     const AttentionSizes &sizes) {
  OpBuilder &b = tiles.b;
  Location loc = tiles.loc;
  auto [biasBatch, biasHead] = biasBatchHead(b, loc, bias, batch, head);
  Value c1 = constIndex(b, loc, 1);
  Value lastQ = arith::SubIOp::create(b, loc, sizes.seqQ, c1);
  Value lastK = arith::SubIOp::create(b, loc, sizes.seqK, c1);
  return mapWithPositions(
      tiles, scores, query, key, keysAlongRows,
      [&](Value score, Value q, Value k) -> Value {
        Value element = memref::LoadOp::create(
            b, loc, bias,
            ValueRange{biasBatch, biasHead,
                       arith::MinUIOp::create(b, loc, q, lastQ),
                       arith::MinUIOp::create(b, loc, k, lastK)});
        if (!element.getType().isF32())
          element = arith::ExtFOp::create(b, loc, b.getF32Type(), element);
        if (factor != 1.0f)
          score =
              arith::MulFOp::create(b, loc, score, constF32(b, loc, factor));
        return arith::AddFOp::create(b, loc, score, element);
      });
}

void rocke::storeBiasGradient(const TileBuilder &tiles, Value grads,
                              Value gradBias, bool atomic, Value batch,
                              Value head, Value query, Value key,
                              bool keysAlongRows, const AttentionSizes &sizes) {
  auto [biasBatch, biasHead] =
      biasBatchHead(tiles.b, tiles.loc, gradBias, batch, head);
  fmha::TileStoreScoresOp::create(
      tiles.b, tiles.loc,
      atomic ? fmha::AccumulateKind::atomic_add : fmha::AccumulateKind::store,
      grads, gradBias, biasBatch, biasHead, query, key, tiles.lane, sizes.seqQ,
      sizes.seqK, keysAlongRows);
}
