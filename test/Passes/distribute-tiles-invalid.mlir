// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles -verify-diagnostics
// What fmha-distribute-tiles cannot give lanes as fragments is a diagnostic.
// A tile becomes several fragment values: scf control flow carries them,
// function boundaries and unstructured branches cannot.

// A tile that leaves the function.
// expected-error @+1 {{'func.func' op takes or returns a tile: tiles may not cross function calls or unstructured branches (keep them within one function, in scf control flow)}}
func.func @escapes(%a: vector<4xf32>) -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> {
  %t = fmha.tile_pack %a : vector<4xf32> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  return %t : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
}

// -----

func.func private @use(!fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">)

func.func @call(%a: vector<4xf32>) {
  %t = fmha.tile_pack %a : vector<4xf32> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  // expected-error @+1 {{'func.call' op passes or returns a tile: tiles may not cross function calls or unstructured branches}}
  func.call @use(%t) : (!fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">) -> ()
  return
}

// -----

func.func @branch(%a: vector<4xf32>) {
  %t = fmha.tile_pack %a : vector<4xf32> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  // expected-error @+1 {{'cf.br' op passes a tile to another block: tiles may not cross function calls or unstructured branches}}
  cf.br ^next(%t : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">)
^next(%u: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">):
  return
}
