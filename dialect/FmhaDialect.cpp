//===- FmhaDialect.cpp - fmha dialect registration and attributes ---------===//
#include "dialect/FmhaDialect.h"

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
                               int64_t left, int64_t right) {
  if (left < -1 || right < -1)
    return emitError() << "window extents must be non-negative, got left = "
                       << left << ", right = " << right;
  if (left > kMaxWindowExtent || right > kMaxWindowExtent)
    return emitError() << "window extents must be at most " << kMaxWindowExtent
                       << " (2^40, longer than any sequence), got left = "
                       << left << ", right = " << right;
  switch (kind) {
  case MaskKind::none:
  case MaskKind::causal:
    if (left != -1 || right != -1)
      return emitError() << "mask kind '" << stringifyMaskKind(kind)
                         << "' takes no window extents";
    if (kind == MaskKind::none && alignment != MaskAlignment::top_left)
      return emitError() << "mask kind 'none' takes no alignment";
    return success();
  case MaskKind::sliding_window:
    if (left == -1 || right == -1)
      return emitError()
             << "sliding_window needs both 'left' and 'right' extents";
    return success();
  case MaskKind::one_sided_window:
    if (left < 1)
      return emitError() << "one_sided_window needs a window 'left' >= 1";
    if (right != -1)
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
    band.lower = getLeft();
    band.upper = getRight();
    break;
  case MaskKind::one_sided_window:
    // q + off - k < W  <=>  k - (q + off) >= -(W - 1).
    band.lower = getLeft() - 1;
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

// !fmha.tile<32x64xf32, c, "atom">
Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  std::string role, atom;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeywordOrString(&role) || parser.parseComma() ||
      parser.parseString(&atom) || parser.parseGreater())
    return Type();
  std::optional<TileRole> parsedRole = symbolizeTileRole(role);
  if (!parsedRole) {
    parser.emitError(parser.getCurrentLocation(),
                     "tile role must be a, b, c, rows or cols, got '")
        << role << "'";
    return Type();
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType, *parsedRole, atom);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", " << stringifyTileRole(getRole())
          << ", \"" << getAtom() << "\">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               TileRole role, StringRef atom) {
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
  int64_t rows = atomExtent(*matrixAtom, role, /*rows=*/true);
  int64_t cols = atomExtent(*matrixAtom, role, /*rows=*/false);
  if (shape[0] % rows || shape[1] % cols)
    return emitError() << "a " << shape[0] << "x" << shape[1]
                       << " tile is no grid of " << rows << "x" << cols
                       << " atoms ('" << atom << "' in role "
                       << stringifyTileRole(role) << ")";
  return success();
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
