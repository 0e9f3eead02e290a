// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles -verify-diagnostics
// What fmha-distribute-tiles cannot give lanes as fragments is a diagnostic.

// A tile that leaves the function.
func.func @escapes(%a: vector<4xf32>) -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> {
  %t = fmha.tile_pack %a : vector<4xf32> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  // expected-error @+1 {{failed to legalize operation 'func.return'}}
  return %t : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
}
