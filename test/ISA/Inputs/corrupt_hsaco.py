"""Writes a corrupted copy of a HSACO for rocke-report's robustness tests.

corrupt_hsaco.py IN OUT symtab  : .symtab claims 2^32 entries.
corrupt_hsaco.py IN OUT kd-entry : every kernel descriptor's code entry
                                   (kernel_code_entry_byte_offset) is 2^62 away.
corrupt_hsaco.py IN OUT gpu-binary : an MLIR module whose gpu.binary holds IN.
"""
import struct
import sys

src, dst, mode = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
if mode == "symtab":
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        hdr = shoff + i * shentsize
        (sh_type,) = struct.unpack_from("<I", data, hdr + 4)
        if sh_type == 2:  # SHT_SYMTAB
            struct.pack_into("<Q", data, hdr + 0x20, 24 << 32)  # sh_size
elif mode == "kd-entry":
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQII", data, shoff + i * shentsize)
                for i in range(shnum)]
    for _, sh_type, _, _, offset, size, link, _ in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link][4]
        for sym in range(offset, offset + size, 24):
            st_name, _, _, st_shndx, st_value, _ = struct.unpack_from(
                "<IBBHQQ", data, sym)
            name = data[strtab + st_name:data.index(0, strtab + st_name)]
            if name.endswith(b".kd"):
                _, _, _, sh_addr, sh_offset, _, _, _ = sections[st_shndx]
                entry_offset = sh_offset + st_value - sh_addr + 16
                struct.pack_into("<q", data, entry_offset, 1 << 62)
elif mode == "gpu-binary":
    escaped = "".join("\\%02X" % b for b in data)
    data = ('gpu.binary @kernels [#gpu.object<#rocdl.target<chip = "gfx942">, '
            'bin = "%s">]\n' % escaped).encode()
else:
    sys.exit("unknown mode " + mode)
open(dst, "wb").write(data)
