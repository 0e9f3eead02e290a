// RUN: not rocke-run --split-input-file %s 2>&1 | FileCheck %s
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=0 --seq-q=3 --seq-k=3 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=-1 --seq-q=3 --seq-k=3 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3 --seq-k=3 --expect-identical 2>&1 | FileCheck %s --check-prefix=IDENTICAL
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3 --seq-k=3 --lowering=no-such-pass 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3 --seq-k=3 --lowering=canonicalize 2>&1 | FileCheck %s --check-prefix=LEFT
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3 --seq-k=3 --lowering='fmha-bwd-to-kernels{target=host forward=true},fmha-lower-to-loops' 2>&1 | FileCheck %s --check-prefix=LEFTTILE
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3 --seq-k=3 --fd-check 2>&1 | FileCheck %s --check-prefix=FD
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1000 --seq-q=100000 --seq-k=3 2>&1 | FileCheck %s --check-prefix=HUGE
// Sizes whose element counts overflow int64 (they aborted in std::length_error
// or wrapped to a small buffer the module overran).
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=9223372036854775807 --seq-k=3 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=4611686018427387904 --seq-q=3 --seq-k=3 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not rocke-run %S/Inputs/dynamic-fwd.mlir --batch=1 --seq-q=3074457345618258603 --seq-k=3 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not rocke-run %S/Inputs/no-such-file.mlir 2>&1 | FileCheck %s --check-prefix=FILE
//
// Bad input gives a diagnostic and a non-zero exit, never a crash.

// SIZE: error: the module has a dynamic seq-k size; pass --seq-k=N
// SIZE: case 0: FAIL
// ZERO: error: --batch must be positive
// NEGATIVE: error: --batch must be positive, got -1
// IDENTICAL: rocke-run: --expect-identical compares runs; pass --repeat=N with N >= 2
// PIPE: error: invalid --lowering pipeline 'no-such-pass'
// PIPE: case 0: FAIL
// LEFT: error: 'fmha.attention_fwd' left by --lowering; append ',fmha-lower-to-loops'
// LEFTTILE: error: 'fmha.tile_copy' left by --lowering; it needs 'fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma' after fmha-bwd-to-kernels
// FD: error: --fd-check needs an attention_bwd
// HUGE: error: argument #0 spans {{[0-9]+}} elements, more than rocke-run's limit
// OVERFLOW: error: argument #0 spans more elements than 64-bit arithmetic counts, more than rocke-run's limit of 268435456
// OVERFLOW-NOT: length_error
// OVERFLOW: case 0: FAIL
// FILE: rocke-run: cannot open input file

// CHECK: error: rocke-run needs exactly one public func.func with a body, found 0
// CHECK: case 0: FAIL
func.func private @only_private(%q: memref<1x5x2x32xf32>)

// -----

// CHECK: error: rocke-run needs exactly one public func.func with a body, found 2
// CHECK: case 1: FAIL
func.func @a() { return }
func.func @b() { return }

// -----

// CHECK: error: rocke-run needs a function without results
func.func @results(%x: memref<4xf32>) -> memref<4xf32> { return %x : memref<4xf32> }

// -----

// CHECK: error: no fmha.attention_fwd / attention_bwd op
func.func @no_attention(%x: memref<4xf32>) { return }

// -----

// CHECK: error: operand O must be an argument of the function
func.func @alloc_operand(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                         %v: memref<1x5x2x32xf32>, %lse: memref<1x2x5xf32>) {
  %o = memref.alloc() : memref<1x5x2x32xf32>
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: argument #0 and role K must map one to one
func.func @two_roles(%q: memref<1x5x2x32xf32>, %v: memref<1x5x2x32xf32>,
                     %o: memref<1x5x2x32xf32>, %lse: memref<1x2x5xf32>) {
  fmha.attention_fwd %q, %q, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: argument #5 feeds no fmha op
func.func @unused_arg(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                      %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                      %lse: memref<1x2x5xf32>, %extra: memref<4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: rocke-run runs one attention_fwd, one attention_bwd, or an attention_fwd followed by an attention_bwd
func.func @two_forwards(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                        %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                        %lse: memref<1x2x5xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: the backward's mask, scale, stats encoding and varlen clause must match the forward's
func.func @mismatch(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                    %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                    %do: memref<1x5x2x32xf32>, %lse: memref<1x2x5xf32>,
                    %dq: memref<1x5x2x32xf32>, %dk: memref<1x5x2x32xf32>,
                    %dv: memref<1x5x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>,
      memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
      -> memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
  return
}

// -----

// A dynamic stride comes from --layout (default bshd), a static one must agree.
// CHECK: error: argument #0: static stride 64 of dim 2 contradicts --layout
// CHECK: case 9: FAIL
func.func @stride_vs_layout(%q: memref<1x5x2x32xf32, strided<[?, ?, 64, 1]>>,
                            %k: memref<1x5x2x32xf32>, %v: memref<1x5x2x32xf32>,
                            %o: memref<1x5x2x32xf32>, %lse: memref<1x2x5xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32, strided<[?, ?, 64, 1]>>, memref<1x5x2x32xf32>,
      memref<1x5x2x32xf32> -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: argument #0 has a memory space; rocke-run allocates host memory only
func.func @memory_space(%q: memref<1x5x2x32xf32, #gpu.address_space<global>>, %k: memref<1x5x2x32xf32>,
                        %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                        %lse: memref<1x2x5xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32, #gpu.address_space<global>>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: argument #5 has type 'f32'; rocke-run passes memrefs only
func.func @scalar_arg(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                      %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                      %lse: memref<1x2x5xf32>, %x: f32) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// The op verifier runs at parse time.
// CHECK: error: 'fmha.attention_fwd' op query head count 3 is not a multiple of the kv head count 2
// CHECK: case 12: FAIL
func.func @invalid_op(%q: memref<1x5x3x32xf32>, %k: memref<1x5x2x32xf32>,
                      %v: memref<1x5x2x32xf32>, %o: memref<1x5x3x32xf32>,
                      %lse: memref<1x3x5xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x3x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x3x32xf32>, stats(memref<1x3x5xf32>)
  return
}
