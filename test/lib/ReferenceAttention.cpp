//===- ReferenceAttention.cpp - float64 attention reference ---------------===//
#include "ReferenceAttention.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace rocke::reference;

bool Mask::visible(int64_t q, int64_t k, int64_t seqQ, int64_t seqK) const {
  // The diagonal passes through the top-left or the bottom-right corner.
  int64_t d = q + (bottomRight ? seqK - seqQ : 0);
  switch (kind) {
  case MaskKind::None:
    return true;
  case MaskKind::Causal:
    return k <= d;
  case MaskKind::SlidingWindow:
    return d - left <= k && k <= d + right;
  case MaskKind::OneSidedWindow:
    return d - k < left;
  }
  return false;
}

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// Softmax row of query (b, h, i): P[j] over all keys (0 where masked), the
/// scaled (and modified) scores (-inf where masked) with the score_mod's
/// slopes, their max and exp-sum (with the head's sink, whose probability
/// is `sinkProb`); `empty` for a row without sink, visible keys or finite
/// scores.
struct Row {
  std::vector<double> score, slope, prob;
  /// Z / (1 - p) of each key: what dropout multiplies P by (1 without).
  std::vector<double> kept;
  double max = kNegInf, sum = 0.0, sinkProb = 0.0;
  bool empty = true;
};

Row softmaxRow(const Problem &p, const std::vector<double> &q,
               const std::vector<double> &k, int64_t b, int64_t h, int64_t i) {
  Row r;
  r.score.assign(p.seqK, kNegInf);
  r.slope.assign(p.seqK, 1.0);
  r.prob.assign(p.seqK, 0.0);
  r.kept.assign(p.seqK, 1.0);
  if (p.dropout)
    for (int64_t j = 0; j < p.seqK; ++j)
      r.kept[j] = p.dropout(b, h, i, j) ? p.dropoutScale : 0.0;
  int64_t hk = p.kvHead(h);
  for (int64_t j = 0; j < p.seqK; ++j) {
    if (!p.mask.visible(i, j, p.seqQ, p.seqK))
      continue;
    double s = 0.0;
    for (int64_t d = 0; d < p.headDimQK; ++d)
      s += q[p.q(b, i, h, d)] * k[p.k(b, j, hk, d)];
    r.score[j] = s * p.scale;
    if (p.scoreMod) {
      ModifiedScore m = p.scoreMod(r.score[j], b, h, i, j);
      r.score[j] = m.value;
      r.slope[j] = m.slope;
    }
    if (!p.bias.empty())
      r.score[j] += p.bias[p.biasAt(b, h, i, j)];
    r.max = std::max(r.max, r.score[j]);
  }
  double sink = p.sinks.empty() ? kNegInf : p.sinks[h];
  r.max = std::max(r.max, sink);
  r.empty = r.max == kNegInf;
  if (r.empty)
    return r;
  for (int64_t j = 0; j < p.seqK; ++j)
    if (r.score[j] != kNegInf)
      r.sum += (r.prob[j] = std::exp(r.score[j] - r.max));
  if (sink != kNegInf)
    r.sum += (r.sinkProb = std::exp(sink - r.max));
  for (double &x : r.prob)
    x /= r.sum;
  r.sinkProb /= r.sum;
  return r;
}
} // namespace

Forward rocke::reference::forward(const Problem &p,
                                  const std::vector<double> &q,
                                  const std::vector<double> &k,
                                  const std::vector<double> &v) {
  Forward f;
  f.out.assign(p.batch * p.seqQ * p.headsQ * p.headDimV, 0.0);
  int64_t nStats = p.batch * p.headsQ * p.seqQ;
  f.lse.assign(nStats, kNegInf);
  f.max2.assign(nStats, kNegInf);
  f.sum2.assign(nStats, 0.0);
  const double log2e = 1.0 / std::log(2.0);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.headsQ; ++h)
      for (int64_t i = 0; i < p.seqQ; ++i) {
        Row r = softmaxRow(p, q, k, b, h, i);
        if (r.empty)
          continue;
        int64_t hk = p.kvHead(h);
        for (int64_t d = 0; d < p.headDimV; ++d) {
          double acc = 0.0;
          for (int64_t j = 0; j < p.seqK; ++j)
            acc += r.prob[j] * r.kept[j] * v[p.v(b, j, hk, d)];
          f.out[p.o(b, i, h, d)] = acc;
        }
        int64_t s = p.stat(b, h, i);
        f.lse[s] = r.max + std::log(r.sum);
        f.max2[s] = r.max * log2e;
        double sum2 = 0.0;
        for (int64_t j = 0; j < p.seqK; ++j)
          if (r.score[j] != kNegInf)
            sum2 += std::exp2(r.score[j] * log2e - f.max2[s]);
        if (!p.sinks.empty())
          sum2 += std::exp2(p.sinks[h] * log2e - f.max2[s]);
        f.sum2[s] = sum2;
      }
  return f;
}

Gradients rocke::reference::backward(const Problem &p,
                                     const std::vector<double> &q,
                                     const std::vector<double> &k,
                                     const std::vector<double> &v,
                                     const std::vector<double> &out,
                                     const std::vector<double> &dout) {
  Gradients g;
  g.dq.assign(q.size(), 0.0);
  g.dk.assign(k.size(), 0.0);
  g.dv.assign(v.size(), 0.0);
  g.dsink.assign(p.sinks.size(), 0.0);
  g.dbias.assign(p.bias.size(), 0.0);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.headsQ; ++h)
      for (int64_t i = 0; i < p.seqQ; ++i) {
        Row r = softmaxRow(p, q, k, b, h, i);
        if (r.empty)
          continue;
        int64_t hk = p.kvHead(h);
        double rowD = 0.0;
        for (int64_t d = 0; d < p.headDimV; ++d)
          rowD += dout[p.o(b, i, h, d)] * out[p.o(b, i, h, d)];
        // The sink is a key with no value: dP = 0, so dS_sink = -P_sink D.
        if (!p.sinks.empty())
          g.dsink[h] -= r.sinkProb * rowD;
        for (int64_t j = 0; j < p.seqK; ++j) {
          double pij = r.prob[j];
          if (pij == 0.0)
            continue;
          double dp = 0.0;
          for (int64_t d = 0; d < p.headDimV; ++d) {
            dp += dout[p.o(b, i, h, d)] * v[p.v(b, j, hk, d)];
            g.dv[p.v(b, j, hk, d)] += pij * r.kept[j] * dout[p.o(b, i, h, d)];
          }
          dp *= r.kept[j];
          // dS' with respect to the biased score, then through the
          // score_mod's slope.
          double dsModified = pij * (dp - rowD);
          if (!p.bias.empty())
            g.dbias[p.biasAt(b, h, i, j)] += dsModified;
          double ds = dsModified * r.slope[j];
          for (int64_t d = 0; d < p.headDimQK; ++d) {
            g.dq[p.q(b, i, h, d)] += p.scale * ds * k[p.k(b, j, hk, d)];
            g.dk[p.k(b, j, hk, d)] += p.scale * ds * q[p.q(b, i, h, d)];
          }
        }
      }
  return g;
}

double rocke::reference::rowLoss(const Problem &p, const std::vector<double> &q,
                                 const std::vector<double> &k,
                                 const std::vector<double> &v,
                                 const std::vector<double> &dout, int64_t b,
                                 int64_t h, int64_t i) {
  Row r = softmaxRow(p, q, k, b, h, i);
  if (r.empty)
    return 0.0;
  int64_t hk = p.kvHead(h);
  double loss = 0.0;
  for (int64_t d = 0; d < p.headDimV; ++d) {
    double o = 0.0;
    for (int64_t j = 0; j < p.seqK; ++j)
      o += r.prob[j] * r.kept[j] * v[p.v(b, j, hk, d)];
    loss += o * dout[p.o(b, i, h, d)];
  }
  return loss;
}

std::array<uint32_t, 4>
rocke::reference::philox4x32_10(std::array<uint32_t, 4> counter,
                                std::array<uint32_t, 2> key) {
  std::array<uint32_t, 4> c = counter;
  std::array<uint32_t, 2> k = key;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
    uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
  }
  return c;
}

rocke::reference::DropoutMask rocke::reference::philoxDropout(uint64_t seed,
                                                              uint64_t offset,
                                                              float p,
                                                              int64_t headsQ) {
  return [=](int64_t b, int64_t h, int64_t i, int64_t j) {
    uint64_t n = offset + uint64_t(b * headsQ + h);
    uint32_t x = philox4x32_10(
        {uint32_t(j), uint32_t(i), uint32_t(n), uint32_t(n >> 32)},
        {uint32_t(seed), uint32_t(seed >> 32)})[0];
    return std::ldexp(double(x), -32) >= double(p);
  };
}
