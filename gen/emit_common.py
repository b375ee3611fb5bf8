# SPDX-License-Identifier: MIT
"""gen/emit_common.py: what several emitters share: the head of a generated C file, C string
literals, return classes, and policy paths ('*dptr') turned into C expressions."""

import re

from model import GenError


def generated_head(note, includes):
    """The first lines of a generated C file that uses the toolkit's prototypes: every ELF
    name with its own (__CUDA_API_VERSION_INTERNAL), and the generated ids and arguments."""
    return ["/* SPDX-License-Identifier: MIT */",
            f"/* {note} */",
            "#define __CUDA_API_VERSION_INTERNAL"] + [f"#include <{h}>" for h in includes] + [
            "#include <stdint.h>",
            '#include "cuaudit_ids.h"',
            '#include "cuaudit_args.h"']


MEM_PATH = re.compile(r"^(\*?)([A-Za-z_]\w*)((?:(?:\.|->)[A-Za-z_]\w*)*)$")


def mem_path(a, text):
    """'*dptr' -> '(*a->dptr)', 'prop->location' -> '(a->prop->location)'."""
    m = MEM_PATH.match(text)
    if not m:
        raise GenError(f"policy: {a.elf_name}: cannot read {text!r} (want [*]param[.field|->field]...)")
    if m.group(2) not in {n for _, n, _ in a.params}:
        raise GenError(f"policy: {a.elf_name} has no parameter {m.group(2)}")
    return f"({m.group(1)}a->{m.group(2)}{m.group(3)})"


RET_CLASSES = {"CUresult": "CUA_RET_CURESULT", "cudaError_t": "CUA_RET_CUDAERROR",
               "void": "CUA_RET_VOID"}


def ret_class(ret):
    if ret in RET_CLASSES:
        return RET_CLASSES[ret]
    if "*" in ret:
        return "CUA_RET_PTR"
    return "CUA_RET_OTHER"


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
