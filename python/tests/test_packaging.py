"""python/pyproject.toml: the package installs as README says, into a venv
that sees Debian's packages (Debian's own Python refuses pip installs, PEP
668), with Debian's pip and setuptools (no build isolation, no downloads),
and imports from where it was installed."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..")


@pytest.mark.skipif(importlib.util.find_spec("pip") is None or
                    importlib.util.find_spec("setuptools") is None or
                    importlib.util.find_spec("ensurepip") is None,
                    reason="needs pip, setuptools and venv (python3-pip, "
                    "python3-setuptools, python3-venv)")
def test_pip_install_and_import(tmp_path):
    # A copy: setuptools builds in the source tree (build/, *.egg-info).
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(PYTHON_DIR, name), src)
    shutil.copytree(os.path.join(PYTHON_DIR, "rocke"), src / "rocke",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = tmp_path / "env"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                        str(env)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    python = str(env / "bin" / "python")
    r = subprocess.run([python, "-m", "pip", "install",
                        "--no-build-isolation", "--no-deps", "--no-index",
                        str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(
        [python, "-c",
         "import rocke, rocke.torch, rocke.launch_hip, rocke.kernel_cache; "
         "print(rocke.__file__); "
         "print(rocke.FmhaBwdSpec(chip='sm_90a').to_mlir(forward=True))"],
        capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(str(env)), r.stdout
    assert "fmha.attention_fwd" in r.stdout
