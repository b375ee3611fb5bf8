# SPDX-License-Identifier: MIT
"""gen/emit_memory.py: writes cua_gen_memory.c, the memory limit's table: where each allocating,
freeing, reporting or pool call keeps its size, key and device (policy verbs memalloc, memfree,
meminfo, mempool)."""

import re

from emit_common import generated_head, mem_path
from model import GenError


MEM_VERBS = {"memalloc": "CUA_MEM_ALLOC", "memfree": "CUA_MEM_FREE", "meminfo": "CUA_MEM_INFO",
             "mempool": "CUA_MEM_POOL"}


def mem_guards(a, text):
    """Read before the call, a path may run through a NULL pointer the driver would reject:
    the conditions that each pointer on the way is set."""
    mem_path(a, text)
    body = text.lstrip("*")
    parts = re.split(r"(->)", body)
    guards, prefix = [], ""
    for i in range(0, len(parts) - 1, 2):
        prefix += parts[i]
        guards.append(f"!a->{prefix}")
        prefix += "->"
    return guards


def mem_product(a, text):
    """'WidthInBytes,Height' -> statements that multiply the factors into s, saturating."""
    out = ["\tuint64_t s = 1;"]
    for f in text.split(","):
        out.append(f"\tif (__builtin_mul_overflow(s, (uint64_t){mem_path(a, f)}, &s))")
        out.append("\t\treturn UINT64_MAX;")
    out.append("\treturn s;")
    return out


def mem_functions(a, verb, cols):
    """C functions for one policy line, and the initializer of its table entry."""
    st = f"const struct cuaudit_args_{a.elf_name} *a = args;"
    wst = f"struct cuaudit_args_{a.elf_name} *a = args;"
    name = a.elf_name
    fns, fields = [], {"id": f"CUAUDIT_ID_{name}", "verb": MEM_VERBS[verb]}

    def fn(kind, ret, params, body, mutable=False):
        fns.append(f"static {ret} mem_{kind}_{name}({params})")
        fns.append("{")
        fns.append("\t" + (wst if mutable else st))
        fns.extend(body)
        fns.append("}")
        fields[kind] = f"mem_{kind}_{name}"

    if "key" in cols:
        fn("key", "uint64_t", "const void *args",
           [f"\treturn (uint64_t)(uintptr_t){mem_path(a, cols['key'])};"])
    if verb == "memalloc":
        fn("size", "uint64_t", "const void *args", mem_product(a, cols["size"]))
        charged = cols["size"] if cols["charged"] == "-" else cols["charged"]
        fn("charged", "uint64_t", "const void *args", mem_product(a, charged))
    if "device" in cols and cols["device"] != "current":
        kind, _, path = cols["device"].partition(":")
        if kind == "arg":
            body = [f"\t*out = (uint64_t)(int64_t){mem_path(a, path)};",
                    "\treturn CUA_MEM_DEV_GIVEN;"]
        elif kind == "loc":
            # CU_MEM_LOCATION_TYPE_DEVICE and cudaMemLocationTypeDevice are both 1.
            loc = mem_path(a, path)
            body = [f"\tif ({g})" + "\n\t\treturn CUA_MEM_DEV_NONE;" for g in mem_guards(a, path)]
            body += [f"\tif ((int){loc}.type != 1)",
                    "\t\treturn CUA_MEM_DEV_NONE;",
                    f"\t*out = (uint64_t)(int64_t){loc}.id;",
                    "\treturn CUA_MEM_DEV_GIVEN;"]
        elif kind == "pool":
            body = [f"\t*out = (uint64_t)(uintptr_t){mem_path(a, path)};",
                    "\treturn CUA_MEM_DEV_POOL;"]
        else:
            raise GenError(f"policy: {name}: device must be current, arg:, loc: or pool:, "
                           f"not {cols['device']!r}")
        fn("device", "int", "const void *args, uint64_t *out", body)
    if verb == "meminfo":
        body = []
        total = mem_path(a, cols["total"])
        body.append(f"\tuint64_t total = (uint64_t){total}, free = total;")
        if cols["free"] != "-":
            free = mem_path(a, cols["free"])
            body.append(f"\tfree = (uint64_t){free};")
        body.append("\tcua_mem_clamp(&free, &total, limit, used);")
        body.append(f"\t{total} = (__typeof__({total}))total;")
        if cols["free"] != "-":
            body.append(f"\t{free} = (__typeof__({free}))free;")
        fn("info", "void", "void *args, uint64_t limit, uint64_t used", body, mutable=True)
    return fns, fields


def emit_memory(apis, note, includes, policy):
    """The memory limit's table: for each call that allocates, frees, reports or creates a
    pool, where its size, key and device are (api/memtable.h)."""
    by_name = {a.elf_name: a for a in apis}
    out = generated_head(note, includes) + [
            '#include "memtable.h"',
            "",
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
            ""]
    entries = []
    for name in sorted(policy["mem"], key=lambda n: n.encode()):
        if name not in by_name:
            continue  # a runtime name in a driver-only build
        verb, cols = policy["mem"][name]
        fns, fields = mem_functions(by_name[name], verb, cols)
        if name in policy["memvmm"]:
            if verb != "memalloc":
                raise GenError(f"policy: memvmm {name}: only a memalloc function maps VMM memory")
            fields["vmm"] = "1"
        out += fns
        out.append("")
        entries.append(fields)
    out.append("const struct cua_mem_desc cua_mem_table[] = {")
    for f in entries:
        inits = ", ".join(f".{k} = {v}" for k, v in f.items())
        out.append(f"\t{{ {inits} }},")
    out.append("};")
    out.append(f"const unsigned cua_mem_count = {len(entries)};")
    out.append("")
    return "\n".join(out)
