// fmha-dump-binary on hand-written gpu.binary ops: an object that is not an
// ELF gives no code-object facts but no failure, recorded kernels come out in
// launch order with the target's grid limits, and integers wider than 64
// bits keep their printed form (they used to be truncated: 2^64 + 5 was
// written as 5).
// RUN: rocke-opt %s -fmha-dump-binary=output=%t.bin -o /dev/null
// RUN: FileCheck %s < %t.bin.json

// CHECK: "binary": "kernels",
// CHECK: "kernels": [
// CHECK: "launch": {
// CHECK-NEXT: "grid_limit": [
// CHECK-NEXT: 2147483647,
// CHECK-NEXT: 65535,
// CHECK-NEXT: 65535
// CHECK-NEXT: ],
// CHECK-NEXT: "order": 0
// CHECK: "name": "first"
// CHECK: "launch": {
// CHECK: "order": 1,
// CHECK-NEXT: "tag": "18446744073709551615 : ui64"
// CHECK: "name": "unsigned"
// CHECK: "launch": {
// CHECK: "order": 2,
// CHECK-NEXT: "tag": "18446744073709551621 : i128"
// CHECK: "name": "wide"
// CHECK: "target": "#rocdl.target"
module attributes {rocke.kernels = {kernels = [
    {name = "wide", args = [], launch = {order = 2 : i64, tag = 18446744073709551621 : i128}},
    {name = "unsigned", args = [], launch = {order = 1 : ui64, tag = 18446744073709551615 : ui64}},
    {name = "first", args = [], launch = {order = 0 : i64}}]}} {
  gpu.binary @kernels [#gpu.object<#rocdl.target, "not an ELF file">]
}
