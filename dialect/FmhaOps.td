//===- FmhaOps.td - fmha dialect: attention forward/backward ops ---------===//
#ifndef ROCKE_FMHA_OPS
#define ROCKE_FMHA_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Fmha_Dialect : Dialect {
  let name = "fmha";
  let cppNamespace = "::rocke::fmha";
  let summary = "Fused multi-head attention forward and backward on memrefs";
  let description = [{
    Ops that compute scaled-dot-product attention and its gradients on
    memrefs with logical shape [batch, seq, heads, head_dim]. The physical
    layout (BSHD, BHSD, ...) comes from the memref's strides.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // arith and math: the named score modifiers' regions (ScoreMod.h).
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
}

// Every fmha op rejects attributes it does not define (a misspelt `mask`
// would otherwise be dropped); names with a '.', dialect-prefixed
// discardable attributes such as `rocke.*` or `llvm.*`, stay allowed.
def Fmha_KnownAttributesOnly : NativeOpTrait<"KnownAttributesOnly"> {
  let cppNamespace = "::rocke::fmha";
}

class Fmha_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fmha_Dialect, mnemonic,
         !listconcat([Fmha_KnownAttributesOnly], traits)>;

//===----------------------------------------------------------------------===//
// Enums and attributes
//===----------------------------------------------------------------------===//

def Fmha_MaskKind : I32EnumAttr<"MaskKind", "attention mask kind", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"causal", 1>,
    I32EnumAttrCase<"sliding_window", 2>,
    I32EnumAttrCase<"one_sided_window", 3>]> {
  let cppNamespace = "::rocke::fmha";
  let genSpecializedAttr = 0;
}

def Fmha_MaskAlignment : I32EnumAttr<"MaskAlignment",
    "which corner the mask diagonal starts from", [
    I32EnumAttrCase<"top_left", 0>,
    I32EnumAttrCase<"bottom_right", 1>]> {
  let cppNamespace = "::rocke::fmha";
  let genSpecializedAttr = 0;
}

def Fmha_StatsEncoding : I32EnumAttr<"StatsEncoding",
    "encoding of the softmax statistics", [
    I32EnumAttrCase<"lse", 0>,
    I32EnumAttrCase<"log2_max_sum", 1>]> {
  let cppNamespace = "::rocke::fmha";
  let genSpecializedAttr = 0;
}

def Fmha_StatsEncodingAttr : EnumAttr<Fmha_Dialect, Fmha_StatsEncoding, "stats"> {
  let assemblyFormat = "`<` $value `>`";
}

def Fmha_MaskAttr : AttrDef<Fmha_Dialect, "Mask"> {
  let mnemonic = "mask";
  let summary = "attention mask: a band of allowed keys around a diagonal";
  let description = [{
    With `off` = 0 (top_left) or Sk - Sq (bottom_right), key k is visible
    from query q when:
      - none:             always;
      - causal:           k <= q + off;
      - sliding_window:   q + off - left <= k <= q + off + right;
      - one_sided_window: q + off - k < left   (the origin system's window W).
    Extents are at most 2^40 (`kMaxWindowExtent`, longer than any sequence).
    Examples: `#fmha.mask<causal, alignment = bottom_right>`,
    `#fmha.mask<sliding_window, left = 128, right = 0>`,
    `#fmha.mask<one_sided_window, left = 256>`.
  }];
  let parameters = (ins
    EnumParameter<Fmha_MaskKind>:$kind,
    DefaultValuedParameter<"::rocke::fmha::MaskAlignment",
                           "::rocke::fmha::MaskAlignment::top_left">:$alignment,
    OptionalParameter<"std::optional<int64_t>">:$left,
    OptionalParameter<"std::optional<int64_t>">:$right);
  let assemblyFormat = [{
    `<` $kind (`,` struct($alignment, $left, $right)^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The band [-lower, +upper] of allowed (k - q - off); -1 = unbounded.
    ::rocke::fmha::MaskBand getBand() const;
  }];
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Fmha_AttentionOpBase<string mnemonic> : Fmha_Op<mnemonic,
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     AttrSizedOperandSegments, IsolatedFromAbove]> {
  code commonExtraDecls = [{
    /// The softmax scale, defaulting to 1/sqrt(Dqk).
    float getScaleOrDefault();
    /// The mask, defaulting to no mask.
    ::rocke::fmha::MaskAttr getMaskOrDefault();
    /// Whether the batch is packed (the `varlen` clause).
    bool isVarlen() { return static_cast<bool>(getCuSeqlensQ()); }
    /// The longest query / key sequence of a packed batch: the attribute, or
    /// the static token count (the verifier requires one of them).
    int64_t getMaxSeqlenQOrDefault();
    int64_t getMaxSeqlenKOrDefault();
  }];
  let hasVerifier = 1;
}

def Fmha_AttentionFwdOp : Fmha_AttentionOpBase<"attention_fwd"> {
  let summary = "attention forward: O = softmax(scale * Q K^T + mask) V";
  let description = [{
    Q [B, Sq, Hq, Dqk], K [B, Sk, Hkv, Dqk], V [B, Sk, Hkv, Dv] -> O
    [B, Sq, Hq, Dv] plus the softmax statistics the backward consumes:
    `lse` (natural-log log-sum-exp, [B, Hq, Sq] f32) or `log2_max_sum`
    (row max M and row sum L of exp2(s * scale * log2e - M), both
    [B, Hq, Sq] f32). Hq must be a multiple of Hkv (grouped-query
    attention). Fully masked rows produce O = 0 and LSE = -inf.

    ```mlir
    fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
        {mask = #fmha.mask<causal>}
        : memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16>
          -> memref<?x?x8x64xf16>, stats(memref<?x8x?xf32>)
    ```

    Variable-length (packed) batches: with `varlen(%cu_seqlens_q,
    %cu_seqlens_k)`, sequence b's queries are tokens [cu_seqlens_q[b],
    cu_seqlens_q[b+1]) of Q [T_q, Hq, Dqk] and O, its keys tokens
    [cu_seqlens_k[b], cu_seqlens_k[b+1]) of K [T_k, Hkv, Dqk] and V (the
    [B+1] i32 offsets FlashAttention's varlen API takes). Masks, GQA and
    the statistics apply within each sequence (bottom_right aligns with
    each sequence's own Sk - Sq). The statistics are [Hq, T_q]: the
    FlashAttention-2 varlen layout, one row per packed query token with no
    padding, so a sequence's rows start at its query offset.
    `max_seqlen_q` / `max_seqlen_k` bound every sequence's length (they
    size the launch grid); they default to T_q / T_k where those are
    static. The offsets are trusted as FlashAttention trusts them:
    non-decreasing, within [0, T], lengths at most the maxima.

    ```mlir
    fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
        {max_seqlen_q = 512, max_seqlen_k = 512}
        : memref<?x8x64xf16>, memref<?x8x64xf16>, memref<?x8x64xf16>
          -> memref<?x8x64xf16>, stats(memref<8x?xf32>)
          varlen(memref<?xi32>, memref<?xi32>)
    ```

    Score modification (`score_mod`): each scaled score s = scale * q.k
    becomes s' = f(s, batch, head, query, key, captures...) before the
    mask and the softmax (FlexAttention's score_mod); the statistics are
    those of s'. The region's block arguments are the score (f32), the
    batch (sequence of a packed batch), the query head, the query and key
    positions (index; within the sequence) and one per captured operand
    (memrefs of f32 listed after `score_mod`); its body holds the closed
    op set of dialect/ScoreMod.cpp and ends in `fmha.yield` of s'. The
    named modifiers are shorthands that the parser expands into regions:
    `score_mod softcap(30.0)` (cap * tanh(s / cap)) and
    `score_mod alibi(%slopes : memref<Hqxf32>)` (s - slopes[h] * |q - k|;
    slopes [Hq] or [B, Hq]).

    ```mlir
    fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
        : memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16>
          -> memref<?x?x8x64xf16>, stats(memref<?x8x?xf32>)
        score_mod(%slopes : memref<8xf32>) {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index,
         %sl: memref<8xf32>):
      %m = memref.load %sl[%h] : memref<8xf32>
      %t = arith.mulf %s, %m : f32
      fmha.yield %t : f32
    }
    ```

    Attention sinks (`sinks(%s)`, GPT-OSS): one learnable logit per query
    head (f32 [Hq]) that joins every row's softmax denominator as a key
    with no value: P = exp(s' - lse) with lse = log(exp(sink[h]) + sum_k
    exp(s'_k)), and the statistics include it (a row that sees no key has
    O = 0 and lse = sink[h]).

    Additive bias (`bias(%bias)`): [B or 1, Hq or 1, Sq, Sk], f32 or the
    query's element type, broadcast over the batch and heads where its
    extent is 1, added to the (modified) scores: s' = f(scale q.k) +
    bias[b, h, q, k], before the mask; dense batches only.

    Dropout (`dropout(%seed_offset, p = 0.1)`, FlashAttention-2's): P
    becomes P * Z / (1 - p) before it multiplies V, Z[b, h, q, k] =
    (u >= p) with u = philox4x32_10(key = seed, counter = (k, q, n lo, n
    hi))[0] * 2^-32, n = offset + b * Hq + h (README: the exact
    definition); %seed_offset is an i64 [2] memref {seed, offset} in
    device memory (read by the kernels, so a captured CUDA graph replays
    with new values). The statistics are those of the undropped softmax.
  }];
  let arguments = (ins
    AnyMemRef:$query, AnyMemRef:$key, AnyMemRef:$value,
    AnyMemRef:$out, Variadic<AnyMemRef>:$stats,
    Optional<AnyMemRef>:$cu_seqlens_q, Optional<AnyMemRef>:$cu_seqlens_k,
    Variadic<AnyMemRef>:$captures, Optional<AnyMemRef>:$sinks,
    Optional<AnyMemRef>:$bias, Optional<AnyMemRef>:$dropout_seed_offset,
    OptionalAttr<F32Attr>:$dropout_p,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<Fmha_MaskAttr>:$mask,
    DefaultValuedAttr<Fmha_StatsEncodingAttr,
                      "::rocke::fmha::StatsEncoding::lse">:$stats_encoding,
    OptionalAttr<I64Attr>:$max_seqlen_q,
    OptionalAttr<I64Attr>:$max_seqlen_k);
  let regions = (region MaxSizedRegion<1>:$score_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value `->` $out `,` `stats` `(` $stats `)`
    (`varlen` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `)`)?
    (`sinks` `(` $sinks^ `)`)? (`bias` `(` $bias^ `)`)?
    (`dropout` `(` $dropout_seed_offset^ `,` `p` `=` $dropout_p `)`)?
    attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($out) `,`
    `stats` `(` type($stats) `)`
    (`varlen` `(` type($cu_seqlens_q)^ `,` type($cu_seqlens_k) `)`)?
    (`sinks` `(` type($sinks)^ `)`)? (`bias` `(` type($bias)^ `)`)?
    (`dropout` `(` type($dropout_seed_offset)^ `)`)?
    (`score_mod` custom<ScoreMod>($captures, type($captures), $score_mod)^)?
  }];
  let extraClassDeclaration = commonExtraDecls;
}

def Fmha_AttentionBwdOp : Fmha_AttentionOpBase<"attention_bwd"> {
  let summary = "attention backward: dQ, dK, dV from dO and the statistics";
  let description = [{
    With P recomputed from the saved statistics:
    dV = P^T dO; dP = dO V^T; D = rowsum(dO * O); dS = P * (dP - D);
    dQ = scale * dS K; dK = scale * dS^T Q. For GQA, dK/dV of a kv head
    sum over its query heads. `deterministic` asks for run-to-run
    bitwise-identical gradients; `accumulator_type` (f32 or bf16) is the
    element type of the global gradient accumulators.

    ```mlir
    fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
        {mask = #fmha.mask<causal, alignment = bottom_right>}
        : memref<2x128x8x64xf16>, memref<2x128x8x64xf16>,
          memref<2x128x8x64xf16>, memref<2x128x8x64xf16>,
          memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
          -> memref<2x128x8x64xf16>, memref<2x128x8x64xf16>,
             memref<2x128x8x64xf16>
    ```

    With `varlen(%cu_seqlens_q, %cu_seqlens_k)` the batch is packed as for
    fmha.attention_fwd: Q, O, dO, dQ [T_q, H, D], K, V, dK, dV [T_k, Hkv,
    D], statistics [Hq, T_q], `max_seqlen_q` / `max_seqlen_k` as there.

    A `score_mod` is that of fmha.attention_fwd (the statistics must be of
    the same modified scores: where a forward in the same block writes the
    statistics, the verifier requires its score_mod). The lowerings derive
    d(s')/d(s) from the region: dS with respect to the scaled score is
    P (dP - D) d(s')/d(s).

    With `sinks(%s)` (those of the forward: its statistics include them,
    so dQ, dK and dV need nothing more), `grad_sinks(%ds)` (f32 [Hq])
    receives dSink[h] = -sum over the batch and rows of exp(sink[h] - lse)
    * D, D = rowsum(dO * O).

    With `bias(%bias)` (that of the forward), `grad_bias(%db)` (f32, the
    bias's shape) receives dBias = dS', the gradient with respect to the
    biased score P (dP - D), summed over the dims the bias broadcasts.

    With `dropout(%seed_offset, p = ...)` (that of the forward; it
    regenerates the forward's mask Z): dV = (P * Z / (1 - p))^T dO, dP =
    (dO V^T) * Z / (1 - p), D = rowsum(dO * O), dS = P (dP - D).
  }];
  let arguments = (ins
    AnyMemRef:$query, AnyMemRef:$key, AnyMemRef:$value,
    AnyMemRef:$out, AnyMemRef:$grad_out, Variadic<AnyMemRef>:$stats,
    AnyMemRef:$grad_query, AnyMemRef:$grad_key, AnyMemRef:$grad_value,
    Optional<AnyMemRef>:$cu_seqlens_q, Optional<AnyMemRef>:$cu_seqlens_k,
    Variadic<AnyMemRef>:$captures, Optional<AnyMemRef>:$sinks,
    Optional<AnyMemRef>:$grad_sinks, Optional<AnyMemRef>:$bias,
    Optional<AnyMemRef>:$grad_bias, Optional<AnyMemRef>:$dropout_seed_offset,
    OptionalAttr<F32Attr>:$dropout_p,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<Fmha_MaskAttr>:$mask,
    DefaultValuedAttr<Fmha_StatsEncodingAttr,
                      "::rocke::fmha::StatsEncoding::lse">:$stats_encoding,
    UnitAttr:$deterministic,
    OptionalAttr<TypeAttr>:$accumulator_type,
    OptionalAttr<I64Attr>:$max_seqlen_q,
    OptionalAttr<I64Attr>:$max_seqlen_k);
  let regions = (region MaxSizedRegion<1>:$score_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $out `,` $grad_out `,` `stats` `(` $stats `)`
    (`varlen` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `)`)?
    (`sinks` `(` $sinks^ `)`)? (`bias` `(` $bias^ `)`)?
    (`dropout` `(` $dropout_seed_offset^ `,` `p` `=` $dropout_p `)`)?
    `->` $grad_query `,` $grad_key `,` $grad_value
    (`grad_sinks` `(` $grad_sinks^ `)`)? (`grad_bias` `(` $grad_bias^ `)`)?
    attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($out) `,`
    type($grad_out) `,` `stats` `(` type($stats) `)`
    (`varlen` `(` type($cu_seqlens_q)^ `,` type($cu_seqlens_k) `)`)?
    (`sinks` `(` type($sinks)^ `)`)? (`bias` `(` type($bias)^ `)`)?
    (`dropout` `(` type($dropout_seed_offset)^ `)`)?
    `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
    (`grad_sinks` `(` type($grad_sinks)^ `)`)?
    (`grad_bias` `(` type($grad_bias)^ `)`)?
    (`score_mod` custom<ScoreMod>($captures, type($captures), $score_mod)^)?
  }];
  let extraClassDeclaration = commonExtraDecls # [{
    /// Element type of the gradient accumulators (default f32).
    ::mlir::Type getAccumulatorTypeOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// Lane-level matrix atom (produced by the tiled lowering)
//===----------------------------------------------------------------------===//

def Fmha_MmaOp : Fmha_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "one matrix-core instruction on per-lane fragments";
  let description = [{
    D = A * B + C for one matrix atom of lib/Target/FragmentLayout (an AMD MFMA, an
    NVIDIA mma.sync, or a host atom for CPU execution). Each operand is the
    calling lane's fragment, flattened: register `r` of operand X holds the
    matrix element `fragmentCoord(atom, X, lane, r)`. `fmha-lower-mma` turns
    it into amdgpu.mfma, nvgpu.mma.sync or vector.contract.

    ```mlir
    %d = fmha.mma %a, %b, %c {atom = "mfma_f32_16x16x16_f16"}
        : vector<4xf16>, vector<4xf16> -> vector<4xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F16, BF16, F32]>:$lhs,
                       VectorOfRankAndType<[1], [F16, BF16, F32]>:$rhs,
                       VectorOfRankAndType<[1], [F32]>:$acc,
                       StrAttr:$atom);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_WarpgroupMmaOp : Fmha_Op<"warpgroup_mma",
    [AllTypesMatch<["acc", "result"]>, AttrSizedOperandSegments]> {
  let summary = "one warpgroup's chain of matrix products, B from workgroup memory";
  let description = [{
    D = A * B + C over a [64 x N] block of which the calling subgroup (one of
    the four consecutive subgroups of a warpgroup) holds rows [16 w, 16 w +
    16), w its rank in the warpgroup. `acc` holds those rows as N / 8
    mma.sync m16n8 C fragments (lib/Target/FragmentLayout), concatenated along n.
    Per k step of 16, A is either the subgroup's rows as an mma.sync
    m16n8k16 A fragment (`lhs`) or the whole [64 x 16] slice in workgroup
    memory (`lhs_descriptors`), and `descriptors` describe the [16 x N] slice
    of B there: PTX wgmma matrix descriptors of 8-row atoms (core matrices of
    16-byte rows, or 128-byte swizzled rows: fmha::atomRowBytes), which run
    along m (n) with `mn_major_a` (`mn_major_b`). All four
    subgroups execute it with the same descriptors. `buffers` are the
    workgroup buffers the descriptors point into: the op reads them (barrier
    placement orders those reads). The products run asynchronously: the
    result is complete only after an `fmha.warpgroup_wait` on it.
    `fmha-lower-warpgroup-mma` turns it into a wgmma fence, wgmma.mma_async
    instructions and the commit of their group (sm_90a).

    ```mlir
    %d = fmha.warpgroup_mma %acc, a [%a0, %a1 : vector<8xbf16>, vector<8xbf16>],
        a_desc [], b_desc [%d0, %d1]
        reads %buf : memref<8x8x8x8xbf16, #gpu.address_space<workgroup>>
        -> vector<32xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Variadic<VectorOfRankAndType<[1], [F16, BF16]>>:$lhs,
                       Variadic<I64>:$lhs_descriptors,
                       Variadic<I64>:$descriptors,
                       Arg<Variadic<AnyMemRef>, "", [MemRead]>:$buffers,
                       UnitAttr:$mn_major_a, UnitAttr:$mn_major_b);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $acc `,` `a` `[` ($lhs^ `:` type($lhs))? `]` `,` `a_desc` `[`
    $lhs_descriptors `]` `,` `b_desc` `[` $descriptors `]` `reads` $buffers
    `:` type($buffers) attr-dict `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_WarpgroupWaitOp : Fmha_Op<"warpgroup_wait",
    [AllTypesMatch<["value", "result"]>]> {
  let summary = "waits for a warpgroup product's registers";
  let description = [{
    The result of the `fmha.warpgroup_mma` that made `value`, complete: the
    calling subgroup waits until at most `pending` of the warpgroup products
    it issued after that one are still running. Until then the products
    read `buffers` (barrier placement orders the reads here).
    `fmha-defer-warpgroup-waits` moves each wait to the first use of its
    result and counts `pending`; `fmha-lower-warpgroup-mma` makes it a
    wgmma.wait_group that the values pass through.

    ```mlir
    %r = fmha.warpgroup_wait %d reads %buf {pending = 1}
        : vector<32xf32>, memref<8x8x8x8xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$value,
                       Arg<Variadic<AnyMemRef>, "", [MemRead]>:$buffers,
                       DefaultValuedAttr<I64Attr, "0">:$pending);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $value `reads` $buffers attr-dict `:` type($value) `,` type($buffers)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Masking of score fragments (produced by the tiled lowering)
//===----------------------------------------------------------------------===//

def Fmha_MaskFragmentOp : Fmha_Op<"mask_fragment",
    [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "zero the elements of a score fragment that keys or a mask hide";
  let description = [{
    `value` is the calling lane's accumulator fragment of matrix atom `atom`
    (lib/Target/FragmentLayout) over a tile whose element (i, j) pairs query
    `query + i` with key `key + j`, or, with `keys_along_rows`, key `key + i`
    with query `query + j`. Elements whose key is at or past `seq_k`, and
    with `mask` those the band hides (aligned to the bottom right with
    `seq_k - seq_q` when the mask says so), become `fill` (0 by default; the
    forward masks scores with -inf before its row maximum).
    `fmha-lower-masks` makes it one index comparison per element against
    constants and a select.

    ```mlir
    %p = fmha.mask_fragment %x at(%q0, %k0) lane %lane seq(%sq, %sk)
        {atom = "mfma_f32_16x16x16_bf16", mask = #fmha.mask<causal>}
        : vector<4xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$value, Index:$query,
                       Index:$key, Index:$lane, Index:$seq_q, Index:$seq_k,
                       StrAttr:$atom, OptionalAttr<Fmha_MaskAttr>:$mask,
                       UnitAttr:$keys_along_rows,
                       DefaultValuedAttr<F32Attr, "0.0f">:$fill);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $value `at` `(` $query `,` $key `)` `lane` $lane
    `seq` `(` $seq_q `,` $seq_k `)` attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Atomic accumulation into global memory (produced by the tiled lowering)
//===----------------------------------------------------------------------===//

def Fmha_AtomicAddOp : Fmha_Op<"atomic_add"> {
  let summary = "atomically add a vector to consecutive memref elements";
  let description = [{
    Adds element `i` of `value` to `memref[indices[0], ..., indices[n-1] + i]`,
    each addition atomic on its own (no ordering, no atomicity across
    elements): one run of an accumulator fragment's registers that sit next
    to each other along a row. `alignment` (bytes, a power of two) promises
    that the first element's address is a multiple of it, as on vector.store.
    `fmha-lower-atomic-add` makes it one native vector reduction where the
    chip has one (PTX red.global.add.v2/.v4.f32 on sm_90) and
    memref.atomic_rmw addf per element elsewhere.

    ```mlir
    fmha.atomic_add %run, %acc[%b, %q, %h, %d] {alignment = 8}
        : vector<2xf32>, memref<?x?x8x64xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [AnyFloat]>:$value,
                       Arg<AnyMemRef, "the memref added to",
                           [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices,
                       OptionalAttr<I64Attr>:$alignment);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` attr-dict `:` type($value) `,`
    type($memref)
  }];
  let hasVerifier = 1;
}

def Fmha_BulkAddOp : Fmha_Op<"bulk_add", [AttrSizedOperandSegments]> {
  let summary = "f32 elements of workgroup memory added to global memory by "
                "the bulk-copy unit, asynchronously";
  let description = [{
    Adds the `count` f32 elements of `source` from `source[source_indices]`
    on to those of `dest` from `dest[dest_indices]` on, both runs along the
    memrefs' last (unit-stride) dimension, and on through the dimensions laid
    out contiguously around it (a tile of whole rows in one operation), each
    addition atomic on its own:
    one PTX `cp.reduce.async.bulk .add.f32` (sm_90), which takes the sum
    off the work-item's memory pipe. The calling work-item alone issues it,
    into its open bulk group, which its next `fmha.bulk_commit` closes; the
    bulk-copy unit reads `source` asynchronously until an `fmha.bulk_wait`
    of that work-item covers the group, so `source` must not be written
    before it (and ordinary writes of it must be made visible to the async
    proxy first, which fmha-place-workgroup-barriers does). Both runs start
    at 16-byte aligned addresses (`count` is a multiple of 4); `dest` is
    global memory.

    ```mlir
    fmha.bulk_add %stage[%r, %c0] to %dq[%b, %q, %h, %c0] {count = 128 : i64}
        : memref<64x136xf32, #gpu.address_space<workgroup>>, memref<?x?x8x128xf32>
    ```
  }];
  let arguments = (ins Arg<MemRefOf<[F32]>, "the workgroup memory read",
                           [MemRead]>:$source,
                       Variadic<Index>:$source_indices,
                       Arg<MemRefOf<[F32]>, "the global memory added to",
                           [MemRead, MemWrite]>:$dest,
                       Variadic<Index>:$dest_indices,
                       ConfinedAttr<I64Attr, [IntPositive]>:$count);
  let assemblyFormat = [{
    $source `[` $source_indices `]` `to` $dest `[` $dest_indices `]`
    attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Fmha_BulkCommitOp : Fmha_Op<"bulk_commit"> {
  let summary = "closes the calling work-item's open group of fmha.bulk_add "
                "ops";
  let description = [{
    The `fmha.bulk_add` ops the work-item issued since its last commit form
    one bulk group (none: an empty group), which `fmha.bulk_wait` counts.
    Kernels commit where every work-item does, so that all count their
    groups alike. PTX: `cp.async.bulk.commit_group`.

    ```mlir
    fmha.bulk_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Fmha_BulkWaitOp : Fmha_Op<"bulk_wait"> {
  let summary = "waits until the sources of all but the calling work-item's "
                "`pending` newest bulk groups have been read";
  let description = [{
    After it, the workgroup memory that the `fmha.bulk_add` ops of the
    work-item's committed groups read, all but the newest `pending` ones
    (default 0: all of them), may be written again (by the other work-items
    after a barrier). Groups not yet committed are not waited for. A double
    buffer waits with `pending 1` before writing the slot its second newest
    group read. PTX: `cp.async.bulk.wait_group.read pending`.

    ```mlir
    fmha.bulk_wait
    fmha.bulk_wait pending 1
    ```
  }];
  let arguments = (ins DefaultValuedAttr<ConfinedAttr<I64Attr,
                           [IntNonNegative, IntMaxValue<63>]>, "0">:$pending);
  let assemblyFormat = "(`pending` $pending^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Subgroup tiles (produced by the tiled lowering, distributed to lane
// fragments by fmha-distribute-tiles)
//===----------------------------------------------------------------------===//

def Fmha_TileRole : I32EnumAttr<"TileRole",
    "which operand of a matrix atom a tile's atoms are", [
  I32EnumAttrCase<"a", 0>, I32EnumAttrCase<"b", 1>, I32EnumAttrCase<"c", 2>,
  I32EnumAttrCase<"rows", 3>, I32EnumAttrCase<"cols", 4>]> {
  let cppNamespace = "::rocke::fmha";
  let genSpecializedAttr = 0;
}

def Fmha_TileType : TypeDef<Fmha_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "a subgroup's (or a workgroup's) 2-D tile, held as fragments "
                "of matrix atoms";
  let description = [{
    A rows x cols matrix that one subgroup holds in registers, as a
    row-major grid of fragments of `atom` (lib/Target/FragmentLayout) in the role
    of operand A ([m x k] atoms), B ([k x n]) or C ([m x n], f32). Each lane
    holds the registers the atom's layout gives it. `fmha-distribute-tiles`
    replaces a tile by its fragments, one 1-D vector per atom.

    Roles `rows` ([R x 1]) and `cols` ([1 x C]) are vectors of one f32 per
    row (column) of a C tile of the same atom, as its lanes hold them: each
    lane keeps the values of the rows (columns) its C registers touch, one
    per distinct row (column) offset of the layout. Row reductions
    (`tile_reduce`) make them; `tile_map` broadcasts them back onto C tiles.
    The softmax's running row maximum and sum live in them.

    With `subgroups GMxGN` the tile is the workgroup's, split over a grid
    of subgroups: subgroup `s` holds block `((s / SR) % GM, (s / SC) % GN)`,
    [rows / GM x cols / GN], as the tile without the grid. The strides `SR`
    and `SC` are row-major (`GN`, 1) unless `strides SRxSC` says otherwise;
    a dimension the grid does not split (extent 1) has stride 1, and a 1x1
    grid is a tile every subgroup holds whole. The ops on such tiles take the
    thread's id in the workgroup where subgroup tiles take the lane's;
    `fmha-split-workgroup-tiles` gives each subgroup its block.

    ```mlir
    !fmha.tile<32x64xf32, c, "mfma_f32_16x16x16_bf16">
    !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">
    !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>
    !fmha.tile<64x128xf32, c, "mma_sync_m16n8k16_f16", subgroups 4x2 strides 1x4>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::rocke::fmha::TileRole":$role,
                        StringRefParameter<"matrix atom name">:$atom,
                        OptionalArrayRefParameter<"int64_t">:$subgroups,
                        OptionalArrayRefParameter<"int64_t">:$subgroupStrides);
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::Type":$elementType,
                     "::rocke::fmha::TileRole":$role,
                     "::llvm::StringRef":$atom), [{
      return $_get($_ctxt, shape, elementType, role, atom,
                   ::llvm::ArrayRef<int64_t>(), ::llvm::ArrayRef<int64_t>());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// This tile as the workgroup's, split as `grid` ([GM, GN]) over
    /// subgroups with `strides` ([SR, SC]; empty: row-major).
    TileType split(::llvm::ArrayRef<int64_t> grid,
                   ::llvm::ArrayRef<int64_t> strides = {}) const;
    /// A workgroup's tile split over subgroups (`subgroups` given).
    bool isWorkgroupTile() const { return !getSubgroups().empty(); }
    /// One subgroup's block of a workgroup tile; the tile itself otherwise.
    TileType getSubgroupTile() const;
    /// Parts of the tile along `dim` (0: rows, 1: columns) and the subgroup
    /// stride between them; (1, 1) for a subgroup's tile.
    int64_t getSplitParts(unsigned dim) const;
    int64_t getSplitStride(unsigned dim) const;
    /// The atom (lib/Target/FragmentLayout); the verifier guarantees it exists.
    const ::rocke::MatrixAtom &getMatrixAtom() const;
    /// The atom operand the tile's fragments are (A, B or C).
    ::rocke::MatrixOperand getMatrixOperand() const;
    /// Rows and columns of one atom in this role.
    int64_t getAtomRows() const;
    int64_t getAtomCols() const;
    int64_t getRowAtoms() const { return getShape()[0] / getAtomRows(); }
    int64_t getColAtoms() const { return getShape()[1] / getAtomCols(); }
    /// A vector of per-row or per-column values (role rows or cols).
    bool isLineVector() const;
    /// One lane's fragment of one atom.
    ::mlir::VectorType getFragmentType() const;
  }];
}

class Fmha_TileOp<string mnemonic, list<Trait> traits = []>
    : Fmha_Op<"tile_" # mnemonic, traits>;

def Fmha_TileZeroOp : Fmha_TileOp<"zero", [Pure]> {
  let summary = "an accumulator tile of zeros";
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fmha_TileReadOp : Fmha_TileOp<"read"> {
  let summary = "an operand tile read from a 2-D workgroup-memory buffer";
  let description = [{
    Element (i, j) of the A or B tile is `buffer[row + i][col + j]`, or
    `buffer[row + j][col + i]` with `transposed`. `lane` is the calling
    lane's id in its subgroup (for a workgroup tile, the thread's id in the
    workgroup). Each lane reads the elements its fragments
    hold: registers contiguous in the buffer with one vector load, mma.sync
    fragments of 16-bit elements with ldmatrix.

    ```mlir
    %q = fmha.tile_read %buf[%r, %c] lane %lane {transposed}
        : memref<64x136xbf16, #gpu.address_space<workgroup>>
          -> !fmha.tile<16x64xbf16, b, "mma_sync_m16n8k16_bf16">
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$buffer, Index:$row,
                       Index:$col, Index:$lane, UnitAttr:$transposed);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $buffer `[` $row `,` $col `]` `lane` $lane attr-dict `:` type($buffer)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileLoadOp : Fmha_TileOp<"load"> {
  let summary = "an operand tile read once from rows of a [B, S, H, D] memref";
  let description = [{
    Element (i, j) of the A or B tile is `source[batch, row + i, head, col +
    j]`, or `source[batch, row + j, head, col + i]` with `transposed`;
    sequence rows at or past `seq_len` read as zero. Blocks that end before
    `seq_len` load without row checks (a uniform branch).

    ```mlir
    %k = fmha.tile_load %key[%b, %kv0, %h, %c0] lane %lane seq %sk
        : memref<?x?x8x128xbf16> -> !fmha.tile<32x128xbf16, a, "mfma_f32_16x16x16_bf16">
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source, Index:$batch,
                       Index:$row, Index:$head, Index:$col, Index:$lane,
                       Index:$seq_len, UnitAttr:$transposed);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $source `[` $batch `,` $row `,` $head `,` $col `]` `lane` $lane `seq`
    $seq_len attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileMmaOp : Fmha_TileOp<"mma", [Pure,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + lhs * rhs on tiles of one matrix atom";
  let description = [{
    `lhs` [M x K] (role a), `rhs` [K x N] (role b) and `acc` [M x N] (role c)
    are tiles of the same atom; one fmha.mma per atom of the product.

    ```mlir
    %s = fmha.tile_mma %k, %q, %z
        : !fmha.tile<32x128xbf16, a, "mfma_f32_16x16x16_bf16">,
          !fmha.tile<128x32xbf16, b, "mfma_f32_16x16x16_bf16">
          -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
    ```
  }];
  let arguments = (ins Fmha_TileType:$lhs, Fmha_TileType:$rhs,
                       Fmha_TileType:$acc);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileMmaWarpgroupOp : Fmha_TileOp<"mma_warpgroup",
    [AllTypesMatch<["acc", "result"]>, AttrSizedOperandSegments]> {
  let summary = "acc + A * B, issued by a warpgroup, B in workgroup memory";
  let description = [{
    The product of `tile_mma` with B read by the matrix cores straight from
    a workgroup buffer of 8-row atoms: [R/8][C/W][8][W], element (r, c) at
    `[r / 8][c / W][r % 8][c % W]` (fmha::atomRowBytes: core matrices of 16
    bytes a row, or 128-byte rows whose 16-byte chunks are swizzled by
    `r % 8`; an operand whose M or N runs along such rows spans whole ones).
    B[k][n] is element (row + k, col + n) of
    `buffer`, or (row + n, col + k) with `transposed`. `acc` [16 x N] is the
    calling subgroup's rows of the warpgroup's [64 x N] block; the four
    subgroups of a warpgroup run the op together on the same B. A is either
    `lhs`, the subgroup's [16 x K] rows in registers, or, from workgroup
    memory too, the warpgroup's [64 x K] block of `lhs_buffer`: A[m][k] is
    element (lhs_row + m, lhs_col + k), or (lhs_row + k, lhs_col + m) with
    `lhs_transposed`, and `k` gives K. Rows and columns are multiples of 8.
    The tiles are of
    an mma.sync atom (the subgroup's registers keep its layout).
    `fmha-distribute-tiles` turns it into one `fmha.warpgroup_mma`.

    On workgroup tiles (`acc` split into 16-row blocks over groups of four
    consecutive subgroups) the op is every warpgroup's product: `thread`
    (the thread's id in the workgroup) tells `fmha-split-workgroup-tiles`
    the warpgroup, whose [64 x K] block of A and [K x N / GN] columns of B
    it then addresses.

    ```mlir
    %s = fmha.tile_mma_warpgroup lhs %k : !fmha.tile<16x128xbf16, a, "mma_sync_m16n8k16_bf16">,
        rhs %q[%c0, %c0] : memref<8x16x8x8xbf16, #gpu.address_space<workgroup>>,
        acc %z {transposed} : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">
    ```
  }];
  let arguments = (ins Optional<Fmha_TileType>:$lhs,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$lhs_buffer,
                       Optional<Index>:$lhs_row, Optional<Index>:$lhs_col,
                       Arg<AnyMemRef, "", [MemRead]>:$buffer, Index:$row,
                       Index:$col, Fmha_TileType:$acc,
                       Optional<Index>:$thread, UnitAttr:$transposed,
                       UnitAttr:$lhs_transposed, OptionalAttr<I64Attr>:$k);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    (`lhs` $lhs^ `:` type($lhs) `,`)?
    (`lhs_buffer` $lhs_buffer^ `[` $lhs_row `,` $lhs_col `]` `:`
     type($lhs_buffer) `,`)?
    `rhs` $buffer `[` $row `,` $col `]` `:` type($buffer) `,` `acc` $acc
    (`thread` $thread^)? attr-dict `:` type($acc)
  }];
  let hasVerifier = 1;
}

def Fmha_TileConvertOp : Fmha_TileOp<"convert", [Pure]> {
  let summary = "an accumulator tile reused as an operand tile, in registers";
  let description = [{
    The C tile `source` (or its transpose, with `transposed`) as an A or B
    tile of `result`'s atom, in `result`'s element type. Legal only where
    every lane already holds the elements its operand fragments need
    (`operandFromAccumulators` in lib/Target/FragmentLayout): two mma.sync m16n8
    accumulators are one m16k16 A fragment; an MFMA C fragment is the A
    fragment of the transpose. So P and dS feed dV += P^T dO and dK += dS^T Q
    without leaving registers.

    ```mlir
    %pt = fmha.tile_convert %p {transposed}
        : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
          -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
    ```
  }];
  let arguments = (ins Fmha_TileType:$source, UnitAttr:$transposed);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileUnpackOp : Fmha_TileOp<"unpack", [Pure]> {
  let summary = "a tile's fragments, one per atom, row-major";
  let description = [{
    The calling lane's fragment of each atom of the tile: code that works on
    fragments (the softmax recompute, masks, dQ accumulation) reads tiles
    through it.

    ```mlir
    %f:4 = fmha.tile_unpack %s : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
        -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
    ```
  }];
  let arguments = (ins Fmha_TileType:$tile);
  let results = (outs Variadic<VectorOfRank<[1]>>:$fragments);
  let assemblyFormat = [{
    $tile attr-dict `:` type($tile) `->` type($fragments)
  }];
  let hasVerifier = 1;
}

def Fmha_TilePackOp : Fmha_TileOp<"pack", [Pure]> {
  let summary = "a tile from its fragments, one per atom, row-major";
  let arguments = (ins Variadic<VectorOfRank<[1]>>:$fragments);
  let results = (outs Fmha_TileType:$tile);
  let assemblyFormat = [{
    $fragments attr-dict `:` type($fragments) `->` type($tile)
  }];
  let hasVerifier = 1;
}

def Fmha_TileBroadcastOp : Fmha_TileOp<"broadcast"> {
  let summary = "an accumulator tile of per-row or per-column values";
  let description = [{
    Element (i, j) of the C tile is `buffer[base + i]` (`dim` 0: one value
    per row) or `buffer[base + j]` (`dim` 1: one value per column), from a
    1-D buffer: the softmax statistics of a score tile's queries. Each lane
    reads the values of its rows or columns once.

    ```mlir
    %off = fmha.tile_broadcast %stats[%c0] lane %lane dim 1
        : memref<64xf32, #gpu.address_space<workgroup>>
          -> !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[F32], [1]>, "", [MemRead]>:$buffer,
                       Index:$base, Index:$lane,
                       ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $buffer `[` $base `]` `lane` $lane `dim` $dim attr-dict `:` type($buffer)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileMapOp : Fmha_TileOp<"map", [Pure, AttrSizedOperandSegments,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "an elementwise function of tiles of one layout";
  let description = [{
    Applies the body to each element position of the result tiles (same
    shape, role and atom): the block arguments are the inputs' elements,
    `fmha.yield` gives the results' elements. Inputs have the results'
    layout (element types may differ) or, for C results, are per-row
    ([R x 1], role rows) or per-column ([1 x C], role cols) vectors of an
    atom with the same accumulator layout, broadcast along the rows
    (columns): the softmax's row maximum
    subtracted from a score tile, its rescaling factor applied to O. The body
    holds elementwise ops on scalars (arith, math) and may use scalars
    defined outside. With `at(%row, %col) lane %lane` (C results) the body
    also takes each element's position, row `row + i` and column `col + j`,
    as two trailing index arguments: a score_mod's query and key, or the
    indices of a `memref.load` in the body (an additive bias's element).
    `fmha-distribute-tiles` applies it to each lane's fragments as vector
    ops (positions as index vectors; a load becomes one scalar load per
    register).

    ```mlir
    %p = fmha.tile_map(%s, %off) : !fmha.tile<16x64xf32, c, "...">,
        !fmha.tile<16x64xf32, c, "..."> -> !fmha.tile<16x64xf32, c, "..."> {
    ^bb0(%x: f32, %o: f32):
      %d = arith.subf %x, %o : f32
      %e = math.exp2 %d : f32
      fmha.yield %e : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Fmha_TileType>:$inputs,
                       Optional<Index>:$row, Optional<Index>:$col,
                       Optional<Index>:$lane);
  let results = (outs Variadic<Fmha_TileType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` (`at` `(` $row^ `,` $col `)` `lane` $lane)? attr-dict
    `:` type($inputs) `->` type($results) $body
  }];
  let hasVerifier = 1;
}

def Fmha_YieldOp : Fmha_Op<"yield", [Pure, Terminator,
    ParentOneOf<["TileMapOp", "AttentionFwdOp", "AttentionBwdOp"]>]> {
  let summary = "the elements a tile_map body computes, or the modified "
                "score of a score_mod";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Fmha_TileMaskOp : Fmha_TileOp<"mask", [Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "zero the elements of a score tile that keys or a mask hide";
  let description = [{
    Element (i, j) of the C tile pairs query `query + i` with key `key + j`,
    or, with `keys_along_rows`, key `key + i` with query `query + j`. Keys at
    or past `seq_k`, and with `mask` the pairs its band hides, become
    `fill` (default 0: probabilities; the forward fills scores with -inf).
    With `cut_only`, a tile that no key past `seq_k` and no hidden pair
    touches is left as it is, decided once per (subgroup) tile by a uniform
    branch: the result is the same, the selects run only in cut blocks.
    Distributed into one fmha.mask_fragment per atom (fmha-lower-masks).

    ```mlir
    %p = fmha.tile_mask %x at(%q0, %k0) lane %lane seq(%sq, %sk)
        {keys_along_rows, mask = #fmha.mask<causal>}
        : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">
    ```
  }];
  let arguments = (ins Fmha_TileType:$value, Index:$query, Index:$key,
                       Index:$lane, Index:$seq_q, Index:$seq_k,
                       OptionalAttr<Fmha_MaskAttr>:$mask,
                       UnitAttr:$keys_along_rows, UnitAttr:$cut_only,
                       DefaultValuedAttr<F32Attr, "0.0f">:$fill);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $value `at` `(` $query `,` $key `)` `lane` $lane
    `seq` `(` $seq_q `,` $seq_k `)` attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def Fmha_TileWriteOp : Fmha_TileOp<"write"> {
  let summary = "an accumulator tile written into a workgroup buffer";
  let description = [{
    Element (i, j) of the C tile goes to `buffer[row + i][col + j]`, or
    `buffer[row + j][col + i]` with `transposed`, in the buffer's element
    type; each lane writes its registers, runs contiguous in the buffer as
    one vector store. A 4-D buffer holds [R/8][C/W][8][W] 8-row atoms (what
    warpgroup products read): element (r, c) is at `[r / 8][c / W][r %
    8][c % W]`, its 16-byte chunk swizzled by `r % 8` in 128-byte rows.

    ```mlir
    fmha.tile_write %ds, %buf[%c0, %kv] lane %lane
        : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">,
          memref<64x136xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Fmha_TileType:$value,
                       Arg<MemRefRankOf<[AnyFloat], [2, 4]>, "", [MemWrite]>:$buffer,
                       Index:$row, Index:$col, Index:$lane,
                       UnitAttr:$transposed);
  let assemblyFormat = [{
    $value `,` $buffer `[` $row `,` $col `]` `lane` $lane attr-dict `:`
    type($value) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def Fmha_AccumulateKind : I32EnumAttr<"AccumulateKind",
    "how a gradient tile reaches its f32 buffer", [
  I32EnumAttrCase<"atomic_add", 0>, I32EnumAttrCase<"store", 1>]> {
  let cppNamespace = "::rocke::fmha";
}

def Fmha_TileAccumulateOp : Fmha_TileOp<"accumulate"> {
  let summary = "a gradient tile added atomically to, or stored into, an f32 buffer";
  let description = [{
    `dest` is an f32 buffer whose last three dimensions are [S, H, D]; the
    indices give its leading positions, then (row, head, col). Element (i, j)
    of the C tile goes to `dest[..., row + i, head, col + j]`, or to `row +
    j`, `col + i` with `transposed`: added atomically (`atomic_add`, the dQ
    accumulator) or stored (`store`, one KV block's dQ partial, summed in a
    fixed order later). Each lane's registers leave in runs along the
    buffer's rows: one fmha.atomic_add or vector.store per run.

    With `paired_columns` the buffer holds column j of each 16 at
    16 * (j / 16) + 4 * (j % 8 / 2) + 2 * (j % 16 / 8) + j % 2
    (rocke::pairedColumn): a lane's two-register runs of two neighbouring
    8-column atoms (mma.sync's accumulators) are then one run of four, so
    half as many atomics (red.global.add.v4.f32) leave; whoever reads the
    buffer undoes the permutation.

    ```mlir
    fmha.tile_accumulate atomic_add %dq, %acc[%b, %q0, %h, %d0] lane %lane
        : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf32>
    ```
  }];
  let arguments = (ins Fmha_AccumulateKind:$kind, Fmha_TileType:$value,
                       Arg<MemRefOf<[F32]>, "", [MemRead, MemWrite]>:$dest,
                       Variadic<Index>:$indices, Index:$lane,
                       UnitAttr:$transposed, UnitAttr:$paired_columns);
  let assemblyFormat = [{
    $kind $value `,` $dest `[` $indices `]` `lane` $lane attr-dict `:`
    type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Fmha_TileStoreOp : Fmha_TileOp<"store"> {
  let summary = "an accumulator tile stored into rows of a [B, S, H, D] memref";
  let description = [{
    Element (i, j) of the C tile goes to `dest[batch, row + i, head, col +
    j]` in the memref's element type, where `row + i < seq_len`, or with
    `transposed` to `dest[batch, row + j, head, col + i]` where `row + j <
    seq_len`: a result (dK, dV, the forward's O, or O^T) written once by the
    subgroup that owns its rows. `aligned_rows`: the kernel's ABI
    guarantees rows aligned to 16 bytes (and `col`, as every tile origin,
    is a multiple of the atom's extent), so a lane's run leaves as one
    access as wide as its first element's alignment allows.

    ```mlir
    fmha.tile_store %dv, %grad[%b, %kv0, %h, %c0] lane %lane seq %sk
        : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xbf16>
    ```
  }];
  let arguments = (ins Fmha_TileType:$value,
                       Arg<MemRefRankOf<[AnyFloat], [4]>, "", [MemWrite]>:$dest,
                       Index:$batch, Index:$row, Index:$head, Index:$col,
                       Index:$lane, Index:$seq_len, UnitAttr:$transposed,
                       UnitAttr:$aligned_rows);
  let assemblyFormat = [{
    $value `,` $dest `[` $batch `,` $row `,` $head `,` $col `]` `lane` $lane
    `seq` $seq_len attr-dict `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Fmha_TileStoreScoresOp : Fmha_TileOp<"store_scores"> {
  let summary = "a score tile stored into, or added atomically to, an f32 "
                "[B, H, Sq, Sk] buffer";
  let description = [{
    Element (i, j) of the C tile pairs query `query + i` with key `key + j`,
    or, with `keys_along_rows`, key `key + i` with query `query + j` (as on
    fmha.tile_mask), and goes to `dest[batch, head, query, key]` where the
    query is below `seq_q` and the key below `seq_k`: stored (`store`, each
    element written by one workgroup) or added atomically (`atomic_add`,
    elements summed over several). The gradient of an additive bias;
    distributed into one guarded scalar store (fmha.atomic_add) per
    register.

    ```mlir
    fmha.tile_store_scores atomic_add %ds, %dbias[%b, %h] at(%q0, %k0)
        lane %lane seq(%sq, %sk) {keys_along_rows}
        : !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_f16">, memref<1x8x?x?xf32>
    ```
  }];
  let arguments = (ins Fmha_AccumulateKind:$kind, Fmha_TileType:$value,
                       Arg<MemRefRankOf<[F32], [4]>, "", [MemRead, MemWrite]>:$dest,
                       Index:$batch, Index:$head, Index:$query, Index:$key,
                       Index:$lane, Index:$seq_q, Index:$seq_k,
                       UnitAttr:$keys_along_rows);
  let assemblyFormat = [{
    $kind $value `,` $dest `[` $batch `,` $head `]` `at` `(` $query `,` $key
    `)` `lane` $lane `seq` `(` $seq_q `,` $seq_k `)` attr-dict `:`
    type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Fmha_ReductionKind : I32EnumAttr<"ReductionKind",
    "how tile_reduce combines the elements of a row", [
  I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"add", 1>]> {
  let cppNamespace = "::rocke::fmha";
}

def Fmha_TileReduceOp : Fmha_TileOp<"reduce", [Pure]> {
  let summary = "per-row (or per-column) maximum or sum of an accumulator tile";
  let description = [{
    `dim` 1: the maximum (`max`, maxnumf) or sum (`add`) of each row of the C
    tile, as a per-row vector ([R x 1], role rows); `dim` 0: of each column
    ([1 x C], role cols). Each lane combines its registers of a row, then
    the lanes holding parts of that row combine theirs with xor shuffles
    (gpu.subgroup_reduce over the lanes the atom's layout spreads a row
    across): the forward's online-softmax row maximum and row sum.

    ```mlir
    %mx = fmha.tile_reduce max %s dim 1
        : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">
          -> !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">
    ```
  }];
  let arguments = (ins Fmha_ReductionKind:$kind, Fmha_TileType:$value,
                       ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim);
  let results = (outs Fmha_TileType:$result);
  let assemblyFormat = [{
    $kind $value `dim` $dim attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileStoreLinesOp : Fmha_TileOp<"store_lines"> {
  let summary = "a per-row (per-column) vector stored into an f32 [B, H, S] memref";
  let description = [{
    Element i of the rows ([R x 1]) or cols ([1 x C]) tile goes to
    `dest[batch, head, index + i]` where `index + i < seq_len`, written by
    one of the lanes that hold it: the forward's softmax statistics (LSE, or
    the row maximum and sum).

    ```mlir
    fmha.tile_store_lines %lse, %stats[%b, %h, %q0] lane %lane seq %sq
        : !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">, memref<?x8x?xf32>
    ```
  }];
  let arguments = (ins Fmha_TileType:$value,
                       Arg<MemRefRankOf<[F32], [3]>, "", [MemWrite]>:$dest,
                       Index:$batch, Index:$head, Index:$index, Index:$lane,
                       Index:$seq_len);
  let assemblyFormat = [{
    $value `,` $dest `[` $batch `,` $head `,` $index `]` `lane` $lane `seq`
    $seq_len attr-dict `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Cooperative copies: rows of a [B, S, H, D] memref into workgroup memory
//===----------------------------------------------------------------------===//

def Fmha_FetchedType : TypeDef<Fmha_Dialect, "Fetched"> {
  let mnemonic = "fetched";
  let summary = "a tile's rows fetched into the registers of a workgroup";
  let description = [{
    A rows x cols tile of a [B, S, H, D] memref in flight from global to
    workgroup memory: `fmha.tile_fetch` loads it, `fmha.tile_place` stores
    it, and a loop can carry it in between (the next block's rows load while
    this one computes). The tile is cut into `chunk` pieces (chunk rows x
    chunk columns: one vector per row of a piece; square pieces when the
    tile is also stored transposed); piece p goes to thread p % threads, so
    consecutive threads read consecutive columns and every thread holds the
    same number of pieces. Pieces are numbered along the rows, or with
    `core_matrices` down the 8 rows of one 8-column block first (for
    buffers of core matrices: 8 consecutive threads then store 128
    consecutive bytes; 128-byte swizzled rows take them along the rows).
    `fmha-lower-tile-copies` replaces the value by the thread's vectors.

    ```mlir
    !fmha.fetched<64x128xbf16, chunk 1x8, threads 256>
    !fmha.fetched<64x128xbf16, chunk 1x8, threads 256, core_matrices>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        ArrayRefParameter<"int64_t">:$chunk,
                        "int64_t":$threads, "bool":$coreMatrixOrder);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chunk a cooperative copy of `rows` rows of `source` ([B, S, H,
    /// D]) by `threads` threads uses: the widest vector (at most 8 elements)
    /// that divides a row (and, `transposing`, the rows: square chunks),
    /// preferring one whose chunks split evenly over the threads.
    static ::llvm::SmallVector<int64_t, 2>
    chunkForCopy(::mlir::MemRefType source, int64_t rows, int64_t threads,
                 bool transposing);
    /// The fetched tile of that copy, or null when its chunks do not split
    /// evenly over the threads (copy it with fmha.tile_copy then).
    static FetchedType getForCopy(::mlir::MemRefType source, int64_t rows,
                                  int64_t threads, bool transposing,
                                  bool coreMatrixOrder);
    int64_t getRows() const { return getShape()[0]; }
    int64_t getCols() const { return getShape()[1]; }
    int64_t getChunkRows() const { return getChunk()[0]; }
    int64_t getChunkCols() const { return getChunk()[1]; }
    int64_t getNumChunks() const {
      return getRows() / getChunkRows() * (getCols() / getChunkCols());
    }
    /// The vectors (one per row of a piece) each thread holds.
    int64_t getVectorsPerThread() const {
      return getNumChunks() / getThreads() * getChunkRows();
    }
    ::mlir::VectorType getVectorType() const {
      return ::mlir::VectorType::get({getChunkCols()}, getElementType());
    }
  }];
}

// nvgpu's async token (including NVGPUTypes.td would also generate nvgpu's
// enums here).
def Fmha_AsyncToken : Type<
    CPred<"::llvm::isa<::mlir::nvgpu::DeviceAsyncTokenType>($_self)">,
    "nvgpu device async token", "::mlir::nvgpu::DeviceAsyncTokenType">,
  BuildableType<
    "::mlir::nvgpu::DeviceAsyncTokenType::get($_builder.getContext())">;

class Fmha_CopyOp<string mnemonic, list<Trait> traits = []>
    : Fmha_TileOp<mnemonic, traits> {
  code copyDescription = [{
    Rows [row, row + rows) of head `head` of batch `batch` of `source` ([B,
    S, H, D]) go to the first D columns of `dest` ([rows x (D + pad)]), and
    with `transposed into`, their transpose to the first `rows` columns of
    `dest_transposed` ([D x (rows + pad)]); a 4-D `dest` is a buffer of
    [rows/8][D/W][8][W] 8-row atoms (warpgroup products' operands: core
    matrices, or 128-byte rows whose 16-byte chunks are swizzled by the row,
    fmha::atomRowBytes). Rows
    at or past `seq_len` are zero, or with `tail_unspecified` finite data of
    the tile (one select per load less). `thread` is the calling thread's id
    among the workgroup's `threads`; `aligned_rows`: the kernel's ABI
    guarantees rows aligned to 16 bytes.
  }];
}

def Fmha_TileCopyOp : Fmha_CopyOp<"copy", [AttrSizedOperandSegments]> {
  let summary = "rows of a [B, S, H, D] memref copied into workgroup memory";
  let description = copyDescription # [{
    The workgroup's threads take the tile's pieces (see `!fmha.fetched`) in
    turns, each storing what it loaded.

    ```mlir
    fmha.tile_copy %key[%b, %kv0, %h] seq %sk thread %tid
        into %kbuf : memref<128x136xbf16, #gpu.address_space<workgroup>>
        {rows = 128 : i64, threads = 256 : i64, aligned_rows}
        : memref<?x?x8x128xbf16>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[AnyFloat], [4]>, "", [MemRead]>:$source,
                       Index:$batch, Index:$row, Index:$head, Index:$seq_len,
                       Index:$thread,
                       Arg<Optional<MemRefRankOf<[AnyFloat], [2, 4]>>, "",
                           [MemWrite]>:$dest,
                       Arg<Optional<MemRefRankOf<[AnyFloat], [2]>>, "",
                           [MemWrite]>:$dest_transposed,
                       ConfinedAttr<I64Attr, [IntPositive]>:$rows,
                       ConfinedAttr<I64Attr, [IntPositive]>:$threads,
                       UnitAttr:$aligned_rows, UnitAttr:$tail_unspecified);
  let assemblyFormat = [{
    $source `[` $batch `,` $row `,` $head `]` `seq` $seq_len `thread` $thread
    (`into` $dest^ `:` type($dest))?
    (`transposed` `into` $dest_transposed^ `:` type($dest_transposed))?
    attr-dict `:` type($source)
  }];
  let hasVerifier = 1;
}

def Fmha_TileCopyAsyncOp : Fmha_CopyOp<"copy_async"> {
  let summary = "rows of a [B, S, H, D] memref copied asynchronously into a "
                "slot of a double-buffered workgroup tile";
  let description = copyDescription # [{
    Here `dest` is [2 x ...] and the rows go to its slot `slot`; rows at or
    past `row_end` are zero-filled without reading memory. Each thread
    issues 16-byte `nvgpu.device_async_copy` ops for its pieces (rows of
    whole 16-byte pieces only); the result is their group, for
    `nvgpu.device_async_wait`.

    ```mlir
    %group = fmha.tile_copy_async %query[%b, %q0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x128xbf16>,
          memref<2x64x136xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[AnyFloat], [4]>, "", [MemRead]>:$source,
                       Index:$batch, Index:$row, Index:$head, Index:$row_end,
                       Index:$thread,
                       Arg<MemRefRankOf<[AnyFloat], [3, 5]>, "", [MemWrite]>:$dest,
                       Index:$slot,
                       ConfinedAttr<I64Attr, [IntPositive]>:$rows,
                       ConfinedAttr<I64Attr, [IntPositive]>:$threads);
  let results = (outs Fmha_AsyncToken:$group);
  let assemblyFormat = [{
    $source `[` $batch `,` $row `,` $head `]` `until` $row_end `thread` $thread
    `into` $dest `[` $slot `]` attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Fmha_TileFetchOp : Fmha_CopyOp<"fetch"> {
  let summary = "rows of a [B, S, H, D] memref loaded into the workgroup's "
                "registers";
  let description = [{
    The first half of a copy (see `fmha.tile_copy`): each thread loads its
    pieces of rows [row, row + R) of `source` (R x D = the result's shape),
    rows at or past `seq_len` as zeros (or, with `tail_unspecified`, finite
    data); `fmha.tile_place` stores them.

    ```mlir
    %next = fmha.tile_fetch %query[%b, %q0, %h] seq %sq thread %tid
        {aligned_rows} : memref<?x?x8x128xbf16>
        -> !fmha.fetched<64x128xbf16, chunk 1x8, threads 256>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[AnyFloat], [4]>, "", [MemRead]>:$source,
                       Index:$batch, Index:$row, Index:$head, Index:$seq_len,
                       Index:$thread, UnitAttr:$aligned_rows,
                       UnitAttr:$tail_unspecified);
  let results = (outs Fmha_FetchedType:$result);
  let assemblyFormat = [{
    $source `[` $batch `,` $row `,` $head `]` `seq` $seq_len `thread` $thread
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TilePlaceOp : Fmha_CopyOp<"place", [AttrSizedOperandSegments]> {
  let summary = "fetched rows stored into workgroup memory";
  let description = [{
    The second half of a copy: the thread's pieces of `value` go to `dest`
    and, with `transposed into`, their transpose to `dest_transposed` (as in
    `fmha.tile_copy`; a transposed copy needs square pieces). The
    last-loaded piece is stored first: loads complete in order, so the first
    store's wait covers them all.

    ```mlir
    fmha.tile_place %next thread %tid into %qbuf
        : memref<64x136xbf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x128xbf16, chunk 1x8, threads 256>
    ```
  }];
  let arguments = (ins Fmha_FetchedType:$value, Index:$thread,
                       Arg<Optional<MemRefRankOf<[AnyFloat], [2, 4]>>, "",
                           [MemWrite]>:$dest,
                       Arg<Optional<MemRefRankOf<[AnyFloat], [2]>>, "",
                           [MemWrite]>:$dest_transposed);
  let assemblyFormat = [{
    $value `thread` $thread
    (`into` $dest^ `:` type($dest))?
    (`transposed` `into` $dest_transposed^ `:` type($dest_transposed))?
    attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

#endif // ROCKE_FMHA_OPS
