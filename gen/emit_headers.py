# SPDX-License-Identifier: MIT
"""gen/emit_headers.py: writes the public generated headers: cuaudit_ids.h (one id per ELF name)
and cuaudit_args.h (one argument struct per function)."""

import re


def emit_ids(apis, note):
    out = [f"/* SPDX-License-Identifier: MIT */",
           f"/* {note} */",
           "#ifndef CUAUDIT_IDS_H",
           "#define CUAUDIT_IDS_H",
           "",
           "/* One id per wrapped ELF name, in byte order of the names. */",
           "enum cuaudit_api_id {"]
    for i, a in enumerate(apis):
        out.append(f"\tCUAUDIT_ID_{a.elf_name} = {i},")
    out += [f"\tCUAUDIT_ID_COUNT = {len(apis)}", "};", ""]
    # FNV-1a over the names in id order: two builds agree on every id exactly when they
    # agree on this, so a plugin compiled with these constants can be checked at load.
    h = 0xcbf29ce484222325
    for a in apis:
        for byte in a.elf_name.encode() + b"\n":
            h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    out += ["/* Identifies this id table; a plugin records it in its cuaudit_plugin_info. */",
            f"#define CUAUDIT_IDS_HASH 0x{h:016x}ull",
            "#undef CUAUDIT_INFO_IDS_HASH_",
            "#define CUAUDIT_INFO_IDS_HASH_ CUAUDIT_IDS_HASH", "", "#endif", ""]
    return "\n".join(out)


def emit_args(apis, note, includes, extra_typedefs):
    out = [f"/* SPDX-License-Identifier: MIT */",
           f"/* {note} */",
           "#ifndef CUAUDIT_ARGS_H",
           "#define CUAUDIT_ARGS_H",
           ""]
    out += [f"#include <{h}>" for h in includes]
    if extra_typedefs:
        out += ["",
                "/* Types cuda.h declares only for its own legacy entry points. */",
                "#ifndef __CUDA_API_VERSION_INTERNAL"]
        out += [norm_c(st) for st in extra_typedefs]
        out += ["#endif"]
    out += ["",
            "/* The arguments of one call, by name. Hooks may change them before the real call.",
            "   Functions without parameters have no struct; their hooks receive NULL. */"]
    for a in apis:
        if not a.params:
            continue
        out.append(f"struct cuaudit_args_{a.elf_name} {{")
        for typ, name, decl in a.params:
            out.append(f"\t{decl};")
        out.append("};")
    out += ["", "#endif", ""]
    return "\n".join(out)


def norm_c(statement):
    return re.sub(r"[ \t]*\n\s*", "\n\t", statement.strip()).replace("\n\t}", "\n}").replace("\n\t{", " {")
