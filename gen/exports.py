# SPDX-License-Identifier: MIT
"""gen/exports.py: reads the exported function names of a library (its ELF .dynsym, or a text list
for fixtures)."""

import struct

from model import GenError


def elf_function_exports(path):
    """Names of the defined global/weak FUNC symbols in an ELF64 little-endian .dynsym."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise GenError(f"{path}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        (name, stype, flags, addr, offset, size, link, info, align, entsize) = struct.unpack_from(
            "<IIQQQQIIQQ", data, off)
        sections.append((stype, offset, size, link, entsize))
    names = set()
    for stype, offset, size, link, entsize in sections:
        if stype != 11:  # SHT_DYNSYM
            continue
        str_off = sections[link][1]
        for j in range(size // entsize):
            st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", data, offset + j * entsize)
            bind, typ = st_info >> 4, st_info & 0xF
            if st_shndx == 0 or typ != 2 or bind not in (1, 2):
                continue
            end = data.index(b"\0", str_off + st_name)
            names.add(data[str_off + st_name:end].decode())
    return sorted(names)


def read_exports(path):
    if path.endswith(".txt"):
        with open(path) as f:
            return sorted({l.strip() for l in f if l.strip() and not l.startswith("#")})
    return elf_function_exports(path)
