# SPDX-License-Identifier: MIT
"""gen/emit_mock.py: writes mock_cudart_stubs.c, the test mock runtime's weak stub for every
libcudart export."""

from emit_common import c_str


def emit_mock_runtime_stubs(apis, undescribed, note, headers):
    """The test mock runtime's fallback for every libcudart export: a weak definition that
    says once, on stderr, that the mock lacks the function, and fails with
    cudaErrorNotSupported (zeros where the result is no cudaError_t). The mock's own
    definitions of the same names are strong and win at link time, so no list of what the
    mock implements is kept anywhere: a program calling any runtime function gets a CUDA
    error, never the loader's "undefined symbol"."""
    out = ["/* SPDX-License-Identifier: MIT */",
           f"/* {note} */",
           "#define __CUDA_API_VERSION_INTERNAL"] + [f"#include <{h}>" for h in headers] + [
           "#include <string.h>",
           "",
           '#pragma GCC diagnostic ignored "-Wunused-parameter"',
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
           "",
           "/* tests/mock/libcudart.c: counts the call, says so once, sets the last error. */",
           "cudaError_t mock_rt_unsupported(const char *elf_name, int *said);",
           "",
           "#define MOCK_STUB __attribute__((weak, visibility(\"default\")))",
           ""]
    for a in apis:
        if a.layer != "runtime":
            continue
        ptypes = ", ".join(decl for _, _, decl in a.params) or "void"
        out.append(f"MOCK_STUB {a.ret} {a.elf_name}({ptypes})")
        out.append("{")
        out.append("	static int said;")
        if a.ret == "cudaError_t":
            out.append(f"	return mock_rt_unsupported({c_str(a.elf_name)}, &said);")
        elif a.ret == "void":
            out.append(f"	mock_rt_unsupported({c_str(a.elf_name)}, &said);")
        else:
            out.append(f"	{a.ret} r;")
            out.append(f"	mock_rt_unsupported({c_str(a.elf_name)}, &said);")
            out.append("	memset(&r, 0, sizeof(r));")
            out.append("	return r;")
        out.append("}")
        out.append("")
    out.append("/* Exports no header gives a prototype for (interop with graphics APIs whose")
    out.append("   headers are not read): an integer result is what their callers test. */")
    for n in undescribed:
        out.append(f"MOCK_STUB int {n}(void)")
        out.append("{")
        out.append("	static int said;")
        out.append(f"	return (int)mock_rt_unsupported({c_str(n)}, &said);")
        out.append("}")
        out.append("")
    return "\n".join(out)
