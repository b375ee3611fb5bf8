# SPDX-License-Identifier: MIT
"""gen/emit_roles.py: writes cuaudit_roles.h (the role enum) and cua_gen_roles.c (each id's role
and the accessors that read a role's fields by parameter shape: launch, copy, memset, stream,
event, graph, kernel name, version)."""

import re

from cdecl import norm_space
from emit_common import generated_head, mem_path
from model import GenError
from policy import KNAME_FORMS, ROLES


def param_types(a):
    return {n: norm_space(t) for t, n, _ in a.params}


def first_param(a, *names):
    p = param_types(a)
    return next((n for n in names if n in p), None)


def config_kind(a):
    """'driver' for a CUlaunchConfig parameter, 'runtime' for a cudaLaunchConfig_t, else None."""
    t = param_types(a).get("config", "")
    if "CUlaunchConfig" in t:
        return "driver"
    if "cudaLaunchConfig" in t:
        return "runtime"
    return None


def stream_expr(a):
    s = first_param(a, "hStream", "stream")
    if s:
        return f"(void *)a->{s}"
    cfg = config_kind(a)
    if cfg:
        return f"(a->config ? (void *)a->config->{'hStream' if cfg == 'driver' else 'stream'} : NULL)"
    return None


def flavour_c(a):
    return "CUAUDIT_STREAM_PER_THREAD" if a.flavour else "CUAUDIT_STREAM_LEGACY"


def launch_func(a):
    """The launched function's parameter and its CUAUDIT_FUNC_* kind."""
    p = param_types(a)
    f = first_param(a, "f", "func", "kernel")
    if not f:
        raise GenError(f"{a.elf_name}: role launch, but no parameter f, func or kernel names "
                       f"the kernel; gen/ knows no such launch shape")
    t = p[f]
    kind = ("CUAUDIT_FUNC_CUKERNEL" if re.search(r"\b(CUkernel|cudaKernel_t)\b", t) else
            "CUAUDIT_FUNC_HOST" if a.layer == "runtime" else "CUAUDIT_FUNC_CUFUNCTION")
    return f, kind


def launch_body(a):
    p = param_types(a)
    f, kind = launch_func(a)
    out = [f"o->func = (const void *)a->{f};", f"o->func_kind = {kind};"]
    cfg = config_kind(a)
    for dim in ("grid", "block"):
        if all(f"{dim}Dim{c}" in p for c in "XYZ"):
            xyz = [f"a->{dim}Dim{c}" for c in "XYZ"]
        elif f"{dim}Dim" in p:
            xyz = [f"a->{dim}Dim.{c}" for c in "xyz"]
        elif dim == "grid" and "grid_width" in p:
            xyz = ["a->grid_width", "a->grid_height", "1"]
        else:
            xyz = None
        if xyz:
            out += [f"o->{dim}[{i}] = (unsigned)({e});" for i, e in enumerate(xyz)]
    sh = first_param(a, "sharedMemBytes", "sharedMem")
    if sh:
        out.append(f"o->shared_bytes = (unsigned)a->{sh};")
    s = first_param(a, "hStream", "stream")
    if s:
        out.append(f"o->stream = (void *)a->{s};")
    out.append(f"o->stream_flavour = {flavour_c(a)};")
    if "Cooperative" in a.elf_name:
        out.append("o->cooperative = 1;")
    if cfg:
        d = cfg == "driver"
        out += ["if (a->config) {"]
        if d:
            out += [f"\to->grid[{i}] = a->config->gridDim{c};" for i, c in enumerate("XYZ")]
            out += [f"\to->block[{i}] = a->config->blockDim{c};" for i, c in enumerate("XYZ")]
            out += ["\to->shared_bytes = a->config->sharedMemBytes;",
                    "\to->stream = (void *)a->config->hStream;"]
        else:
            out += [f"\to->grid[{i}] = a->config->gridDim.{c};" for i, c in enumerate("xyz")]
            out += [f"\to->block[{i}] = a->config->blockDim.{c};" for i, c in enumerate("xyz")]
            out += ["\to->shared_bytes = (unsigned)a->config->dynamicSmemBytes;",
                    "\to->stream = (void *)a->config->stream;"]
        # CU_LAUNCH_ATTRIBUTE_COOPERATIVE and cudaLaunchAttributeCooperative are both 2.
        val = "value" if d else "val"
        out += ["\tfor (unsigned i = 0; a->config->attrs && i < a->config->numAttrs; i++)",
                f"\t\tif ((int)a->config->attrs[i].id == 2 && a->config->attrs[i].{val}.cooperative)",
                "\t\t\to->cooperative = 1;",
                "}"]
    return out


def sum_loop(count, term):
    return [f"for (size_t i = 0; i < (size_t)({count}); i++)",
            f"\tcua_role_add(&o->bytes, {term});"]


def copy_body(a):
    p = param_types(a)
    name = a.elf_name
    out = []
    guard = None
    # Bytes.
    if "pCopy" in p:
        guard = "a->pCopy"
        dims = ["WidthInBytes", "Height"] + (["Depth"] if "3D" in name else [])
        out.append("o->bytes = " + " * ".join(f"(uint64_t)a->pCopy->{d}" for d in dims) + ";")
    elif "p" in p and "extent" not in p:
        guard = "a->p"
        out.append("o->bytes = (uint64_t)a->p->extent.width * a->p->extent.height * "
                   "a->p->extent.depth;")
    elif "sizes" in p and "count" in p:
        out += ["if (a->sizes)"] + ["\t" + l for l in sum_loop("a->count", "a->sizes[i]")]
    elif "opList" in p and "numOps" in p:
        out += ["if (a->opList)"] + ["\t" + l for l in sum_loop(
            "a->numOps", "(uint64_t)a->opList[i].extent.width * a->opList[i].extent.height * "
            "a->opList[i].extent.depth")]
    elif first_param(a, "ByteCount", "count"):
        out.append(f"o->bytes = (uint64_t)a->{first_param(a, 'ByteCount', 'count')};")
    elif "width" in p and "height" in p:
        out.append("o->bytes = (uint64_t)a->width * a->height;")
    else:
        raise GenError(f"{name}: role copy, but gen/ knows no shape that gives its bytes "
                       f"(parameters: {', '.join(p)})")
    # Direction.
    m = re.search(r"([HDA])to([HDA])", a.api_name)
    if "Peer" in name:
        kind = "CUAUDIT_COPY_PEER"
    elif m:
        side = lambda c: "H" if c == "H" else "D"
        kind = {"HD": "CUAUDIT_COPY_HTOD", "DH": "CUAUDIT_COPY_DTOH", "DD": "CUAUDIT_COPY_DTOD",
                "HH": "CUAUDIT_COPY_HTOH"}[side(m.group(1)) + side(m.group(2))]
    elif "kind" in p:
        kind = "cua_role_rt_kind((int)a->kind)"
    elif "pCopy" in p:
        kind = "cua_role_mtype_kind((int)a->pCopy->srcMemoryType, (int)a->pCopy->dstMemoryType)"
    elif "p" in p:
        kind = "cua_role_rt_kind((int)a->p->kind)"
    elif p.get("dst", "").startswith("CUdeviceptr") and "src" in p:
        kind = "CUAUDIT_COPY_DEFAULT"  # unified addressing: the driver finds the direction
    else:
        kind = "CUAUDIT_COPY_UNKNOWN"
    out.append(f"o->kind = {kind};")
    # Addresses.
    if "pCopy" in p:
        for side in ("dst", "src"):
            out.append(f"o->{side} = cua_role_mtype_addr((int)a->pCopy->{side}MemoryType, "
                       f"a->pCopy->{side}Host, (uint64_t)a->pCopy->{side}Device, "
                       f"(const void *)a->pCopy->{side}Array);")
    elif "p" in p:
        for side in ("dst", "src"):
            out.append(f"o->{side} = a->p->{side}Array ? (const void *)a->p->{side}Array : "
                       f"(const void *)a->p->{side}Ptr.ptr;")
    else:
        for side in ("dst", "src"):
            q = first_param(a, side, f"{side}Device", f"{side}Host", f"{side}Array")
            if q:
                out.append(f"o->{side} = (const void *)(uintptr_t)a->{q};")
    if guard:
        out = [f"if ({guard}) {{"] + ["\t" + l for l in out] + ["}"]
    s = first_param(a, "hStream", "stream")
    if s:
        out.append(f"o->stream = (void *)a->{s};")
    out.append(f"o->stream_flavour = {flavour_c(a)};")
    out.append(f"o->async = {1 if 'Async' in name else 0};")
    return out


def memset_body(a):
    p = param_types(a)
    m = re.search(r"D(?:2D)?(8|16|32)", a.api_name)
    elt = f" * {int(m.group(1)) // 8}" if m and m.group(1) != "8" else ""
    if "N" in p:
        out = [f"o->bytes = (uint64_t)a->N{elt};"]
    elif "Width" in p and "Height" in p:
        out = [f"o->bytes = (uint64_t)a->Width * a->Height{elt};"]
    elif "extent" in p:
        out = ["o->bytes = (uint64_t)a->extent.width * a->extent.height * a->extent.depth;"]
    elif "width" in p and "height" in p:
        out = ["o->bytes = (uint64_t)a->width * a->height;"]
    elif "count" in p:
        out = ["o->bytes = (uint64_t)a->count;"]
    else:
        raise GenError(f"{a.elf_name}: role memset, but gen/ knows no shape that gives its "
                       f"bytes (parameters: {', '.join(p)})")
    if "pitchedDevPtr" in p:
        out.append("o->dst = a->pitchedDevPtr.ptr;")
    else:
        q = first_param(a, "dstDevice", "devPtr")
        if q:
            out.append(f"o->dst = (void *)(uintptr_t)a->{q};")
    s = first_param(a, "hStream", "stream")
    if s:
        out.append(f"o->stream = (void *)a->{s};")
    out.append(f"o->stream_flavour = {flavour_c(a)};")
    out.append(f"o->async = {1 if 'Async' in a.elf_name else 0};")
    return out


def kname_body(a, spec, policy_path):
    form, params = spec
    fields = KNAME_FORMS[form]
    if len(params) != len(fields):
        raise GenError(f"{policy_path}: kname {a.elf_name} {form} wants {','.join(fields)}")
    p = param_types(a)
    out = [f"k->form = CUA_KNAME_{form.upper()};"]
    for field, param in zip(fields, params):
        if param not in p:
            raise GenError(f"policy: {a.elf_name} has no parameter {param}")
        if field == "key":
            out.append(f"k->key = (uintptr_t)a->{param};")
        elif field == "name":
            out.append(f"k->name = a->{param};")
        else:
            out.append(f"k->out = (const void *)a->{param};")
    return out


ROLE_HELPERS = """\
/* CUAUDIT_COPY_* from a cudaMemcpyKind (0 host-host .. 4 default). */
static inline int cua_role_rt_kind(int kind)
{
	static const int map[] = { CUAUDIT_COPY_HTOH, CUAUDIT_COPY_HTOD, CUAUDIT_COPY_DTOH,
				   CUAUDIT_COPY_DTOD, CUAUDIT_COPY_DEFAULT };
	return kind >= 0 && kind <= 4 ? map[kind] : CUAUDIT_COPY_UNKNOWN;
}

/* CUAUDIT_COPY_* from two CUmemorytype values (1 host, 2 device, 3 array, 4 unified). */
static inline int cua_role_mtype_kind(int src, int dst)
{
	if (src == 4 || dst == 4)
		return CUAUDIT_COPY_DEFAULT;
	if (src < 1 || src > 3 || dst < 1 || dst > 3)
		return CUAUDIT_COPY_UNKNOWN;
	if (src == 1)
		return dst == 1 ? CUAUDIT_COPY_HTOH : CUAUDIT_COPY_HTOD;
	return dst == 1 ? CUAUDIT_COPY_DTOH : CUAUDIT_COPY_DTOD;
}

/* The address a CUDA_MEMCPY2D/3D side names, by its memory type. */
static inline const void *cua_role_mtype_addr(int type, const void *host, uint64_t device,
					      const void *array)
{
	return type == 1 ? host : type == 3 ? array : (const void *)(uintptr_t)device;
}

/* Adds to a byte count, saturating. */
static inline void cua_role_add(uint64_t *sum, uint64_t n)
{
	if (__builtin_add_overflow(*sum, n, sum))
		*sum = UINT64_MAX;
}
"""


def emit_roles_header(note):
    out = ["/* SPDX-License-Identifier: MIT */",
           f"/* {note} */",
           "#ifndef CUAUDIT_ROLES_H",
           "#define CUAUDIT_ROLES_H",
           "",
           '#include "cuaudit.h"',
           "",
           "#ifdef __cplusplus",
           'extern "C" {',
           "#endif",
           "",
           "/* What a call means, one role per ELF name, declared in gen/policy.tsv. The set",
           "   is closed and append-only; the accessors of cuaudit.h read each role's arguments. */",
           "enum cuaudit_role {"]
    for i, (r, doc) in enumerate(ROLES):
        out.append(f"\tCUAUDIT_ROLE_{r.upper()} = {i}, /* {doc} */")
    out += [f"\tCUAUDIT_ROLE_COUNT = {len(ROLES)}", "};", "",
            "/* The role of an id (0 <= id < CUAUDIT_ID_COUNT); CUAUDIT_ROLE_PLAIN out of range.",
            "   Thread-safe, a table read. Since 1.2. */",
            "CUAUDIT_API enum cuaudit_role cuaudit_role_of(unsigned id);", "",
            "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(out)


def emit_roles(apis, roles, note, includes, policy):
    out = generated_head(note, includes) + [
            "#include <errno.h>",
            '#include "cuaudit_roles.h"',
            '#include "roles.h"',
            "",
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
            "",
            ROLE_HELPERS,
            "const uint8_t cua_role[CUAUDIT_ID_COUNT] = {"]
    for a in apis:
        out.append(f"\tCUAUDIT_ROLE_{roles[a.elf_name][0].upper()}, /* {a.elf_name} */")
    out += ["};", ""]

    def switch(fn, params, cases, default="-EINVAL"):
        out.append(f"int {fn}({params})")
        out.append("{")
        out.append("\tswitch (id) {")
        for a, body in cases:
            out.append(f"\tcase CUAUDIT_ID_{a.elf_name}: {{")
            if a.params:
                out.append(f"\t\tconst struct cuaudit_args_{a.elf_name} *a = args;")
                out.append("")
            out.extend("\t\t" + l for l in body)
            out.append("\t\treturn 0;")
            out.append("\t}")
        out.append("\tdefault:")
        if not cases:
            out.append("\t\t(void)args;")
        for extra in params.split(", ")[2:]:
            if not cases:
                out.append(f"\t\t(void){extra.split()[-1].lstrip('*')};")
        out.append(f"\t\treturn {default};")
        out.append("\t}")
        out.append("}")
        out.append("")

    by_role = lambda r: [a for a in apis if roles[a.elf_name][0] == r]
    switch("cua_roles_launch", "unsigned id, const void *args, struct cuaudit_launch *o",
           [(a, launch_body(a)) for a in by_role("launch")])
    # The function alone, from the argument bytes only (no pointer followed): what a reader
    # of another process's copy of them (the live view) may call.
    switch("cua_roles_launch_func", "unsigned id, const void *args, const void **func, int *func_kind",
           [(a, [f"*func = (const void *)a->{launch_func(a)[0]};", f"*func_kind = {launch_func(a)[1]};"])
            for a in by_role("launch")])
    switch("cua_roles_copy", "unsigned id, const void *args, struct cuaudit_copy *o",
           [(a, copy_body(a)) for a in by_role("copy")])
    switch("cua_roles_memset", "unsigned id, const void *args, struct cuaudit_memset *o",
           [(a, memset_body(a)) for a in by_role("memset")])
    streams = []
    for a in apis:
        e = stream_expr(a)
        if e and roles[a.elf_name][0] != "plain":
            streams.append((a, [f"*stream = {e};", f"*flavour = {flavour_c(a)};"]))
    switch("cua_roles_stream", "unsigned id, const void *args, void **stream, int *flavour",
           streams)
    switch("cua_roles_graph_exec", "unsigned id, const void *args, void **graph_exec",
           [(a, [f"*graph_exec = (void *)a->{first_param(a, 'hGraphExec', 'hGraph', 'graphExec')};"])
            for a in by_role("graph_launch")
            if first_param(a, "hGraphExec", "hGraph", "graphExec")])
    switch("cua_roles_event", "unsigned id, const void *args, void **event",
           [(a, [f"*event = (void *)a->{first_param(a, 'hEvent', 'event')};"])
            for a in apis if roles[a.elf_name][0] in ("event_record", "sync")
            and first_param(a, "hEvent", "event")])
    by_name = {a.elf_name: a for a in apis}
    switch("cua_roles_kname", "unsigned id, const void *args, struct cua_kname *k",
           [(by_name[n], kname_body(by_name[n], policy["kname"][n], "policy"))
            for n in sorted(policy["kname"], key=lambda n: n.encode()) if n in by_name])
    vcases = []
    for n in sorted(policy["version"], key=lambda n: n.encode()):
        if n not in by_name:
            continue
        layer, path = policy["version"][n]
        if layer not in ("driver", "runtime"):
            raise GenError(f"policy: version {n}: the layer is driver or runtime, not {layer!r}")
        vcases.append((by_name[n], [f"*layer = CUAUDIT_LAYER_{layer.upper()};",
                                    f"*value = (const int *)a->{path.lstrip('*')};"]))
        mem_path(by_name[n], path)
    switch("cua_roles_version", "unsigned id, const void *args, int *layer, const int **value",
           vcases)
    return "\n".join(out)
