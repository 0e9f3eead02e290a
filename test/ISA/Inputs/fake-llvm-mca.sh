#!/bin/sh
# Stands in for llvm-mca in report-estimate-failures.mlir, as $FAKE_MCA says:
# hang (as llvm-mca does on some gfx950 loops), fail, or print no cycles.
case "$FAKE_MCA" in
  hang) exec sleep 60 ;;
  fail) echo "error: fake llvm-mca cannot parse the loop" >&2; exit 1 ;;
  *) echo "Iterations:        10" ;;
esac
