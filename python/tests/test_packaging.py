"""python/pyproject.toml: the package builds and installs with Debian's pip
and setuptools (no build isolation, no downloads) and imports from where it
was installed."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..")


@pytest.mark.skipif(importlib.util.find_spec("pip") is None or
                    importlib.util.find_spec("setuptools") is None,
                    reason="needs pip and setuptools (python3-pip, "
                    "python3-setuptools)")
def test_pip_install_and_import(tmp_path):
    # A copy: setuptools builds in the source tree (build/, *.egg-info).
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(PYTHON_DIR, name), src)
    shutil.copytree(os.path.join(PYTHON_DIR, "rocke"), src / "rocke",
                    ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install",
                        "--no-build-isolation", "--no-deps", "--no-index",
                        "--target", str(target), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(
        [sys.executable, "-c",
         "import rocke, rocke.torch, rocke.launch_hip, rocke.kernel_cache; "
         "print(rocke.__file__); "
         "print(rocke.FmhaBwdSpec(chip='sm_90a').to_mlir(forward=True))"],
        capture_output=True, text=True, cwd=str(tmp_path),
        env=dict(os.environ, PYTHONPATH=str(target)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(str(target / "rocke" / "__init__.py"))
    assert "fmha.attention_fwd" in r.stdout
