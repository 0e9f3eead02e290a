// RUN: rocke-opt %s -split-input-file -verify-diagnostics

func.func @unknown_atom(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{unknown matrix atom 'mfma_f32_7x7x7_f16'}}
  %d = fmha.mma %a, %b, %c {atom = "mfma_f32_7x7x7_f16"} : vector<4xf16>, vector<4xf16> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @wrong_fragment(%a: vector<8xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{lhs fragment of mfma_f32_16x16x16_f16 has 4 elements per lane, got 8}}
  %d = fmha.mma %a, %b, %c {atom = "mfma_f32_16x16x16_f16"} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @wrong_acc(%a: vector<8xf16>, %b: vector<4xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  // expected-error @+1 {{acc fragment of mma_sync_m16n8k16_f16 has 4 elements per lane, got 8}}
  %d = fmha.mma %a, %b, %c {atom = "mma_sync_m16n8k16_f16"} : vector<8xf16>, vector<4xf16> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

func.func @wrong_input_type(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{mfma_f32_16x16x16_f16 takes f16 operands, got 'bf16'}}
  %d = fmha.mma %a, %b, %c {atom = "mfma_f32_16x16x16_f16"} : vector<4xbf16>, vector<4xbf16> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @mixed_inputs(%a: vector<64xf16>, %b: vector<64xbf16>, %c: vector<64xf32>) -> vector<64xf32> {
  // expected-error @+1 {{lhs and rhs element types differ}}
  %d = fmha.mma %a, %b, %c {atom = "host_8x8x8"} : vector<64xf16>, vector<64xbf16> -> vector<64xf32>
  return %d : vector<64xf32>
}
