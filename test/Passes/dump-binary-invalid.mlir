// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-dump-binary=output=%t.bin -o /dev/null
//
// fmha-dump-binary checks hand-written launch facts (rocke.kernels) as
// fmha-record-kernel-abi does before they reach the JSON sidecar, against
// the limits of the binary's target.

module attributes {rocke.kernels = {kernels = [
    {name = "zero", args = [], launch = {order = 0 : i64, block = [-5, 0, 99999999999]}}]}} {
  // expected-error @+1 {{kernel 'zero': rocke.launch.block[0] must be in [1, 1024], got -5}}
  gpu.binary @kernels [#gpu.object<#rocdl.target<chip = "gfx942">, "not an ELF file">]
}

// -----

module attributes {rocke.kernels = {kernels = [
    {name = "main", args = [], launch = {order = 0 : i64, grid = ["Sq+", "Hq", "B"]}}]}} {
  // expected-error @+1 {{kernel 'main': rocke.launch.grid[0] 'Sq+' is no grid expression: expected a size, an integer or '(' at offset 3}}
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, "not PTX">]
}

// -----

module attributes {rocke.kernels = {kernels = [
    {name = "main", args = [{type = index, abi = []}], launch = {order = 0 : i64, args = []}}]}} {
  // expected-error @+1 {{kernel 'main': rocke.launch.args has 0 roles for the 1 kernel arguments}}
  gpu.binary @kernels [#gpu.object<#rocdl.target, "not an ELF file">]
}
