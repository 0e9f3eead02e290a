// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The score_mod checks (issue 33): block arguments, the closed op set,
// loads of captured operands, the terminator, the named modifiers'
// arguments, and a backward whose score_mod is not its forward's.

func.func @capture_not_f32(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %w: memref<4xi32>) {
  // expected-error @+1 {{captured operand #0 must be a memref of f32, got 'memref<4xi32>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod(%w : memref<4xi32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %wa: memref<4xi32>):
    fmha.yield %s : f32
  }
  return
}

// -----

func.func @missing_capture_argument(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %w: memref<4xf32>) {
  // expected-error @+1 {{score_mod takes (score: f32, batch, head, query, key: index) and one argument per captured operand: 6 block arguments, not 5}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod(%w : memref<4xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
    fmha.yield %s : f32
  }
  return
}

// -----

func.func @position_not_index(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{score_mod block argument #3 must be 'index', not 'i32'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %qi: i32, %ki: index):
    fmha.yield %s : f32
  }
  return
}

// -----

func.func @outside_closed_set(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
    // expected-error @+1 {{'math.sin' op cannot be differentiated or lowered in a score_mod; the region takes arith.constant, addf, subf, mulf, divf, negf, maximumf, minimumf, cmpf, select, addi, subi, muli, cmpi, index_cast, sitofp; math.tanh, exp, exp2, log, absf; memref.load of a captured operand}}
    %r = math.sin %s : f32
    fmha.yield %r : f32
  }
  return
}

// -----

func.func @not_f32(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
    // expected-error @+1 {{'arith.constant' op computes on 'f64'; a score_mod computes on f32, integers and index}}
    %c = arith.constant 2.0 : f64
    fmha.yield %s : f32
  }
  return
}

// -----

func.func @load_at_position(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %bias: memref<16x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod(%bias : memref<16x16xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %ba: memref<16x16xf32>):
    // expected-error @+1 {{'memref.load' op in a score_mod is indexed by the score or the query / key position; captured operands are indexed by batch, head and constants (per-position tensors, such as an additive bias, are not supported yet)}}
    %x = memref.load %ba[%qi, %ki] : memref<16x16xf32>
    %r = arith.addf %s, %x : f32
    fmha.yield %r : f32
  }
  return
}

// -----

func.func @slopes_short_of_heads(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %sl: memref<2xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      // expected-error @+1 {{'memref.load' op in a score_mod indexes dim 0 of 'memref<2xf32>' by the query head, of which there are 4}}
      score_mod alibi(%sl : memref<2xf32>)
  return
}

// -----

func.func @slopes_short_of_batch(%q: memref<3x16x4x32xf16>, %k: memref<3x16x4x32xf16>,
    %v: memref<3x16x4x32xf16>, %o: memref<3x16x4x32xf16>, %lse: memref<3x4x16xf32>, %sl: memref<2x4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<3x16x4x32xf16>, memref<3x16x4x32xf16>, memref<3x16x4x32xf16>
        -> memref<3x16x4x32xf16>, stats(memref<3x4x16xf32>)
      // expected-error @+1 {{'memref.load' op in a score_mod indexes dim 0 of 'memref<2x4xf32>' by the batch, whose size is 3}}
      score_mod alibi(%sl : memref<2x4xf32>)
  return
}

// -----

func.func @constant_index_out_of_bounds(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %w: memref<4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod(%w : memref<4xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %wa: memref<4xf32>):
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{'memref.load' op in a score_mod reads index 4 of dim 0 of 'memref<4xf32>'}}
    %x = memref.load %wa[%c4] : memref<4xf32>
    %r = arith.addf %s, %x : f32
    fmha.yield %r : f32
  }
  return
}

// -----

func.func @yields_two(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{score_mod must end in fmha.yield of one f32, the modified score}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
    fmha.yield %s, %s : f32, f32
  }
  return
}

// -----

func.func @empty_block(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{score_mod must end in fmha.yield of one f32, the modified score}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
  }
  return
}

// -----

func.func @value_from_outside(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %x: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
    // expected-error @+1 {{using value defined outside the region}}
    %r = arith.addf %s, %x : f32
    fmha.yield %r : f32
  }
  return
}

// -----

func.func @captures_without_region(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %w: memref<4xf32>) {
  // expected-error @+1 {{captures operands without a score_mod region that reads them}}
  "fmha.attention_fwd"(%q, %k, %v, %o, %lse, %w) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0>}> ({})
      : (memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x4x16xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @captured_output(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{output stats[0] is the same buffer as a captured operand: an output must not alias another operand}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod(%lse : memref<1x4x16xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %l: memref<1x4x16xf32>):
    fmha.yield %s : f32
  }
  return
}

// -----

func.func @softcap_not_positive(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      // expected-error @+1 {{softcap takes a cap in (0, 3.4e38] whose f32 reciprocal is finite, got -3.000000e+01}}
      score_mod softcap(-30.0)
  return
}

// -----

func.func @softcap_reciprocal_overflows(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      // expected-error @+1 {{softcap takes a cap in (0, 3.4e38] whose f32 reciprocal is finite, got 1.000000e-40}}
      score_mod softcap(1.0e-40)
  return
}

// -----

func.func @alibi_slopes_type(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %w: memref<4xf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      // expected-error @+1 {{alibi takes one memref of f32 slopes, [Hq] or [B, Hq]}}
      score_mod alibi(%w : memref<4xf16>)
  return
}

// -----

func.func @chain_differs(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %do: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>, %dk: memref<1x16x4x32xf16>,
    %dv: memref<1x16x4x32xf16>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod softcap(30.0)
  // expected-error @+1 {{score_mod differs from that of the fmha.attention_fwd writing its statistics; the backward recomputes the softmax of the forward's modified scores}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
      score_mod softcap(50.0)
  return
}

// -----

func.func @chain_without_mod(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %do: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>, %dk: memref<1x16x4x32xf16>,
    %dv: memref<1x16x4x32xf16>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
      score_mod softcap(30.0)
  // expected-error @+1 {{score_mod differs from that of the fmha.attention_fwd writing its statistics}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
  return
}

// -----

// The tile_map positions a score_mod lowers to.
func.func @tile_map_positions_without_lane(%q0: index, %k0: index) {
  %z = fmha.tile_zero : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  // expected-error @+1 {{takes positions as at(row, col) and a lane together}}
  %r = "fmha.tile_map"(%z, %q0, %k0) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%x: f32, %q: index, %k: index):
    fmha.yield %x : f32
  }) : (!fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, index, index) -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  return
}

// -----

func.func @tile_map_positions_of_operand(%a: vector<8xf16>, %q0: index, %k0: index, %lane: index) {
  %t = fmha.tile_pack %a : vector<8xf16> -> !fmha.tile<16x16xf16, a, "mma_sync_m16n8k16_f16">
  // expected-error @+1 {{gives positions of accumulator (role c) elements, not of a tile in role a}}
  %r = fmha.tile_map(%t) at(%q0, %k0) lane %lane : !fmha.tile<16x16xf16, a, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<16x16xf16, a, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f16, %q: index, %k: index):
    fmha.yield %x : f16
  }
  return
}

// -----

func.func @tile_map_positions_missing(%q0: index, %k0: index, %lane: index) {
  %z = fmha.tile_zero : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  // expected-error @+1 {{body takes one element per input tile and the row and column index, 3, not 1}}
  %r = fmha.tile_map(%z) at(%q0, %k0) lane %lane : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32):
    fmha.yield %x : f32
  }
  return
}

// -----

func.func @tile_map_position_not_index(%q0: index, %k0: index, %lane: index) {
  %z = fmha.tile_zero : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  // expected-error @+1 {{body argument of type 'i32' for a position (index)}}
  %r = fmha.tile_map(%z) at(%q0, %k0) lane %lane : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %q: index, %k: i32):
    fmha.yield %x : f32
  }
  return
}
