import pytest

from rocke import launch_cuda


def test_import_without_cupy_is_clean():
    if launch_cuda.available():
        pytest.skip("CuPy is importable here")
    with pytest.raises(ImportError, match="needs CuPy"):
        launch_cuda.load_ptx(".version 8.0\n.target sm_90\n.entry k() { ret; }")


def test_extract_ptx_from_text():
    ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n"
    assert launch_cuda.extract_ptx(ptx) == ptx
    mlir = 'gpu.binary @m [#gpu.object<#nvvm.target, assembly = "%s">]' % \
        ptx.replace("\n", "\\0A")
    assert launch_cuda.extract_ptx(mlir) == ptx


def test_grid_past_the_recipe_limit_is_refused_before_launch():
    """The grid a runner evaluated for sizes the compiler could not see is
    checked against the recipe's grid_limit before CuPy is needed."""
    recipe = {"name": "fmha_bwd_zero_dq",
              "grid_limit": [2147483647, 65535, 65535]}
    with pytest.raises(ValueError, match="'fmha_bwd_zero_dq' needs "
                       "4294967296 workgroups in x, past the grid limit of "
                       "2147483647"):
        launch_cuda.launch(("module", recipe["name"]), (2**32, 1, 1), 256,
                           (), grid_limit=recipe["grid_limit"])
    with pytest.raises(ValueError, match="needs 65536 workgroups in y"):
        launch_cuda.launch(("module", "k"), (1, 65536), 256, ())
    launch_cuda.check_grid((2**31 - 1, 65535, 65535))


def test_launch_trivial_kernel():
    cp = pytest.importorskip("cupy")
    ptx = """.version 7.0
.target sm_70
.address_size 64
.visible .entry add_one(.param .u64 p)
{
  .reg .u64 %rd<3>; .reg .f32 %f<3>; .reg .u32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  ld.global.f32 %f1, [%rd1];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd1], %f2;
  ret;
}
"""
    mod = launch_cuda.load_ptx(ptx)
    x = cp.zeros(32, dtype=cp.float32)
    launch_cuda.launch(mod.get(), 1, 32, (x,))
    assert float(x.sum()) == 32.0


def test_kernel_arguments_follow_the_field_types():
    """A kernel_abi.Launch's (type, value) pairs as the NumPy scalars CuPy
    packs at their width: pointers (any address space) uint64."""
    import numpy as np
    args = launch_cuda.kernel_arguments([("!llvm.ptr", 2**63 + 5),
                                         ("!llvm.ptr<1>", 16), ("i64", -1),
                                         ("i32", 7)])
    assert [a.dtype for a in args] == [np.uint64, np.uint64, np.int64,
                                       np.int32]
    assert [int(a) for a in args] == [2**63 + 5, 16, -1, 7]
    with pytest.raises(ValueError, match="'vector<2xf32>' is not supported"):
        launch_cuda.kernel_arguments([("vector<2xf32>", 0)])


def test_recipe_module_without_cupy_explains():
    if launch_cuda.available():
        pytest.skip("CuPy is importable here")
    with pytest.raises(ImportError, match="needs CuPy"):
        launch_cuda.RecipeModule("kernel.ptx", [])
