# SPDX-License-Identifier: MIT
"""gen/model.py: what every part of the generator shares: one wrapped ELF name (Api), the stream
flavours, and the error the generator stops with."""

FLAVOURS = {"": 0, "_ptds": 1, "_ptsz": 2}
FLAVOUR_NAMES = ["legacy", "ptds", "ptsz"]


class GenError(Exception):
    pass


class Api:
    def __init__(self, elf_name, layer, ret, params):
        self.elf_name = elf_name
        self.layer = layer
        self.ret = ret
        self.params = params
        self.api_name = elf_name
        self.version = 0
        self.flavour = 0
        self.handwritten = False
        self.from_cxx = False  # declared only in a C++ header: no C prototype to check against
        self.enums = {}  # enum type name -> constants, from this layer's headers
