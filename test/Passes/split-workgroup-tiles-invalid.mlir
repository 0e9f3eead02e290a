// RUN: rocke-opt %s -split-input-file -fmha-split-workgroup-tiles -verify-diagnostics
// What fmha-split-workgroup-tiles cannot split is a diagnostic.

// A function's signature would disagree with its body (and its callers)
// once the tiles of the body are split.
// expected-error @+1 {{'func.func' op takes or returns a workgroup tile (split over subgroups); fmha-split-workgroup-tiles splits the tiles of a function's body, not its signature}}
func.func @signature(%t: !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>)
    -> !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1> {
  return %t : !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>
}

// -----

// A callee (here a function value) would keep the workgroup type.
func.func @indirect(%f: (!fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>) -> ()) {
  %t = fmha.tile_zero : !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>
  // expected-error @+1 {{'func.call_indirect' op passes or returns a workgroup tile (split over subgroups): tiles may not cross function calls}}
  func.call_indirect %f(%t) : (!fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>) -> ()
  return
}
