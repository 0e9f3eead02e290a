// RUN: rocke-opt %s -split-input-file -fmha-record-kernel-abi -verify-diagnostics -o /dev/null

module attributes {gpu.container_module} {
  gpu.module @bad {
    // expected-error @+1 {{rocke.launch must be a dictionary, got [1, 2]}}
    gpu.func @k() kernel attributes {rocke.launch = [1, 2]} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @bad_order {
    // expected-error @+1 {{rocke.launch.order must be an integer, got "first"}}
    gpu.func @k() kernel attributes {rocke.launch = {order = "first"}} {
      gpu.return
    }
  }
}
