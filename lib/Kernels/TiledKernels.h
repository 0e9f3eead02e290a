//===- TiledKernels.h - pieces shared by the tiled builders -----*- C++ -*-===//
//
// What the tiled forward and backward builders (lib/Kernels/TiledFwdKernels.cpp,
// lib/Kernels/TiledBwdKernels.cpp) share: the matrix atom a target computes with, the
// workgroup memory it has, cooperative global -> workgroup-memory tile copies
// and a builder of fmha tile ops.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_KERNELS_TILEDKERNELS_H
#define ROCKE_LIB_KERNELS_TILEDKERNELS_H

#include "dialect/Dropout.h"
#include "dialect/FmhaDialect.h"
#include "lib/Kernels/AttentionKernels.h"
#include "lib/Kernels/Fragments.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>
#include <utility>

namespace rocke {

/// The atom called `name` (with or without the _f16/_bf16 suffix) for `elt`.
const MatrixAtom *lookupAtomFor(StringRef name, Type elt);

/// The atom of the score products: options.matrixAtom or, for "auto", the
/// chip's first atom (the host atom on the CPU; without a chip, the subgroup
/// width's default). Fails with a diagnostic on `op` when it is unknown or
/// does not fit the target or the element type.
FailureOr<const MatrixAtom *>
selectAtom(Operation *op, const AttentionKernelOptions &options, Type elt);

/// 32-bit registers per lane the tiles may keep live (liveRegisters), less
/// room for addresses and temporaries: NVIDIA's 255 per thread; on an AMD
/// chip 5/8 of its unified VGPR file (arch + accumulation registers, which
/// hold the MFMA accumulators) shared by the workgroup's waves on one SIMD
/// (the rest went to addresses, fragments in flight and temporaries at D =
/// 128..256 on gfx942/gfx950); else 7/8 of 256 arch VGPRs.
int64_t registerBudget(const AttentionKernelOptions &options, int64_t numWarps);

/// 32-bit registers a lane of a workgroup of `numWarps` subgroups can hold
/// at all: on an AMD chip (and a 64-lane target without one) its share of a
/// SIMD's unified VGPR file, the workgroup's waves spread over the CU's
/// SIMDs; on NVIDIA 255, fewer where the block's threads share an SM's 64 K.
int64_t registerLimit(const AttentionKernelOptions &options, int64_t numWarps);

/// How far past registerLimit a register estimate may go, in percent: the
/// estimate counts every fragment live at once, and the compilers keep
/// part of it in flight or spill a little; sm_90's default backward tiles
/// at head dim 256 (368 of 255 registers, 144 %) pass the H200 validation.
constexpr int64_t kRegisterOvercommitPercent = 150;

/// Whether the main kernel over `mask`'s blocks is launched heaviest first
/// (orderHeavyFirst): a causal mask, not a packed batch (whose sequences
/// keep their grid z and early exit), on NVIDIA or the host, whose
/// numerical tests check the decoding. On AMD the decoded ids moved the
/// causal backward's hot loops past test/ISA's budgets (gfx942 f16 D = 64:
/// 0.27 -> 0.29 waits per MFMA), not measured on a GPU.
bool launchesHeavyFirst(fmha::MaskAttr mask, bool packed,
                        const AttentionKernelOptions &options);

/// "<prefix>block-q=Q <prefix>block-kv=KV <prefix>num-warps=W": the tile
/// options as the messages name them (prefix "fwd-" for the forward's).
std::string tileOptionsText(StringRef prefix, int64_t blockQ, int64_t blockKv,
                            int64_t numWarps);

/// The chosen tiles' register estimate (`liveRegisters`, as the tile
/// choice counts them) on a GPU: an error past the overcommit above (LLVM's
/// backend spilled 2561 VGPRs of a forward with fwd-block-q=512
/// fwd-num-warps=1 fwd-block-kv=16 on gfx942, and ran for minutes at
/// fwd-block-q=1024), and, where the options fixed some of the tiles
/// (`explicitTiles`), a warning past registerBudget: spills are predicted.
/// `tiles` names the options and their values for the message.
LogicalResult checkRegisterEstimate(Operation *op,
                                    const AttentionKernelOptions &options,
                                    int64_t numWarps, int64_t liveRegisters,
                                    StringRef tiles, bool explicitTiles);

/// Which score blocks of a tiled loop go through fmha.tile_mask.
enum class ScoreMask {
  none,      ///< a loop over blocks the mask leaves whole
  every,     ///< a loop over blocks the mask or the sequence end cuts
  cutBlocks, ///< each block, behind a branch on whether it is cut
};

/// `scores`, a tile of queries from `query` by keys from `key` (keys along
/// its rows with `keysAlongRows`), after the mask as `scoreMask` says: keys
/// past Sk and pairs outside `maskAttr`'s band (null: none) get `fill`.
/// For cutBlocks the mask is `cut_only`: skipped where the band and Sk
/// leave the (subgroup's) tile whole.
Value maskScoreTile(OpBuilder &b, Location loc, ScoreMask scoreMask,
                    Value scores, Value query, Value key, Value lane,
                    const AttentionSizes &sizes, fmha::MaskAttr maskAttr,
                    bool keysAlongRows, const APFloat &fill);

/// Whether the kernels run whole and cut blocks in loops of their own:
/// options.maskBlocks, or for Auto ChipInfo::wholeBlockLoops (the host:
/// yes).
bool useWholeBlockLoops(const AttentionKernelOptions &options);

/// The layout of a kernel's warpgroup operands: options.warpgroupLayout,
/// Auto resolved to Swizzle128B where the head dims `dims` of `elt` fill
/// whole 128-byte rows; a diagnostic on `op` naming `option` when
/// Swizzle128B is asked for and they do not, or when a layout is asked for
/// and `warpgroup` (the kernel has warpgroup products) is false.
FailureOr<WarpgroupLayout>
resolveWarpgroupLayout(Operation *op, const AttentionKernelOptions &options,
                       StringRef option, bool warpgroup, Type elt,
                       ArrayRef<int64_t> dims);

/// Elements of `elt` in one row of an atom of `layout` (128 or 16 bytes).
int64_t atomRowElements(WarpgroupLayout layout, Type elt);

/// A workgroup tile of `rows` x `cols` operands of `elt`: rows padded by
/// `pad` elements (conflict-free fragment reads), or with `atoms` the
/// [rows/8][cols/W][8][W] atoms of that layout that warpgroup products read
/// by descriptor; `doubleBuffered` puts a slot dimension of 2 first.
MemRefType operandTileType(Type elt, int64_t rows, int64_t cols, int64_t pad,
                           std::optional<WarpgroupLayout> atoms,
                           bool doubleBuffered = false);

/// Whether a kernel issues its products as warpgroup products (wgmma):
/// `mode` (the option `option`, "warpgroup-mma" or "fwd-warpgroup-mma") is
/// not Off, the chip has them (ChipInfo::warpgroupMma), the kernel's tiles
/// are laid out for them (`layout`; `layoutNeeds` says how) and the operand
/// rows staged as 8-row atoms arrive in whole 16-byte chunks
/// (`rowsInChunks`; `rowsNeeds` names the operands). With WarpgroupMma::On
/// a diagnostic on `op` naming what is missing. The tile shapes are the
/// kernel's to check per candidate.
FailureOr<bool> warpgroupProducts(Operation *op,
                                  const AttentionKernelOptions &options,
                                  StringRef option, bool layout,
                                  StringRef layoutNeeds, bool rowsInChunks,
                                  StringRef rowsNeeds);

/// Workgroup memory a workgroup may use: the chip's; without a chip, 48 KiB
/// of static shared memory for 32-lane subgroups, 64 KiB of LDS for 64-lane.
int64_t workgroupMemoryLimit(const AttentionKernelOptions &options);

/// Creates a kernel's cooperative copies of [B, S, H, D] rows into
/// workgroup memory (fmha.tile_copy, tile_copy_async, tile_fetch /
/// tile_place; fmha-lower-tile-copies gives each thread its part), by the
/// `threads` threads of the workgroup, `tid` the calling one.
/// `alignedRows`: the kernel ABI guarantees 16-byte aligned rows (GPU
/// targets).
struct TileCopier {
  OpBuilder &b;
  Location loc;
  Value tid;
  int64_t threads;
  bool alignedRows;

  /// Rows [row, row + rows) of `src`'s head `head` into `dst` and / or,
  /// transposed, `dstT` now; past `seqLen` zeros, or with
  /// `tailUnspecified` finite data of the tile.
  void copy(Value src, Value batch, Value row, Value head, Value seqLen,
            int64_t rows, Value dst, Value dstT,
            bool tailUnspecified = false) const;
  /// The same into slot `slot` of the double-buffered `dst` by cp.async,
  /// rows at or past `rowEnd` zero-filled; returns the copies' group.
  Value copyAsync(Value src, Value batch, Value row, Value head, Value rowEnd,
                  int64_t rows, Value dst, Value slot) const;
  /// Rows [row, row + rows) of `src[i]` into slot `block rem 2` of the
  /// double-buffered `dst[i]` by cp.async, then a wait for both (their
  /// groups complete in order): the two slots' views. The plain loop is
  /// correct alone; fmha-pipeline-tile-fetches issues the next block's
  /// copies a stage ahead.
  std::pair<Value, Value> copyBlockPairAsync(Value block,
                                             std::array<Value, 2> src,
                                             std::array<Value, 2> dst,
                                             Value batch, Value row, Value head,
                                             Value rowEnd, int64_t rows) const;
  /// The fetched tile of a copy of `rows` rows of `src` into `dst` and / or
  /// `dstT`, or null when the copy cannot be split into fetch and place.
  fmha::FetchedType fetchedType(Value src, int64_t rows, Value dst,
                                Value dstT) const;
  Value fetch(fmha::FetchedType type, Value src, Value batch, Value row,
              Value head, Value seqLen, bool tailUnspecified = false) const;
  void place(Value fetched, Value dst, Value dstT) const;

  /// Can rows of the [B, S, H, D] memref `src` be read through an AMD
  /// buffer descriptor of `rows` of them (rowsBuffer)? Rows of unit-stride
  /// elements, a static row stride of at least a row (no row past the
  /// descriptor's size aliases one within it), 32-bit offsets.
  static bool fitsRowsBuffer(Value src, int64_t rows);
  /// Rows [row, row + rows) of head `head` of `src` as a [1, rows, 1, D]
  /// memref read through an AMD buffer descriptor
  /// (amdgpu.fat_raw_buffer_cast) whose size ends at row `seqLen` (at the
  /// last row when `seqLen` is null): buffer loads (a scalar base, 32-bit
  /// offsets) that read zeros past the sequence, so copies from it check no
  /// rows.
  Value rowsBuffer(Value src, Value batch, Value row, Value head, Value seqLen,
                   int64_t rows) const;
  /// The same for the rows of dimension `rowDim` of `src` from `offsets`
  /// (a value there; unit extents elsewhere, whole rows): the row records
  /// [B, Hq, Sq, 2] of a head, rowDim 2.
  Value rowsBuffer(Value src, ArrayRef<OpFoldResult> offsets, unsigned rowDim,
                   Value seqLen, int64_t rows) const;
  /// `view`, rows [row, row + rows) of `rowBytes` each, read through an AMD
  /// buffer descriptor whose size ends at row `seqLen` (every row when
  /// `seqLen` is null): zeros past it, and no access.
  Value boundedBuffer(Value view, Value row, Value seqLen, int64_t rows,
                      int64_t rowBytes) const;
};

/// A tile size that must be a multiple of an atom extent: `what` (named
/// `whatName`) of `by` (`byName`).
struct Divisibility {
  int64_t what, by;
  const char *whatName, *byName;
};

/// Whether every requirement holds; with `report`, a diagnostic on `op`
/// naming the first that does not ("<context>: ... must be a multiple of
/// ...").
LogicalResult checkDivisible(Operation *op, ArrayRef<Divisibility> needs,
                             StringRef context, bool report);

/// Bounds on the explicit tile options (`prefix` "" for block-q / block-kv,
/// "fwd-" for the forward's), checked before any product of them is formed:
/// at most 1024 rows (huge values overflowed the size arithmetic, and no
/// workgroup memory holds more), and on the host at most
/// kMaxHostTileElements query x key pairs (the CPU oracle unrolls each
/// tile's products: 1024 x 16 took minutes to compile, 64 x 64 17 s).
LogicalResult checkTileBounds(Operation *op,
                              const AttentionKernelOptions &options,
                              StringRef prefix);

/// Slot `slot` of a double-buffered [2 x ...] workgroup tile, without the
/// slot dimension.
Value slotView(OpBuilder &b, Location loc, Value tile, Value slot);

/// The two slots of double-buffered workgroup tiles handed between the
/// producer work-items (a warpgroup), which fill them by cp.async, and the
/// consumer work-items, which read them, by mbarriers instead of workgroup
/// barriers. Each of `numTiles` tiles (K and V) is handed over on barriers
/// of its own, so that a tile's slot goes back as soon as its last reader
/// is done. Block kb goes to slot (kb - first) mod 2, and its n-th use (n =
/// (kb - first) / 2) is the n-th phase of the tile slot's "full" barrier
/// (each producer lane's arrival is its copies landing,
/// cp.async.mbarrier.arrive) and then of its "empty" one (each consumer
/// arrives once done reading). NVIDIA sm_90.
struct SlotHandover {
  /// !nvgpu.mbarrier.group of 4 * numTiles: full 0 and 1, empty 0 and 1 of
  /// each tile in turn.
  Value barriers;
  Value first;

  /// The barriers of `numTiles` tiles, initialised by work-item 0 for
  /// `producers` and `consumers` arrivals, then a workgroup barrier that
  /// publishes them.
  static SlotHandover create(OpBuilder &b, Location loc, Value first,
                             Value tid, int64_t producers, int64_t consumers,
                             int64_t numTiles);
  /// The consumers' wait for block `block`'s rows of tile `tile`, then a
  /// proxy fence (their matrix cores read what the copies wrote); returns
  /// its slot.
  Value waitFull(OpBuilder &b, Location loc, int64_t tile, Value block) const;
  /// The producer's wait until the consumers are done with the block two
  /// before `block` in its slot of tile `tile` (at once for the first two);
  /// returns the slot.
  Value waitEmpty(OpBuilder &b, Location loc, int64_t tile, Value block) const;
  /// The producer lane's arrival on the full barrier of `slot` of tile
  /// `tile` once every copy it has issued has landed (without waiting for
  /// them).
  void fill(OpBuilder &b, Location loc, int64_t tile, Value slot) const;
  /// A consumer's arrival: it reads `slot` of tile `tile` no more.
  void release(OpBuilder &b, Location loc, int64_t tile, Value slot) const;

private:
  /// Waits for the phase of `block`'s use of its slot (or, `previous`, the
  /// phase before it) of barrier `kind` (kFull or kEmpty) of tile `tile`;
  /// returns the slot.
  Value wait(OpBuilder &b, Location loc, int64_t kind, int64_t tile,
             Value block, bool previous) const;
};

/// Creates fmha tile ops of one kernel: tiles of `elt` operands and f32
/// accumulators, read by lane `lane`.
struct TileBuilder {
  OpBuilder &b;
  Location loc;
  Type elt;
  /// The lane's id in its subgroup; for workgroup tiles the thread's id in
  /// the workgroup.
  Value lane;

  /// A [rows x cols] tile of `atom` in `role` (f32 unless a or b).
  fmha::TileType type(int64_t rows, int64_t cols, fmha::TileRole role,
                      const MatrixAtom &atom) const;
  Value zero(fmha::TileType type) const;
  Value read(Value buffer, Value row, Value col, bool transposed,
             fmha::TileType type) const;
  Value mma(Value lhs, Value rhs, Value acc) const;
  /// An operand of a warpgroup product in a buffer of 8-row atoms: [R x C]
  /// at (row, col), or its transpose.
  struct SharedOperand {
    Value buffer, row, col;
    bool transposed = false;
  };
  /// acc + lhs * B, issued by the warpgroup: B [K x N] in workgroup memory,
  /// A the subgroup's rows in registers, or the warpgroup's [64 x k] block
  /// in workgroup memory too.
  Value mmaWarpgroup(Value lhs, const SharedOperand &rhs, Value acc) const;
  Value mmaWarpgroup(const SharedOperand &lhs, int64_t k,
                     const SharedOperand &rhs, Value acc) const;
  /// An elementwise map of `inputs` into `resultType`: `fn` gets the body's
  /// f32 arguments and returns the element.
  Value map(fmha::TileType resultType, ValueRange inputs,
            function_ref<Value(ValueRange)> fn) const;

private:
  /// The thread a warpgroup product on workgroup tiles names.
  Value threadOfWorkgroupTile(Value tile) const;
};

/// The score tile `scores` (products q.k of queries from `query` and keys
/// from `key`, keys along its rows with `keysAlongRows`) through the
/// score_mod `region`: s' = f(scale * s) per element, one tile_map (with
/// the elements' positions where the region reads them) after the
/// region's element-independent part (constants, loads of the `captures`,
/// the kernel's values of the captured operands). With `derivative`, also
/// the tile of d(s')/d(scale * s), {s', slope}, unless the slope is the
/// constant 1 (ALiBi).
SmallVector<Value, 2> modifyScores(const TileBuilder &tiles, Region &region,
                                   float scale, Value scores, Value query,
                                   Value key, bool keysAlongRows, Value batch,
                                   Value head, ValueRange captures,
                                   bool derivative);

/// Dropout's factor Z / (1 - p) of each element of a score tile shaped
/// like `like` (0 where `stream` drops the pair; query and key positions as
/// for modifyScores): one tile_map with the elements' positions, one
/// Philox4x32-10 call per score (dialect/Dropout.h).
Value dropoutFactors(const TileBuilder &tiles, Value like, Value query,
                     Value key, bool keysAlongRows,
                     const fmha::DropoutStream &stream, float dropoutP);

/// Element (b, h) of an additive bias's leading dims (or its gradient's):
/// index 0 where the bias broadcasts (extent 1), else `batch` / `head`.
std::pair<Value, Value> biasBatchHead(OpBuilder &b, Location loc, Value bias,
                                      Value batch, Value head);

/// `scores` * `factor` + bias[b, h, q, k] per element of the score tile
/// (queries from `query`, keys from `key`, keys along its rows with
/// `keysAlongRows`): one tile_map with the elements' positions loading the
/// bias (f32, or extended to it), positions past Sq / Sk clamped to the
/// last row / column (their scores are masked or never stored).
Value addBias(const TileBuilder &tiles, Value scores, float factor, Value bias,
              Value batch, Value head, Value query, Value key,
              bool keysAlongRows, const AttentionSizes &sizes);

/// The gradient tile `grads` of the same positions into the f32 bias
/// gradient `gradBias` (pairs past Sq / Sk skipped): added atomically with
/// `atomic` (a broadcast bias), else stored.
void storeBiasGradient(const TileBuilder &tiles, Value grads, Value gradBias,
                       bool atomic, Value batch, Value head, Value query,
                       Value key, bool keysAlongRows,
                       const AttentionSizes &sizes);

} // namespace rocke

#endif // ROCKE_LIB_KERNELS_TILEDKERNELS_H
