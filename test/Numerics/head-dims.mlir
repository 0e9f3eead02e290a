// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='fmha-bwd-to-kernels{strategy=tiled target=host},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops' %s | FileCheck %s
//
// Head dims beyond 64/128 (and 32) on the tiled strategy at its default
// options, against the float64 reference: bf16, GQA (Hq = 4, Hkv = 2),
// causal bottom-right with Sq != Sk and tails past every tile.

// CHECK-LABEL: case 0: bwd bf16 B=2 Sq=40 Sk=37 Hq=4 Hkv=2 Dqk=32 Dv=32
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}masked {{.*}} PASS
// CHECK-NEXT: case 0: PASS
func.func @head_dim_32(%q: memref<2x40x4x32xbf16>, %k: memref<2x37x2x32xbf16>, %v: memref<2x37x2x32xbf16>, %o: memref<2x40x4x32xbf16>, %do: memref<2x40x4x32xbf16>, %lse: memref<2x4x40xf32>, %dq: memref<2x40x4x32xbf16>, %dk: memref<2x37x2x32xbf16>, %dv: memref<2x37x2x32xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x40x4x32xbf16>, memref<2x37x2x32xbf16>, memref<2x37x2x32xbf16>, memref<2x40x4x32xbf16>, memref<2x40x4x32xbf16>, stats(memref<2x4x40xf32>) -> memref<2x40x4x32xbf16>, memref<2x37x2x32xbf16>, memref<2x37x2x32xbf16>
  return
}

// -----

// CHECK-LABEL: case 1: bwd bf16 B=2 Sq=40 Sk=37 Hq=4 Hkv=2 Dqk=96 Dv=96
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}masked {{.*}} PASS
// CHECK-NEXT: case 1: PASS
func.func @head_dim_96(%q: memref<2x40x4x96xbf16>, %k: memref<2x37x2x96xbf16>, %v: memref<2x37x2x96xbf16>, %o: memref<2x40x4x96xbf16>, %do: memref<2x40x4x96xbf16>, %lse: memref<2x4x40xf32>, %dq: memref<2x40x4x96xbf16>, %dk: memref<2x37x2x96xbf16>, %dv: memref<2x37x2x96xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x40x4x96xbf16>, memref<2x37x2x96xbf16>, memref<2x37x2x96xbf16>, memref<2x40x4x96xbf16>, memref<2x40x4x96xbf16>, stats(memref<2x4x40xf32>) -> memref<2x40x4x96xbf16>, memref<2x37x2x96xbf16>, memref<2x37x2x96xbf16>
  return
}

// -----

// CHECK-LABEL: case 2: bwd bf16 B=2 Sq=40 Sk=37 Hq=4 Hkv=2 Dqk=192 Dv=192
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}masked {{.*}} PASS
// CHECK-NEXT: case 2: PASS
func.func @head_dim_192(%q: memref<2x40x4x192xbf16>, %k: memref<2x37x2x192xbf16>, %v: memref<2x37x2x192xbf16>, %o: memref<2x40x4x192xbf16>, %do: memref<2x40x4x192xbf16>, %lse: memref<2x4x40xf32>, %dq: memref<2x40x4x192xbf16>, %dk: memref<2x37x2x192xbf16>, %dv: memref<2x37x2x192xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x40x4x192xbf16>, memref<2x37x2x192xbf16>, memref<2x37x2x192xbf16>, memref<2x40x4x192xbf16>, memref<2x40x4x192xbf16>, stats(memref<2x4x40xf32>) -> memref<2x40x4x192xbf16>, memref<2x37x2x192xbf16>, memref<2x37x2x192xbf16>
  return
}

// -----

// CHECK-LABEL: case 3: bwd bf16 B=2 Sq=40 Sk=37 Hq=4 Hkv=2 Dqk=256 Dv=256
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}masked {{.*}} PASS
// CHECK-NEXT: case 3: PASS
func.func @head_dim_256(%q: memref<2x40x4x256xbf16>, %k: memref<2x37x2x256xbf16>, %v: memref<2x37x2x256xbf16>, %o: memref<2x40x4x256xbf16>, %do: memref<2x40x4x256xbf16>, %lse: memref<2x4x40xf32>, %dq: memref<2x40x4x256xbf16>, %dk: memref<2x37x2x256xbf16>, %dv: memref<2x37x2x256xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x40x4x256xbf16>, memref<2x37x2x256xbf16>, memref<2x37x2x256xbf16>, memref<2x40x4x256xbf16>, memref<2x40x4x256xbf16>, stats(memref<2x4x40xf32>) -> memref<2x40x4x256xbf16>, memref<2x37x2x256xbf16>, memref<2x37x2x256xbf16>
  return
}
