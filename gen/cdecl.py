# SPDX-License-Identifier: MIT
"""gen/cdecl.py: reads C declarations from the preprocessed toolkit headers: prototypes, typedefs,
enums and the PFN_ typedef versions."""

import os
import re
import subprocess
import tempfile

from model import GenError


def preprocess(cc, include_dirs, headers, defines):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.c")
        with open(src, "w") as f:
            for d in defines:
                f.write(f"#define {d}\n")
            for h in headers:
                f.write(f"#include <{h}>\n")
        cmd = [cc, "-E", "-P"] + [f"-I{d}" for d in include_dirs] + [src]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise GenError("preprocessing failed: " + " ".join(cmd) + "\n" + res.stderr)
        return res.stdout


def strip_attributes(text):
    """Removes __attribute__((...)) and a few GNU keywords that carry no type information."""
    out = []
    i = 0
    pat = re.compile(r"__attribute__\s*\(")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        j = m.end() - 1
        depth = 0
        while j < len(text):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    text = "".join(out)
    text = re.sub(r"\b__extension__\b", " ", text)
    text = re.sub(r"\b__restrict\b", " ", text)
    return text


def split_top(text, sep=","):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def norm_space(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s*\*\s*", " *", s)
    s = s.replace("* *", "**").replace("* *", "**")
    return s.strip()


def parse_param(text, index):
    """Returns (type_text, name, decl_text) for one parameter."""
    text = norm_space(text)
    fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", text)
    if fp:
        return text, fp.group(1), text
    if "[" in text:
        raise GenError(f"array parameter not supported: {text}")
    m = re.match(r"^(.*?[\s\*])(\w+)$", text)
    keywords = {"int", "char", "long", "short", "unsigned", "signed", "void", "float", "double",
                "const", "size_t"}
    if m and m.group(2) not in keywords and m.group(1).strip() not in ("", "const", "struct",
                                                                       "enum"):
        typ = norm_space(m.group(1))
        return typ, m.group(2), f"{typ} {m.group(2)}".replace("* ", "*")
    name = f"arg{index}"
    return text, name, f"{text} {name}".replace("* ", "*")


def parse_params(text):
    text = text.strip()
    if text in ("", "void"):
        return []
    return [parse_param(p, i) for i, p in enumerate(split_top(text))]


def brace_depths(text):
    depth, out = 0, bytearray(len(text))
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        out[i] = min(depth, 255)
        if ch == "}":
            depth -= 1
    return out


def find_prototypes(text, names):
    """Maps each ELF name to (return_type, params) from its top-level declaration."""
    depths = brace_depths(text)
    found = {}
    wanted = set(names)
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
        name = m.group(1)
        if name not in wanted or name in found or depths[m.start()] != 0:
            continue
        # Return type: back to the previous ';', '}' or '{' at depth 0.
        j = m.start() - 1
        while j >= 0 and text[j] not in ";}{":
            j -= 1
        ret = text[j + 1:m.start()]
        if "(" in ret or ")" in ret or "=" in ret or "#" in ret:
            continue
        ret = re.sub(r"\b(extern|static|inline|__inline)\b", " ", ret)
        # Parameters: to the matching ')'.
        k, depth = m.end() - 1, 0
        while k < len(text):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        rest = text[k + 1:k + 200].lstrip()
        if not rest.startswith(";"):
            continue  # a definition or a call, not a declaration
        found[name] = (norm_space(ret), parse_params(text[m.end():k]))
    return found


def top_level_statements(text):
    """Splits C text at ';' outside braces and parentheses."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif ch == ";" and depth == 0:
            out.append(text[start:i + 1].strip())
            start = i + 1
    return out


def typedef_names(text):
    """Maps each typedef name to its defining statement, in order."""
    out = {}
    for st in top_level_statements(text):
        if not st.startswith("typedef"):
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", st)
        name = fp.group(1) if fp else re.search(r"(\w+)\s*(\[[^\]]*\])?\s*;$", st).group(1)
        out.setdefault(name, st)
    return out


def internal_only_typedefs(internal_text, public_text, used_text):
    """Typedefs cuda.h declares only under __CUDA_API_VERSION_INTERNAL that the argument structs
    use, with what they depend on, in header order."""
    internal = typedef_names(internal_text)
    public = typedef_names(public_text)
    extra = [n for n in internal if n not in public]
    needed, changed = set(), True
    while changed:
        changed = False
        for n in extra:
            if n in needed:
                continue
            if re.search(r"\b" + n + r"\b", used_text) or any(
                    re.search(r"\b" + n + r"\b", internal[m]) for m in needed):
                needed.add(n)
                changed = True
    return [internal[n] for n in extra if n in needed]


def cxx_prototypes(paths, names):
    """Prototypes of extern "C" functions in C++-only headers (nvcc's __cuda* entry points).
    Read from the raw text: these headers do not preprocess as C. Default arguments are
    dropped; the types they use (dim3, uint3, cudaKernel_t) are plain C types."""
    wanted, found = set(names), {}
    decl = re.compile(r'(?:extern\s+(?:"C"\s+)?)?((?:__host__|__device__|\s)*)'
                      r'([A-Za-z_][\w\s\*]*?)\s*\bCUDARTAPI\s+(__cuda\w+)\s*\(([^;{}]*?)\)\s*;')
    for path in paths:
        with open(path) as f:
            text = re.sub(r"//[^\n]*", "", f.read())
        for m in decl.finditer(text):
            name = m.group(3)
            if name not in wanted or name in found:
                continue
            params = re.sub(r"\s*=\s*[^,]+", "", m.group(4))
            ret = re.sub(r"\b(extern|__host__|__device__)\b", " ", m.group(2))
            found[name] = (norm_space(ret), parse_params(params))
    return found


def parse_enum(text, enum_tag):
    """Constants of 'enum <tag> { ... }' in declaration order, first name per value."""
    m = re.search(r"enum\s+" + re.escape(enum_tag) + r"\s*\{(.*?)\}", text, re.S)
    if not m:
        raise GenError(f"enum {enum_tag} not found in the headers")
    out, seen, value = [], set(), -1
    for item in split_top(m.group(1)):
        if not item:
            continue
        if "=" in item:
            nm, expr = [s.strip() for s in item.split("=", 1)]
            try:
                value = int(expr, 0)
            except ValueError:
                raise GenError(f"enum {enum_tag}: cannot evaluate {item!r}")
        else:
            nm = item.strip()
            value += 1
        if value not in seen:
            seen.add(value)
            out.append((nm, value))
    return out


def parse_typedef_versions(text):
    """(api_name, flavour) -> sorted list of (version, param_count) from PFN_ typedefs."""
    groups = {}
    for m in re.finditer(r"typedef\s+[\w\s\*]+?\(\s*\*\s*PFN_(\w+)\s*\)\s*\(([^;]*)\)\s*;", text):
        tm = re.match(r"^(\w+?)_v(\d+)(_ptds|_ptsz)?$", m.group(1))
        if not tm:
            continue
        key = (tm.group(1), tm.group(3) or "")
        groups.setdefault(key, []).append((int(tm.group(2)), len(parse_params(m.group(2)))))
    return {k: sorted(set(v)) for k, v in groups.items()}


def split_elf_name(elf_name):
    """'cuMemcpyHtoD_v2_ptds' -> ('cuMemcpyHtoD', 2, '_ptds')."""
    flav = ""
    m = re.match(r"^(.*?)(_ptds|_ptsz)$", elf_name)
    if m:
        elf_name, flav = m.group(1), m.group(2)
    m = re.match(r"^(.*?)_v(\d+)$", elf_name)
    if m:
        return m.group(1), int(m.group(2)), flav
    return elf_name, 1, flav


INT_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")


def eval_enum_expr(expr, known):
    """Value of an enumerator's initialiser: integers, known names and C operators; None if
    it uses anything else."""
    expr = INT_SUFFIX.sub(r"\1", expr.strip())
    expr = re.sub(r"\(\s*(?:unsigned\s+)?(?:int|long|long\s+long)\s*\)", " ", expr)

    def name(m):
        n = m.group(0)
        if re.match(r"^0[xX]", n) or n.isdigit():
            return n
        if n in known:
            return f"({known[n]})"
        raise KeyError(n)
    try:
        expr = re.sub(r"\b[A-Za-z_]\w*\b|\b0[xX][0-9a-fA-F]+\b", name, expr)
    except KeyError:
        return None
    if not re.fullmatch(r"[0-9a-fA-FxX\s()|&^~+\-*<>]*", expr):
        return None
    try:
        return int(eval(expr, {"__builtins__": {}}, {}))
    except Exception:
        return None


def all_enums(text):
    """Maps each enum type name ('CUdevice_attribute', 'enum cudaMemcpyKind') to its constants
    [(name, value)] in value order, first name per value. Enums whose values cannot be
    evaluated are left out: their arguments print as numbers."""
    known, by_tag, out = {}, {}, {}
    for m in re.finditer(r"(typedef\s+)?enum\s+(\w+)?\s*\{([^{}]*)\}\s*(\w*)\s*;", text):
        items, value, ok = [], -1, True
        for item in split_top(m.group(3)):
            if not item:
                continue
            if "=" in item:
                nm, expr = [x.strip() for x in item.split("=", 1)]
                v = eval_enum_expr(expr, known)
                if v is None:
                    ok = False
                    break
                value = v
            else:
                nm = item.strip()
                value += 1
            known[nm] = value
            items.append((nm, value))
        if not ok:
            continue
        seen, consts = set(), []
        for nm, v in items:
            if v not in seen:
                seen.add(v)
                consts.append((nm, v))
        consts.sort(key=lambda t: t[1])
        if m.group(2):
            by_tag[m.group(2)] = consts
            out["enum " + m.group(2)] = consts
        if m.group(1) and m.group(4):
            out[m.group(4)] = consts
    for m in re.finditer(r"typedef\s+enum\s+(\w+)\s+(\w+)\s*;", text):
        if m.group(1) in by_tag:
            out.setdefault(m.group(2), by_tag[m.group(1)])
    return out
