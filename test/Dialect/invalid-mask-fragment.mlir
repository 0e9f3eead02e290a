// RUN: rocke-opt %s -split-input-file -verify-diagnostics

func.func @unknown_atom(%x: vector<4xf32>, %i: index) {
  // expected-error @+1 {{unknown matrix atom 'mfma_f32_8x8x8'}}
  %p = fmha.mask_fragment %x at(%i, %i) lane %i seq(%i, %i) {atom = "mfma_f32_8x8x8"} : vector<4xf32>
  return
}

// -----

func.func @fragment_length(%x: vector<8xf32>, %i: index) {
  // expected-error @+1 {{accumulator fragment of mfma_f32_16x16x16_bf16 has 4 elements per lane, got 8}}
  %p = fmha.mask_fragment %x at(%i, %i) lane %i seq(%i, %i) {atom = "mfma_f32_16x16x16_bf16"} : vector<8xf32>
  return
}

// -----

func.func @element_type(%x: vector<4xf16>, %i: index) {
  // expected-error @+1 {{must be vector of 32-bit float values of ranks 1}}
  %p = fmha.mask_fragment %x at(%i, %i) lane %i seq(%i, %i) {atom = "mfma_f32_16x16x16_bf16"} : vector<4xf16>
  return
}
