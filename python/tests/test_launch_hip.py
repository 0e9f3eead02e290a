"""rocke.launch_hip without AMD hardware: the kernarg buffer of each kernel
of a real gfx942 build, against the code object's own metadata (the offsets
and sizes the kernel reads its arguments at); the HIP calls themselves have
not run on AMD hardware."""
import re
import shutil
import struct
import subprocess

import pytest

import rocke
from rocke import kernel_abi, kernel_cache, launch_hip


def test_layout_aligns_each_field_to_its_size():
    assert launch_hip.kernarg_layout(["!llvm.ptr", "i32", "i64"]) == \
        ([0, 8, 16], 24)
    assert launch_hip.kernarg_layout(["i32", "i32", "!llvm.ptr<1>"]) == \
        ([0, 4, 8], 16)
    assert launch_hip.kernarg_layout(["i64", "i32"]) == ([0, 8], 16)
    assert launch_hip.kernarg_layout(["i32"]) == ([0], 4)
    assert launch_hip.kernarg_layout([]) == ([], 0)
    with pytest.raises(ValueError, match="not a 64-bit pointer"):
        launch_hip.field_layout("!llvm.ptr<3>")
    with pytest.raises(ValueError, match="'vector<2xf32>' is not supported"):
        launch_hip.field_layout("vector<2xf32>")


def test_pack_little_endian():
    buf = launch_hip.pack_kernargs([("!llvm.ptr", 0x1122334455667788),
                                    ("i32", -2), ("i64", 7)])
    assert len(buf) == 24
    assert struct.unpack("<Qi4xq", buf) == (0x1122334455667788, -2, 7)


def test_without_hip_runtime_the_error_explains(monkeypatch):
    monkeypatch.setenv("ROCKE_HIP_LIB", "/nonexistent/libamdhip64.so")
    try:
        launch_hip.HipRuntime()
    except ImportError as e:
        assert "needs the HIP runtime (libamdhip64" in str(e)
    else:
        pytest.skip("a HIP runtime is loadable here")


def _readelf():
    return shutil.which("llvm-readelf-22") or shutil.which("llvm-readelf")


def _rocke_opt():
    try:
        return rocke.find_rocke_opt()
    except rocke.RockeOptNotFound:
        return None


def code_object_args(readelf, path):
    """{kernel: ([(offset, size)] of its explicit arguments, kernarg segment
    size)} from the HSACO's AMDGPU metadata note."""
    text = subprocess.run([readelf, "--notes", str(path)], capture_output=True,
                          text=True, check=True).stdout
    out = {}
    for entry in re.split(r"\n  - \.", text.split("amdhsa.kernels:")[1])[1:]:
        name = re.search(r"\.name:\s+(\S+)", entry).group(1)
        args = [(int(o), int(s)) for o, s, kind in re.findall(
            r"\.offset:\s+(\d+)\s+\.size:\s+(\d+)\s+\.value_kind:\s+(\w+)",
            entry) if not kind.startswith("hidden_")]
        size = int(re.search(r"\.kernarg_segment_size:\s+(\d+)",
                             entry).group(1))
        out[name] = (args, size)
    return out


@pytest.mark.skipif(_rocke_opt() is None or _readelf() is None,
                    reason="needs rocke-opt and llvm-readelf")
@pytest.mark.parametrize("varlen", [False, True])
def test_kernargs_match_the_code_object(tmp_path, varlen):
    """The deterministic GQA backward (four kernels, scratch buffers) for
    gfx942, dense and packed (3 sequences, i32 offsets): bind() the recipe,
    pack each launch, and find every field at the offset and size the code
    object's metadata gives."""
    packed = dict(varlen=True, max_seqlen_q=128, max_seqlen_k=128,
                  alignment="bottom_right") if varlen else {}
    spec = rocke.FmhaBwdSpec(dtype="f16", batch=None, seq_q=None, seq_k=None,
                             heads_q=4, heads_kv=2, head_dim_qk=32,
                             mask="causal", chip="gfx942", deterministic=True,
                             **packed)
    entry = kernel_cache.cached_kernels(spec, False, directory=str(tmp_path))
    metadata = code_object_args(_readelf(), entry.code_path)
    env = dict(B=2, Sq=50, Sk=70, Hq=4, Hkv=2, Dqk=32, Dv=32)

    def contiguous(ptr, elt, shape):
        strides = [1]
        for n in reversed(shape[1:]):
            strides.insert(0, strides[0] * n)
        return kernel_abi.Buffer(ptr, elt, tuple(shape), tuple(strides))
    shapes = dict(q=(2, 50, 4, 32), k=(2, 70, 2, 32), v=(2, 70, 2, 32),
                  o=(2, 50, 4, 32), do=(2, 50, 4, 32), dq=(2, 50, 4, 32),
                  dk=(2, 70, 2, 32), dv=(2, 70, 2, 32))
    buffers = {r: contiguous(0x100000 * (i + 1), "f16", s)
               for i, (r, s) in enumerate(sorted(shapes.items()))}
    buffers["lse"] = contiguous(0xA00000, "f32", (2, 4, 50))
    if varlen:  # [T, H, D]: 50 query and 70 key tokens in 3 sequences
        env["B"] = 3
        buffers = {r: contiguous(b.ptr, b.elt, b.shape[1:])
                   for r, b in buffers.items()}
        buffers.update(
            lse=contiguous(0xA00000, "f32", (4, 50)),
            cu_seqlens_q=contiguous(0xB00000, "i32", (4,)),
            cu_seqlens_k=contiguous(0xC00000, "i32", (4,)))
    launches = kernel_abi.bind(
        entry.kernels, env, buffers,
        lambda name, elt, shape, init: contiguous(0xF00000, elt, shape))
    assert {l.kernel for l in launches} == set(metadata)
    for l in launches:
        args, segment = metadata[l.kernel]
        offsets, size = launch_hip.kernarg_layout([t for t, _ in l.args])
        sizes = [launch_hip.field_layout(t)[0] for t, _ in l.args]
        assert list(zip(offsets, sizes)) == args, l.kernel
        assert size == segment, l.kernel
        buf = launch_hip.pack_kernargs(l.args)
        for (t, v), off in zip(l.args, offsets):
            fmt = "<" + launch_hip.field_layout(t)[1]
            assert struct.unpack_from(fmt, buf, off)[0] == v


class FakeHip:
    """The four HIP calls HipModule makes, recorded (no ROCm here)."""

    def __init__(self):
        self.launched = []
        self.lib = self

    def check(self, err, what):
        assert err == 0, what

    def hipModuleLoadData(self, module, image):
        module._obj.value = 0x1000
        return 0

    def hipModuleGetFunction(self, fn, module, name):
        fn._obj.value = 0x2000 + len(name)
        return 0

    def hipModuleLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, shared,
                              stream, params, extra):
        import ctypes
        assert params is None
        size = ctypes.c_size_t.from_address(extra[3]).value
        data = ctypes.string_at(extra[1], size)
        self.launched.append((fn.value, (gx, gy, gz), (bx, by, bz), shared,
                              stream.value, (extra[0], extra[2], extra[4]),
                              data))
        return 0

    def hipModuleUnload(self, module):
        return 0


def test_launch_passes_one_kernarg_buffer():
    hip = FakeHip()
    module = launch_hip.HipModule(b"\x7fELF", [{"name": "k"}], hip=hip)
    args = (("!llvm.ptr", 0xABC0), ("i32", 3), ("i64", 9))
    module.launch([kernel_abi.Launch("k", (4, 2, 1), (256, 1, 1), 0, args)],
                  stream=0x77)
    (fn, grid, block, shared, stream, markers, data), = hip.launched
    assert (fn, grid, block, shared, stream) == (0x2001, (4, 2, 1),
                                                 (256, 1, 1), 0, 0x77)
    assert markers == (launch_hip.HIP_LAUNCH_PARAM_BUFFER_POINTER,
                       launch_hip.HIP_LAUNCH_PARAM_BUFFER_SIZE,
                       launch_hip.HIP_LAUNCH_PARAM_END)
    assert data == launch_hip.pack_kernargs(args)
