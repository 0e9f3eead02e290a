"""bench/build_kernels.py's configurations (backward, forward, chains) and
bench/cases.py, the H200 runners' sizes and FLOP counts (no GPU)."""
import json
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "bench"))
import build_kernels as bk  # noqa: E402
import cases  # noqa: E402
import rocke  # noqa: E402

STRATEGIES = ["warp", "tiled"]
# The backward's names predate the other kinds; results and docs refer to
# them.
BACKWARD_NAMES = [
    "%s_%s" % (strategy, rest) for rest in (
        "f16_d64_h16_16_none", "f16_d64_h16_16_causal",
        "f16_d128_h16_16_none", "f16_d128_h16_16_causal",
        "bf16_d64_h16_16_none", "bf16_d64_h16_16_causal",
        "bf16_d128_h16_16_none", "bf16_d128_h16_16_causal",
        "bf16_d128_h16_4_none", "f16_d64_h16_4_causal",
        "bf16_d64_h16_16_swa256_0", "bf16_d128_h16_16_causalbr")
    for strategy in STRATEGIES] + [
    "tiled_bf16_d256_h16_16_causal", "tiled_f16_d192_h16_16_none",
    "warp_bf16_d64_h16_16_causal_det", "tiled_bf16_d64_h16_16_causal_det",
    "warp_f16_d128_h16_16_none_det", "tiled_f16_d128_h16_16_none_det"]


def of_kind(kind):
    return bk.configs(STRATEGIES, kinds=(kind,))


def problem(c):
    return (c["dtype"], c["D"], c["Hq"], c["Hkv"], c["mask"], c["alignment"],
            c["left"], c["right"])


def test_backward_names_unchanged():
    assert [c["name"] for c in of_kind("bwd")] == BACKWARD_NAMES
    variants = bk.configs(STRATEGIES, [(128, 8, 64)], ("bwd",))
    assert variants[-1]["name"] == "tiled_bf16_d128_h16_16_causal_t128x8x64"


def test_kinds_select_independently():
    every = bk.configs(STRATEGIES)
    for kind in cases.KINDS:
        assert [c for c in every if c["kind"] == kind] == of_kind(kind)
    assert len({c["name"] for c in every}) == len(every)


def test_forward_matrix():
    fwd = of_kind("fwd")
    assert all(c["name"].startswith("fwd_tiled_") and
               c["strategy"] == "tiled" for c in fwd)
    # The backward's validation problems (deterministic mode aside), one
    # forward each, plus the log2_max_sum statistics.
    bwd = {problem(c) for c in of_kind("bwd") if not c["deterministic"]}
    assert {problem(c) for c in fwd if c["stats"] == "lse"} == bwd
    assert [c["name"] for c in fwd if c["stats"] != "lse"] == \
        ["fwd_tiled_bf16_d128_h16_16_causal_l2ms"]
    bench = sorted(c["name"] for c in fwd if c["purpose"] != "validate")
    assert bench == ["fwd_tiled_bf16_d%d_h16_16_%s" % (d, m)
                     for d in (128, 64) for m in ("causal", "none")]
    assert all(c["purpose"] == "both" for c in fwd
               if c["name"] in bench)


def test_chain_matrix():
    assert [c["name"] for c in of_kind("chain")] == [
        "fwdbwd_tiled_bf16_d128_h16_16_causal",
        "fwdbwd_tiled_f16_d64_h16_4_none",
        "fwdbwd_tiled_bf16_d64_h16_16_swa256_0"]


def op_lines(text):
    """{op: its attribute dict (or '')} of the fmha ops, in order."""
    return [(m.group(1), m.group(2) or "") for m in re.finditer(
        r"fmha\.attention_(fwd|bwd) [^{\n]*(\{[^\n]*\})?\n", text)]


def test_forward_mlir():
    for c in of_kind("fwd"):
        text = bk.mlir_of(c)
        ops = op_lines(text)
        assert [op for op, _ in ops] == ["fwd"], c["name"]
        assert "@fmha_fwd(" in text and "bhsd" in text
        if c["stats"] == "log2_max_sum":
            assert "stats(%m, %l)" in text
            assert "stats_encoding = #fmha.stats<log2_max_sum>" in ops[0][1]
        else:
            assert "stats(%lse)" in text
        if c["mask"] != "none":
            assert "mask = #fmha.mask<%s" % c["mask"] in ops[0][1]


def test_chain_mlir():
    for c in of_kind("chain"):
        text = bk.mlir_of(c)
        ops = op_lines(text)
        assert [op for op, _ in ops] == ["fwd", "bwd"], c["name"]
        assert ops[0][1] == ops[1][1]  # same mask, scale and statistics
        assert "@fmha_fwd_bwd(" in text


def test_backward_mlir_is_the_spec_default():
    for c in of_kind("bwd"):
        assert bk.mlir_of(c) == bk.spec_of(c).to_mlir()


def rocke_opt():
    try:
        return rocke.find_rocke_opt()
    except rocke.RockeOptNotFound:
        return None


@pytest.mark.skipif(rocke_opt() is None, reason="no rocke-opt binary")
@pytest.mark.parametrize("kind", ["fwd", "chain"])
def test_rocke_opt_parses(kind):
    for c in of_kind(kind):
        r = subprocess.run([rocke_opt()], input=bk.mlir_of(c),
                           capture_output=True, text=True)
        assert r.returncode == 0, (c["name"], r.stderr)


def test_flops():
    assert cases.forward_flops(2, 16, 1024, 512, 128, False) == \
        4 * 2 * 16 * 1024 * 512 * 128
    assert cases.forward_flops(1, 1, 8, 8, 64, True) == \
        cases.forward_flops(1, 1, 8, 8, 64, False) / 2
    assert cases.backward_flops(2, 16, 1024, 512, 128, True) == \
        2.5 * cases.forward_flops(2, 16, 1024, 512, 128, True)
    assert [cases.bench_batch(s) for s in (1024, 8192, 32768)] == [16, 2, 1]


def config(name):
    return next(c for c in bk.configs(["tiled"]) if c["name"] == name)


def test_forward_sizes():
    br = config("fwd_tiled_bf16_d128_h16_16_causalbr")
    assert cases.forward_sizes(br) == [(128, 1000), (1000, 4096),
                                       (1000, 128)]
    assert cases.forward_sizes(br, sanitize=True) == [(77, 130), (130, 77)]
    for name in ("fwd_tiled_bf16_d64_h16_16_none",
                 "fwdbwd_tiled_bf16_d64_h16_16_swa256_0"):
        c = config(name)
        assert cases.forward_sizes(c) == cases.validation_sizes(c)
    # A chain never meets rows without keys (its gradient reference).
    chain_br = dict(br, kind="chain")
    assert all(sq <= sk for sq, sk in cases.forward_sizes(chain_br))


def test_config_names(tmp_path):
    for name, cfg in (("tiled_a", {"kind": "bwd"}), ("fwd_tiled_a",
                                                       {"kind": "fwd"}),
                      ("fwdbwd_tiled_a", {"kind": "chain"}),
                      ("old_build", {})):
        (tmp_path / (name + ".config.json")).write_text(
            json.dumps({"config": cfg}))
    (tmp_path / "tiled_a.ptx").write_text("")
    d = str(tmp_path)
    assert cases.config_names(d, [], ("bwd",)) == ["old_build", "tiled_a"]
    assert cases.config_names(d, ["tiled"], ("fwd", "chain")) == \
        ["fwd_tiled_a", "fwdbwd_tiled_a"]
    assert cases.config_names(d, ["fwd_"]) == ["fwd_tiled_a"]
