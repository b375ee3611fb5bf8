# SPDX-License-Identifier: MIT
"""gen/emit_wrappers.py: writes cua_gen_wrappers.c: each function's wrapper body, its entry point
per binding kind, and the entry table."""

from emit_common import generated_head, ret_class
from emit_roles import launch_func
from model import GenError


KINDS = ["plt", "bindnow", "dlsym", "procaddress", "got", "entry"]
ENTRY_KIND = KINDS.index("entry")


SCALAR_RETURNS = {"int", "unsigned", "unsigned int", "size_t", "char", "unsigned char", "long",
                  "unsigned long", "long long", "unsigned long long"}


def procaddress_call(a, policy):
    """For functions that hand out driver pointers: the call that swaps *pointer for its
    wrapper after a successful real call, as a function of the argument prefix."""
    spec = policy["procaddress"].get(a.elf_name)
    if not spec:
        return None
    names = {n for _, n, _ in a.params}
    for s in spec:
        if s != "-" and s not in names:
            raise GenError(f"policy: {a.elf_name} has no parameter {s}")
    sym, ptr, ver, flags = spec

    def call(prefix, result):
        v = f"(long){prefix}{ver}" if ver != "-" else "-1L"
        return (f"cua_procaddress_wrap({prefix}{sym}, {v}, (uint64_t){prefix}{flags}, "
                f"{prefix}{ptr}, {result})")
    return call


def live_launch(a, roles):
    """A launch's first lines: the live view publishes its kernel's name at the key's first
    launch (rt/livefmt.h, cua_live_launch), before the call's record, so that a first launch
    that hangs is named; one look a launch, in the launch wrappers alone."""
    if roles.get(a.elf_name, ("plain",))[0] != "launch":
        return []
    f, kind = launch_func(a)
    space = "CUA_KERNELNAMES_HOSTS" if kind == "CUAUDIT_FUNC_HOST" else "CUA_KERNELNAMES_HANDLES"
    ask = "1" if a.layer == "driver" else "0"
    return ["\tif (CUA_UNLIKELY(cua_live_on))",
            f"\t\tcua_live_launch({space}, (uint64_t)(uintptr_t){f}, {ask});"]


def wrapper_for(a, policy, roles):
    pfn = f"cua_pfn_{a.elf_name}"
    ptypes = ", ".join(decl for _, _, decl in a.params) or "void"
    names = ", ".join(n for _, n, _ in a.params)
    anames = ", ".join(f"a.{n}" for _, n, _ in a.params)
    idc = f"CUAUDIT_ID_{a.elf_name}"
    rc = ret_class(a.ret)
    kparams = "unsigned cua_bind_kind" + (", " + ptypes if a.params else "")
    kargs = lambda k: str(k) + (", " + names if a.params else "")
    post = procaddress_call(a, policy)
    out = [f"typedef {a.ret} (*{pfn})({ptypes});"]
    if not a.from_cxx:
        out.append(f"CUA_CHECK_PROTOTYPE({a.elf_name}, {pfn});")
    if a.elf_name in policy["handwritten"]:
        out.append(f"{a.ret} cua_hw_{a.elf_name}({kparams});")
    else:
        out.append(f"static CUA_COLD {a.ret} cua_w_{a.elf_name}({kparams})")
        out.append("{")
        if a.params:
            out.append(f"\tstruct cuaudit_args_{a.elf_name} a = {{ {names} }};")
            argp, argn = "&a", "sizeof(a)"
        else:
            argp, argn = "NULL", "0"
        out.append("\tstruct cua_call c;")
        out.append("\tstruct cua_frame cua_f;")
        out += live_launch(a, roles)
        # Only a runtime function can be reached through a patched entry.
        slot = (f"CUA_REAL_OF(cua_bind_kind, {idc})" if a.layer == "runtime" else f"cua_real[{idc}]")
        call = f"(({pfn}){slot})({anames})"
        if rc == "CUA_RET_VOID":
            out.append(f"\tif (cua_dispatch_enter(&c, &cua_f, {idc}, cua_bind_kind, {argp}, {argn}))")
            out.append(f"\t\t{call};")
            out.append("\tcua_dispatch_exit(&c, &cua_f);")
        elif rc == "CUA_RET_OTHER" and a.ret not in SCALAR_RETURNS:
            # A struct result cannot travel through the 64-bit result slot.
            out.append(f"\t{a.ret} r = {{ 0 }};")
            out.append(f"\tif (cua_dispatch_enter(&c, &cua_f, {idc}, cua_bind_kind, {argp}, {argn}))")
            out.append(f"\t\tr = {call};")
            out.append("\tcua_dispatch_exit(&c, &cua_f);")
            out.append("\treturn r;")
        elif rc == "CUA_RET_PTR":
            out.append(f"\tif (cua_dispatch_enter(&c, &cua_f, {idc}, cua_bind_kind, {argp}, {argn}))")
            out.append(f"\t\tc.pub.result = (uint64_t)(uintptr_t){call};")
            out.append("\tcua_dispatch_exit(&c, &cua_f);")
            out.append(f"\treturn ({a.ret})(uintptr_t)c.pub.result;")
        elif post:
            out.append(f"\tif (cua_dispatch_enter(&c, &cua_f, {idc}, cua_bind_kind, {argp}, {argn})) {{")
            out.append(f"\t\tc.pub.result = (uint64_t)(int64_t){call};")
            out.append(f"\t\t{post('a.', '(int)c.pub.result')};")
            out.append("\t}")
            out.append("\tcua_dispatch_exit(&c, &cua_f);")
            out.append(f"\treturn ({a.ret})c.pub.result;")
        else:
            out.append(f"\tif (cua_dispatch_enter(&c, &cua_f, {idc}, cua_bind_kind, {argp}, {argn}))")
            out.append(f"\t\tc.pub.result = (uint64_t)(int64_t){call};")
            out.append("\tcua_dispatch_exit(&c, &cua_f);")
            out.append(f"\treturn ({a.ret})c.pub.result;")
        out.append("}")
    # The last entry has no hook check: handed out when nothing subscribed (cua_active is
    # fixed before the first binding), it costs the indirect jump alone.
    raw = len(KINDS)
    ret_kw = "" if rc == "CUA_RET_VOID" else "return "
    out.append(f"CUA_ENTRY_FN {a.ret} cua_e{raw}_{a.elf_name}({ptypes})")
    out.append("{")
    if a.elf_name in policy["handwritten"]:
        out.append(f"\t{ret_kw}cua_hw_{a.elf_name}({kargs(raw)});")
    elif post:
        out.append(f"\t{a.ret} r = (({pfn})cua_real[{idc}])({names});")
        out.append(f"\t{post('', '(int)r')};")
        out.append("\treturn r;")
    else:
        out.append(f"\t{ret_kw}(({pfn})cua_real[{idc}])({names});")
    out.append("}")
    for k in range(len(KINDS)):
        # A patched entry's island has just pushed its copy: pop it first,
        # and carry it in the kind, so that the real function is this copy's own.
        per_copy = k == ENTRY_KIND and a.layer == "runtime"
        real = "cua_real_entry[cua_copy]" if per_copy else "cua_real"
        kk = f"{k}u | cua_copy << CUA_KIND_BITS" if per_copy else str(k)
        kargs_k = kk + (", " + names if a.params else "")
        out.append(f"CUA_ENTRY_FN {a.ret} cua_e{k}_{a.elf_name}({ptypes})")
        out.append("{")
        if per_copy:
            out.append("\tunsigned cua_copy = cua_entry_take();")
        ret_kw = "" if rc == "CUA_RET_VOID" else "return "
        if a.elf_name in policy["handwritten"]:
            out.append(f"\t{ret_kw}cua_hw_{a.elf_name}({kargs_k});")
        elif post:
            out.append("\tif (CUA_UNLIKELY(cua_active))")
            out.append(f"\t\treturn cua_w_{a.elf_name}({kargs_k});")
            out.append(f"\t{a.ret} r = (({pfn}){real}[{idc}])({names});")
            out.append(f"\t{post('', '(int)r')};")
            out.append("\treturn r;")
        else:
            out.append("\tif (CUA_LIKELY(!cua_active))")
            out.append(f"\t\t{ret_kw}(({pfn}){real}[{idc}])({names});")
            out.append("\telse")
            out.append(f"\t\t{ret_kw}cua_w_{a.elf_name}({kargs_k});")
        out.append("}")
    return "\n".join(out)


def emit_wrappers(apis, note, includes, policy, roles):
    out = generated_head(note, includes) + [
            '#include "dispatch.h"',
            '#include "kernelnames.h"',
            '#include "procaddress.h"',
            "",
            "/* The prototypes are checked against the headers, deprecated ones included. */",
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
            "/* The frame's counter fields are set and read only on the counter path",
            "   (rt/dispatch.h); GCC cannot tell from the plan bit. */",
            "#if defined(__GNUC__) && !defined(__clang__)",
            '#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"',
            "#endif",
            "",
            "/* Compiled in CUA_WRAPPERS_PARTS pieces (CMakeLists.txt: a small file per piece",
            "   defines CUA_WRAPPERS_PART and includes this one), so that a build on several cores",
            "   compiles them at once; piece 0 holds the table. Alone, this file is the whole. */",
            "#ifndef CUA_WRAPPERS_PARTS",
            "#define CUA_WRAPPERS_PARTS 1",
            "#define CUA_WRAPPERS_PART 0",
            "#endif",
            "#if CUA_WRAPPERS_PARTS > 1",
            '#define CUA_ENTRY_FN __attribute__((visibility("hidden")))',
            "#else",
            "#define CUA_ENTRY_FN static",
            "#endif",
            ""]
    for i, a in enumerate(apis):
        out.append(f"#if {i} % CUA_WRAPPERS_PARTS == CUA_WRAPPERS_PART")
        out.append(wrapper_for(a, policy, roles))
        out.append("#endif")
        out.append("")
    out.append("#if CUA_WRAPPERS_PART == 0")
    out.append("#if CUA_WRAPPERS_PARTS > 1")
    for a in apis:
        ptypes = ", ".join(decl for _, _, decl in a.params) or "void"
        for k in range(len(KINDS) + 1):
            out.append(f"CUA_ENTRY_FN {a.ret} cua_e{k}_{a.elf_name}({ptypes});")
    out.append("#endif")
    out.append(f"const void *const cua_entry[CUA_KIND_COUNT + 1][CUAUDIT_ID_COUNT] = {{")
    for k, kind in enumerate(KINDS + ["raw: no hook subscribed"]):
        out.append(f"\t/* {kind} */ {{")
        for a in apis:
            out.append(f"\t\t(const void *)cua_e{k}_{a.elf_name},")
        out.append("\t},")
    out.append("};")
    out.append("#endif")
    out.append("")
    return "\n".join(out)
