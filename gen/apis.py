# SPDX-License-Identifier: MIT
"""gen/apis.py: builds the list of wrapped functions of each layer (driver, runtime) from its
exports, its headers' prototypes and the typedef versions."""

import os

from cdecl import (all_enums, cxx_prototypes, find_prototypes, internal_only_typedefs,
                   parse_enum, parse_typedef_versions, preprocess, split_elf_name,
                   strip_attributes)
from exports import read_exports
from model import FLAVOURS, Api, GenError


def build_driver(args, policy):
    exports = read_exports(args.driver_exports)
    text = strip_attributes(preprocess(args.cc, args.include, args.driver_headers,
                                       ["__CUDA_API_VERSION_INTERNAL"]))
    tdtext = preprocess(args.cc, args.include, args.driver_typedefs,
                        ["__CUDA_API_VERSION_INTERNAL"])
    protos = find_prototypes(text, exports)
    tdv = parse_typedef_versions(tdtext)
    apis, undescribed = [], []
    for name in exports:
        if name in policy["skip"]:
            continue
        if name not in protos:
            undescribed.append(name)
            continue
        ret, params = protos[name]
        apis.append(Api(name, "driver", ret, params))
    # Pair each (api, flavour) group of ELF names with its typedef versions, oldest first.
    groups = {}
    for a in apis:
        base, num, flav = split_elf_name(a.elf_name)
        groups.setdefault((base, flav), []).append((num, a))
    for key, members in sorted(groups.items()):
        members.sort(key=lambda t: t[0])
        versions = tdv.get(key, [])
        if not versions:
            for _, a in members:
                a.api_name, a.flavour = key[0], FLAVOURS[key[1]]
            continue
        if len(versions) != len(members):
            raise GenError(
                f"{key[0]}{key[1]}: {len(members)} ELF variants "
                f"({', '.join(a.elf_name for _, a in members)}) but {len(versions)} typedef "
                f"versions ({', '.join(str(v) for v, _ in versions)}); fix the pairing in gen/")
        for (_, a), (ver, nparams) in zip(members, versions):
            if nparams != len(a.params):
                raise GenError(f"{a.elf_name}: prototype has {len(a.params)} parameters but "
                               f"PFN_{key[0]}_v{ver}{key[1]} has {nparams}")
            a.api_name, a.version, a.flavour = key[0], ver, FLAVOURS[key[1]]
    results = parse_enum(text, "cudaError_enum")
    enums = all_enums(text)
    for a in apis:
        a.enums = enums
    public = strip_attributes(preprocess(args.cc, args.include, args.driver_headers, []))
    used = "\n".join(decl for a in apis for _, _, decl in a.params)
    extra = internal_only_typedefs(text, public, used)
    return apis, undescribed, results, extra


def build_runtime(args, policy):
    exports = read_exports(args.runtime_exports)
    text = strip_attributes(preprocess(args.cc, args.include, args.runtime_headers,
                                       ["__CUDA_API_VERSION_INTERNAL"]))
    protos = find_prototypes(text, exports)
    cxx = cxx_prototypes([os.path.join(d, h) for h in args.runtime_cxx_headers
                          for d in args.include if os.path.exists(os.path.join(d, h))],
                         [n for n in exports if n not in protos])
    apis, undescribed = [], []
    for name in exports:
        if name in policy["skip"]:
            continue
        if name not in protos and name not in cxx:
            undescribed.append(name)
            continue
        ret, params = protos[name] if name in protos else cxx[name]
        a = Api(name, "runtime", ret, params)
        a.from_cxx = name not in protos
        base, _, flav = split_elf_name(name)
        a.api_name = name[: -len(flav)] if flav else name
        a.flavour = FLAVOURS[flav]
        apis.append(a)
    results = parse_enum(text, "cudaError")
    enums = all_enums(text)
    for a in apis:
        a.enums = enums
    return apis, undescribed, results
