// fmha-record-kernel-abi keeps each kernel's signature, its LLVM expansion and
// its rocke.launch facts in the module; fmha-dump-binary writes them to the
// JSON sidecar in launch order.
// RUN: rocke-opt %s -fmha-record-kernel-abi | FileCheck %s
// RUN: rocke-opt %s -o /dev/null \
// RUN:   -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: FileCheck %s --check-prefix=JSON < %t.hsaco.json

// CHECK-LABEL: module attributes
// CHECK-SAME: rocke.kernels = {bwd = [
// Recorded in program order; the launch order is applied by the JSON writer.
// CHECK-SAME: {args = [{abi = [{field = "allocated", type = !llvm.ptr<1>}, {field = "aligned", type = !llvm.ptr<1>}, {field = "offset", type = i64}, {field = "size0", type = i64}, {field = "size1", type = i64}, {field = "size2", type = i64}, {field = "size3", type = i64}, {field = "stride0", type = i64}, {field = "stride1", type = i64}, {field = "stride2", type = i64}, {field = "stride3", type = i64}], type = memref<?x?x8x64xf32, strided<[?, 512, 64, 1]>, #gpu.address_space<global>>}, {abi = [{field = "value", type = f32}], type = f32}, {abi = [{field = "value", type = i64}], type = index}]
// The chip's grid limits join the launch facts.
// CHECK-SAME: launch = {args = ["dq_acc", "scale", "seqlen"], block = [256, 1, 1], grid = ["B*Hq", "ceildiv(Sq,64)", "1"], grid_limit = [2147483647, 65535, 65535], lds_bytes = 0 : i64, order = 2 : i64}
// CHECK-SAME: name = "postprocess"
// CHECK-SAME: {args = [{abi = [{field = "allocated", type = !llvm.ptr<1>}, {field = "aligned", type = !llvm.ptr<1>}, {field = "offset", type = i64}, {field = "size0", type = i64}, {field = "stride0", type = i64}], type = memref<128xf16, 1>}]
// CHECK-SAME: lds_bytes = 16384 : i64, order = 1 : i64}, name = "main"
// CHECK-SAME: name = "preprocess"
// Device helpers are not kernels.
// CHECK-NOT: name = "helper"

// JSON: "binary": "bwd"
// JSON: "kernels": [
// JSON: "index": 0,
// JSON-NEXT: "name": "o",
// JSON-NEXT: "type": "memref<64xf16, 1>"
// JSON: "launch": {
// JSON: "order": 0
// JSON: "metadata": {
// JSON: "name": "preprocess"
// JSON: "name": "q",
// JSON: "lds_bytes": 16384,
// JSON: "order": 1
// JSON: "name": "main"
// JSON: "field": "stride3",
// JSON: "name": "dq_acc",
// JSON: "block": [
// JSON-NEXT: 256,
// JSON: "grid": [
// JSON-NEXT: "B*Hq",
// JSON-NEXT: "ceildiv(Sq,64)",
// JSON-NEXT: "1"
// JSON: "grid_limit": [
// JSON-NEXT: 2147483647,
// JSON: "order": 2
// JSON: "vgpr_count":
// JSON: "name": "postprocess"
module attributes {gpu.container_module} {
  gpu.module @bwd {
    gpu.func @postprocess(%dq: memref<?x?x8x64xf32, strided<[?, 512, 64, 1]>, #gpu.address_space<global>>,
                          %scale: f32, %s: index) kernel
        attributes {rocke.launch = {order = 2 : i64, grid = ["B*Hq", "ceildiv(Sq,64)", "1"],
                                    block = [256, 1, 1], args = ["dq_acc", "scale", "seqlen"],
                                    lds_bytes = 0 : i64}} {
      gpu.return
    }
    gpu.func @main(%q: memref<128xf16, 1>) kernel
        attributes {rocke.launch = {order = 1 : i64, args = ["q"], lds_bytes = 16384 : i64}} {
      gpu.return
    }
    gpu.func @helper(%x: f32) {
      gpu.return
    }
    gpu.func @preprocess(%o: memref<64xf16, 1>) kernel
        attributes {rocke.launch = {order = 0 : i64, args = ["o"]}} {
      gpu.return
    }
  }
}
