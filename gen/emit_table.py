# SPDX-License-Identifier: MIT
"""gen/emit_table.py: writes cua_gen_table.c: each function's names, version, layer, result class
and how each argument prints; the result names; the enums arguments print by."""

import re

from cdecl import norm_space
from emit_common import c_str, ret_class


DIM_TYPES = {"dim3", "uint3"}


def out_pointee(api, typ, name, policy):
    """The pointee type of an out-parameter (a pointer to one non-const integer, enum, handle
    or pointer the call fills in), or None."""
    key = (api.elf_name, name)
    if key in policy["noout"] or ("*", name) in policy["noout"]:
        return None
    t = norm_space(typ)
    if not t.endswith("*") or "(" in t:
        return None
    pointee = t[:-1].strip()
    if key in policy["out"]:
        return pointee
    if "*" in pointee:
        if pointee.endswith("const"):
            return None
    elif re.search(r"\bconst\b", pointee):
        return None
    base = re.sub(r"\bconst\b", " ", pointee).strip()
    if base in ("void", "char", "unsigned char", "signed char") or re.match(r"^(struct|union) ",
                                                                            base):
        return None
    return pointee


def value_fmt(typ, api, name, policy, enums):
    """(fmt, enum_type) for a value of type typ."""
    t = norm_space(typ)
    if t in DIM_TYPES:
        return "CUA_FMT_DIM3", None
    if t in ("CUuuid", "const CUuuid *", "cudaUUID_t"):
        return "CUA_FMT_UUID", None
    if t == "const char *" and (api.elf_name, name) not in policy["nostring"]:
        return "CUA_FMT_STRING", None
    if "*" not in t and "deviceptr" in t.lower():
        return "CUA_FMT_HEX", None
    if t in enums:
        return "CUA_FMT_AUTO", t
    return "CUA_FMT_AUTO", None


def xyz_groups(params):
    """Consecutive integer parameters named PX, PY, PZ (gridDimX, gridDimY, gridDimZ): index of
    the X -> the label they print under ('grid'), and the indexes of Y and Z."""
    labels, hidden = {}, set()
    for i in range(len(params) - 2):
        names = [params[i + k][1] for k in range(3)]
        if any("*" in params[i + k][0] for k in range(3)):
            continue
        m = re.match(r"^(\w+)X$", names[0])
        if m and names[1] == m.group(1) + "Y" and names[2] == m.group(1) + "Z":
            label = re.sub(r"Dim$", "", m.group(1)) or m.group(1)
            labels[i] = label
            hidden.update((i + 1, i + 2))
    return labels, hidden


def arg_desc(a, i, policy, enum_index):
    """One cua_arg_desc initialiser: name, layout, class, how it prints, and for an
    out-parameter how its value after the call prints."""
    typ, name, _ = a.params[i]
    s = f"struct cuaudit_args_{a.elf_name}"
    m = f"(({s} *)0)->{name}"
    labels, hidden = xyz_groups(a.params)
    fmt, enum = value_fmt(typ, a, name, policy, a.enums)
    label = name
    if i in labels:
        fmt, label = "CUA_FMT_XYZ", labels[i]
    elif i in hidden:
        fmt = "CUA_FMT_SKIP"
    pointee = out_pointee(a, typ, name, policy)
    out = "CUA_NOT_OUT"
    if pointee is not None:
        ofmt, enum = value_fmt(pointee, a, "", policy, a.enums)
        if norm_space(pointee) == "const char *":
            ofmt = "CUA_FMT_STRING"
        out = f"CUA_OUT_ARG({m}, {ofmt})"
    names = 0
    if enum is not None:
        names = enum_index.setdefault(enum, (len(enum_index), a.enums[enum]))[0] + 1
    return (f"\t{{ {c_str(label)}, offsetof({s}, {name}), sizeof({m}), "
            f"CUA_ARG_CLASS({m}), CUA_ARG_SIGNED({m}), {fmt}, {out}, {names} }},")


def emit_table(apis, results_by_layer, note, policy):
    out = [f"/* SPDX-License-Identifier: MIT */",
           f"/* {note} */",
           "#include <stddef.h>",
           '#include "cuaudit_ids.h"',
           '#include "cuaudit_args.h"',
           '#include "table.h"',
           ""]
    enum_index = {}
    for a in apis:
        if not a.params:
            continue
        out.append(f"static const struct cua_arg_desc args_{a.elf_name}[] = {{")
        for i in range(len(a.params)):
            out.append(arg_desc(a, i, policy, enum_index))
        out.append("};")
    out.append("")
    out.append("const struct cua_api_desc cua_api[CUAUDIT_ID_COUNT] = {")
    for a in apis:
        layer = "CUAUDIT_LAYER_DRIVER" if a.layer == "driver" else "CUAUDIT_LAYER_RUNTIME"
        args = f"args_{a.elf_name}" if a.params else "NULL"
        out.append(f"\t{{ {c_str(a.elf_name)}, {c_str(a.api_name)}, {a.version}, {a.flavour}, "
                   f"{layer}, {len(a.params)}, {ret_class(a.ret)}, {args} }},")
    out.append("};")
    out.append("")
    for layer, results in sorted(results_by_layer.items()):
        out.append(f"const struct cua_result_name cua_results_{layer}[] = {{")
        for nm, val in sorted(results, key=lambda t: t[1]):
            out.append(f"\t{{ {val}, {c_str(nm)} }},")
        out.append("};")
        out.append(f"const unsigned cua_results_{layer}_count = {len(results)};")
        out.append("")
    out.append("/* The enums arguments are typed with, for printing them by name; values sorted. */")
    ordered = sorted(enum_index.items(), key=lambda t: t[1][0])
    for name, (idx, consts) in ordered:
        out.append(f"static const struct cua_enum_value enum_{idx}[] = {{ /* {name} */")
        for nm, val in consts:
            out.append(f"\t{{ {val}ll, {c_str(nm)} }},")
        out.append("};")
    out.append(f"const struct cua_enum_desc cua_enums[] = {{")
    for name, (idx, consts) in ordered:
        out.append(f"\t{{ {c_str(name)}, {len(consts)}, enum_{idx} }},")
    if not ordered:
        out.append("\t{ \"\", 0, NULL },")
    out.append("};")
    out.append(f"const unsigned cua_enums_count = {len(ordered)};")
    out.append("")
    return "\n".join(out)
