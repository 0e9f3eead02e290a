//===- ReferenceAttention.h - float64 attention reference for the tests ---===//
//
// The independent side of the CPU oracle (issue 3): attention forward and
// backward written as textbook float64 loops over dense row-major arrays. It
// deliberately shares no code with the lowerings (not even dialect/Mask.h):
// the mask is re-derived from the kind definitions in the op description.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_TEST_LIB_REFERENCEATTENTION_H
#define ROCKE_TEST_LIB_REFERENCEATTENTION_H

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace rocke::reference {

enum class MaskKind { None, Causal, SlidingWindow, OneSidedWindow };

struct Mask {
  MaskKind kind = MaskKind::None;
  bool bottomRight = false;
  int64_t left = -1;
  int64_t right = -1;

  /// Whether key `k` is visible from query `q` (Sq = seqQ, Sk = seqK).
  bool visible(int64_t q, int64_t k, int64_t seqQ, int64_t seqK) const;
};

/// A score modification at one (query, key) pair: s' and ds'/ds.
struct ModifiedScore {
  double value, slope;
};
/// s' = f(s, batch, head, query, key) of each scaled score s = scale * q.k,
/// applied before the mask (FlexAttention's score_mod); none: s' = s.
using ScoreMod = std::function<ModifiedScore(double s, int64_t b, int64_t h,
                                             int64_t i, int64_t j)>;

/// Dropout's mask Z at (batch b, query head h, query i, key j): whether the
/// probability P[i, j] is kept (README's definition, from philox4x32_10).
using DropoutMask =
    std::function<bool(int64_t b, int64_t h, int64_t i, int64_t j)>;

/// Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32_R(10, ...)):
/// four 32-bit output words of a counter and a key, written from the paper.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                      std::array<uint32_t, 2> key);

/// The dropout mask of seed and offset for drop probability p (f32) and Hq
/// query heads: Z = x * 2^-32 >= p, x the first word of Philox4x32-10 of
/// key (seed lo, seed hi) and counter (j, i, n lo, n hi), n = offset + b Hq
/// + h (mod 2^64).
DropoutMask philoxDropout(uint64_t seed, uint64_t offset, float p,
                          int64_t headsQ);

struct Problem {
  int64_t batch = 1, seqQ = 1, seqK = 1, headsQ = 1, headsKV = 1;
  int64_t headDimQK = 64, headDimV = 64;
  double scale = 0.125;
  Mask mask;
  ScoreMod scoreMod;
  /// Attention sinks: one logit per query head in every row's softmax
  /// denominator (empty: none).
  std::vector<double> sinks;
  /// Additive bias [biasBatch, biasHeads, Sq, Sk] added to each (modified)
  /// score (empty: none); extents of 1 broadcast over the batch and heads.
  std::vector<double> bias;
  int64_t biasBatch = 1, biasHeads = 1;
  /// Dropout on P (none: keep all): kept probabilities are multiplied by
  /// dropoutScale = 1 / (1 - p), dropped ones are 0; the statistics are
  /// those of the undropped softmax.
  DropoutMask dropout;
  double dropoutScale = 1.0;

  int64_t kvHead(int64_t h) const { return h / (headsQ / headsKV); }
  /// Flat offsets into dense [B, S, H, D] and [B, Hq, Sq] arrays.
  static int64_t at(int64_t b, int64_t s, int64_t h, int64_t d, int64_t seq,
                    int64_t heads, int64_t dim) {
    return ((b * seq + s) * heads + h) * dim + d;
  }
  int64_t q(int64_t b, int64_t i, int64_t h, int64_t d) const {
    return at(b, i, h, d, seqQ, headsQ, headDimQK);
  }
  int64_t k(int64_t b, int64_t j, int64_t h, int64_t d) const {
    return at(b, j, h, d, seqK, headsKV, headDimQK);
  }
  int64_t v(int64_t b, int64_t j, int64_t h, int64_t d) const {
    return at(b, j, h, d, seqK, headsKV, headDimV);
  }
  int64_t o(int64_t b, int64_t i, int64_t h, int64_t d) const {
    return at(b, i, h, d, seqQ, headsQ, headDimV);
  }
  int64_t stat(int64_t b, int64_t h, int64_t i) const {
    return (b * headsQ + h) * seqQ + i;
  }
  int64_t biasAt(int64_t b, int64_t h, int64_t i, int64_t j) const {
    int64_t bb = biasBatch == 1 ? 0 : b, bh = biasHeads == 1 ? 0 : h;
    return ((bb * biasHeads + bh) * seqQ + i) * seqK + j;
  }
};

/// O [B,Sq,Hq,Dv], lse [B,Hq,Sq] (natural log), and the log2_max_sum pair
/// max2 = max_k(s * scale * log2e), sum2 = sum_k exp2(s * scale * log2e -
/// max2), of the modified scores s' where the problem has a score_mod. A
/// query row without visible keys (or whose modified scores are all -inf)
/// has O = 0, lse = max2 = -inf and sum2 = 0; with sinks, the sink joins
/// each row's max and sum (such a row has lse = sink[h]).
struct Forward {
  std::vector<double> out, lse, max2, sum2;
};
Forward forward(const Problem &p, const std::vector<double> &q,
                const std::vector<double> &k, const std::vector<double> &v);

/// Gradients of loss = sum(O * dO), with P recomputed exactly from q and k
/// and D = rowsum(dO * out) taken from the given (stored) output; through a
/// score_mod by its slope ds'/ds. With sinks, dsink[h] = -sum over the
/// batch and rows of P_sink * D (empty without sinks); with a bias, dbias
/// = dS' = P (dP - D) summed over its broadcast dims (empty without). With
/// dropout, dV = (P Z / (1 - p))^T dO and dP = (dO V^T) Z / (1 - p).
struct Gradients {
  std::vector<double> dq, dk, dv, dsink, dbias;
};
Gradients backward(const Problem &p, const std::vector<double> &q,
                   const std::vector<double> &k, const std::vector<double> &v,
                   const std::vector<double> &out,
                   const std::vector<double> &dout);

/// sum_d O[b,i,h,d] * dO[b,i,h,d] for one query row: the loss of a finite
/// difference check, restricted to the rows an input element influences.
double rowLoss(const Problem &p, const std::vector<double> &q,
               const std::vector<double> &k, const std::vector<double> &v,
               const std::vector<double> &dout, int64_t b, int64_t h,
               int64_t i);

} // namespace rocke::reference

#endif
