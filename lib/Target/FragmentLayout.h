//===- FragmentLayout.h - matrix-core fragment layouts ----------------------===//
//
// Where each lane's registers sit in the A, B and C/D matrices of one
// matrix-core instruction (AMD MFMA, NVIDIA mma.sync). Every lowering that
// distributes a block contraction onto these atoms takes its index maps from
// here; test/unit checks them against the instructions' documented layouts.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_TARGET_FRAGMENTLAYOUT_H
#define ROCKE_LIB_TARGET_FRAGMENTLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace rocke {

enum class MatrixOperand { A, B, C };

/// One matrix instruction: D[m x n] = A[m x k] * B[k x n] + C[m x n], executed
/// by `lanes` lanes; each lane holds `regs(operand)` elements of each operand.
struct MatrixAtom {
  llvm::StringRef name;
  int m, n, k;
  int lanes;
  enum class Family { MfmaSquare, MfmaWideK, MmaSync, Host } family;

  int regs(MatrixOperand operand) const;
  /// Host atoms run on the CPU: one "lane" holds the whole operand, row-major.
  bool isHost() const { return family == Family::Host; }
};

/// (row, col) of an element: A is indexed (m, k), B (k, n), C and D (m, n).
struct FragmentCoord {
  int row, col;
  bool operator==(const FragmentCoord &o) const {
    return row == o.row && col == o.col;
  }
};

/// The matrix coordinate held by register `reg` of lane `lane`.
FragmentCoord fragmentCoord(const MatrixAtom &atom, MatrixOperand operand,
                            int lane, int reg);

/// One lane-dependent term of a coordinate: ((lane / div) % mod) * mul.
struct LaneTerm {
  int div, mod, mul;
  int eval(int lane) const { return ((lane / div) % mod) * mul; }
};

/// Every known layout is additive: fragmentCoord(lane, reg) ==
/// laneOffset(lane) + regOffset(reg). Code generators compute the lane part
/// once from the lane id and add the per-register constants.
struct LaneOffset {
  LaneTerm row, col;
};
LaneOffset laneOffset(const MatrixAtom &atom, MatrixOperand operand);
FragmentCoord regOffset(const MatrixAtom &atom, MatrixOperand operand, int reg);

/// Do C fragments of `a` and `b` hold the same elements in the same lanes
/// and registers (MFMA 16x16x16 and 16x16x32, say)?
bool sameAccumulatorLayout(const MatrixAtom &a, const MatrixAtom &b);

/// The distinct row offsets (`alongRows`) or column offsets of the
/// registers of a C fragment, ascending: the values a lane holds of a vector
/// of per-row (per-column) values of an accumulator tile, one per row
/// (column) it touches. `slotOfReg`, when given, receives each register's
/// index into them.
llvm::SmallVector<int>
accumulatorLines(const MatrixAtom &atom, bool alongRows,
                 llvm::SmallVectorImpl<int> *slotOfReg = nullptr);

/// Where one register of an operand fragment is found among the accumulator
/// (C) fragments of a tile of `producer` atoms in the same lane: the C atom at
/// (atomRow, atomCol) of the tile, counted from the one holding the
/// fragment's first element, and its register `reg`.
struct RegisterSource {
  int atomRow, atomCol, reg;
  bool operator==(const RegisterSource &o) const {
    return atomRow == o.atomRow && atomCol == o.atomCol && reg == o.reg;
  }
};

/// Can a product's accumulators feed the next product without leaving
/// registers? For a matrix X held in C fragments of `producer` atoms, returns,
/// per register of the `operand` (A or B) fragment of `consumer` that holds X
/// (or X^T when `transposed`), the C register holding the same element in the
/// same lane; std::nullopt when some lane would need another lane's element
/// (then the value has to go through workgroup memory). mma.sync: two m16n8
/// accumulators are one m16k16 A fragment (not transposed); MFMA 16x16x16: a C
/// fragment is the A fragment of the transpose.
std::optional<llvm::SmallVector<RegisterSource>>
operandFromAccumulators(const MatrixAtom &producer, const MatrixAtom &consumer,
                        MatrixOperand operand, bool transposed);

/// All atoms this project knows, and a lookup by name (nullptr if unknown).
llvm::ArrayRef<MatrixAtom> knownAtoms();
const MatrixAtom *lookupAtom(llvm::StringRef name);

} // namespace rocke

#endif
