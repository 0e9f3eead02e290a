import ctypes
import struct
import types

import pytest

from rocke import kernel_abi, launch_cuda


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


def test_launch_packed_passes_one_parameter_buffer(monkeypatch):
    """cuLaunchKernel gets a launch's packed arguments through `extra`
    ([BUFFER_POINTER, buffer, BUFFER_SIZE, &size, END]), the size without
    the tail padding CUDA refuses: 20 bytes for ptr, i64, i32."""
    launched = []

    def launchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params,
                     extra):
        words = (ctypes.c_uint64 * 5).from_address(extra)
        size = ctypes.c_size_t.from_address(words[3]).value
        launched.append((f, (gx, gy, gz), (bx, by, bz), shared, stream,
                         params, (words[0], words[2], words[4]),
                         ctypes.string_at(words[1], size)))
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
        driver=types.SimpleNamespace(launchKernel=launchKernel)))
    monkeypatch.setattr(launch_cuda, "require_cupy", lambda: fake)
    args = (("!llvm.ptr", 0xABC0), ("i64", -9), ("i32", 3))
    launch = kernel_abi.packed(kernel_abi.Launch("k", (4, 2, 1), (256, 1, 1),
                                                 1024, args))
    assert len(launch.params) == 24 and launch.params_end == 20
    launch_cuda.launch_packed(0x2000, launch, 0x77)
    (f, grid, block, shared, stream, params, markers, data), = launched
    assert (f, grid, block, shared, stream, params) == \
        (0x2000, (4, 2, 1), (256, 1, 1), 1024, 0x77, 0)
    assert markers == (launch_cuda.CU_LAUNCH_PARAM_BUFFER_POINTER,
                       launch_cuda.CU_LAUNCH_PARAM_BUFFER_SIZE,
                       launch_cuda.CU_LAUNCH_PARAM_END) == (1, 2, 0)
    assert data == struct.pack("<QqI", 0xABC0, -9, 3)


def test_recipe_module_packs_mixed_fields(tmp_path):
    """A kernel of u64, u32, u64, u32 parameters (CUDA's buffer 28 bytes,
    the padded one 32) reads each where the packing put it."""
    cp = pytest.importorskip("cupy")
    ptx = """.version 7.0
.target sm_70
.address_size 64
.visible .entry store(.param .u64 p, .param .u32 a, .param .u64 b,
                      .param .u32 c)
{
  .reg .u64 %rd<3>; .reg .u32 %r<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u32 %r2, [c];
  st.global.u32 [%rd1], %r1;
  st.global.u64 [%rd1+8], %rd2;
  st.global.u32 [%rd1+16], %r2;
  ret;
}
"""
    path = tmp_path / "store.ptx"
    path.write_text(ptx)
    module = launch_cuda.RecipeModule(path, [{"name": "store", "shared": 0}])
    x = cp.zeros(24, dtype=cp.uint8)
    args = (("!llvm.ptr", x.data.ptr), ("i32", -5), ("i64", 2**40 + 3),
            ("i32", 7))
    module.launch([kernel_abi.Launch("store", (1, 1, 1), (1, 1, 1), 0,
                                     args)])
    assert x.get().tobytes() == struct.pack("<i4xqi4x", -5, 2**40 + 3, 7)


def test_stream_handle():
    assert launch_cuda.stream_handle(0x77) == 0x77
    assert launch_cuda.stream_handle(types.SimpleNamespace(ptr=0x88)) == 0x88


def test_recipe_module_without_cupy_explains():
    if launch_cuda.available():
        pytest.skip("CuPy is importable here")
    with pytest.raises(ImportError, match="needs CuPy"):
        launch_cuda.RecipeModule("kernel.ptx", [])
