"""bench/torch_check.py and bench/train_lm.py without a GPU: their problems
are ones the op takes (what --prebuild compiles), and the gradient cases'
masks leave every query a key (the float32 SDPA reference is NaN for a row
that sees none)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "bench"))
import torch_check  # noqa: E402


def test_cases_are_distinct_and_checkable():
    cases = torch_check.cases()
    assert len({c["name"] for c in cases}) == len(cases)
    # Two cases leave query rows without keys (Sq > Sk, bottom-right
    # causal): 200 of their 300, without and with sinks (whose LSE is then
    # the sink).
    assert [(c["name"], torch_check.keyless_rows(c)) for c in cases
            if torch_check.keyless_rows(c)] == \
        [("bf16_d128_h16_4_causal_300x100", 200),
         ("bf16_d128_h16_4_causal_300x100_sinks", 200)]
    assert {c["D"] for c in cases} == {64, 96, 128, 192, 256}
    assert {(c["Hq"], c["Hkv"]) for c in cases} == {(16, 16), (16, 4)}


def test_every_problem_is_one_the_op_takes():
    problems = torch_check.problems()
    assert len(problems) == len(torch_check.cases()) + \
        len(torch_check.varlen_cases()) + 1 + len(torch_check.MODEL["seqs"])
    assert {p.dtype for p in problems} == {"bf16", "f16"}
    assert sum(p.varlen for p in problems) == \
        len(torch_check.varlen_cases()) + 1  # and COMPILE_VARLEN


def test_report_tables():
    """The markdown report of a run (rows as gpu_checks records them)."""
    err = dict(rel=1e-3, torch_rel=2e-3)
    row = dict(case="varlen_x", o=err, dq=err, dk=err, dv=err,
               lse=dict(rel=1e-6), ms=1.5, ok=True, bitwise_repeat=True)
    text = torch_check.markdown(dict(
        device="H200", gradients=[row], errors_raised=[dict(
            what="cu_seqlens int64 -> TypeError", ok=True, message="m")],
        compile=None, compile_varlen=dict(
            case="varlen_c", ok=False, notes="1 launches", our_launches=1,
            rel=dict(o=0.0, dq=1e-3, dk=0.0, dv=0.0)), errors=[]))
    assert "| varlen_x | 1.0e-03 (2.0e-03) |" in text
    assert "bits equal" in text
    assert "| varlen_c | 0.0e+00 | 1.0e-03 | 0.0e+00 | 0.0e+00 | 1 | FAIL " \
        "1 launches |" in text


def test_varlen_cases_cover_the_matrix():
    """Packed cases: distinct, with an empty sequence, length 1, lengths no
    tile divides, Sq != Sk per sequence, GQA, deterministic mode, padding;
    rows without keys only where bottom-right causal leaves some (Sq > Sk,
    or no key at all)."""
    cases = torch_check.varlen_cases()
    assert len({c["name"] for c in cases}) == len(cases)
    lengths = {n for c in cases for n in c["seqs_q"] + c["seqs_k"]}
    assert {0, 1} <= lengths and any(n % 64 for n in lengths)
    assert any(sq != sk for c in cases
               for sq, sk in zip(c["seqs_q"], c["seqs_k"]))
    assert any(c["Hq"] != c["Hkv"] for c in cases)
    assert any(c["deterministic"] for c in cases)
    assert any(c["pad"] for c in cases)
    assert [(c["name"], torch_check.keyless_rows(c)) for c in cases
            if torch_check.keyless_rows(c)] == \
        [("varlen_bf16_d128_h16_4_causal_300x100+50x80+4x0", 204)]
    c = cases[1]
    assert torch_check.offsets(c["seqs_q"]) == [0, 100, 101, 101, 351]
    p = torch_check.varlen_problem(c)
    assert (p.batch, p.seq_q, p.seq_k, p.max_seqlen_q, p.max_seqlen_k) == \
        (4, 351, 562, 256, 512)


def test_rows_without_keys_are_counted():
    assert torch_check.keyless_rows(
        torch_check.case("bf16", 64, 2, 2, 10, 4, causal=True)) == 6
    assert torch_check.keyless_rows(
        torch_check.case("bf16", 64, 2, 2, 4, 10, causal=True)) == 0
    assert torch_check.keyless_rows(
        torch_check.case("bf16", 64, 2, 2, 10, 4, window=(0, 2))) == 4


import train_lm  # noqa: E402


def test_train_lm_problem_and_data():
    (p,) = train_lm.problems()
    assert (p.heads_q, p.head_dim, p.window_right) == (6, 64, 0)
    data = train_lm.corpus()
    assert isinstance(data, bytes) and len(data) > 100_000


def lm_results(flash, cudnn, ours):
    results = dict(runs={n: dict(losses=l, ms_per_step=1.0) for n, l in
                         (("sdpa-flash", flash), ("sdpa-cudnn", cudnn),
                          ("rocke", ours))}, errors=[])
    results["differences"] = train_lm.compare(results)
    return results


def test_train_lm_verdict():
    falling = [5.5 - 0.01 * i for i in range(200)]
    shifted = [x + 0.005 for x in falling]
    assert train_lm.verdict(lm_results(falling, shifted, shifted)) == []
    far = [x + 0.2 for x in falling]  # past 2 x 0.005 + 0.02
    bad = train_lm.verdict(lm_results(falling, shifted, far))
    assert len(bad) == 2 and "past 2 x 0.005" in bad[0]
    flat = [5.5] * 200
    assert "did not fall" in train_lm.verdict(lm_results(flat, flat,
                                                         flat))[0]
    nan = falling[:-1] + [float("nan")]
    assert "not finite" in train_lm.verdict(lm_results(falling, shifted,
                                                        nan))[0]


def test_run_varlen_batch_and_report():
    """bench/run_varlen.py: the length mix fills the token count exactly
    within the bounds, its rows are problems the op takes, and the tables
    name the best peer and the cells that failed."""
    import run_varlen
    lens = run_varlen.lengths(16384, 64, 4096, 32)
    assert sum(lens) == 16384 and max(lens) <= 4096
    assert all(n >= 64 for n in lens[:-1]) and lens[-1] >= 1
    problems = run_varlen.problems(lens)
    assert len(problems) == len(run_varlen.POINTS)
    assert all(p.varlen and p.max_seqlen_q == 4096 for p in problems)
    row = dict(D=64, causal=True, fwd_flop=4e12, bwd_flop=1e13,
               ours=dict(fwd_ms=2.0, bwd_ms=5.0), varlen=dict(
                   fwd_ms=3.0, bwd_ms=4.0), flex=dict(error="boom"))
    text = run_varlen.table([row], lens, "bwd_ms", "bwd_flop")
    assert "| 64 | causal | 5.000 (2000) | 4.000 (2500) |" in text
    assert "ERR: boom" in text and "ERR: not run" in text
    assert text.endswith("| 0.80x varlen |")


def test_score_mod_report_names_a_failed_result():
    """bench/run_score_mod.py's table: a row passes only if every result is
    within its tolerance."""
    import run_score_mod
    ok = dict(rel=1e-3, tol=1.6e-2, ok=True)
    rows = [dict(case="softcap2_none_bf16_d64", B=2, S=1000,
                 errors={w: ok for w in ("O", "lse", "dQ", "dK", "dV")}),
            dict(case="dropout0.1_causal_bf16_d64", B=1, S=4096,
                 dropped=0.09994,
                 errors=dict({w: ok for w in ("O", "lse", "dQ", "dK")},
                             dV=dict(rel=5e-2, tol=1.6e-2, ok=False)))]
    lines = run_score_mod.markdown(rows).splitlines()
    assert len(lines) == 4
    assert lines[2].startswith("| softcap2_none_bf16_d64 | 2 | 1000 | - |")
    assert lines[2].endswith("| pass |")
    assert "| 0.0999 |" in lines[3]
    assert "5.0e-02 (1.6e-02)" in lines[3] and lines[3].endswith("| FAIL |")


def test_score_mod_chains_spell_each_modification():
    """The chains' MLIR: softcap and ALiBi as score_mod clauses after the
    types, dropout as a clause of both ops with its {seed, offset}."""
    import run_score_mod
    text = run_score_mod.mlir_text("dropout", 0.1, "causal", 64)
    assert "%so: memref<2xi64>) {" in text
    assert text.count("stats(%lse) dropout(%so, p = 0.1)") == 2
    assert "-> %dq, %dk, %dv {mask = #fmha.mask<causal>}" in text
    assert text.count("dropout(memref<2xi64>)") == 2
    assert "score_mod" not in text
    text = run_score_mod.mlir_text("alibi", None, "none", 128)
    assert text.count("score_mod alibi(%slopes : memref<16xf32>)") == 2
    assert run_score_mod.case_name("dropout", 0.5, "none", 128) == \
        "dropout0.5_none_bf16_d128"


def test_score_mod_cost_problems_and_table():
    """bench/run_score_mod_cost.py: one kernel set per modification and
    mask; the table gives ours over ours unmodified and over Flex."""
    import run_score_mod_cost as cost
    problems = cost.problems()
    assert len(set(problems)) == 12
    assert {(p.softcap, p.alibi, p.sinks, p.dropout_p) for p in problems} == {
        (0.0, False, False, 0.0), (cost.CAP, False, False, 0.0),
        (0.0, True, False, 0.0), (0.0, False, True, 0.0),
        (0.0, False, False, torch_check.rt.round_to_f32(cost.DROPOUT_P))}
    assert sum(p.bias_dtype == "f32" and not p.bias_batch and p.grad_bias
               for p in problems) == 2
    rows = [dict(mod="none", causal=False, fwd_flop=4e12, bwd_flop=1e13,
                 ours=dict(fwd_ms=2.0, bwd_ms=5.0),
                 flex=dict(fwd_ms=2.5, bwd_ms=4.0)),
            dict(mod="softcap", causal=False, fwd_flop=4e12, bwd_flop=1e13,
                 ours=dict(fwd_ms=2.2, bwd_ms=6.0),
                 flex=dict(error="boom"))]
    lines = cost.table(rows, "fwd_ms", "fwd_flop").splitlines()
    assert lines[2] == "| none | none | 2.000 (2000) | 2.500 (1600) | " \
        "1.00 | 1.25x |"
    assert lines[3] == "| softcap | none | 2.200 (1818) | ERR: boom | " \
        "1.10 | - |"
