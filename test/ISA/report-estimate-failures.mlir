// When llvm-mca gives no estimate, rocke-report says why and still reports
// (exit 0): a run past --mca-timeout is killed (llvm-mca does not finish on
// some of AITER's gfx950 loops), a failing or missing llvm-mca is named.
// Inputs/fake-llvm-mca.sh stands in for llvm-mca.
// RUN: rocke-opt %S/Inputs/loop_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: env FAKE_MCA=hang rocke-report %t.hsaco --llvm-mca=%S/Inputs/fake-llvm-mca.sh --mca-timeout=1 | FileCheck %s --check-prefix=HANG
// RUN: env FAKE_MCA=hang rocke-report --json %t.hsaco --llvm-mca=%S/Inputs/fake-llvm-mca.sh --mca-timeout=1 | FileCheck %s --check-prefix=HANGJSON
// RUN: env FAKE_MCA=fail rocke-report %t.hsaco --llvm-mca=%S/Inputs/fake-llvm-mca.sh | FileCheck %s --check-prefix=FAIL
// RUN: rocke-report %t.hsaco --llvm-mca=%S/Inputs/fake-llvm-mca.sh | FileCheck %s --check-prefix=NOCYCLES
// RUN: rocke-report %t.hsaco --llvm-mca=%t.no-such-llvm-mca | FileCheck %s --check-prefix=MISSING
// RUN: rocke-report %t.hsaco --no-estimate --llvm-mca=%S/Inputs/fake-llvm-mca.sh | FileCheck %s --check-prefix=SKIP

// HANG: kernel mfma_loop
// HANG: estimate: none (llvm-mca timed out after 1 s)
// HANGJSON: "estimate": {
// HANGJSON-NEXT: "found": false,
// HANGJSON-NEXT: "reason": "llvm-mca timed out after 1 s"
// FAIL: estimate: none (llvm-mca failed: error: fake llvm-mca cannot parse the loop)
// NOCYCLES: estimate: none (llvm-mca printed no Total Cycles)
// MISSING: estimate: none (cannot run {{.*}}no-such-llvm-mca: {{.+}})
// SKIP: kernel mfma_loop
// SKIP-NOT: estimate
