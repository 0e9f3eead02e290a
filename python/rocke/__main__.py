"""``python3 -m rocke [--forward] [--compile] [--pipeline P] key=value ...``

Prints the MLIR for an FmhaBwdSpec built from key=value pairs (ints, None,
true/false and floats are converted), optionally run through rocke-opt.
Example: python3 -m rocke dtype=bf16 seq_q=None heads_q=16 heads_kv=4 mask=causal
"""
import argparse
import sys

from . import CompileError, FmhaBwdSpec, compile as rocke_compile


def _value(s):
    if s in ("None", "none_"):
        return None
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m rocke", description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("fields", nargs="*", help="FmhaBwdSpec field=value")
    ap.add_argument("--forward", action="store_true")
    ap.add_argument("--compile", action="store_true",
                    help="run rocke-opt (verify, or --pipeline)")
    ap.add_argument("--pipeline", default=None)
    ap.add_argument("--rocke-opt", default=None)
    a = ap.parse_args(argv)
    kw = {}
    for f in a.fields:
        if "=" not in f:
            ap.error("expected field=value, got %r" % f)
        k, v = f.split("=", 1)
        kw[k] = v if k in ("mask", "dtype", "chip", "strategy", "layout",
                           "alignment", "stats_encoding", "name") else _value(v)
    try:
        spec = FmhaBwdSpec(**kw)
    except (TypeError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if a.compile or a.pipeline:
        try:
            sys.stdout.write(rocke_compile(spec, a.pipeline, a.rocke_opt,
                                           forward=a.forward))
        except CompileError as e:
            print("error: %s" % e, file=sys.stderr)
            return 1
    else:
        sys.stdout.write(spec.to_mlir(forward=a.forward))
    return 0


if __name__ == "__main__":
    sys.exit(main())
