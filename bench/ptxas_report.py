#!/usr/bin/env python3
"""ptxas's static view of built kernel sets, no GPU needed: for each kernel of
each set (a `build_kernels.py` directory, or a PyTorch op cache of
`torch_check.py --prebuild`), the registers ptxas allocates, its spill stores
and loads, and its performance notes on warpgroup products (C75xx: a wait or
fence it injects, products it serialises). With --base, the same for a
second build and what changed, set by set (matched by name, or by spec and
pipeline in a cache).

  python3 bench/ptxas_report.py DIR [--base DIR] [--chip sm_90a] [--all]

Prints one row per kernel (with --base, only the kernels that changed unless
--all), then the totals. Exit status 0; 2 when ptxas is missing.
"""
import argparse
import collections
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

Kernel = collections.namedtuple("Kernel", "registers spill_stores spill_loads notes")


def parse(text):
    """ptxas -v's report: {entry: Kernel}. Notes (C75xx) name their function;
    the properties follow "Compiling entry function 'NAME'"."""
    kernels, current = {}, None
    notes = collections.defaultdict(list)
    for line in text.splitlines():
        m = re.search(r"\((C75\d\d)\).*function '(\w+)'", line)
        if m:
            notes[m.group(2)].append(m.group(1))
            continue
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
            kernels[current] = Kernel(0, 0, 0, [])
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            kernels[current] = kernels[current]._replace(
                spill_stores=int(m.group(1)), spill_loads=int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            kernels[current] = kernels[current]._replace(
                registers=int(m.group(1)))
    return {name: k._replace(notes=sorted(notes.get(name, [])))
            for name, k in kernels.items()}


def ptx_sets(root):
    """{set name: PTX path}: DIR/*.ptx, or a cache's DIR/*/kernel.ptx named
    by a digest of its spec and pipeline (a cache's directory names change
    with the compiler)."""
    sets = {os.path.basename(p)[:-len(".ptx")]: p
            for p in glob.glob(os.path.join(root, "*.ptx"))}
    for p in glob.glob(os.path.join(root, "*", "kernel.ptx")):
        d = os.path.dirname(p)
        with open(os.path.join(d, "spec.mlir")) as f:
            spec = f.read()
        with open(os.path.join(d, "pipeline.txt")) as f:
            digest = hashlib.sha1((spec + f.read()).encode())
        m = re.search(r"memref<[^>]*x(\d+)x(bf16|f16)", spec)
        label = "%s_d%s" % (m.group(2), m.group(1)) if m else "set"
        sets["%s_%s" % (label, digest.hexdigest()[:8])] = p
    return sets


def report(ptxas, path, chip):
    r = subprocess.run([ptxas, "-arch=" + chip, "-O3", "-v", path, "-o",
                        os.devnull], capture_output=True, text=True)
    if r.returncode:
        return {"(ptxas failed)": Kernel(0, 0, 0, [r.stderr.strip()[:60]])}
    return parse(r.stderr)


def cell(k):
    if k is None:
        return "-"
    spill = "%d/%d" % (k.spill_stores, k.spill_loads)
    return "%3d regs, spill %s%s" % (k.registers, spill,
                                     (", " + " ".join(k.notes)) if k.notes
                                     else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--base", help="a second build to compare against")
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--all", action="store_true",
                    help="with --base, every kernel, not only those that changed")
    args = ap.parse_args()
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        print("ptxas_report: ptxas not found (PATH or /usr/local/cuda/bin)",
              file=sys.stderr)
        return 2
    new = ptx_sets(args.dir)
    old = ptx_sets(args.base) if args.base else {}
    roots = [args.dir] + ([args.base] if args.base else [])
    totals = [collections.Counter() for _ in roots]
    header = "| set | kernel | %s |%s" % (
        args.dir, " %s |" % args.base if args.base else "")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for name in sorted(set(new) | set(old)):
        now = report(ptxas, new[name], args.chip) if name in new else {}
        then = report(ptxas, old[name], args.chip) if name in old else {}
        for kernel in sorted(set(now) | set(then)):
            a, b = now.get(kernel), then.get(kernel)
            for total, k in zip(totals, (a, b)):
                if k:
                    total["spill stores"] += k.spill_stores
                    total["notes"] += len(k.notes)
                    total["kernels with notes"] += bool(k.notes)
            if args.base and not args.all and a == b:
                continue
            print("| %s | %s | %s |%s" % (name, kernel, cell(a),
                                           " %s |" % cell(b) if args.base
                                           else ""))
    for root, total in zip(roots, totals):
        print("%s: %d kernels with C75xx notes (%d notes), %d bytes of "
              "spill stores" % (root, total["kernels with notes"],
                                total["notes"], total["spill stores"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
