"""bench/ptxas_report.py: reading ptxas -v's report (no ptxas needed), and the
report of a built kernel set where ptxas is installed."""
import os
import re
import shutil
import subprocess
import sys

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
sys.path.insert(0, BENCH)
import ptxas_report  # noqa: E402

# ptxas 13.0's -v output for a two-kernel module, a C7517 note on the second.
PTXAS_V = """\
ptxas info    : 0 bytes gmem
ptxas info    : (C7517) warpgroup.wait is injected in around line 1459 by compiler to allow use of registers defined by GMMA in function 'fmha_bwd_tiled_main'
ptxas info    : Compiling entry function 'fmha_bwd_preprocess' for 'sm_90a'
ptxas info    : Function properties for fmha_bwd_preprocess
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 26 registers, used 0 barriers
ptxas info    : Compiling entry function 'fmha_bwd_tiled_main' for 'sm_90a'
ptxas info    : Function properties for fmha_bwd_tiled_main
    64 bytes stack frame, 64 bytes spill stores, 68 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers
"""


def test_parse_properties_and_notes():
    kernels = ptxas_report.parse(PTXAS_V)
    assert kernels == {
        "fmha_bwd_preprocess": ptxas_report.Kernel(26, 0, 0, []),
        "fmha_bwd_tiled_main": ptxas_report.Kernel(255, 64, 68, ["C7517"]),
    }
    assert ptxas_report.cell(kernels["fmha_bwd_tiled_main"]) == \
        "255 regs, spill 64/68, C7517"


PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.mark.skipif(not os.path.exists(PTXAS), reason="needs CUDA's ptxas")
def test_report_of_a_built_set(tmp_path):
    rocke_opt = os.path.join(ROOT, "build", "bin", "rocke-opt")
    if not os.path.exists(rocke_opt):
        pytest.skip("needs build/bin/rocke-opt")
    ptx = tmp_path / "tiled_bf16_d128_none.ptx"
    subprocess.run([rocke_opt, os.path.join(ROOT, "test", "ISA", "Inputs",
                                            "tiled_bf16_d128_none.mlir"),
                    "-o", os.devnull, "--pass-pipeline=builtin.module("
                    "fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%s})"
                    % ptx], check=True)
    out = subprocess.run([sys.executable, os.path.join(BENCH, "ptxas_report.py"),
                          str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    assert re.search(r"\| tiled_bf16_d128_none \| fmha_bwd_tiled_main \| +\d+ "
                     r"regs, spill \d+/\d+", out)
    assert "| tiled_bf16_d128_none | fmha_bwd_convert_dq |" in out
    assert out.rstrip().endswith("bytes of spill stores")
