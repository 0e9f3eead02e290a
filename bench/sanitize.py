#!/usr/bin/env python3
"""compute-sanitizer memcheck and racecheck over the generated kernels.

Runs `run_bwd.py --sanitize --skip-bench` (the backward's validation
configurations of both strategies on small tail shapes: Sq, Sk multiples of
no tile, Sq != Sk bottom-right, GQA, a sliding window, deterministic mode)
and `run_fwd.py --sanitize --skip-bench` (the forward's, plus Sq > Sk
bottom-right, whose first rows see no key, and the forward+backward chains)
under each tool, checking only our kernels of that runner's direction
(--kernel-regex on the fmha_bwd_ resp. fmha_fwd_ prefix: PyTorch's own
kernels report hazards of their own; a chain's backward kernels are the
backward runner's), and prints per tool and kernel the number of reported
errors. Exit status non-zero when any tool reports an error in our kernels
or a validation fails.

  python3 bench/sanitize.py [--dir bench/out] [--only SUBSTRING ...]
                            [--runners bwd,fwd]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = ("memcheck", "racecheck")
# Per runner: its script and the name prefix of the kernels it checks.
RUNNERS = {"bwd": ("run_bwd.py", "fmha_bwd_"), "fwd": ("run_fwd.py",
                                                       "fmha_fwd_")}


def run_tool(tool, runner, args):
    script, prefix = RUNNERS[runner]
    cmd = ["compute-sanitizer", "--tool", tool, "--kernel-regex",
           "kns=" + prefix, "--print-limit", "50"]
    if tool == "racecheck":
        cmd += ["--racecheck-report", "hazard"]
    cmd += [sys.executable, os.path.join(HERE, script), "--sanitize",
            "--skip-bench", "--dir", args.dir, "--budget-s", "100000"]
    if args.only:
        cmd += ["--only"] + args.only
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def summarize(text):
    """Errors per kernel: the kernel named in each reported error block."""
    per_kernel = collections.Counter()
    for block in re.split(r"\n(?==========\s+(?:Invalid|Error|Race|Warning))",
                          text):
        m = re.search(r"(?:Invalid|Error|Race|hazard).*", block)
        k = re.search(r"(fmha_(?:bwd|fwd)_\w+)", block)
        if m and k and block.startswith("========="):
            per_kernel[k.group(1)] += 1
    # memcheck ends with "ERROR SUMMARY: N errors", racecheck with
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    total = re.search(r"ERROR SUMMARY: (\d+) error", text) or re.search(
        r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error", text)
    return per_kernel, int(total.group(1)) if total else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(HERE, "out"))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--log-dir", default=os.environ.get("OUT"))
    ap.add_argument("--runners", default=",".join(RUNNERS),
                    help="which runners to sanitize, of %s"
                    % ",".join(RUNNERS))
    args = ap.parse_args()
    runners = args.runners.split(",")
    if set(runners) - set(RUNNERS):
        ap.error("--runners: want some of %s" % ",".join(RUNNERS))
    bad = False
    for runner in runners:
        for tool in TOOLS:
            rc, text = run_tool(tool, runner, args)
            if args.log_dir:
                os.makedirs(args.log_dir, exist_ok=True)
                with open(os.path.join(args.log_dir, "sanitize_%s_%s.log"
                                       % (runner, tool)), "w") as f:
                    f.write(text)
            per_kernel, total = summarize(text)
            cases = re.search(r"validation: (\d+) cases, (\d+) failed", text)
            print("%-3s %-9s exit %d, validation %s, sanitizer errors %s" % (
                runner, tool, rc, "%s cases, %s failed" % cases.groups()
                if cases else "did not finish", total))
            for k, n in sorted(per_kernel.items()):
                print("  %-28s %d" % (k, n))
            bad |= rc != 0 or not total == 0 or not cases or \
                cases.group(2) != "0"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
