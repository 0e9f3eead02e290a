import subprocess
import sys
import os

PY = os.path.join(os.path.dirname(__file__), "..")


def _run(*args):
    return subprocess.run([sys.executable, "-m", "rocke", *args], cwd=PY,
                          capture_output=True, text=True)


def test_cli_emits_and_rejects():
    r = _run("dtype=bf16", "seq_q=None", "heads_q=16", "heads_kv=4",
             "mask=causal", "--forward")
    assert r.returncode == 0 and "fmha.attention_fwd" in r.stdout
    r = _run("head_dim_qk=80")
    assert r.returncode == 2 and "unsupported qk head dim 80" in r.stderr
