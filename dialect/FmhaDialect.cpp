//===- FmhaDialect.cpp - fmha dialect registration and attributes ---------===//
#include "dialect/FmhaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace rocke::fmha;

#include "dialect/FmhaDialect.cpp.inc"
#include "dialect/FmhaEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/FmhaAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/FmhaTypes.cpp.inc"

void FmhaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/FmhaAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/FmhaTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/FmhaOps.cpp.inc"
      >();
}

LogicalResult MaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               MaskKind kind, MaskAlignment alignment,
                               std::optional<int64_t> left,
                               std::optional<int64_t> right) {
  auto print = [](std::optional<int64_t> e) {
    return e ? std::to_string(*e) : std::string("none");
  };
  auto anyExtent = [&](auto pred) {
    return (left && pred(*left)) || (right && pred(*right));
  };
  if (anyExtent([](int64_t e) { return e < 0; }))
    return emitError() << "window extents must be non-negative, got left = "
                       << print(left) << ", right = " << print(right);
  if (anyExtent([](int64_t e) { return e > kMaxWindowExtent; }))
    return emitError() << "window extents must be at most " << kMaxWindowExtent
                       << " (2^40, longer than any sequence), got left = "
                       << print(left) << ", right = " << print(right);
  switch (kind) {
  case MaskKind::none:
  case MaskKind::causal:
    if (left || right)
      return emitError() << "mask kind '" << stringifyMaskKind(kind)
                         << "' takes no window extents";
    if (kind == MaskKind::none && alignment != MaskAlignment::top_left)
      return emitError() << "mask kind 'none' takes no alignment";
    return success();
  case MaskKind::sliding_window:
    if (!left || !right)
      return emitError()
             << "sliding_window needs both 'left' and 'right' extents";
    return success();
  case MaskKind::one_sided_window:
    if (!left || *left < 1)
      return emitError() << "one_sided_window needs a window 'left' >= 1";
    if (right)
      return emitError() << "one_sided_window takes no 'right' extent";
    return success();
  }
  return emitError() << "unknown mask kind";
}

MaskBand MaskAttr::getBand() const {
  MaskBand band;
  band.bottomRight = getAlignment() == MaskAlignment::bottom_right;
  switch (getKind()) {
  case MaskKind::none:
    break;
  case MaskKind::causal:
    band.upper = 0;
    break;
  case MaskKind::sliding_window:
    band.lower = *getLeft();
    band.upper = *getRight();
    break;
  case MaskKind::one_sided_window:
    // q + off - k < W  <=>  k - (q + off) >= -(W - 1).
    band.lower = *getLeft() - 1;
    break;
  }
  return band;
}

bool rocke::fmha::isSupportedHeadDim(int64_t d) {
  return d == 32 || d == 64 || d == 96 || d == 128 || d == 192 || d == 256;
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

namespace {
/// Rows (`rows`) or columns of one atom of a tile in `role`: [m x k] A, [k x
/// n] B, [m x n] C, [m x 1] per-row and [1 x n] per-column vectors.
int64_t atomExtent(const rocke::MatrixAtom &atom, TileRole role, bool rows) {
  switch (role) {
  case TileRole::a:
    return rows ? atom.m : atom.k;
  case TileRole::b:
    return rows ? atom.k : atom.n;
  case TileRole::c:
    return rows ? atom.m : atom.n;
  case TileRole::rows:
    return rows ? atom.m : 1;
  case TileRole::cols:
    return rows ? 1 : atom.n;
  }
  llvm_unreachable("unknown tile role");
}
} // namespace

/// Row-major subgroup strides of a [GM, GN] grid: (GN, 1), 1 where a
/// dimension is not split.
static SmallVector<int64_t, 2> rowMajorStrides(ArrayRef<int64_t> grid) {
  return {grid[0] == 1 ? 1 : grid[1], 1};
}

// !fmha.tile<32x64xf32, c, "atom"[, subgroups 4x1[ strides 1x4]]>
Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  std::string role, atom;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeywordOrString(&role) || parser.parseComma() ||
      parser.parseString(&atom))
    return Type();
  // `, subgroups GMxGN [strides SRxSC]`: a workgroup tile.
  SmallVector<int64_t> grid, strides;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("subgroups") ||
        parser.parseDimensionList(grid, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return Type();
    if (succeeded(parser.parseOptionalKeyword("strides")) &&
        parser.parseDimensionList(strides, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return Type();
  }
  if (parser.parseGreater())
    return Type();
  std::optional<TileRole> parsedRole = symbolizeTileRole(role);
  if (!parsedRole) {
    parser.emitError(parser.getCurrentLocation(),
                     "tile role must be a, b, c, rows or cols, got '")
        << role << "'";
    return Type();
  }
  if (grid.size() == 2 && strides.empty())
    strides = rowMajorStrides(grid);
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType, *parsedRole, atom,
                    grid, strides);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", " << stringifyTileRole(getRole())
          << ", \"" << getAtom() << "\"";
  if (isWorkgroupTile()) {
    printer << ", subgroups " << getSubgroups()[0] << "x" << getSubgroups()[1];
    if (getSubgroupStrides() != ArrayRef(rowMajorStrides(getSubgroups())))
      printer << " strides " << getSubgroupStrides()[0] << "x"
              << getSubgroupStrides()[1];
  }
  printer << ">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               TileRole role, StringRef atom,
                               ArrayRef<int64_t> grid,
                               ArrayRef<int64_t> strides) {
  const rocke::MatrixAtom *matrixAtom = rocke::lookupAtom(atom);
  if (!matrixAtom)
    return emitError() << "unknown matrix atom '" << atom << "'";
  if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0)
    return emitError() << "a tile has 2 positive dimensions";
  bool operand = role == TileRole::a || role == TileRole::b;
  if (operand ? !isa<Float16Type, BFloat16Type, Float32Type>(elementType)
              : !elementType.isF32())
    return emitError() << "a tile in role " << stringifyTileRole(role)
                       << " holds " << (operand ? "f16, bf16 or f32" : "f32")
                       << ", not " << elementType;
  if ((role == TileRole::rows && shape[1] != 1) ||
      (role == TileRole::cols && shape[0] != 1))
    return emitError() << "a tile in role " << stringifyTileRole(role) << " is "
                       << (role == TileRole::rows ? "Rx1" : "1xC") << ", not "
                       << shape[0] << "x" << shape[1];
  if (grid.size() != strides.size() || (!grid.empty() && grid.size() != 2))
    return emitError() << "a workgroup tile's subgroup grid and strides are "
                          "2-D";
  SmallVector<int64_t, 2> block(shape);
  for (unsigned d = 0; d < grid.size(); ++d) {
    if (grid[d] <= 0 || strides[d] <= 0)
      return emitError() << "a subgroup grid is positive, got " << grid[0]
                         << "x" << grid[1] << " strides " << strides[0] << "x"
                         << strides[1];
    if (grid[d] == 1 && strides[d] != 1)
      return emitError() << "a dimension the subgroups do not split has "
                            "stride 1, got "
                         << strides[d];
    if (shape[d] % grid[d])
      return emitError() << "a " << shape[0] << "x" << shape[1]
                         << " tile does not split into " << grid[0] << "x"
                         << grid[1] << " subgroup blocks";
    block[d] = shape[d] / grid[d];
  }
  int64_t rows = atomExtent(*matrixAtom, role, /*rows=*/true);
  int64_t cols = atomExtent(*matrixAtom, role, /*rows=*/false);
  if (block[0] % rows || block[1] % cols)
    return emitError() << "a " << block[0] << "x" << block[1]
                       << (grid.empty() ? " tile" : " subgroup block")
                       << " is no grid of " << rows << "x" << cols
                       << " atoms ('" << atom << "' in role "
                       << stringifyTileRole(role) << ")";
  return success();
}

TileType TileType::split(ArrayRef<int64_t> grid,
                         ArrayRef<int64_t> strides) const {
  SmallVector<int64_t, 2> s = strides.empty()
                                  ? rowMajorStrides(grid)
                                  : SmallVector<int64_t, 2>(strides);
  for (unsigned d = 0; d < 2; ++d)
    if (grid[d] == 1)
      s[d] = 1;
  return get(getContext(), getShape(), getElementType(), getRole(), getAtom(),
             grid, s);
}

TileType TileType::getSubgroupTile() const {
  if (!isWorkgroupTile())
    return *this;
  return get(
      getContext(),
      {getShape()[0] / getSubgroups()[0], getShape()[1] / getSubgroups()[1]},
      getElementType(), getRole(), getAtom());
}

int64_t TileType::getSplitParts(unsigned dim) const {
  return isWorkgroupTile() ? getSubgroups()[dim] : 1;
}

int64_t TileType::getSplitStride(unsigned dim) const {
  return isWorkgroupTile() ? getSubgroupStrides()[dim] : 1;
}

// !fmha.fetched<64x128xbf16, chunk 1x8, threads 256>
Type FetchedType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape, chunk;
  Type elementType;
  int64_t threads = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeyword("chunk") ||
      parser.parseDimensionList(chunk, /*allowDynamic=*/false,
                                /*withTrailingX=*/false) ||
      parser.parseComma() || parser.parseKeyword("threads") ||
      parser.parseInteger(threads))
    return Type();
  bool coreMatrixOrder = succeeded(parser.parseOptionalComma());
  if ((coreMatrixOrder && parser.parseKeyword("core_matrices")) ||
      parser.parseGreater())
    return Type();
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType, chunk, threads,
                    coreMatrixOrder);
}

void FetchedType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", chunk ";
  printer.printDimensionList(getChunk());
  printer << ", threads " << getThreads();
  if (getCoreMatrixOrder())
    printer << ", core_matrices";
  printer << ">";
}

LogicalResult FetchedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  ArrayRef<int64_t> chunk, int64_t threads,
                                  bool coreMatrixOrder) {
  if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0)
    return emitError() << "a fetched tile has 2 positive dimensions";
  if (!isa<FloatType>(elementType))
    return emitError() << "a fetched tile holds floats, not " << elementType;
  if (chunk.size() != 2 || chunk[0] <= 0 || chunk[1] <= 0 ||
      shape[0] % chunk[0] || shape[1] % chunk[1])
    return emitError() << "the chunk of a fetched tile divides its " << shape[0]
                       << "x" << shape[1] << " shape";
  if (chunk[0] != 1 && chunk[0] != chunk[1])
    return emitError() << "a fetched tile's chunks are rows (1xW) or square "
                          "(WxW), not "
                       << chunk[0] << "x" << chunk[1];
  if (coreMatrixOrder && (chunk[0] != 1 || chunk[1] != 8 || shape[0] % 8))
    return emitError() << "core-matrix order takes 1x8 chunks of whole 8-row "
                          "blocks";
  int64_t chunks = shape[0] / chunk[0] * (shape[1] / chunk[1]);
  if (threads <= 0 || chunks % threads)
    return emitError() << "the " << chunks
                       << " chunks of a fetched tile do not split evenly over "
                       << threads << " threads";
  return success();
}

bool rocke::fmha::isWorkgroupTile(Type type) {
  auto tile = dyn_cast<TileType>(type);
  return tile && tile.isWorkgroupTile();
}

int64_t rocke::fmha::atomRowBytes(MemRefType type) {
  int64_t rank = type.getRank();
  if (rank != 4 && rank != 5)
    return 0;
  int64_t rowBytes =
      type.getDimSize(rank - 1) * type.getElementTypeBitWidth() / 8;
  if (type.getDimSize(rank - 2) != 8 || (rowBytes != 16 && rowBytes != 128))
    return 0;
  return rowBytes;
}

bool rocke::fmha::hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

SmallVector<int64_t, 2> FetchedType::chunkForCopy(MemRefType source,
                                                  int64_t rows, int64_t threads,
                                                  bool transposing) {
  // The rows' length: the head dim, innermost in [B, S, H, D] and in a
  // packed batch's [T, H, D] alike.
  int64_t cols = source.getDimSize(source.getRank() - 1);
  int64_t width = 1;
  // The widest vector that divides the row (and, for square chunks, the
  // rows); with a transpose the widest whose chunks split evenly over the
  // threads, so the copy can be fetched and placed.
  bool unitInner = hasUnitInnerStride(source);
  for (int64_t w : {8, 4, 2}) {
    if (!unitInner || cols % w != 0 || (transposing && rows % w != 0))
      continue;
    if (width == 1)
      width = w;
    if (!transposing || (rows / w) * (cols / w) % threads == 0) {
      width = w;
      break;
    }
  }
  return {transposing ? width : 1, width};
}

FetchedType FetchedType::getForCopy(MemRefType source, int64_t rows,
                                    int64_t threads, bool transposing,
                                    bool coreMatrixOrder) {
  SmallVector<int64_t, 2> chunk =
      chunkForCopy(source, rows, threads, transposing);
  int64_t cols = source.getDimSize(source.getRank() - 1);
  if (ShapedType::isDynamic(cols) ||
      rows / chunk[0] * (cols / chunk[1]) % threads)
    return FetchedType();
  if (coreMatrixOrder && (chunk[1] != 8 || rows % 8))
    return FetchedType();
  return get(source.getContext(), {rows, cols}, source.getElementType(), chunk,
             threads, coreMatrixOrder);
}

const rocke::MatrixAtom &TileType::getMatrixAtom() const {
  return *rocke::lookupAtom(getAtom());
}

int64_t TileType::getAtomRows() const {
  return atomExtent(getMatrixAtom(), getRole(), /*rows=*/true);
}

int64_t TileType::getAtomCols() const {
  return atomExtent(getMatrixAtom(), getRole(), /*rows=*/false);
}

rocke::MatrixOperand TileType::getMatrixOperand() const {
  switch (getRole()) {
  case TileRole::a:
    return rocke::MatrixOperand::A;
  case TileRole::b:
    return rocke::MatrixOperand::B;
  case TileRole::c:
  case TileRole::rows:
  case TileRole::cols:
    return rocke::MatrixOperand::C;
  }
  llvm_unreachable("unknown tile role");
}

bool TileType::isLineVector() const {
  return getRole() == TileRole::rows || getRole() == TileRole::cols;
}

VectorType TileType::getFragmentType() const {
  const rocke::MatrixAtom &atom = getMatrixAtom();
  if (isLineVector())
    return VectorType::get(
        {int64_t(
            rocke::accumulatorLines(atom, getRole() == TileRole::rows).size())},
        getElementType());
  return VectorType::get({atom.regs(getMatrixOperand())}, getElementType());
}
