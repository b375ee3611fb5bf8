# SPDX-License-Identifier: MIT
"""gen/emit_manifest.py: writes manifest.tsv (one row per wrapped function: names, version,
flavour, layer, argument count, role) and undescribed.txt."""

from model import FLAVOUR_NAMES


def emit_manifest(apis, roles):
    out = ["# elf_name\tapi_name\tversion\tflavour\tlayer\targc\trole"]
    for a in apis:
        out.append(f"{a.elf_name}\t{a.api_name}\t{a.version}\t{FLAVOUR_NAMES[a.flavour]}\t"
                   f"{a.layer}\t{len(a.params)}\t{roles[a.elf_name][0]}")
    return "\n".join(out) + "\n"


def emit_undescribed(undescribed):
    """undescribed.txt: the exports no header read gives a prototype for, one a line."""
    return "".join(f"{n}\n" for n in sorted(undescribed))
