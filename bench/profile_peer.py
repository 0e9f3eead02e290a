#!/usr/bin/env python3
"""One peer's attention, forward and backward, run twice and nothing else:
the process to put under Nsight Compute when a peer's kernels are the
question (their launch configuration, registers, workgroup memory, where
they stall). bf16, [B, H, S, D], B = 16384 / S as bench/cases.py times.

  ncu --clock-control none -k regex:bprop -c 1 --section LaunchStats \\
      --section Occupancy python3 bench/profile_peer.py --peer cudnn --d 128
"""
import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION,
            "flash": SDPBackend.FLASH_ATTENTION}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", choices=sorted(BACKENDS), default="cudnn")
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--s", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--causal", action="store_true")
    a = ap.parse_args()
    shape = (16384 // a.s, a.heads, a.s, a.d)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    with sdpa_kernel(BACKENDS[a.peer]):
        for _ in range(2):
            o = F.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
            o.backward(torch.randn_like(o))
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
