// Fuzzer finding: the checked pipelines add builtin.module passes, and nested
// under another op (a mutated RUN-line anchor) they aborted in
// OpPassManager::addPass ("Can't add pass ... restricted to 'builtin.module'").
// Now the pipeline parser reports it.
// RUN: not rocke-opt %s -pass-pipeline='builtin.module(func.func(fmha-rocdl-to-hsaco))' 2>&1 | FileCheck %s --check-prefix=ROCDL
// RUN: not rocke-opt %s -pass-pipeline='builtin.module(gpu.module(fmha-nvvm-to-ptx))' 2>&1 | FileCheck %s --check-prefix=NVVM
// RUN: not rocke-opt %s -pass-pipeline='builtin.module(func.func(fmha-bwd-rocdl))' 2>&1 | FileCheck %s --check-prefix=BWD
// RUN: rocke-opt %s -pass-pipeline='any(fmha-rocdl-to-hsaco{chip=gfx942 format=isa})' | FileCheck %s --check-prefix=ANY

// ROCDL: error: fmha-rocdl-to-hsaco runs on builtin.module, not nested in 'func.func'
// NVVM: error: fmha-nvvm-to-ptx runs on builtin.module, not nested in 'gpu.module'
// BWD: error: fmha-bwd-rocdl runs on builtin.module, not nested in 'func.func'
// ANY: gpu.binary @k
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @noop() kernel {
      gpu.return
    }
  }
  func.func @host() {
    return
  }
}
