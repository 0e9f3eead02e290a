"""bench/peers.py: the H200 runners' peer columns, recompile limits and
eager-fallback detection (no GPU, no PyTorch)."""
import logging
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "bench"))
import peers  # noqa: E402


def timed(ms, tflops):
    return {"ms": ms, "tflops": tflops}


ROWS = [
    dict(D=64, S=4096, B=4, causal=False, config="tiled_bf16_d64_h16_16_none",
         ours=dict(timed(2.0, 300.0), rel_vs_sdpa=2e-3,
                   kernels_ms={"fmha_bwd_main": 1.9}),
         cudnn=timed(1.5, 400.0), flash=timed(2.4, 250.0),
         flex={"error": "eager fallback (torch._dynamo hit config."
               "recompile_limit (24))"},
         sdpa_default_backend="CUDNN_ATTENTION"),
    dict(D=128, S=1024, B=16, causal=True, config=None,
         cudnn=timed(0.5, 100.0), flash=timed(0.6, 90.0),
         flex=timed(0.7, 80.0)),
]


def test_keys():
    assert peers.BENCH_KEYS == ("ours", "cudnn", "flash", "flex")
    assert peers.REFERENCE in peers.PEER_KEYS


def test_ratio():
    assert peers.ratio(ROWS[0], "cudnn") == "0.75x"
    assert peers.ratio(ROWS[0], "flash") == "1.20x"
    assert peers.ratio(ROWS[0], "flex") == "-"  # the peer failed
    assert peers.ratio(ROWS[1], "flash") == "-"  # ours not built


def test_markdown_bench():
    lines = peers.markdown_bench(ROWS).splitlines()
    caption, head, rule, first, second = (lines[0], lines[2], lines[3],
                                          lines[4], lines[5])
    assert "cuDNN = SDPA, SDPBackend.CUDNN_ATTENTION" in caption
    assert "flash = SDPA, SDPBackend.FLASH_ATTENTION" in caption
    assert "Flex = torch.compile(flex_attention, dynamic=False)" in caption
    assert "default backend here: CUDNN_ATTENTION." in caption
    columns = [c.strip() for c in head.strip("|").split("|")]
    assert columns[-3:] == ["ours / cuDNN", "ours / flash", "ours / Flex"]
    assert columns[8:14] == ["cuDNN ms", "TFLOP/s", "flash ms", "TFLOP/s",
                             "Flex ms", "TFLOP/s"]
    for line in (rule, first, second):
        assert line.count("|") == head.count("|")
    cells = [c.strip() for c in first.strip("|").split("|")]
    assert cells[5:8] == ["2.000", "300.0", "2.0e-03"]
    assert cells[12].startswith("eager fallback")
    assert cells[-3:] == ["0.75x", "1.20x", "-"]
    assert second.endswith("| - | - | - |")


def test_bench_line():
    line = peers.bench_line(ROWS[0])
    assert "0.75x 1.20x -" in line
    assert "ERR" in line and "flex: eager fallback" in line
    assert "[main 1.90]" in line
    assert peers.bench_line(ROWS[1]).count("ms") == 3  # the peers


def test_bench_header():
    header = peers.bench_header("backward", "tiled")
    assert "(ours=tiled | cuDNN | flash | Flex)" in header
    assert "H=16, B=16384/S" in header
    assert peers.legend() in header


def test_recompile_limits():
    # The default run: D 64 and 128, no mask and causal, 4 sequence lengths.
    assert peers.recompile_limit(16, 8) == 24
    assert peers.recompile_limit(16, 256) == 256  # never lowered
    new = types.SimpleNamespace(recompile_limit=8,
                                accumulated_recompile_limit=256)
    peers.raise_recompile_limits(16, new)
    assert vars(new) == dict(recompile_limit=24,
                             accumulated_recompile_limit=256)
    old = types.SimpleNamespace(cache_size_limit=8,
                                accumulated_cache_size_limit=16)
    peers.raise_recompile_limits(40, old)
    assert vars(old) == dict(cache_size_limit=48,
                             accumulated_cache_size_limit=48)


def dynamo_warning():
    # As torch/_dynamo/convert_frame.py words it.
    logging.getLogger("torch._dynamo.convert_frame").warning(
        "torch._dynamo hit config.%s (%s)\n   function: 'flex_attention'",
        "recompile_limit", 24)
    return 1.0, "result"


def test_eager_fallback(monkeypatch):
    monkeypatch.setattr(peers, "_FALLBACKS", [])
    assert peers.checked_flex(lambda: (1.0, "result")) == (1.0, "result")
    with pytest.raises(peers.EagerFallback, match=r"^eager fallback \("
                       r"torch._dynamo hit config.recompile_limit \(24\)\)$"):
        peers.checked_flex(dynamo_warning)
    # Dynamo warns once, then runs Flex eagerly without a word.
    with pytest.raises(peers.EagerFallback):
        peers.checked_flex(lambda: (1.0, "result"))
    assert not any(isinstance(h, peers._LimitWarnings) for h in
                   logging.getLogger("torch._dynamo").handlers)


def test_time_peers_error_cell(monkeypatch):
    """A failing peer is recorded in its cell; flash's result is the
    reference (SDPBackend stubbed: no PyTorch here)."""
    attention = types.ModuleType("torch.nn.attention")
    attention.SDPBackend = types.SimpleNamespace(
        CUDNN_ATTENTION="cudnn", FLASH_ATTENTION="flash")
    for name in ("torch", "torch.nn"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "torch.nn.attention", attention)
    monkeypatch.setattr(peers, "_FALLBACKS", [])
    row = {}
    ref = peers.time_peers(row, 2e12, lambda backend: (4.0, backend),
                           dynamo_warning)
    assert ref == "flash"
    assert row["cudnn"] == row["flash"] == {"ms": 4.0, "tflops": 500.0}
    assert row["flex"]["error"].startswith("eager fallback (torch._dynamo")
