"""The named-pipeline plumbing, tested against a fake rocke-opt."""
import os
import stat
import textwrap

import pytest

import rocke
from rocke import CompileError, FmhaBwdSpec

HELP = """OVERVIEW: fake
  Compiler passes to run
    Passes:
      --canonicalize                                    -   Canonicalize
        --max-iterations=<long>                         - iterations
    Pass Pipelines:
      --fmha-to-hsaco                                   -   fmha to HSACO
        --chip=<string>                                 - target chip
        --strategy=<value>                              - strategy
    =tiled                                              -   tiled
    =warp                                               -   warp
        --opt-level=<int>                               - level
      --fmha-to-ptx                                     -   fmha to PTX
        --chip=<string>                                 - target chip
  --some-global-flag                                    - x
"""


@pytest.fixture
def fake_opt(tmp_path):
    (tmp_path / "help.txt").write_text(HELP)
    exe = tmp_path / "rocke-opt"
    exe.write_text(textwrap.dedent("""\
        #!/bin/sh
        if [ "$1" = "--help" ]; then cat "%s"; exit 0; fi
        cat > /dev/null
        for a in "$@"; do echo "ARG:$a"; done
        """ % (tmp_path / "help.txt")))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe)


def test_lists_pipelines_with_options(fake_opt):
    p = rocke.available_pipelines(fake_opt)
    assert p == {"fmha-to-hsaco": ["chip", "strategy", "opt-level"],
                 "fmha-to-ptx": ["chip"]}


def test_alias_and_spec_options(fake_opt):
    spec = FmhaBwdSpec(chip="gfx950", strategy="warp")
    out = rocke.compile(spec, pipeline="hsaco", rocke_opt=fake_opt,
                        options={"opt-level": 3})
    assert ("ARG:--pass-pipeline=builtin.module(fmha-to-hsaco{chip=gfx950 "
            "strategy=warp opt-level=3})") in out
    out = rocke.compile(FmhaBwdSpec(chip="sm_90"), pipeline="fmha-to-ptx",
                        rocke_opt=fake_opt)
    assert "fmha-to-ptx{chip=sm_90}" in out


def test_unknown_option_and_ambiguous(fake_opt):
    with pytest.raises(CompileError, match="has no option"):
        rocke.compile(FmhaBwdSpec(), pipeline="fmha-to-ptx",
                      rocke_opt=fake_opt, options={"bogus": 1})
    with pytest.raises(CompileError, match="ambiguous"):
        rocke.compile(FmhaBwdSpec(), pipeline="to", rocke_opt=fake_opt)
    with pytest.raises(CompileError, match="fmha-to-hsaco, fmha-to-ptx"):
        rocke.compile(FmhaBwdSpec(), pipeline="spirv", rocke_opt=fake_opt)


def test_auto_pipeline_by_chip(fake_opt):
    out = rocke.compile(FmhaBwdSpec(chip="gfx90a"), pipeline="auto",
                        rocke_opt=fake_opt)
    assert "fmha-to-hsaco{chip=gfx90a strategy=tiled}" in out
    out = rocke.compile(FmhaBwdSpec(chip="sm_90"), pipeline="auto",
                        rocke_opt=fake_opt)
    assert "fmha-to-ptx{chip=sm_90}" in out


def test_auto_pipeline_missing_on_real_binary():
    try:
        exe = rocke.find_rocke_opt()
    except rocke.RockeOptNotFound:
        pytest.skip("no rocke-opt binary")
    if any(p.startswith("fmha-") for p in rocke.available_pipelines(exe)):
        pytest.skip("fmha pipelines are registered")
    with pytest.raises(CompileError, match="no fmha-\\* pipeline for chip"):
        rocke.compile(FmhaBwdSpec(), pipeline="auto", rocke_opt=exe)
