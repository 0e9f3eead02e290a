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
  /// MFMA: a lane's A and B registers run through k in blocks of `kRun`
  /// elements, block b of lane group g at k = kRun * (g + groups * b), the
  /// order of the C layout's rows; 0: one block, the instruction's own
  /// order. The instruction sums over k in any order both operands share,
  /// so with kRun = 4 an accumulator fragment is a B fragment as it stands
  /// (gfx950's 16x16x32 and 32x32x16, whose own order gives a lane 8
  /// consecutive k).
  int kRun = 0;

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
/// fragment is the A fragment of the transpose. `origin` is where the
/// fragment's first element of X sits in its producer atom, when fragments
/// are smaller than the producer's atoms (accumulatorOrigins).
std::optional<llvm::SmallVector<RegisterSource>>
operandFromAccumulators(const MatrixAtom &producer, const MatrixAtom &consumer,
                        MatrixOperand operand, bool transposed,
                        FragmentCoord origin = {0, 0});

/// Where in a producer atom the fragments of a tile of `consumer` operands
/// holding X (X^T when `transposed`) start, given that they tile X: {0, 0}
/// along a dimension where the consumer's extent is a multiple of the
/// producer's, every multiple of the consumer's extent where it divides the
/// producer's (32x32 accumulators as B fragments 16 deep: rows 0 and 16);
/// empty when along some dimension neither divides the other.
llvm::SmallVector<FragmentCoord>
accumulatorOrigins(const MatrixAtom &producer, const MatrixAtom &consumer,
                   MatrixOperand operand, bool transposed);

/// operandFromAccumulators holds at every origin a tile's fragments take.
bool operandTileFromAccumulators(const MatrixAtom &producer,
                                 const MatrixAtom &consumer,
                                 MatrixOperand operand, bool transposed);

/// gfx950's ds_read_b64_tr_b16 reads a 4 x 16 block of 16-bit elements per
/// group of 16 lanes: lane i of the group gives the address of row i / 4
/// (its elements 4 (i % 4) to 4 (i % 4) + 3), and lane j receives column j,
/// one element of each row. Read out of a buffer whose rows run along k (A
/// stored [k][m], B stored [k][n]), four consecutive k of a fragment whose
/// group's lanes hold 16 consecutive m (n) are one such read.
///
/// The operand coordinate whose element lane `lane` gives the address of
/// when registers [reg, reg + 4) of an `operand` fragment are read so: its
/// row of the block is k, its first element the m (n) of the lane at
/// 4 (lane % 4) of its group.
FragmentCoord transposedReadAddress(const MatrixAtom &atom,
                                    MatrixOperand operand, int lane, int reg);
/// Can every register of an `operand` fragment (A or B of a 64-lane atom)
/// come from these reads, four at a time (checked lane by lane against
/// the instruction)?
bool fitsTransposedReads(const MatrixAtom &atom, MatrixOperand operand);

/// All atoms this project knows, and a lookup by name (nullptr if unknown).
llvm::ArrayRef<MatrixAtom> knownAtoms();
const MatrixAtom *lookupAtom(llvm::StringRef name);

} // namespace rocke

#endif
