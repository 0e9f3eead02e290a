//===- FragmentLayout.h - matrix-core fragment layouts ----------------------===//
//
// Where each lane's registers sit in the A, B and C/D matrices of one
// matrix-core instruction (AMD MFMA, NVIDIA mma.sync). Every lowering that
// distributes a block contraction onto these atoms takes its index maps from
// here; test/unit checks them against the instructions' documented layouts.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_FRAGMENTLAYOUT_H
#define ROCKE_LIB_FRAGMENTLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace rocke {

enum class MatrixOperand { A, B, C };

/// One matrix instruction: D[m x n] = A[m x k] * B[k x n] + C[m x n], executed
/// by `lanes` lanes; each lane holds `regs(operand)` elements of each operand.
struct MatrixAtom {
  llvm::StringRef name;
  int m, n, k;
  int lanes;
  enum class Family { MfmaSquare, MfmaWideK, MmaSync } family;

  int regs(MatrixOperand operand) const;
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

/// All atoms this project knows, and a lookup by name (nullptr if unknown).
llvm::ArrayRef<MatrixAtom> knownAtoms();
const MatrixAtom *lookupAtom(llvm::StringRef name);

} // namespace rocke

#endif
