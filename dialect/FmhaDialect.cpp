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
                     "tile role must be a, b or c, got '")
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
  if (role == TileRole::c
          ? !elementType.isF32()
          : !isa<Float16Type, BFloat16Type, Float32Type>(elementType))
    return emitError() << "a tile in role " << stringifyTileRole(role)
                       << " holds "
                       << (role == TileRole::c ? "f32" : "f16, bf16 or f32")
                       << ", not " << elementType;
  int64_t rows = role == TileRole::b ? matrixAtom->k : matrixAtom->m;
  int64_t cols = role == TileRole::a ? matrixAtom->k : matrixAtom->n;
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
  const rocke::MatrixAtom &a = getMatrixAtom();
  return getRole() == TileRole::b ? a.k : a.m;
}

int64_t TileType::getAtomCols() const {
  const rocke::MatrixAtom &a = getMatrixAtom();
  return getRole() == TileRole::a ? a.k : a.n;
}

rocke::MatrixOperand TileType::getMatrixOperand() const {
  switch (getRole()) {
  case TileRole::a:
    return rocke::MatrixOperand::A;
  case TileRole::b:
    return rocke::MatrixOperand::B;
  case TileRole::c:
    return rocke::MatrixOperand::C;
  }
  llvm_unreachable("unknown tile role");
}

VectorType TileType::getFragmentType() const {
  return VectorType::get({getMatrixAtom().regs(getMatrixOperand())},
                         getElementType());
}
