// The deterministic packed backward's dQ partials hold one slice per KV
// block of the longest sequence, as the zero-fill and the kernels index
// them: the recorded scratch shape counts ceildiv(max_seqlen_k, BKV), not
// ceildiv(T_k, BKV) (fewer when max_seqlen_k passes the token count's
// blocks: the launcher would allocate too little).
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s < %t.ptx.json

// CHECK: "dq_partial:f32:zero:[ceildiv(max_seqlen_k,BKV),Sq+B*BQ,Hq,Dqk]"
// CHECK: "name": "fmha_bwd_zero_dq"
// CHECK-NOT: ceildiv(Sk,
func.func @varlen_deterministic(%q: memref<?x8x64xbf16>, %k: memref<?x2x64xbf16>,
    %v: memref<?x2x64xbf16>, %o: memref<?x8x64xbf16>, %do: memref<?x8x64xbf16>,
    %lse: memref<8x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>,
    %dq: memref<?x8x64xbf16>, %dk: memref<?x2x64xbf16>, %dv: memref<?x2x64xbf16>)
    attributes {rocke.chip = "sm_90a", rocke.strategy = "tiled"} {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) varlen(%cuq, %cuk) -> %dq, %dk, %dv
      {deterministic, max_seqlen_q = 512, max_seqlen_k = 512}
      : memref<?x8x64xbf16>, memref<?x2x64xbf16>, memref<?x2x64xbf16>,
        memref<?x8x64xbf16>, memref<?x8x64xbf16>, stats(memref<8x?xf32>)
        varlen(memref<?xi32>, memref<?xi32>)
        -> memref<?x8x64xbf16>, memref<?x2x64xbf16>, memref<?x2x64xbf16>
  return
}
